/* sinfo - partitions and nodes the way Slurm's sinfo shows them.
 *
 * A partition is a queue (the default one marked '*'), its nodes those
 * that carry the queue's node_labels.  The default view is one line per
 * partition and node state; -N one line per node; -o/--format with the
 * common %-fields; -h/--noheader.
 */
#include <config.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cliopt.h"
#include "cli/slurm.h"
#include "common/client.h"
#include "common/hostlist.h"

#define PART_FORMAT "%9P %.5a %.10l %.6D %.6t %N"
#define NODE_FORMAT "%N %.6D %9P %.6t"

static const char *usage_text =
    "Usage: sinfo [-N] [-h|--noheader] [-p PARTITION] [-o|--format FORMAT]\n"
    "Shows hpcq's queues as partitions and its nodes.  FORMAT fields: %P %R %a %l\n"
    "%D %t %T %N %c %m %G.  See sinfo(1) and docs/compat.md.\n";

static json_t *rpc (const char *type, json_t *body)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    json_t *reply = NULL;

    if (!c || client_rpc (c, type, body, &reply, &err) < 0) {
        fprintf (stderr, "sinfo: error: %s\n", err.text);
        exit (1);
    }
    client_destroy (c);
    return reply;
}

/* Slurm's node state for pbsnodes' (and whether partly busy). */
static const char *node_state (json_t *n, int lng)
{
    const char *s = slurm_attr (n, "state");
    long long used = json_integer_value (json_object_get (n, "ncpus_used"));

    if (!strcmp (s, "down"))
        return lng ? "down" : "down";
    if (!strcmp (s, "offline"))
        return lng ? "drained" : "drain";
    if (!strcmp (s, "draining"))
        return lng ? "draining" : "drng";
    if (!strcmp (s, "job-busy"))
        return lng ? "allocated" : "alloc";
    return used > 0 ? (lng ? "mixed" : "mix") : "idle";
}

/* 1 if the comma-separated labels have all of want's. */
static int has_labels (const char *have, const char *want)
{
    for (const char *p = want; *p;) {
        size_t k = strcspn (p, ",");
        int found = 0;
        for (const char *h = have; *h && !found;) {
            size_t m = strcspn (h, ",");
            found = m == k && !strncmp (h, p, k);
            h += m + (h[m] == ',');
        }
        if (k && !found)
            return 0;
        p += k + (p[k] == ',');
    }
    return 1;
}

struct row {
    const char *part, *state;
    int dflt, avail;
    char limit[32];
    const char *hosts[1024];
    int n;
    json_t *first; /* a node of the row (for %c %m %G) */
};

static void field (char c, const struct row *r, char *buf, size_t len)
{
    switch (c) {
    case 'P': snprintf (buf, len, "%s%s", r->part, r->dflt ? "*" : ""); break;
    case 'R': snprintf (buf, len, "%s", r->part); break;
    case 'a': snprintf (buf, len, "%s", r->avail ? "up" : "down"); break;
    case 'l': snprintf (buf, len, "%s", r->limit); break;
    case 'D': snprintf (buf, len, "%d", r->n); break;
    case 't':
    case 'T': snprintf (buf, len, "%s", r->state); break;
    case 'N': hostlist_format (r->hosts, r->n, buf, len); break;
    case 'c':
        snprintf (buf, len, "%lld",
                  (long long)json_integer_value (json_object_get (r->first, "ncpus")));
        break;
    case 'm':
        snprintf (buf, len, "%lld",
                  (long long)(json_integer_value (json_object_get (r->first, "mem"))
                              >> 20));
        break;
    case 'G': {
        long long g = json_integer_value (json_object_get (r->first, "ngpus"));
        if (g)
            snprintf (buf, len, "gpu:%lld", g);
        else
            snprintf (buf, len, "(null)");
        break;
    }
    default: snprintf (buf, len, "%%%c", c); break;
    }
}

static const char *header_of (char c)
{
    switch (c) {
    case 'P':
    case 'R': return "PARTITION";
    case 'a': return "AVAIL";
    case 'l': return "TIMELIMIT";
    case 'D': return "NODES";
    case 't':
    case 'T': return "STATE";
    case 'N': return "NODELIST";
    case 'c': return "CPUS";
    case 'm': return "MEMORY";
    case 'G': return "GRES";
    default: return "?";
    }
}

static void print_line (const char *format, const struct row *r)
{
    char value[8192];

    for (const char *p = format; *p;) {
        int width, right;
        char c;
        if (*p != '%') {
            putchar (*p++);
            continue;
        }
        p += slurm_field_spec (p, &width, &right, &c);
        if (r)
            field (c, r, value, sizeof (value));
        slurm_put (r ? value : header_of (c), width, right);
    }
    putchar ('\n');
}

/* Partition q's rows: one per node state (or per node with -N). */
static void partition_rows (const char *format, const char *name, json_t *q, int dflt,
                            json_t *nodes, int per_node, const char *lng_fmt)
{
    static const char *order[] = { "idle",     "mix",     "alloc", "drng",
                                   "drain",    "down",    "mixed", "allocated",
                                   "draining", "drained", NULL };
    const char *labels = slurm_attr (q, "node_labels"), *w;
    json_t *res_max = json_object_get (q, "resources_max");
    int lng = strstr (lng_fmt, "%T") != NULL || strstr (lng_fmt, "T") != NULL;
    struct row r = { .part = name, .dflt = dflt };
    json_t *n;
    size_t i;

    r.avail = !strcmp (slurm_attr (q, "enabled"), "True")
              && !strcmp (slurm_attr (q, "started"), "True");
    w = res_max ? slurm_attr (res_max, "walltime") : "";
    if (!w[0])
        w = slurm_attr (q, "resources_max.walltime");
    if (w[0]) {
        int h = 0, m = 0, s = 0;
        sscanf (w, "%d:%d:%d", &h, &m, &s);
        slurm_duration ((long long)h * 3600 + m * 60 + s, r.limit, sizeof (r.limit));
    } else
        snprintf (r.limit, sizeof (r.limit), "infinite");
    (void)lng;
    for (int k = 0; order[k]; k++) {
        r.n = 0;
        r.state = order[k];
        json_array_foreach (nodes, i, n)
        {
            const char *st = node_state (n, strstr (format, "%T") != NULL);
            if (strcmp (st, order[k]) || !has_labels (slurm_attr (n, "labels"), labels))
                continue;
            if (r.n < 1024) {
                r.first = n;
                r.hosts[r.n++] = slurm_attr (n, "name");
            }
            if (per_node) {
                print_line (format, &r);
                r.n = 0;
            }
        }
        if (!per_node && r.n)
            print_line (format, &r);
    }
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "Node", no_argument, NULL, 'N' },
        { "noheader", no_argument, NULL, 'h' },
        { "partition", required_argument, NULL, 'p' },
        { "format", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = NULL, *only = NULL, *dflt, *name;
    int per_node = 0, noheader = 0, c;
    json_t *queues, *nodes, *q, *srv;

    cliopt_only (&(struct cliopt){ .prog = "sinfo", .kind = CLIOPT_SLURM }, argc, argv);
    opterr = 0;
    while ((c = getopt_long (argc, argv, "Nhp:o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'N': per_node = 1; break;
        case 'h': noheader = 1; break;
        case 'p': only = optarg; break;
        case 'o': format = optarg; break;
        case 'H': fputs (usage_text, stdout); return 0;
        default:
            fprintf (stderr,
                     "sinfo: unrecognized option '%s'\nTry \"sinfo --help\" for more "
                     "information\n",
                     argv[optind - 1]);
            return 1;
        }
    }
    if (!format)
        format = per_node ? NODE_FORMAT : PART_FORMAT;
    srv = rpc ("server.stat", NULL);
    queues = rpc ("queue.stat", NULL);
    nodes = rpc ("node.stat", json_pack ("{s:[]}", "names"));
    dflt = slurm_attr (srv, "default_queue");
    if (!noheader)
        print_line (format, NULL);
    json_object_foreach (json_object_get (queues, "queues"), name,
                         q) if (!only || !strcmp (only, name))
        partition_rows (format, name, q, !strcmp (name, dflt),
                        json_object_get (nodes, "nodes"), per_node, format);
    json_decref (srv);
    json_decref (queues);
    json_decref (nodes);
    return 0;
}

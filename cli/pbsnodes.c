/* pbsnodes - the nodes as PBS Pro's pbsnodes shows them, and taking them
 * out of service and back.
 *
 *   pbsnodes [-a] [-F json] [NODE...]      every node (or those named)
 *   pbsnodes -l                            the nodes down, offline or draining
 *   pbsnodes -o [-C COMMENT] NODE...       offline: running jobs finish, no new ones
 *   pbsnodes -r NODE...                    back in service
 *   pbsnodes --reclaim [--notice SECONDS] NODE...
 *                                          their provider takes them back then
 *
 * Anyone may look; only operators (root, the scheduler's user, the
 * scheduler's managers and operators) may change a node.
 */
#include <config.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cliopt.h"
#include "common/client.h"
#include "common/resource.h"
#include "common/topoinfo.h"

static const char usage_text[] =
    "Usage: pbsnodes [-a] [-F json] [NODE...]\n"
    "       pbsnodes -v NODE...\n"
    "       pbsnodes -a -S [-j] [NODE...]\n"
    "       pbsnodes -l\n"
    "       pbsnodes -o [-C COMMENT] NODE...\n"
    "       pbsnodes -r NODE...\n"
    "       pbsnodes --reclaim [--notice SECONDS] NODE...\n"
    "Shows the nodes (state, resources, jobs); -S one line each, -j with their\n"
    "jobs and what is free of the total; -o takes nodes out of service\n"
    "(their jobs finish, no new ones start), -r puts them back; --reclaim says\n"
    "their provider takes them back in SECONDS (default 120): they drain, their\n"
    "jobs checkpoint and move.  See pbsnodes(8).\n";

static json_t *rpc (const char *type, json_t *body)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    json_t *reply = NULL;

    if (!c || client_rpc (c, type, body, &reply, &err) < 0) {
        fprintf (stderr, "pbsnodes: %s\n", err.text);
        exit (1);
    }
    client_destroy (c);
    return reply;
}

static json_t *names_of (int argc, char **argv)
{
    json_t *a = json_array ();

    for (int i = 0; i < argc; i++)
        json_array_append_new (a, json_string (argv[i]));
    return a;
}

static const char *str (json_t *o, const char *key)
{
    const char *s = json_string_value (json_object_get (o, key));
    return s ? s : "";
}

static json_int_t num (json_t *o, const char *key)
{
    return json_integer_value (json_object_get (o, key));
}

static void print_gpus (json_t *gpus)
{
    json_t *g, *m;
    size_t i, k;

    json_array_foreach (gpus, i, g)
    {
        char mem[32];
        resource_format_size (num (g, "mem"), mem, sizeof (mem));
        printf ("     gpu.%zu = %s mem=%s%s%s%s\n", i, str (g, "model"), mem,
                json_is_true (json_object_get (g, "simulated")) ? " (simulated)" : "",
                json_is_true (json_object_get (g, "used")) ? " in use" : "",
                json_array_size (json_object_get (g, "mig")) ? " MIG:" : "");
        json_array_foreach (json_object_get (g, "mig"), k, m)
            printf ("     gpu.%zu.mig.%zu = %s %s%s\n", i, k, str (m, "profile"),
                    str (m, "uuid"),
                    json_is_true (json_object_get (m, "used")) ? " in use" : "");
    }
}

/* resources_available.ib_hcas: the active InfiniBand ports, as UCX names
 * them (UCX_NET_DEVICES); then every port with its state. */
static void print_ib (json_t *n)
{
    json_t *ports = json_object_get (n, "ib"), *p;
    size_t i;

    if (!json_array_size (ports))
        return;
    printf ("     resources_available.ib_hcas = %s\n", str (n, "ib_hcas"));
    json_array_foreach (ports, i, p)
        printf ("     ib.%s:%lld = %s %s %s\n", str (p, "hca"),
                (long long)num (p, "port"), str (p, "state"), str (p, "link_layer"),
                str (p, "rate"));
}

/* The node's sockets, cores and threads, and each NUMA node's threads and
 * GPUs: where the worker binds jobs (worker/topo.h). */
static void print_topology (json_t *n)
{
    struct topoinfo t;
    char sum[128];

    if (topoinfo_from_json (json_object_get (n, "topology"), &t) < 0 || t.nnuma == 0)
        return;
    topoinfo_summary (&t, sum, sizeof (sum));
    printf ("     resources_available.sockets = %d\n", t.sockets);
    printf ("     topology = %s\n", sum);
    for (int i = 0; i < t.nnuma; i++)
        printf ("     topology.numa%d = socket %d, cpus %s%s%s\n", t.numa[i].os,
                t.numa[i].socket, t.numa[i].cpus, t.numa[i].gpus[0] ? ", gpus " : "",
                t.numa[i].gpus);
}

static void print_node (json_t *n)
{
    char mem[32], mem_used[32];
    json_t *j;
    size_t i;

    resource_format_size (num (n, "mem"), mem, sizeof (mem));
    resource_format_size (num (n, "mem_used"), mem_used, sizeof (mem_used));
    printf ("%s\n     Mom = %s\n     ntype = PBS\n     state = %s\n     pcpus = %lld\n",
            str (n, "name"), str (n, "name"), str (n, "state"),
            (long long)num (n, "ncpus"));
    if (json_array_size (json_object_get (n, "jobs"))) {
        printf ("     jobs = ");
        json_array_foreach (json_object_get (n, "jobs"), i, j)
            printf ("%s%s", i ? ", " : "", json_string_value (j));
        printf ("\n");
    }
    printf ("     resources_available.host = %s\n", str (n, "name"));
    printf ("     resources_available.mem = %s\n", mem);
    printf ("     resources_available.ncpus = %lld\n", (long long)num (n, "ncpus"));
    printf ("     resources_available.ngpus = %lld\n", (long long)num (n, "ngpus"));
    print_ib (n);
    print_topology (n);
    if (str (n, "container_runtime")[0])
        printf ("     resources_available.container_runtime = %s\n",
                str (n, "container_runtime"));
    printf ("     resources_assigned.mem = %s\n", mem_used);
    printf ("     resources_assigned.ncpus = %lld\n", (long long)num (n, "ncpus_used"));
    printf ("     resources_assigned.ngpus = %lld\n", (long long)num (n, "ngpus_used"));
    if (str (n, "labels")[0])
        printf ("     labels = %s\n", str (n, "labels"));
    if (str (n, "comment")[0])
        printf ("     comment = %s\n", str (n, "comment"));
    if (json_is_true (json_object_get (n, "spot")))
        printf ("     spot = True\n");
    if (json_is_true (json_object_get (n, "cloud")))
        printf ("     power_state = %s\n", str (n, "power"));
    print_gpus (json_object_get (n, "gpus"));
    printf ("\n");
}

/* A size as pbsnodes -S prints it: the largest unit that keeps the
 * number under 1000 ("2gb", "512mb"). */
static void summary_size (json_int_t bytes, char *buf, size_t len)
{
    static const char units[] = "kmgtp";
    json_int_t v = bytes / 1024;
    int u = 0;

    while (v > 999 && units[u + 1]) {
        v = (v + 512) >> 10;
        u++;
    }
    snprintf (buf, len, "%lld%cb", (long long)v, units[u]);
}

/* The job numbers of a node, "1,7" (the server part dropped, each once),
 * or "--". */
static void summary_jobs (json_t *n, char *buf, size_t len)
{
    json_t *j;
    size_t i, o = 0;

    buf[0] = '\0';
    json_array_foreach (json_object_get (n, "jobs"), i, j)
    {
        const char *id = json_string_value (j);
        int idlen = id ? (int)strcspn (id, "./") : 0;
        char one[128];
        snprintf (one, sizeof (one), "%.*s", idlen, id ? id : "");
        if (!one[0] || strstr (buf, one))
            continue;
        o += snprintf (buf + o, o < len ? len - o : 0, "%s%s", o ? "," : "", one);
    }
    if (!buf[0])
        snprintf (buf, len, "--");
}

/* -S and -S -j: PBS Pro's node summaries, their columns and widths as
 * OpenPBS's pbsnodes prints them (src/cmds/pbsnodes.c, prt_node_summary);
 * hpcq has no OS, hardware, queue or MIC resources: "--" and 0. */
static void print_summary (json_t *nodes, int jobs)
{
    json_t *n;
    size_t i;

    if (jobs)
        printf ("                                                        mem       "
                "ncpus   nmics   ngpus\n"
                "vnode           state           njobs   run   susp      f/t        "
                "f/t     f/t     f/t   jobs\n"
                "--------------- --------------- ------ ----- ------ ------------ "
                "------- ------- ------- -------\n");
    else
        printf ("vnode           state           OS       hardware host            "
                "queue        mem     ncpus   nmics   ngpus  comment\n"
                "--------------- --------------- -------- -------- --------------- "
                "---------- -------- ------- ------- ------- ---------\n");
    json_array_foreach (nodes, i, n)
    {
        char mem[32], free_mem[32], cpus[32], gpus[32], list[1024], ft[64];
        json_int_t ncpus = num (n, "ncpus"), ngpus = num (n, "ngpus");
        size_t njobs;

        summary_size (num (n, "mem"), mem, sizeof (mem));
        if (!jobs) {
            printf (
                "%-15.15s %-15.15s %-8s %-8s %-15.15s %-10s %8s %7lld %7d %7lld %s\n",
                str (n, "name"), str (n, "state"), "--", "--", str (n, "name"), "--",
                mem, (long long)ncpus, 0, (long long)ngpus,
                str (n, "comment")[0] ? str (n, "comment") : "--");
            continue;
        }
        summary_jobs (n, list, sizeof (list));
        njobs = strcmp (list, "--") != 0;
        for (const char *p = list; njobs && (p = strchr (p, ',')); p++)
            njobs++;
        summary_size (num (n, "mem") - num (n, "mem_used"), free_mem,
                      sizeof (free_mem));
        snprintf (ft, sizeof (ft), "%s/%s", free_mem, mem);
        snprintf (cpus, sizeof (cpus), "%lld/%lld",
                  (long long)(ncpus - num (n, "ncpus_used")), (long long)ncpus);
        snprintf (gpus, sizeof (gpus), "%lld/%lld",
                  (long long)(ngpus - num (n, "ngpus_used")), (long long)ngpus);
        printf ("%-15.15s %-15.15s %6zu %5zu %6d %12s %7s %7s %7s %s\n",
                str (n, "name"), str (n, "state"), njobs, njobs, 0, ft, cpus, "0/0",
                gpus, list);
    }
}

/* -l: one line per node that cannot take new work. */
static void print_unusable (json_t *nodes)
{
    json_t *n;
    size_t i;

    json_array_foreach (nodes, i, n) if (strcmp (str (n, "state"), "free") != 0
                                         && strcmp (str (n, "state"), "job-busy") != 0)
        printf ("%-20s %-10s %s\n", str (n, "name"), str (n, "state"),
                str (n, "comment"));
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "reclaim", no_argument, NULL, 'R' },
        { "notice", required_argument, NULL, 'N' },
        { NULL, 0, NULL, 0 },
    };
    int opt, offline = 0, clear = 0, list = 0, json = 0, reclaim = 0, summary = 0,
             jobs = 0;
    long notice = -1;
    char *end;
    const char *comment = NULL;
    json_t *reply, *nodes, *n;
    size_t i;

    const struct cliopt cli = { .prog = "pbsnodes",
                                .shortopts = "alorC:F:Sjv",
                                .longopts = longopts,
                                .usage = usage_text,
                                .kind = CLIOPT_PBS };

    while ((opt = cliopt_next (&cli, argc, argv)) != -1) {
        switch (opt) {
        case 'R': reclaim = 1; break;
        case 'N':
            notice = strtol (optarg, &end, 10);
            if (*end || end == optarg || notice < 0 || notice > 86400) {
                fprintf (stderr,
                         "pbsnodes: invalid --notice '%s' (seconds, 0 to 86400)\n",
                         optarg);
                return 2;
            }
            break;
        case 'a':
        case 'v': break; /* -v NODE: that vnode's attributes, as without */
        case 'S': summary = 1; break;
        case 'j': jobs = summary = 1; break;
        case 'l': list = 1; break;
        case 'o': offline = 1; break;
        case 'r': clear = 1; break;
        case 'C': comment = optarg; break;
        case 'F':
            if (strcmp (optarg, "json") != 0) {
                fprintf (stderr, "pbsnodes: unknown output format '%s' (json)\n",
                         optarg);
                return 2;
            }
            json = 1;
            break;
        }
    }
    if (offline + clear + list + reclaim > 1
        || ((offline || clear || reclaim) && optind == argc) || (comment && !offline)
        || (notice >= 0 && !reclaim)) {
        fprintf (stderr, "pbsnodes: %s\n",
                 offline + clear + list + reclaim > 1
                     ? "-o, -r, -l and --reclaim exclude one another"
                 : comment     ? "-C goes with -o"
                 : notice >= 0 ? "--notice goes with --reclaim"
                               : "-o, -r and --reclaim need node names");
        return 2;
    }
    if (reclaim) {
        json_decref (rpc ("node.reclaim",
                          json_pack ("{s:o s:I}", "names",
                                     names_of (argc - optind, argv + optind), "notice",
                                     (json_int_t)(notice >= 0 ? notice : 120))));
        return 0;
    }
    if (offline || clear) {
        json_t *body =
            json_pack ("{s:o s:b}", "names", names_of (argc - optind, argv + optind),
                       "offline", offline);
        if (comment)
            json_object_set_new (body, "comment", json_string (comment));
        json_decref (rpc ("node.offline", body));
        return 0;
    }
    reply = rpc ("node.stat",
                 json_pack ("{s:o}", "names", names_of (argc - optind, argv + optind)));
    nodes = json_object_get (reply, "nodes");
    if (json) {
        json_dumpf (reply, stdout, JSON_INDENT (4));
        printf ("\n");
    } else if (list)
        print_unusable (nodes);
    else if (summary)
        print_summary (nodes, jobs);
    else
        json_array_foreach (nodes, i, n) print_node (n);
    json_decref (reply);
    return 0;
}

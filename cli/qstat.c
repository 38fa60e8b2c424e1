/* qstat - show jobs, queues and the server (PBS Pro conventions).
 *
 * The scheduler returns each job as its PBS attribute set (the shape of
 * `qstat -f -F json`); this program only chooses and prints: the default
 * table, the "Job Id:" / "attribute = value" form, or JSON.  Workflow
 * tools parse all three, so spacing and wording follow PBS Pro.
 */
#include <config.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/qstat_alt.h"
#include "common/cliopt.h"
#include "common/client.h"
#include "common/util.h"

/* PBS exit codes (PBS error number modulo 256). */
#define EXIT_UNKJOBID 153 /* PBSE_UNKJOBID 15001 */
#define EXIT_HISTJOBID 35 /* PBSE_HISTJOBID 15139 */

static const char usage_text[] =
    "Usage: qstat [-f [-1]] [-F json] [-x|-H] [-t] [-w] [-u user] [job_id|@server "
    "...]\n"
    "       qstat -a|-i|-r [-n [-1]] [-s] [-T] [-w] [-J] [-t] [-x|-H] [-u user] "
    "[job_id ...]\n"
    "       qstat -Q [-f] [queue ...]\n"
    "       qstat -B [-f]\n"
    "Shows jobs (finished ones too with -x, only those with -H; arrays'\n"
    "subjobs with -t; arrays only with -J), queues (-Q) or the server (-B);\n"
    "-a the alternate table (-i queued, -r running; -n hosts, -s comments,\n"
    "-T estimated start times).\n"
    "See qstat(1).\n";

static const struct cliopt cli = { .prog = "qstat",
                                   .shortopts = "f1F:xwu:tQBHaJirnsT",
                                   .usage = usage_text,
                                   .kind = CLIOPT_PBS };

struct opts {
    int full, oneline, history, only_finished, wide, queues, server, json, subjobs;
    const char *user;
    struct qstat_view view; /* -a -i -r -n -s -T -J (qstat_alt.h) */
};

static int exit_code;

static json_t *rpc (const char *type, json_t *body)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    json_t *reply = NULL;

    if (!c) {
        fprintf (stderr, "qstat: %s\n", err.text);
        exit (1);
    }
    if (client_rpc (c, type, body, &reply, &err) < 0) {
        fprintf (stderr, "qstat: %s\n", err.text);
        exit (1);
    }
    client_destroy (c);
    return reply;
}

/* job.stat answers in chunks: gather them into the first reply. */
static void stat_merge (json_t *reply, void *arg)
{
    json_t **acc = arg;

    if (!*acc)
        *acc = json_deep_copy (reply);
    else
        json_object_update (json_object_get (*acc, "jobs"),
                            json_object_get (reply, "jobs"));
}

static json_t *rpc_stat (json_t *body)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    json_t *acc = NULL;

    if (!c || client_rpc_stream (c, "job.stat", body, stat_merge, &acc, &err) < 0) {
        fprintf (stderr, "qstat: %s\n", err.text);
        exit (1);
    }
    client_destroy (c);
    return acc;
}

/* One "    name = value" line; PBS folds lines past 80 columns unless -1.
 * Values are users' text (names, paths, accounts, variables): their
 * control characters are shown escaped, never sent to the terminal. */
static void print_attr (const char *name, const char *value, int oneline)
{
    char *line, *shown = util_escape_ctl (value);
    size_t len;

    if (asprintf (&line, "    %s = %s", name, shown) < 0)
        util_die (2, "out of memory");
    free (shown);
    len = strlen (line);
    if (oneline || len <= 79) {
        printf ("%s\n", line);
    } else {
        printf ("%.79s\n", line);
        for (size_t off = 79; off < len; off += 78)
            printf ("\t%.78s\n", line + off);
    }
    free (line);
}

static void value_text (json_t *v, char *buf, size_t len)
{
    if (json_is_string (v))
        snprintf (buf, len, "%s", json_string_value (v));
    else if (json_is_integer (v))
        snprintf (buf, len, "%lld", (long long)json_integer_value (v));
    else if (json_is_true (v) || json_is_false (v))
        snprintf (buf, len, "%s", json_is_true (v) ? "True" : "False");
    else
        snprintf (buf, len, "?");
}

/* Variable_List is one comma-separated attribute in PBS's text form. */
static void print_varlist (json_t *vars, int oneline)
{
    size_t cap = 1, len = 0;
    const char *key;
    json_t *v;
    char *s;

    json_object_foreach (vars, key, v) cap +=
        strlen (key) + strlen (json_string_value (v) ? json_string_value (v) : "") + 2;
    s = xzalloc (cap);
    json_object_foreach (vars, key, v) len +=
        snprintf (s + len, cap - len, "%s%s=%s", len ? "," : "", key,
                  json_string_value (v) ? json_string_value (v) : "");
    print_attr ("Variable_List", s, oneline);
    free (s);
}

static void print_attrs (json_t *attrs, int oneline)
{
    const char *key, *sub;
    json_t *v, *sv;
    char name[256], text[8192];

    json_object_foreach (attrs, key, v)
    {
        if (strcmp (key, "Variable_List") == 0)
            print_varlist (v, oneline);
        else if (json_is_object (v)) {
            json_object_foreach (v, sub, sv)
            {
                snprintf (name, sizeof (name), "%s.%s", key, sub);
                value_text (sv, text, sizeof (text));
                print_attr (name, text, oneline);
            }
        } else {
            value_text (v, text, sizeof (text));
            print_attr (key, text, oneline);
        }
    }
}

static void print_json (json_t *reply, const char *section, json_t *content)
{
    json_t *doc =
        json_pack ("{s:O s:s s:O s:O}", "timestamp",
                   json_object_get (reply, "timestamp"), "pbs_version", PACKAGE_VERSION,
                   "pbs_server", json_object_get (reply, "server"), section, content);
    char *text = json_dumps (doc, JSON_INDENT (4));

    if (!text)
        util_die (2, "out of memory");
    printf ("%s\n", text);
    free (text);
    json_decref (doc);
}

static const char *attr_str (json_t *job, const char *key, const char *dflt)
{
    const char *s = json_string_value (json_object_get (job, key));
    return s ? s : dflt;
}

/* The default table, printed chunk by chunk as the rows arrive: a deep
 * queue is never held whole in memory. */
struct table {
    int wide;
    int only_finished;
    int header_done;
    json_t *missing; /* the first chunk's unknown/finished lists */
};

static void print_header (int w)
{
    printf ("%-*s  %-*s %-*s  %8s %s %s\n", w, "Job id", w, "Name", w, "User",
            "Time Use", "S", "Queue");
    printf ("%.*s  %.*s %.*s  -------- - -----\n", w, "------------------------------",
            w, "------------------------------", w, "------------------------------");
}

/* Columns by position, as the scheduler names them in "columns". */
enum { COL_ID, COL_NAME, COL_USER, COL_CPUT, COL_STATE, COL_QUEUE, NCOLS };

static void print_rows (json_t *reply, void *arg)
{
    struct table *t = arg;
    int w = t->wide ? 30 : 16;
    const char *rows = json_string_value (json_object_get (reply, "rows"));
    char *copy = rows ? strdup (rows) : NULL, *line, *save = NULL;

    if (!t->missing)
        t->missing = json_incref (reply);
    for (line = copy ? strtok_r (copy, "\n", &save) : NULL; line;
         line = strtok_r (NULL, "\n", &save)) {
        const char *col[NCOLS];
        char *p = line;
        for (int k = 0; k < NCOLS; k++) {
            col[k] = p ? p : "?";
            if (p && (p = strchr (p, '\t')))
                *p++ = '\0';
        }
        if (t->only_finished && strcmp (col[COL_STATE], "F") != 0)
            continue;
        if (!t->header_done++)
            print_header (w);
        printf ("%-*.*s  %-*.*s %-*.*s  %8s %s %s\n", w, w, col[COL_ID], w, w,
                col[COL_NAME], w, w, col[COL_USER], col[COL_CPUT], col[COL_STATE],
                col[COL_QUEUE]);
    }
    free (copy);
}

static void report_missing (json_t *reply)
{
    json_t *v;
    size_t i;

    json_array_foreach (json_object_get (reply, "unknown"), i, v)
    {
        fprintf (stderr, "qstat: Unknown Job Id %s\n", json_string_value (v));
        exit_code = EXIT_UNKJOBID;
    }
    json_array_foreach (json_object_get (reply, "finished"), i, v)
    {
        fprintf (stderr,
                 "qstat: %s Job has finished, use -x or -H to obtain "
                 "historical job information\n",
                 json_string_value (v));
        if (!exit_code)
            exit_code = EXIT_HISTJOBID;
    }
}

static json_t *stat_body (const struct opts *o, int nargs, char **args, int table)
{
    json_t *ids = json_array (), *body;

    /* "@server" means every job at that server: we are that server. */
    for (int i = 0; i < nargs; i++)
        if (args[i][0] != '@')
            json_array_append_new (ids, json_string (args[i]));
    body = json_pack ("{s:o s:b s:b s:b}", "ids", ids, "history", o->history, "table",
                      table, "subjobs", o->subjobs);
    if (o->user)
        json_object_set_new (body, "user", json_string (o->user));
    return body;
}

static void show_table (const struct opts *o, int nargs, char **args)
{
    struct table t = { .wide = o->wide, .only_finished = o->only_finished };
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);

    if (!c
        || client_rpc_stream (c, "job.stat", stat_body (o, nargs, args, 1), print_rows,
                              &t, &err)
               < 0) {
        fprintf (stderr, "qstat: %s\n", err.text);
        exit (1);
    }
    client_destroy (c);
    if (t.missing)
        report_missing (t.missing);
    json_decref (t.missing);
}

static void show_jobs (const struct opts *o, int nargs, char **args)
{
    json_t *reply, *jobs;
    const char *id;
    json_t *job;

    if (!o->full && !o->json && qstat_view_wanted (&o->view)) {
        struct qstat_view v = o->view;
        v.wide = o->wide;
        v.oneline = o->oneline;
        v.only_finished = o->only_finished;
        qstat_view_show (&v, stat_body (o, nargs, args, 0), &reply);
        if (reply)
            report_missing (reply);
        json_decref (reply);
        return;
    }
    if (!o->full && !o->json) {
        show_table (o, nargs, args);
        return;
    }
    reply = rpc_stat (stat_body (o, nargs, args, 0));
    jobs = json_object_get (reply, "jobs");
    if (o->only_finished) {
        void *tmp;
        json_object_foreach_safe (jobs, tmp, id,
                                  job) if (strcmp (attr_str (job, "job_state", ""), "F")
                                           != 0) json_object_del (jobs, id);
    }
    if (o->json)
        print_json (reply, "Jobs", jobs);
    else {
        json_object_foreach (jobs, id, job)
        {
            printf ("Job Id: %s\n", id);
            print_attrs (job, o->oneline);
            printf ("\n");
        }
    }
    report_missing (reply);
    json_decref (reply);
}

static int count_of (json_t *counts, const char *key)
{
    return (int)json_integer_value (json_object_get (counts, key));
}

static void show_server (const struct opts *o)
{
    json_t *reply = rpc ("server.stat", NULL);
    json_t *c = json_object_get (reply, "state_count");
    const char *name = attr_str (reply, "server", "?");

    if (o->full || o->json) {
        printf ("Server: %s\n", name);
        print_attr ("server_state", attr_str (reply, "server_state", "?"), o->oneline);
        print_attr ("default_queue", attr_str (reply, "default_queue", "?"),
                    o->oneline);
        printf ("    total_jobs = %d\n", count_of (c, "total_jobs"));
        printf ("    state_count = Transit:%d Queued:%d Held:%d Waiting:%d Running:%d "
                "Exiting:%d Begun:0\n",
                count_of (c, "Transit"), count_of (c, "Queued"), count_of (c, "Held"),
                count_of (c, "Waiting"), count_of (c, "Running"),
                count_of (c, "Exiting"));
        printf ("    pbs_version = %s\n", attr_str (reply, "pbs_version", "?"));
        /* Since the scheduler started: how well submissions share commits. */
        printf ("    hpcq_jobs_submitted = %lld\n    hpcq_commits = %lld\n\n",
                (long long)json_integer_value (
                    json_object_get (reply, "hpcq_jobs_submitted")),
                (long long)json_integer_value (
                    json_object_get (reply, "hpcq_commits")));
    } else {
        printf ("Server             Max   Tot   Que   Run   Hld   Wat   Trn   Ext "
                "Status\n");
        printf ("---------------- ----- ----- ----- ----- ----- ----- ----- ----- "
                "-----------\n");
        printf ("%-16.16s %5d %5d %5d %5d %5d %5d %5d %5d %s\n", name, 0,
                count_of (c, "total_jobs"), count_of (c, "Queued"),
                count_of (c, "Running"), count_of (c, "Held"), count_of (c, "Waiting"),
                count_of (c, "Transit"), count_of (c, "Exiting"),
                attr_str (reply, "server_state", "?"));
    }
    json_decref (reply);
}

static int queue_wanted (const char *name, int nargs, char **args)
{
    if (nargs == 0)
        return 1;
    for (int i = 0; i < nargs; i++)
        if (strcmp (args[i], name) == 0)
            return 1;
    return 0;
}

static void show_queues (const struct opts *o, int nargs, char **args)
{
    json_t *reply = rpc ("queue.stat", NULL), *q;
    const char *name;

    if (!o->full) {
        printf ("Queue              Max   Tot Ena Str   Que   Run   Hld   Wat   Trn   "
                "Ext Type\n");
        printf ("---------------- ----- ----- --- --- ----- ----- ----- ----- ----- "
                "----- ----\n");
    }
    json_object_foreach (json_object_get (reply, "queues"), name, q)
    {
        json_t *c = json_object_get (q, "state_count");
        int ena = strcmp (attr_str (q, "enabled", ""), "True") == 0;
        int str = strcmp (attr_str (q, "started", ""), "True") == 0;
        if (!queue_wanted (name, nargs, args))
            continue;
        if (o->full) {
            printf ("Queue: %s\n", name);
            printf ("    total_jobs = %d\n", count_of (c, "total_jobs"));
            printf (
                "    state_count = Transit:%d Queued:%d Held:%d Waiting:%d Running:%d "
                "Exiting:%d Begun:0\n",
                count_of (c, "Transit"), count_of (c, "Queued"), count_of (c, "Held"),
                count_of (c, "Waiting"), count_of (c, "Running"),
                count_of (c, "Exiting"));
            json_object_del (q, "state_count");
            print_attrs (q, o->oneline);
            printf ("\n");
            continue;
        }
        printf ("%-16.16s %5d %5d %-3s %-3s %5d %5d %5d %5d %5d %5d Exec\n", name,
                (int)json_integer_value (json_object_get (q, "max_run")),
                count_of (c, "total_jobs"), ena ? "yes" : "no", str ? "yes" : "no",
                count_of (c, "Queued"), count_of (c, "Running"), count_of (c, "Held"),
                count_of (c, "Waiting"), count_of (c, "Transit"),
                count_of (c, "Exiting"));
    }
    for (int i = 0; i < nargs; i++) {
        if (!json_object_get (json_object_get (reply, "queues"), args[i])) {
            fprintf (stderr, "qstat: Unknown queue %s\n", args[i]);
            exit_code = 170; /* PBSE_UNKQUE 15018 */
        }
    }
    json_decref (reply);
}

/* PBS's job operands: a job id starts with its number ("12", "12.srv",
 * "12[3].srv"), a destination with '@'.  Anything else is said once, as
 * PBS Pro says it, and left out (exit status 1).  Returns how many stay,
 * moved to the front of args. */
static int well_formed (int nargs, char **args)
{
    int k = 0;

    for (int i = 0; i < nargs; i++) {
        if (isdigit ((unsigned char)args[i][0]) || args[i][0] == '@') {
            args[k++] = args[i];
            continue;
        }
        fprintf (stderr, "qstat: illegally formed job identifier: %s\n", args[i]);
        if (!exit_code)
            exit_code = 1;
    }
    if (k == 0 && nargs > 0)
        exit (exit_code);
    return k;
}

int main (int argc, char **argv)
{
    struct opts o = { 0 };
    int c;

    while ((c = cliopt_next (&cli, argc, argv)) != -1) {
        switch (c) {
        case 'f': o.full = 1; break;
        case '1': o.oneline = 1; break;
        case 'F':
            if (strcmp (optarg, "json") != 0)
                util_die (2, "unsupported output format '%s' (use -F json)", optarg);
            o.json = 1;
            break;
        case 'x': o.history = 1; break;
        case 'H': o.history = o.only_finished = 1; break;
        case 'w': o.wide = 1; break;
        case 'u': o.user = optarg; break;
        case 't': o.subjobs = 1; break;
        case 'J': o.view.arrays = 1; break;
        case 'a': o.view.alt = 1; break;
        case 'i': o.view.alt = o.view.idle = 1; break;
        case 'r': o.view.alt = o.view.running = 1; break;
        case 'n': o.view.alt = o.view.nodes = 1; break;
        case 's': o.view.alt = o.view.comment = 1; break;
        case 'T': o.view.alt = o.view.est = 1; break;
        case 'Q': o.queues = 1; break;
        case 'B': o.server = 1; break;
        }
    }
    if (o.server)
        show_server (&o);
    else if (o.queues)
        show_queues (&o, argc - optind, argv + optind);
    else
        show_jobs (&o, well_formed (argc - optind, argv + optind), argv + optind);
    return exit_code;
}

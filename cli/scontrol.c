/* scontrol - Slurm's administration command, the parts users and their
 * tools call (scontrol(1)):
 *   scontrol show hostnames [LIST]   one name a line (LIST: $SLURM_JOB_NODELIST)
 *   scontrol show hostlist NAMES     the names compressed ("node[1-3]")
 *   scontrol [-o] show job [ID]      Slurm's "Key=Value" lines (one with -o)
 *   scontrol [-o] show node [NAME]
 *   scontrol hold|release|requeue ID...
 *   scontrol update JobId=ID TimeLimit=T|JobName=N|Partition=P ...
 * over the same requests as qstat, pbsnodes, qhold, qrls, qrerun and
 * qalter.  Errors as Slurm's ("slurm_load_jobs error: Invalid job id
 * specified", "Invalid job id specified"), exit 1.
 */
#include <config.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/slurm.h"
#include "common/client.h"
#include "common/hostlist.h"
#include "common/sbatch.h"
#include "common/util.h"

static const char *usage_text =
    "Usage: scontrol [-o] COMMAND\n"
    "  show hostnames [LIST]   show hostlist NAMES   show job [ID]   show node [NAME]\n"
    "  hold ID...   release ID...   requeue ID...\n"
    "  update JobId=ID [TimeLimit=T] [JobName=NAME] [Partition=P]\n"
    "hpcq's scontrol: see scontrol(1) and docs/compat.md.\n";

static int oneliner;

static int print_name (const char *name, void *arg)
{
    (void)arg;
    puts (name);
    return 0;
}

static int show_hostnames (const char *list)
{
    if (!list)
        list = getenv ("SLURM_JOB_NODELIST");
    if (!list) {
        fprintf (stderr, "scontrol: error: host list is empty\n");
        return 1;
    }
    if (hostlist_expand (list, 1 << 20, print_name, NULL) < 0) {
        fprintf (stderr, "scontrol: error: Invalid hostlist: %s\n", list);
        return 1;
    }
    return 0;
}

struct names {
    const char **v;
    int n;
};

static int add_name (const char *name, void *arg)
{
    struct names *nm = arg;

    nm->v = xrealloc (nm->v, (nm->n + 1) * sizeof (char *));
    nm->v[nm->n++] = xstrdup (name);
    return 0;
}

static int show_hostlist (const char *list)
{
    struct names nm = { 0 };
    char buf[65536];

    if (!list || hostlist_expand (list, 1 << 20, add_name, &nm) < 0) {
        fprintf (stderr, "scontrol: error: Invalid hostlist: %s\n", list ? list : "");
        return 1;
    }
    hostlist_format (nm.v, nm.n, buf, sizeof (buf));
    puts (buf);
    for (int i = 0; i < nm.n; i++)
        free ((char *)nm.v[i]);
    free (nm.v);
    return 0;
}

/* Key=Value, on the line as -o wants it: one line, or Slurm's indented
 * lines (a break before each group: brk). */
static void kv (int brk, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static void kv (int brk, const char *key, const char *fmt, ...)
{
    va_list ap;

    if (brk && !oneliner)
        fputs ("\n   ", stdout);
    else
        putchar (' ');
    printf ("%s=", key);
    va_start (ap, fmt);
    vprintf (fmt, ap);
    va_end (ap);
}

static void iso (long long t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (t <= 0) {
        snprintf (buf, len, "Unknown");
        return;
    }
    localtime_r (&tt, &tm);
    strftime (buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static void print_job (const char *pbs_id, json_t *job)
{
    json_t *rl = json_object_get (job, "Resource_List"),
           *ex = json_object_get (job, "Exit_status");
    const char *state = slurm_state (job), *owner = slurm_attr (job, "Job_Owner");
    const char *wall = slurm_attr (rl, "walltime");
    char id[128], raw[32], nodes[4096], t1[32], t2[32], t3[32], dur[32], lim[32];
    long long st = slurm_time (job, "stime"), end = slurm_time (job, "obittime");
    long long code = json_integer_value (ex);
    int nn = 0, h, m, s;

    slurm_id (pbs_id, id, sizeof (id));
    slurm_nodelist (job, nodes, sizeof (nodes), &nn);
    printf ("JobId=%s", slurm_raw_id (job, raw, sizeof (raw)) ? raw : id);
    if (strchr (id, '_')) {
        kv (0, "ArrayJobId", "%.*s", (int)strcspn (id, "_"), id);
        kv (0, "ArrayTaskId", "%s", strchr (id, '_') + 1);
    }
    kv (0, "JobName", "%s", slurm_attr (job, "Job_Name"));
    kv (1, "UserId", "%.*s", (int)strcspn (owner, "@"), owner);
    kv (0, "Account", "%s",
        slurm_attr (job, "Account_Name")[0] ? slurm_attr (job, "Account_Name")
                                            : "(null)");
    kv (1, "Priority", "%lld",
        (long long)json_integer_value (json_object_get (job, "Priority")));
    kv (1, "JobState", "%s", state);
    kv (0, "Reason", "%s", slurm_reason (job, state));
    kv (0, "Dependency", "%s",
        slurm_attr (job, "depend")[0] ? slurm_attr (job, "depend") : "(null)");
    kv (1, "ExitCode", "%s",
        !json_is_integer (ex) ? "0:0"
        : code > 256          ? (snprintf (t1, sizeof (t1), "0:%lld", code - 256), t1)
                     : (snprintf (t1, sizeof (t1), "%lld:0", code < 0 ? 1 : code), t1));
    slurm_duration (st ? (end ? end : (long long)time (NULL)) - st : 0, dur,
                    sizeof (dur));
    if (wall[0] && sscanf (wall, "%d:%d:%d", &h, &m, &s) == 3)
        slurm_duration ((long long)h * 3600 + m * 60 + s, lim, sizeof (lim));
    else
        snprintf (lim, sizeof (lim), "UNLIMITED");
    kv (1, "RunTime", "%s", dur);
    kv (0, "TimeLimit", "%s", lim);
    iso (slurm_time (job, "ctime"), t1, sizeof (t1));
    iso (st, t2, sizeof (t2));
    iso (end, t3, sizeof (t3));
    kv (1, "SubmitTime", "%s", t1);
    kv (0, "StartTime", "%s", t2);
    kv (0, "EndTime", "%s", t3);
    kv (1, "Partition", "%s", slurm_attr (job, "queue"));
    kv (1, "NodeList", "%s", nn ? nodes : "(null)");
    kv (1, "NumNodes", "%lld",
        nn ? (long long)nn
           : (long long)json_integer_value (json_object_get (rl, "nodect")));
    kv (0, "NumCPUs", "%lld",
        (long long)json_integer_value (json_object_get (rl, "ncpus")));
    kv (0, "NumTasks", "%lld",
        (long long)json_integer_value (json_object_get (rl, "mpiprocs"))
            ? (long long)json_integer_value (json_object_get (rl, "mpiprocs"))
            : 1LL);
    kv (1, "WorkDir", "%s", slurm_attr (job, "jobdir"));
    kv (1, "StdOut", "%s",
        strchr (slurm_attr (job, "Output_Path"), ':')
            ? strchr (slurm_attr (job, "Output_Path"), ':') + 1
            : slurm_attr (job, "Output_Path"));
    kv (1, "StdErr", "%s",
        strchr (slurm_attr (job, "Error_Path"), ':')
            ? strchr (slurm_attr (job, "Error_Path"), ':') + 1
            : slurm_attr (job, "Error_Path"));
    putchar ('\n');
    if (!oneliner)
        putchar ('\n');
}

/* id (Slurm's) names job (sid its Slurm id): itself, its own number as
 * an array task, or its array. */
static int job_matches (const char *id, const char *sid, json_t *job)
{
    char raw[32];
    size_t n = strlen (id);

    return !strcmp (sid, id)
           || (slurm_raw_id (job, raw, sizeof (raw)) && !strcmp (raw, id))
           || (!strncmp (sid, id, n) && sid[n] == '_');
}

static int show_job (const char *id)
{
    json_t *jobs = slurm_jobs ("scontrol", NULL, id != NULL), *job;
    const char *pbs_id;
    char sid[128];
    int found = 0;

    json_object_foreach (jobs, pbs_id, job)
    {
        if (!strcmp (slurm_attr (job, "array"), "True"))
            continue;
        slurm_id (pbs_id, sid, sizeof (sid));
        if (id ? !job_matches (id, sid, job)
               : !strchr ("PR", slurm_state_code (slurm_state (job))[0]))
            continue;
        print_job (pbs_id, job);
        found++;
    }
    json_decref (jobs);
    if (id && !found) {
        fprintf (stderr, "slurm_load_jobs error: Invalid job id specified\n");
        return 1;
    }
    if (!found)
        puts ("No jobs in the system");
    return 0;
}

static json_t *rpc (const char *type, json_t *body, struct hpcq_error *err)
{
    struct client *c = client_connect (NULL, err);
    json_t *reply = NULL;

    if (!c || client_rpc (c, type, body, &reply, err) < 0)
        reply = NULL;
    client_destroy (c);
    return reply;
}

static int show_node (const char *name)
{
    struct hpcq_error err;
    json_t *reply = rpc ("node.stat", json_pack ("{s:[]}", "names"), &err), *n;
    size_t i;
    int found = 0;

    if (!reply) {
        fprintf (stderr, "scontrol: error: %s\n", err.text);
        return 1;
    }
    json_array_foreach (json_object_get (reply, "nodes"), i, n)
    {
        const char *st = slurm_attr (n, "state"), *nm = slurm_attr (n, "name");
        long long used = json_integer_value (json_object_get (n, "ncpus_used"));
        if (name && strcmp (name, nm))
            continue;
        printf ("NodeName=%s", nm);
        kv (1, "CPUAlloc", "%lld", used);
        kv (0, "CPUTot", "%lld",
            (long long)json_integer_value (json_object_get (n, "ncpus")));
        kv (1, "Gres", "%s",
            json_integer_value (json_object_get (n, "ngpus")) ? (
                snprintf (err.text, sizeof (err.text), "gpu:%lld",
                          (long long)json_integer_value (json_object_get (n, "ngpus"))),
                err.text)
                                                              : "(null)");
        kv (1, "RealMemory", "%lld",
            (long long)(json_integer_value (json_object_get (n, "mem")) >> 20));
        kv (1, "State", "%s",
            !strcmp (st, "down")       ? "DOWN"
            : !strcmp (st, "offline")  ? "IDLE+DRAIN"
            : !strcmp (st, "draining") ? "MIXED+DRAIN"
            : !strcmp (st, "job-busy") ? "ALLOCATED"
            : used > 0                 ? "MIXED"
                                       : "IDLE");
        putchar ('\n');
        if (!oneliner)
            putchar ('\n');
        found++;
    }
    json_decref (reply);
    if (name && !found) {
        fprintf (stderr, "Node %s not found\n", name);
        return 1;
    }
    return 0;
}

/* One request for job id (Slurm's spelling, or an array task's number). */
static int job_request (const char *type, const char *id, json_t *extra)
{
    struct hpcq_error err;
    char pbs[128];
    json_t *body, *reply;
    int e;

    slurm_to_pbs_id (id, pbs, sizeof (pbs));
    body = json_pack ("{s:s}", "id", pbs);
    if (extra)
        json_object_update (body, extra);
    reply = rpc (type, json_incref (body), &err);
    e = errno;
    if (!reply && e == ENOENT
        && slurm_task_of ("scontrol", id, pbs, sizeof (pbs)) == 0) {
        json_object_set_new (body, "id", json_string (pbs));
        reply = rpc (type, json_incref (body), &err);
        e = errno;
    }
    json_decref (body);
    if (!reply) {
        if (e == ENOENT)
            fprintf (stderr, "Invalid job id specified for job %s\n", id);
        else
            fprintf (stderr, "%s for job %s\n", err.text, id);
        return 1;
    }
    json_decref (reply);
    return 0;
}

static int job_command (const char *cmd, int argc, char **argv)
{
    const char *type = !strcasecmp (cmd, "hold")      ? "job.hold"
                       : !strcasecmp (cmd, "uhold")   ? "job.hold"
                       : !strcasecmp (cmd, "release") ? "job.release"
                                                      : "job.rerun";
    json_t *extra = strcmp (type, "job.rerun") ? json_pack ("{s:s}", "hold_types", "u")
                                               : json_object ();
    int rc = 0;

    if (argc < 1) {
        fprintf (stderr, "scontrol: error: Invalid job id specified\n");
        json_decref (extra);
        return 1;
    }
    for (int i = 0; i < argc; i++) {
        /* "1,2,3" or several words, as Slurm takes them. */
        char *copy = xstrdup (argv[i]), *save = NULL;
        for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save))
            rc |= job_request (type, t, extra);
        free (copy);
    }
    json_decref (extra);
    return rc;
}

/* update JobId=ID Key=Value...: as qalter's options. */
static int update (int argc, char **argv)
{
    json_t *opts = json_array ();
    const char *id = NULL;
    int rc;

    for (int i = 0; i < argc; i++) {
        char *eq = strchr (argv[i], '='), val[128];
        size_t k = eq ? (size_t)(eq - argv[i]) : strlen (argv[i]);
        int64_t secs;
        struct hpcq_error err;
        if (!eq) {
            fprintf (stderr, "scontrol: error: Invalid input: %s\n", argv[i]);
            json_decref (opts);
            return 1;
        }
        eq++;
        if (!strncasecmp (argv[i], "JobId", k) && k == 5)
            id = eq;
        else if (!strncasecmp (argv[i], "TimeLimit", k) && k == 9) {
            if (sbatch_parse_time (eq, &secs, &err) < 0) {
                fprintf (stderr, "scontrol: error: Invalid TimeLimit value: %s\n", eq);
                json_decref (opts);
                return 1;
            }
            snprintf (val, sizeof (val), "walltime=%lld:%02lld:%02lld",
                      (long long)secs / 3600, (long long)secs / 60 % 60,
                      (long long)secs % 60);
            json_array_append_new (opts, json_pack ("[s s]", "l", val));
        } else if (!strncasecmp (argv[i], "JobName", k) && k == 7)
            json_array_append_new (opts, json_pack ("[s s]", "N", eq));
        else if (!strncasecmp (argv[i], "Partition", k) && k == 9)
            json_array_append_new (opts, json_pack ("[s s]", "q", eq));
        else {
            fprintf (stderr,
                     "scontrol: error: Update of this parameter is not supported: %s\n",
                     argv[i]);
            json_decref (opts);
            return 1;
        }
    }
    if (!id || json_array_size (opts) == 0) {
        fprintf (stderr, "scontrol: error: %s\n",
                 !id ? "No job id given (JobId=ID)" : "Nothing to update");
        json_decref (opts);
        return 1;
    }
    rc = job_request ("job.alter", id, json_pack ("{s:o}", "options", opts));
    return rc;
}

int main (int argc, char **argv)
{
    int i = 1;

    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp (argv[i], "-o") || !strcmp (argv[i], "--oneliner"))
            oneliner = 1;
        else if (!strcmp (argv[i], "--help") || !strcmp (argv[i], "-h")) {
            fputs (usage_text, stdout);
            return 0;
        } else if (strcmp (argv[i], "-Q") && strcmp (argv[i], "--quiet")) {
            fprintf (stderr, "scontrol: unrecognized option '%s'\n", argv[i]);
            return 1;
        }
    }
    if (i >= argc) {
        fputs (usage_text, stderr);
        return 1;
    }
    if (!strcasecmp (argv[i], "show") && i + 1 < argc) {
        const char *what = argv[i + 1], *arg = i + 2 < argc ? argv[i + 2] : NULL;
        if (!strcasecmp (what, "hostnames") || !strcasecmp (what, "hostname"))
            return show_hostnames (arg);
        if (!strcasecmp (what, "hostlist") || !strcasecmp (what, "hostlistsorted"))
            return show_hostlist (arg);
        if (!strcasecmp (what, "job") || !strcasecmp (what, "jobs"))
            return show_job (arg);
        if (!strcasecmp (what, "node") || !strcasecmp (what, "nodes"))
            return show_node (arg);
        fprintf (stderr, "scontrol: error: invalid entity:%s for keyword:show\n", what);
        return 1;
    }
    if (!strcasecmp (argv[i], "hold") || !strcasecmp (argv[i], "uhold")
        || !strcasecmp (argv[i], "release") || !strcasecmp (argv[i], "requeue"))
        return job_command (argv[i], argc - i - 1, argv + i + 1);
    if (!strcasecmp (argv[i], "update"))
        return update (argc - i - 1, argv + i + 1);
    fprintf (stderr, "scontrol: error: Invalid keyword: %s\n", argv[i]);
    return 1;
}

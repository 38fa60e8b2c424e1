/* sacct - finished and running jobs the way Slurm's sacct shows them.
 *
 * Reads the same history as qstat -x.  Options: -j IDS, -u USERS (-a all
 * users), -X (allocations only: without it each job's srun steps follow
 * it as JOBID.STEP, scheduler/rpc/job_step.h),
 * -o/--format FIELDS (each with an optional %WIDTH), -P/--parsable2,
 * -p/--parsable, -n/--noheader, --name.  Without -j or -u, the caller's
 * own jobs, as Slurm.
 */
#include <config.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/cliopt.h"
#include "cli/slurm.h"
#include "common/util.h"

#define DEFAULT_FIELDS "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"

static const char *usage_text =
    "Usage: sacct [-j IDS] [-u USERS|-a] [-X] [-o|--format FIELDS] [-P|--parsable2]\n"
    "             [-p|--parsable] [-n|--noheader] [--name NAMES]\n"
    "Shows hpcq's jobs (finished ones too) as Slurm's sacct does.  FIELDS:\n"
    "JobID JobIDRaw JobName Partition Account AllocCPUS NCPUS ReqCPUS State ExitCode\n"
    "User UID Elapsed ElapsedRaw Start End Submit NNodes NodeList ReqMem Timelimit\n"
    "Comment, each with an optional %WIDTH.  See sacct(1) and docs/compat.md.\n";

/* A field's name and default width (Slurm's). */
static const struct {
    const char *name;
    int width;
} fields[] = {
    { "JobID", 12 },     { "JobIDRaw", 12 },   { "JobName", 10 },  { "Partition", 10 },
    { "Account", 10 },   { "AllocCPUS", 10 },  { "NCPUS", 10 },    { "ReqCPUS", 8 },
    { "State", 10 },     { "ExitCode", 8 },    { "User", 9 },      { "UID", 6 },
    { "Elapsed", 10 },   { "ElapsedRaw", 10 }, { "Start", 19 },    { "End", 19 },
    { "Submit", 19 },    { "NNodes", 8 },      { "NodeList", 15 }, { "ReqMem", 10 },
    { "Timelimit", 10 }, { "Comment", 15 },
};
#define NFIELDS ARRAY_SIZE (fields)

struct col {
    int f, width;
};

static int listed (const char *list, const char *name)
{
    size_t n = strlen (name);

    if (!list)
        return 1;
    for (const char *p = list; *p;) {
        size_t k = strcspn (p, ",");
        if (k == n && strncmp (p, name, n) == 0)
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

static int parse_format (const char *spec, struct col *cols, int max)
{
    int n = 0;

    for (const char *p = spec; *p && n < max;) {
        size_t k = strcspn (p, ","), nl = strcspn (p, "%,");
        size_t f;
        for (f = 0; f < NFIELDS; f++)
            if (strlen (fields[f].name) == nl && !strncasecmp (fields[f].name, p, nl))
                break;
        if (f == NFIELDS) {
            fprintf (stderr, "sacct: error: Invalid field requested: \"%.*s\"\n",
                     (int)nl, p);
            exit (1);
        }
        cols[n].f = (int)f;
        cols[n].width = nl < k ? atoi (p + nl + 1) : fields[f].width;
        n++;
        p += k + (p[k] == ',');
    }
    return n;
}

static void iso_time (long long t, char *buf, size_t len)
{
    struct tm tm;
    time_t tt = (time_t)t;

    if (t <= 0) {
        snprintf (buf, len, "Unknown");
        return;
    }
    localtime_r (&tt, &tm);
    strftime (buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static void value (int f, const char *id, json_t *job, char *buf, size_t len)
{
    const char *name = fields[f].name, *owner = slurm_attr (job, "Job_Owner");
    json_t *rl = json_object_get (job, "Resource_List"),
           *ex = json_object_get (job, "Exit_status");
    long long start = slurm_time (job, "stime"), end = slurm_time (job, "obittime");
    const char *state = slurm_state (job);
    char nodes[4096];
    int nn;

    slurm_nodelist (job, nodes, sizeof (nodes), &nn);
    buf[0] = '\0';
    if (!strcmp (name, "JobID"))
        snprintf (buf, len, "%s", id);
    else if (!strcmp (name, "JobIDRaw")) {
        /* An array task's raw id is its own number, as Slurm's. */
        if (!slurm_raw_id (job, buf, len))
            snprintf (buf, len, "%s", id);
    } else if (!strcmp (name, "JobName"))
        snprintf (buf, len, "%s", slurm_attr (job, "Job_Name"));
    else if (!strcmp (name, "Partition"))
        snprintf (buf, len, "%s", slurm_attr (job, "queue"));
    else if (!strcmp (name, "Account"))
        snprintf (buf, len, "%s", slurm_attr (job, "Account_Name"));
    else if (!strcmp (name, "AllocCPUS") || !strcmp (name, "NCPUS")
             || !strcmp (name, "ReqCPUS"))
        snprintf (buf, len, "%lld",
                  strcmp (name, "ReqCPUS") && !start
                      ? 0LL
                      : (long long)json_integer_value (json_object_get (rl, "ncpus")));
    else if (!strcmp (name, "State"))
        snprintf (buf, len, "%s", state);
    else if (!strcmp (name, "ExitCode")) {
        /* Slurm's "status:signal": PBS's 256+N is signal N. */
        long long st = json_integer_value (ex);
        if (!json_is_integer (ex))
            snprintf (buf, len, "0:0");
        else if (st > 256)
            snprintf (buf, len, "0:%lld", st - 256);
        else
            snprintf (buf, len, "%lld:0", st < 0 ? 1 : st);
    } else if (!strcmp (name, "User"))
        snprintf (buf, len, "%.*s", (int)strcspn (owner, "@"), owner);
    else if (!strcmp (name, "UID")) {
        char user[64];
        struct passwd *pw;
        snprintf (user, sizeof (user), "%.*s", (int)strcspn (owner, "@"), owner);
        if ((pw = getpwnam (user)))
            snprintf (buf, len, "%u", (unsigned)pw->pw_uid);
    } else if (!strcmp (name, "Elapsed") || !strcmp (name, "ElapsedRaw")) {
        long long el = start ? (end ? end : (long long)time (NULL)) - start : 0;
        if (!strcmp (name, "ElapsedRaw"))
            snprintf (buf, len, "%lld", el);
        else
            snprintf (buf, len, "%02lld:%02lld:%02lld", el / 3600, el / 60 % 60,
                      el % 60);
    } else if (!strcmp (name, "Start"))
        iso_time (start, buf, len);
    else if (!strcmp (name, "End"))
        iso_time (end, buf, len);
    else if (!strcmp (name, "Submit"))
        iso_time (slurm_time (job, "ctime"), buf, len);
    else if (!strcmp (name, "NNodes"))
        snprintf (buf, len, "%lld",
                  nn ? (long long)nn
                     : (long long)json_integer_value (json_object_get (rl, "nodect")));
    else if (!strcmp (name, "NodeList"))
        snprintf (buf, len, "%.1000s", nn ? nodes : "None assigned");
    else if (!strcmp (name, "ReqMem"))
        slurm_mem (slurm_attr (rl, "mem"), buf, len);
    else if (!strcmp (name, "Timelimit"))
        snprintf (buf, len, "%s",
                  slurm_attr (rl, "walltime")[0] ? slurm_attr (rl, "walltime")
                                                 : "UNLIMITED");
    else if (!strcmp (name, "Comment"))
        snprintf (buf, len, "%s", slurm_attr (job, "comment"));
}

/* A step's state and ExitCode from srun's exit code (128 + N: signal N). */
static void step_state (json_t *step, const char *job_state, char *st, size_t sl,
                        char *ec, size_t el)
{
    json_t *ex = json_object_get (step, "exit");
    long long rc = json_integer_value (ex);

    if (!json_is_integer (ex)) {
        snprintf (st, sl, "%s",
                  strcmp (job_state, "RUNNING") ? "CANCELLED" : "RUNNING");
        snprintf (ec, el, "0:0");
        return;
    }
    snprintf (st, sl, "%s", rc == 0 ? "COMPLETED" : "FAILED");
    if (rc > 128)
        snprintf (ec, el, "0:%lld", rc - 128);
    else
        snprintf (ec, el, "%lld:0", rc);
}

/* One field of a step of job (jid its Slurm id): the step's own where it
 * has one, else the job's. */
static void step_value (int f, json_t *step, const char *jid, json_t *job, char *buf,
                        size_t len)
{
    const char *name = fields[f].name;
    long long start = json_integer_value (json_object_get (step, "start")),
              end = json_integer_value (json_object_get (step, "end"));
    char st[32], ec[32];

    step_state (step, slurm_state (job), st, sizeof (st), ec, sizeof (ec));
    if (!strcmp (name, "JobID") || !strcmp (name, "JobIDRaw"))
        snprintf (buf, len, "%s.%lld", jid,
                  (long long)json_integer_value (json_object_get (step, "step")));
    else if (!strcmp (name, "JobName"))
        snprintf (buf, len, "%s", json_string_value (json_object_get (step, "name")));
    else if (!strcmp (name, "State"))
        snprintf (buf, len, "%s", st);
    else if (!strcmp (name, "ExitCode"))
        snprintf (buf, len, "%s", ec);
    else if (!strcmp (name, "AllocCPUS") || !strcmp (name, "NCPUS")
             || !strcmp (name, "ReqCPUS"))
        snprintf (buf, len, "%lld",
                  (long long)json_integer_value (json_object_get (step, "ntasks")));
    else if (!strcmp (name, "NNodes"))
        snprintf (buf, len, "%lld",
                  (long long)json_integer_value (json_object_get (step, "nnodes")));
    else if (!strcmp (name, "NodeList"))
        snprintf (buf, len, "%s",
                  json_string_value (json_object_get (step, "nodelist")));
    else if (!strcmp (name, "Start"))
        iso_time (start, buf, len);
    else if (!strcmp (name, "End"))
        iso_time (end, buf, len);
    else if (!strcmp (name, "Elapsed") || !strcmp (name, "ElapsedRaw")) {
        long long el = (end ? end : (long long)time (NULL)) - start;
        if (!strcmp (name, "ElapsedRaw"))
            snprintf (buf, len, "%lld", el);
        else
            snprintf (buf, len, "%02lld:%02lld:%02lld", el / 3600, el / 60 % 60,
                      el % 60);
    } else if (!strcmp (name, "Partition") || !strcmp (name, "Timelimit")
               || !strcmp (name, "Submit"))
        buf[0] = '\0'; /* Slurm leaves them blank on a step */
    else
        value (f, jid, job, buf, len);
}

/* Fixed width as Slurm: right-justified, a cut value ends in '+'. */
static void put_fixed (const char *v, int width)
{
    if ((int)strlen (v) > width && width > 0)
        printf ("%.*s+ ", width - 1, v);
    else
        printf ("%*s ", width, v);
}

static void print_row (const struct col *cols, int n, int sep, const char **vals)
{
    for (int i = 0; i < n; i++) {
        if (sep)
            printf ("%s%s", vals[i], i + 1 < n || sep == 2 ? "|" : "");
        else
            put_fixed (vals[i], cols[i].width);
    }
    putchar ('\n');
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "jobs", required_argument, NULL, 'j' },
        { "user", required_argument, NULL, 'u' },
        { "allusers", no_argument, NULL, 'a' },
        { "allocations", no_argument, NULL, 'X' },
        { "format", required_argument, NULL, 'o' },
        { "parsable2", no_argument, NULL, 'P' },
        { "parsable", no_argument, NULL, 'p' },
        { "noheader", no_argument, NULL, 'n' },
        { "name", required_argument, NULL, 'N' },
        { "starttime", required_argument, NULL, 'S' },
        { "endtime", required_argument, NULL, 'E' },
        { "help", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    const char *ids = NULL, *users = NULL, *format = DEFAULT_FIELDS, *names = NULL;
    int sep = 0, noheader = 0, all = 0, alloc_only = 0, c, ncols;
    struct col cols[64];
    json_t *jobs, *job, *matched = json_array (), *steps, *step, *v;
    const char *pbs_id;
    char me[64] = "";
    size_t k, si;

    cliopt_only (&(struct cliopt){ .prog = "sacct", .kind = CLIOPT_SLURM }, argc, argv);
    opterr = 0;
    while ((c = getopt_long (argc, argv, "j:u:aXo:PpnS:E:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': ids = optarg; break;
        case 'u': users = optarg; break;
        case 'a': all = 1; break;
        case 'o': format = optarg; break;
        case 'P': sep = 1; break;
        case 'p': sep = 2; break;
        case 'n': noheader = 1; break;
        case 'N': names = optarg; break;
        case 'X': alloc_only = 1; break;
        case 'S':
        case 'E': break;
        case 'H': fputs (usage_text, stdout); return 0;
        default:
            fprintf (stderr,
                     "sacct: unrecognized option '%s'\nTry \"sacct --help\" for more "
                     "information\n",
                     argv[optind - 1]);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "sacct: error: Unknown arguments: %s\n", argv[optind]);
        return 1;
    }
    ncols = parse_format (format, cols, 64);
    if (!ids && !users && !all) {
        struct passwd *pw = getpwuid (getuid ());
        snprintf (me, sizeof (me), "%s", pw ? pw->pw_name : "");
        users = me;
    }
    if (!noheader) {
        const char *h[64];
        for (int i = 0; i < ncols; i++)
            h[i] = fields[cols[i].f].name;
        print_row (cols, ncols, sep, h);
        if (!sep) {
            for (int i = 0; i < ncols; i++)
                printf ("%.*s ", cols[i].width,
                        "------------------------------------------------"
                        "--------------------------------------------------");
            putchar ('\n');
        }
    }
    jobs = slurm_jobs ("sacct", NULL, 1);
    json_object_foreach (jobs, pbs_id, job)
    {
        char id[128], user[64], arr[64], raw[32];
        const char *owner = slurm_attr (job, "Job_Owner");
        if (!strcmp (slurm_attr (job, "array"), "True"))
            continue; /* an array shows as its tasks */
        slurm_id (pbs_id, id, sizeof (id));
        snprintf (arr, sizeof (arr), "%.*s", (int)strcspn (id, "_"), id);
        snprintf (user, sizeof (user), "%.*s", (int)strcspn (owner, "@"), owner);
        if ((ids && !listed (ids, id) && !listed (ids, arr)
             && !(slurm_raw_id (job, raw, sizeof (raw)) && listed (ids, raw)))
            || (users && !listed (users, user))
            || (names && !listed (names, slurm_attr (job, "Job_Name"))))
            continue;
        json_array_append_new (matched, json_string (pbs_id));
    }
    steps = alloc_only || json_array_size (matched) == 0
                ? json_array ()
                : slurm_steps ("sacct", json_deep_copy (matched));
    json_array_foreach (matched, k, v)
    {
        char id[128], buf[64][1024];
        const char *vals[64];
        pbs_id = json_string_value (v);
        job = json_object_get (jobs, pbs_id);
        slurm_id (pbs_id, id, sizeof (id));
        for (int i = 0; i < ncols; i++) {
            value (cols[i].f, id, job, buf[i], sizeof (buf[i]));
            vals[i] = buf[i];
        }
        print_row (cols, ncols, sep, vals);
        json_array_foreach (steps, si, step)
        {
            if (strcmp (json_string_value (json_object_get (step, "jobid")), pbs_id))
                continue;
            for (int i = 0; i < ncols; i++)
                step_value (cols[i].f, step, id, job, buf[i], sizeof (buf[i]));
            print_row (cols, ncols, sep, vals);
        }
    }
    json_decref (steps);
    json_decref (matched);
    json_decref (jobs);
    return 0;
}

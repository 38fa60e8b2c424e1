/* squeue - the job queue the way Slurm's squeue shows it.
 *
 * Default columns "JOBID PARTITION NAME USER ST TIME NODES
 * NODELIST(REASON)"; -o/--format with Slurm's %-fields; -h/--noheader;
 * filters -u, -j, -t, -p.  Without -t, pending and running jobs only, as
 * Slurm; -t all adds the finished ones hpcq keeps (qstat -x's history).
 * An array's pending tasks are one line, "123_[4-9]", as Slurm's squeue
 * prints an array's meta record (src/squeue/print.c); -r, one a line.
 */
#include <config.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/cliopt.h"
#include "cli/slurm.h"
#include "common/util.h"

#define DEFAULT_FORMAT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
/* squeue -s's default (Slurm's src/squeue/opts.c). */
#define STEP_FORMAT "%.15i %.8j %.9P %.8u %.9M %N"

static const char *usage_text =
    "Usage: squeue [-h|--noheader] [-u USERS] [-j IDS] [-t STATES] [-p PARTITIONS]\n"
    "              [-o|--format FORMAT] [-r|--array] [--only-job-state]\n"
    "Shows hpcq's jobs as Slurm's squeue does.  FORMAT fields: %i %A %a %j %u %P\n"
    "%t %T %M %l %D %C %R %N %r %V %S %Q.  See squeue(1) and docs/compat.md.\n";

struct opts {
    int noheader, steps, expand_arrays;
    const char *users, *ids, *states, *parts, *format;
};

/* name in the comma-separated list (NULL list: everything matches). */
static int listed (const char *list, const char *name)
{
    size_t n = strlen (name);

    if (!list)
        return 1;
    for (const char *p = list; *p;) {
        size_t k = strcspn (p, ",");
        if (k == n && strncasecmp (p, name, n) == 0)
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

static int state_wanted (const char *states, const char *state)
{
    if (!states)
        return !strcmp (state, "PENDING") || !strcmp (state, "RUNNING")
               || !strcmp (state, "COMPLETING");
    return listed (states, "all") || listed (states, state)
           || listed (states, slurm_state_code (state));
}

/* The value of one %-field for a job. */
static void field (char c, const char *id, json_t *job, char *buf, size_t len)
{
    const char *state = slurm_state (job);
    json_t *rl = json_object_get (job, "Resource_List");
    char nodes[4096];
    int nn = 0;
    long long start = slurm_time (job, "stime");

    slurm_nodelist (job, nodes, sizeof (nodes), &nn);
    switch (c) {
    case 'i': snprintf (buf, len, "%s", id); break;
    case 'A': snprintf (buf, len, "%.*s", (int)strcspn (id, "_"), id); break;
    case 'a':
        snprintf (buf, len, "%s", strchr (id, '_') ? strchr (id, '_') + 1 : "N/A");
        break;
    case 'j': snprintf (buf, len, "%s", slurm_attr (job, "Job_Name")); break;
    case 'u':
        snprintf (buf, len, "%.*s", (int)strcspn (slurm_attr (job, "Job_Owner"), "@"),
                  slurm_attr (job, "Job_Owner"));
        break;
    case 'P': snprintf (buf, len, "%s", slurm_attr (job, "queue")); break;
    case 't': snprintf (buf, len, "%s", slurm_state_code (state)); break;
    case 'T': snprintf (buf, len, "%s", state); break;
    case 'M':
        if (!strcmp (state, "RUNNING") || !strcmp (state, "COMPLETING"))
            slurm_duration (start ? (long long)time (NULL) - start : 0, buf, len);
        else
            slurm_duration (0, buf, len);
        break;
    case 'l': {
        const char *w = slurm_attr (rl, "walltime");
        int h = 0, m = 0, s = 0;
        if (w[0] && sscanf (w, "%d:%d:%d", &h, &m, &s) == 3)
            slurm_duration ((long long)h * 3600 + m * 60 + s, buf, len);
        else
            snprintf (buf, len, "UNLIMITED");
        break;
    }
    case 'D':
        snprintf (buf, len, "%lld",
                  nn ? (long long)nn
                     : (long long)json_integer_value (json_object_get (rl, "nodect")));
        break;
    case 'C':
        snprintf (buf, len, "%lld",
                  (long long)json_integer_value (json_object_get (rl, "ncpus")));
        break;
    case 'N': snprintf (buf, len, "%s", nn ? nodes : ""); break;
    case 'R':
        if (nn)
            snprintf (buf, len, "%s", nodes);
        else
            snprintf (buf, len, "(%s)", slurm_reason (job, state));
        break;
    case 'r': snprintf (buf, len, "%s", slurm_reason (job, state)); break;
    case 'V': snprintf (buf, len, "%s", slurm_attr (job, "ctime")); break;
    case 'S':
        snprintf (buf, len, "%s", start ? slurm_attr (job, "stime") : "N/A");
        break;
    case 'Q':
        snprintf (buf, len, "%lld",
                  (long long)json_integer_value (json_object_get (job, "Priority")));
        break;
    default: snprintf (buf, len, "%%%c", c); break;
    }
}

static const char *header_of (char c)
{
    switch (c) {
    case 'i': return "JOBID";
    case 'A': return "ARRAY_JOB_ID";
    case 'a': return "ARRAY_TASK_ID";
    case 'j': return "NAME";
    case 'u': return "USER";
    case 'P': return "PARTITION";
    case 't': return "ST";
    case 'T': return "STATE";
    case 'M': return "TIME";
    case 'l': return "TIME_LIMIT";
    case 'D': return "NODES";
    case 'C': return "CPUS";
    case 'N': return "NODELIST";
    case 'R': return "NODELIST(REASON)";
    case 'r': return "REASON";
    case 'V': return "SUBMIT_TIME";
    case 'S': return "START_TIME";
    case 'Q': return "PRIORITY";
    default: return "?";
    }
}

/* The value of one %-field for a step of job. */
static void step_field (char c, json_t *step, json_t *job, char *buf, size_t len)
{
    char jid[128];
    json_int_t start = json_integer_value (json_object_get (step, "start"));

    switch (c) {
    case 'i':
        slurm_id (json_string_value (json_object_get (step, "jobid")), jid,
                  sizeof (jid));
        snprintf (buf, len, "%s.%lld", jid,
                  (long long)json_integer_value (json_object_get (step, "step")));
        break;
    case 'j':
        snprintf (buf, len, "%s", json_string_value (json_object_get (step, "name")));
        break;
    case 'M': slurm_duration ((long long)time (NULL) - start, buf, len); break;
    case 'N':
        snprintf (buf, len, "%s",
                  json_string_value (json_object_get (step, "nodelist")));
        break;
    case 'D':
    case 'A':
        snprintf (buf, len, "%lld",
                  (long long)json_integer_value (
                      json_object_get (step, c == 'D' ? "nnodes" : "ntasks")));
        break;
    case 'S': {
        time_t t = (time_t)start;
        strftime (buf, len, "%Y-%m-%dT%H:%M:%S", localtime (&t));
        break;
    }
    default: field (c, "", job, buf, len); break;
    }
}

/* One line in format: a job's fields (or a step's, with step), or (job
 * NULL) the header. */
static int step_header;

static void print_line (const char *format, const char *id, json_t *job, json_t *step)
{
    char value[8192];

    for (const char *p = format; *p;) {
        int width, right;
        char c;
        if (*p != '%') {
            putchar (*p++);
            continue;
        }
        if (p[1] == '%') {
            putchar ('%');
            p += 2;
            continue;
        }
        p += slurm_field_spec (p, &width, &right, &c);
        if (step)
            step_field (c, step, job, value, sizeof (value));
        else if (job)
            field (c, id, job, value, sizeof (value));
        slurm_put (job                       ? value
                   : step_header && c == 'i' ? "STEPID"
                   : step_header && c == 'A' ? "TASKS"
                                             : header_of (c),
                   width, right);
    }
    putchar ('\n');
}

/* ---- pending array tasks, one line per array as Slurm shows them ---- */

/* The pending tasks of one array that squeue shows (in the order met),
 * collapsed into "123_[4-9,11]" at the first of them. */
struct pend {
    char array[64];
    int *idx, n;
    int printed;
};

struct pends {
    struct pend *v;
    int n;
};

static struct pend *pend_of (struct pends *ps, const char *array)
{
    for (int i = 0; i < ps->n; i++)
        if (!strcmp (ps->v[i].array, array))
            return &ps->v[i];
    ps->v = xrealloc (ps->v, (ps->n + 1) * sizeof (*ps->v));
    memset (&ps->v[ps->n], 0, sizeof (*ps->v));
    snprintf (ps->v[ps->n].array, sizeof (ps->v[ps->n].array), "%s", array);
    return &ps->v[ps->n++];
}

static int int_cmp (const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* "ARRAY_[4-9,11]" into buf. */
static void pend_id (struct pend *p, char *buf, size_t len)
{
    size_t o = snprintf (buf, len, "%s_[", p->array);

    qsort (p->idx, p->n, sizeof (int), int_cmp);
    for (int i = 0; i < p->n && o < len;) {
        int j = i;
        while (j + 1 < p->n && p->idx[j + 1] == p->idx[j] + 1)
            j++;
        o += snprintf (buf + o, len - o, j > i ? "%s%d-%d" : "%s%d", i ? "," : "",
                       p->idx[i], p->idx[j]);
        i = j + 1;
    }
    if (o < len)
        snprintf (buf + o, len - o, "]");
}

/* A pending array task (id "123_4") that a collapsed line stands for:
 * its array and index. */
static int pending_task (const char *id, const char *state, char *array, size_t len,
                         int *idx)
{
    const char *us = strchr (id, '_');

    if (!us || strcmp (state, "PENDING")
        || util_parse_int (us + 1, 0, 1 << 30, idx) < 0)
        return 0;
    snprintf (array, len, "%.*s", (int)(us - id), id);
    return 1;
}

/* The job (id its Slurm id) is one -j names: itself, its array, or its
 * own number as an array task. */
static int id_listed (const char *ids, const char *id, json_t *job)
{
    char arr[64], raw[32];
    const char *own = slurm_raw_id (job, raw, sizeof (raw));

    snprintf (arr, sizeof (arr), "%.*s", (int)strcspn (id, "_"), id);
    return listed (ids, id) || listed (ids, arr) || (own && listed (ids, own));
}

/* Whether squeue lists job (its Slurm id and owner into id and user). */
static int job_shown (const struct opts *o, const char *pbs_id, json_t *job, char *id,
                      size_t idlen, char *user, size_t ulen)
{
    const char *state = slurm_state (job), *owner = slurm_attr (job, "Job_Owner");

    slurm_id (pbs_id, id, idlen);
    snprintf (user, ulen, "%.*s", (int)strcspn (owner, "@"), owner);
    /* An array shows as its tasks, as in Slurm. */
    if (json_is_true (json_object_get (job, "array"))
        || !strcmp (slurm_attr (job, "array"), "True"))
        return 0;
    if (!listed (o->users, user) || !listed (o->parts, slurm_attr (job, "queue")))
        return 0;
    if (o->ids)
        return id_listed (o->ids, id, job)
               && (!o->states || state_wanted (o->states, state));
    return state_wanted (o->states, state);
}

static int any_listed (json_t *jobs, const char *ids)
{
    const char *pbs_id;
    json_t *job;
    char id[128];

    json_object_foreach (jobs, pbs_id, job)
    {
        slurm_id (pbs_id, id, sizeof (id));
        if (id_listed (ids, id, job))
            return 1;
    }
    return 0;
}

/* squeue -s: the running steps, filtered by -u, -p and -j (a job or a
 * step id). */
static int list_steps (struct opts *o)
{
    json_t *jobs = slurm_jobs ("squeue", NULL, 0),
           *steps = slurm_steps ("squeue", NULL);
    json_t *step;
    size_t i;
    const char *format = o->format ? o->format : STEP_FORMAT;

    step_header = 1;
    if (!o->noheader)
        print_line (format, NULL, NULL, NULL);
    json_array_foreach (steps, i, step)
    {
        json_t *job =
            json_object_get (jobs, json_string_value (json_object_get (step, "jobid")));
        const char *owner = slurm_attr (job, "Job_Owner");
        char user[64], jid[128], sid[160];

        if (!job)
            continue;
        snprintf (user, sizeof (user), "%.*s", (int)strcspn (owner, "@"), owner);
        slurm_id (json_string_value (json_object_get (step, "jobid")), jid,
                  sizeof (jid));
        snprintf (sid, sizeof (sid), "%s.%lld", jid,
                  (long long)json_integer_value (json_object_get (step, "step")));
        if (!listed (o->users, user) || !listed (o->parts, slurm_attr (job, "queue"))
            || (o->ids && !listed (o->ids, jid) && !listed (o->ids, sid)))
            continue;
        print_line (format, jid, job, step);
    }
    json_decref (steps);
    json_decref (jobs);
    return 0;
}

/* -O/--Format "Name[:[.]size],..." as -o letters (Slurm's src/squeue/opts.c
 * long names), each field 20 wide unless sized, left-justified unless
 * '.', a space between.  The format (caller frees), or exits on an
 * unknown name. */
static char *long_format (const char *spec)
{
    static const struct {
        const char *name;
        char letter;
    } names[] = {
        { "JobArrayID", 'i' },  { "JobID", 'i' },        { "ArrayJobID", 'A' },
        { "ArrayTaskID", 'a' }, { "Name", 'j' },         { "UserName", 'u' },
        { "Partition", 'P' },   { "StateCompact", 't' }, { "State", 'T' },
        { "TimeUsed", 'M' },    { "TimeLimit", 'l' },    { "NumNodes", 'D' },
        { "NumCPUs", 'C' },     { "NodeList", 'N' },     { "ReasonList", 'R' },
        { "Reason", 'r' },      { "SubmitTime", 'V' },   { "StartTime", 'S' },
        { "Priority", 'Q' },
    };
    size_t len = strlen (spec) * 8 + 16, o = 0;
    char *out = xzalloc (len);

    for (const char *p = spec; *p;) {
        size_t k = strcspn (p, ","), nl = strcspn (p, ":,");
        const char *size = nl < k ? p + nl + 1 : NULL;
        int right = size && *size == '.', width = size ? atoi (size + right) : 20;
        size_t f;
        for (f = 0; f < ARRAY_SIZE (names); f++)
            if (strlen (names[f].name) == nl && !strncasecmp (names[f].name, p, nl))
                break;
        if (f == ARRAY_SIZE (names)) {
            fprintf (stderr, "squeue: error: Invalid job format specification: %.*s\n",
                     (int)nl, p);
            exit (1);
        }
        o += snprintf (out + o, len - o, "%s%%%s%d%c", o ? " " : "", right ? "." : "",
                       width > 0 ? width : 20, names[f].letter);
        p += k + (p[k] == ',');
    }
    return out;
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "noheader", no_argument, NULL, 'h' },
        { "user", required_argument, NULL, 'u' },
        { "jobs", required_argument, NULL, 'j' },
        { "job", required_argument, NULL, 'j' },
        { "states", required_argument, NULL, 't' },
        { "partition", required_argument, NULL, 'p' },
        { "format", required_argument, NULL, 'o' },
        { "Format", required_argument, NULL, 'O' },
        { "only-job-state", no_argument, NULL, 'J' },
        { "all", no_argument, NULL, 'a' },
        { "steps", optional_argument, NULL, 's' },
        { "array", no_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    struct opts o = { 0 };
    char *long_fmt = NULL;
    json_t *jobs, *job;
    const char *pbs_id;
    int c, all_states;
    struct pends pends = { 0 };

    cliopt_only (&(struct cliopt){ .prog = "squeue", .kind = CLIOPT_SLURM }, argc,
                 argv);
    opterr = 0;
    while ((c = getopt_long (argc, argv, "hu:j:t:p:o:O:as::r", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': o.noheader = 1; break;
        case 'u': o.users = optarg; break;
        case 'j': o.ids = optarg; break;
        case 't': o.states = optarg; break;
        case 'p': o.parts = optarg; break;
        case 'o': o.format = optarg; break;
        case 'O':
            free (long_fmt);
            o.format = long_fmt = long_format (optarg);
            break;
        case 's':
            o.steps = 1;
            if (optarg)
                o.ids = optarg;
            break;
        case 'r': o.expand_arrays = 1; break;
        case 'J':
        case 'a': break;
        case 'H': fputs (usage_text, stdout); return 0;
        default:
            fprintf (stderr, "squeue: unrecognized option '%s'\n%s", argv[optind - 1],
                     "Try \"squeue --help\" for more information\n");
            return 1;
        }
    }
    if (o.steps) {
        c = list_steps (&o);
        free (long_fmt);
        return c;
    }
    if (!o.format)
        o.format = DEFAULT_FORMAT;
    /* -j naming one task shows that task, not its array's line. */
    if (o.ids && strchr (o.ids, '_'))
        o.expand_arrays = 1;
    all_states = o.ids != NULL || (o.states && listed (o.states, "all"));
    jobs = slurm_jobs ("squeue", NULL, all_states || o.states != NULL);
    /* Slurm's squeue: -j naming no job it knows fails (with one known, the
     * others are left out). */
    if (o.ids && !any_listed (jobs, o.ids)) {
        fprintf (stderr, "slurm_load_jobs error: Invalid job id specified\n");
        json_decref (jobs);
        free (long_fmt);
        return 1;
    }
    if (!o.noheader)
        print_line (o.format, NULL, NULL, NULL);
    /* Two passes: the pending tasks of each array, then the lines. */
    for (int pass = o.expand_arrays; pass < 2; pass++)
        json_object_foreach (jobs, pbs_id, job)
        {
            char id[128], user[64], array[64], cid[8192];
            const char *state = slurm_state (job);
            int idx;
            struct pend *p;
            if (!job_shown (&o, pbs_id, job, id, sizeof (id), user, sizeof (user)))
                continue;
            if (o.expand_arrays
                || !pending_task (id, state, array, sizeof (array), &idx)) {
                if (pass == 1)
                    print_line (o.format, id, job, NULL);
                continue;
            }
            p = pend_of (&pends, array);
            if (pass == 0) {
                p->idx = xrealloc (p->idx, (p->n + 1) * sizeof (int));
                p->idx[p->n++] = idx;
            } else if (!p->printed) {
                p->printed = 1;
                pend_id (p, cid, sizeof (cid));
                print_line (o.format, cid, job, NULL);
            }
        }
    for (int i = 0; i < pends.n; i++)
        free (pends.v[i].idx);
    free (pends.v);
    json_decref (jobs);
    free (long_fmt);
    return 0;
}

/* slurm.c - see slurm.h */
#include <config.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/slurm.h"
#include "common/client.h"
#include "common/hostlist.h"
#include "common/util.h"

void slurm_id (const char *pbs_id, char *buf, size_t len)
{
    size_t n = strcspn (pbs_id, ".[");

    if (pbs_id[n] == '[' && pbs_id[n + 1] != ']')
        snprintf (buf, len, "%.*s_%.*s", (int)n, pbs_id,
                  (int)strcspn (pbs_id + n + 1, "]"), pbs_id + n + 1);
    else
        snprintf (buf, len, "%.*s", (int)n, pbs_id);
}

void slurm_to_pbs_id (const char *id, char *buf, size_t len)
{
    size_t n = strcspn (id, "_.");

    if (id[n] == '_')
        snprintf (buf, len, "%.*s[%.*s]", (int)n, id, (int)strcspn (id + n + 1, "."),
                  id + n + 1);
    else
        snprintf (buf, len, "%.*s", (int)n, id);
}

const char *slurm_attr (json_t *attrs, const char *key)
{
    const char *s = json_string_value (json_object_get (attrs, key));
    return s ? s : "";
}

const char *slurm_state (json_t *attrs)
{
    const char *st = slurm_attr (attrs, "job_state"),
               *comment = slurm_attr (attrs, "comment");
    json_t *ex = json_object_get (attrs, "Exit_status");
    long long status = json_integer_value (ex);

    switch (st[0]) {
    case 'R':
    case 'B': return "RUNNING";
    case 'E': return "COMPLETING";
    case 'F': break;
    default: return "PENDING";
    }
    if (strstr (comment, "deleted") || strstr (comment, "Deleted"))
        return "CANCELLED";
    if (!json_is_integer (ex))
        return "CANCELLED";
    if (status == 0)
        return "COMPLETED";
    if (status == -29)
        return "TIMEOUT";
    if (status == -11)
        return "NODE_FAIL";
    return "FAILED";
}

const char *slurm_state_code (const char *state)
{
    static const struct {
        const char *name, *code;
    } codes[] = {
        { "PENDING", "PD" },   { "RUNNING", "R" },    { "COMPLETING", "CG" },
        { "COMPLETED", "CD" }, { "FAILED", "F" },     { "CANCELLED", "CA" },
        { "TIMEOUT", "TO" },   { "NODE_FAIL", "NF" },
    };

    for (size_t i = 0; i < ARRAY_SIZE (codes); i++)
        if (strcmp (codes[i].name, state) == 0)
            return codes[i].code;
    return "PD";
}

static void merge (json_t *reply, void *arg)
{
    json_object_update (arg, json_object_get (reply, "jobs"));
}

json_t *slurm_jobs (const char *prog, json_t *ids, int history)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    json_t *jobs = json_object ();
    json_t *body = json_pack ("{s:o s:b s:b s:b}", "ids", ids ? ids : json_array (),
                              "history", history, "table", 0, "subjobs", 1);

    if (!c || client_rpc_stream (c, "job.stat", body, merge, jobs, &err) < 0) {
        fprintf (stderr, "%s: error: %s\n", prog, err.text);
        exit (1);
    }
    client_destroy (c);
    return jobs;
}

json_t *slurm_steps (const char *prog, json_t *ids)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);
    json_t *reply = NULL, *steps;

    if (!c
        || client_rpc (c, "job.steps", ids ? json_pack ("{s:o}", "ids", ids) : NULL,
                       &reply, &err)
               < 0) {
        fprintf (stderr, "%s: error: %s\n", prog, err.text);
        exit (1);
    }
    client_destroy (c);
    steps = json_incref (json_object_get (reply, "steps"));
    json_decref (reply);
    return steps ? steps : json_array ();
}

const char *slurm_raw_id (json_t *attrs, char *buf, size_t len)
{
    json_t *v = json_object_get (attrs, "slurm_job_id");

    if (!json_is_integer (v))
        return NULL;
    snprintf (buf, len, "%lld", (long long)json_integer_value (v));
    return buf;
}

int slurm_task_of (const char *prog, const char *num, char *pbs, size_t len)
{
    json_t *jobs, *job;
    const char *id;
    char raw[32];
    int rc = -1;

    if (!num[0] || num[strspn (num, "0123456789")] != '\0')
        return -1;
    jobs = slurm_jobs (prog, NULL, 1);
    json_object_foreach (jobs, id, job)
    {
        if (rc < 0 && slurm_raw_id (job, raw, sizeof (raw)) && strcmp (raw, num) == 0) {
            snprintf (pbs, len, "%s", id);
            rc = 0;
        }
    }
    json_decref (jobs);
    return rc;
}

/* The scheduler's wait reason (its comment, in PBS's words: scheduler/
 * policy/why.c, queue.c, sched.c) as Slurm's reason code (Slurm's
 * src/common/job_state_reason.c); NULL if it names none. */
static const char *reason_of_comment (const char *c)
{
    static const struct {
        const char *text, *reason;
    } map[] = {
        { "Not Running: Insufficient amount of resource", "Resources" },
        { "Not Running: Not enough free nodes available", "Resources" },
        { "Not Running: Job would conflict with reservation or top job", "Priority" },
        { "Not Running: Job would break strict sorted order", "Priority" },
        { "Not Running: needs nodes that are down or offline", "ReqNodeNotAvail" },
        { "Not Running: queue ", "PartitionDown" },
        { "Not Running: Queue ", "QOSGrpJobsLimit" },
        { "Not Running: User has reached queue", "QOSMaxJobsPerUserLimit" },
    };

    for (size_t i = 0; i < ARRAY_SIZE (map); i++)
        if (!strncmp (c, map[i].text, strlen (map[i].text)))
            return map[i].reason;
    return NULL;
}

const char *slurm_reason (json_t *attrs, const char *state)
{
    const char *holds = slurm_attr (attrs, "Hold_Types"), *r;

    /* A finished job's, as Slurm's (PSI/J looks a failed job's up). */
    if (!strcmp (state, "FAILED"))
        return "NonZeroExitCode";
    if (!strcmp (state, "TIMEOUT"))
        return "TimeLimit";
    if (!strcmp (state, "NODE_FAIL"))
        return "NodeDown";
    if (strcmp (state, "PENDING") != 0)
        return "None";
    /* The scheduler keeps such a job held, as Slurm keeps it pending
     * (without SchedulerParameters=kill_invalid_depend). */
    if (strchr (holds, 's')
        && strstr (slurm_attr (attrs, "comment"), "can never be satisfied"))
        return "DependencyNeverSatisfied";
    if (strchr (holds, 's'))
        return "Dependency";
    if (strchr (holds, 'u') || strchr (holds, 'o'))
        return "JobHeldUser";
    if (!strcmp (slurm_attr (attrs, "job_state"), "W"))
        return "BeginTime";
    if ((r = reason_of_comment (slurm_attr (attrs, "comment"))))
        return r;
    return "Resources";
}

void slurm_mem (const char *pbs, char *buf, size_t len)
{
    static const struct {
        const char *unit;
        long long mult;
    } units[] = { { "kb", 1LL << 10 }, { "mb", 1LL << 20 }, { "gb", 1LL << 30 },
                  { "tb", 1LL << 40 }, { "b", 1 },          { "", 1 } };
    char *end;
    long long n = strtoll (pbs, &end, 10), bytes = -1, mb;

    buf[0] = '\0';
    if (!pbs[0] || end == pbs)
        return;
    for (size_t i = 0; i < ARRAY_SIZE (units) && bytes < 0; i++)
        if (!strcasecmp (end, units[i].unit))
            bytes = n * units[i].mult;
    if (bytes < 0)
        return;
    mb = (bytes + (1LL << 20) - 1) >> 20;
    if (mb >= 1024 && mb % 1024 == 0)
        snprintf (buf, len, "%lldG", mb >> 10);
    else
        snprintf (buf, len, "%lldM", mb);
}

void slurm_duration (long long secs, char *buf, size_t len)
{
    if (secs < 0)
        secs = 0;
    if (secs >= 86400)
        snprintf (buf, len, "%lld-%02lld:%02lld:%02lld", secs / 86400, secs / 3600 % 24,
                  secs / 60 % 60, secs % 60);
    else if (secs >= 3600)
        snprintf (buf, len, "%lld:%02lld:%02lld", secs / 3600, secs / 60 % 60,
                  secs % 60);
    else
        snprintf (buf, len, "%lld:%02lld", secs / 60, secs % 60);
}

void slurm_nodelist (json_t *attrs, char *buf, size_t len, int *nnodes)
{
    char copy[4096], *p = copy, *tok;
    const char *hosts[256];
    int n = 0;

    snprintf (copy, sizeof (copy), "%s", slurm_attr (attrs, "exec_host"));
    while ((tok = strsep (&p, "+")) && n < 256) {
        tok[strcspn (tok, "/")] = '\0';
        if (tok[0])
            hosts[n++] = tok;
    }
    hostlist_format (hosts, n, buf, len);
    /* Distinct nodes: the list drops repeats. */
    *nnodes = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp (hosts[i], hosts[j]) == 0;
        *nnodes += !seen;
    }
}

long long slurm_time (json_t *attrs, const char *key)
{
    const char *s = slurm_attr (attrs, key);
    struct tm tm = { .tm_isdst = -1 };

    if (!s[0] || !strptime (s, "%a %b %d %H:%M:%S %Y", &tm))
        return 0;
    return (long long)mktime (&tm);
}

int slurm_field_spec (const char *fmt, int *width, int *right, char *letter)
{
    const char *p = fmt + 1;

    *right = 0;
    *width = 0;
    if (*p == '.')
        *right = 1, p++;
    if (*p == '-')
        p++;
    while (isdigit ((unsigned char)*p))
        *width = *width * 10 + (*p++ - '0');
    *letter = *p ? *p++ : '\0';
    return (int)(p - fmt);
}

void slurm_put (const char *value, int width, int right)
{
    if (width <= 0)
        fputs (value, stdout);
    else if (right)
        printf ("%*.*s", width, width, value);
    else
        printf ("%-*.*s", width, width, value);
}

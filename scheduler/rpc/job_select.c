/* job_select.c - see job_select.h
 *
 * The criteria are qselect's (OpenPBS src/cmds/qselect.c): each one given
 * must hold.  Resources compare as PBS compares their types: counts as
 * integers, mem as a size, walltime as a duration, the rest as text.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"
#include "scheduler/rpc/job_select.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/jobs.h"

enum op { OP_EQ, OP_NE, OP_GE, OP_GT, OP_LE, OP_LT };

static const char *op_names[] = { "eq", "ne", "ge", "gt", "le", "lt" };

struct rescond {
    char name[32];
    enum op op;
    int kind; /* 0 text, 1 count, 2 size, 3 duration */
    int64_t num;
    char text[256];
};

struct select_req {
    json_t *users; /* array of names, or NULL */
    const char *states, *queue, *name, *holds;
    struct rescond res[16];
    int nres;
    int history, arrays_only;
};

#define invalid(err, ...) errprintf_code (err, EINVAL, __VA_ARGS__)

static int op_parse (const char *s, enum op *op)
{
    for (int i = 0; i < 6; i++)
        if (strcasecmp (s, op_names[i]) == 0)
            return (*op = (enum op)i), 0;
    return -1;
}

static int res_kind (const char *name)
{
    static const char *counts[] = { "ncpus", "ngpus", "nodect", "mpiprocs", NULL };

    for (int i = 0; counts[i]; i++)
        if (strcasecmp (name, counts[i]) == 0)
            return 1;
    if (strcasecmp (name, "mem") == 0)
        return 2;
    if (strcasecmp (name, "walltime") == 0)
        return 3;
    if (strcasecmp (name, "select") == 0 || strcasecmp (name, "place") == 0)
        return 0;
    return -1;
}

/* One [name, op, value] condition. */
static int rescond_parse (json_t *a, struct rescond *r, struct hpcq_error *err)
{
    const char *name, *op, *value;

    if (json_unpack (a, "[sss]", &name, &op, &value) < 0)
        return invalid (err, "job.select: malformed resource condition");
    if ((r->kind = res_kind (name)) < 0)
        return invalid (err,
                        "Unknown resource %s (qselect -l compares ncpus, ngpus, "
                        "nodect, mpiprocs, mem, walltime, select and place)",
                        name);
    if (op_parse (op, &r->op) < 0)
        return invalid (err, "illegal -l value: %s.%s.%s", name, op, value);
    snprintf (r->name, sizeof (r->name), "%s", name);
    snprintf (r->text, sizeof (r->text), "%s", value);
    if (r->kind == 1) {
        if (util_parse_i64 (value, INT64_MIN, INT64_MAX, &r->num) < 0)
            return invalid (err, "Illegal attribute or resource value %s=%s", name,
                            value);
    } else if ((r->kind == 2 && resource_parse_size (value, &r->num, NULL) < 0)
               || (r->kind == 3 && resource_parse_walltime (value, &r->num, NULL) < 0))
        return invalid (err, "Illegal attribute or resource value %s=%s", name, value);
    return 0;
}

static int compare (enum op op, int cmp)
{
    switch (op) {
    case OP_EQ: return cmp == 0;
    case OP_NE: return cmp != 0;
    case OP_GE: return cmp >= 0;
    case OP_GT: return cmp > 0;
    case OP_LE: return cmp <= 0;
    default: return cmp < 0;
    }
}

static int res_match (const struct job *job, const struct rescond *r)
{
    const struct hpcq_resources *res = &job->spec.res;
    int64_t have = 0;
    char text[512];

    if (r->kind == 0) {
        if (strcasecmp (r->name, "select") == 0)
            resource_format_select (res, text, sizeof (text));
        else
            snprintf (text, sizeof (text), "%s", res->place[0] ? res->place : "free");
        return compare (r->op, strcmp (text, r->text));
    }
    if (!strcasecmp (r->name, "ncpus"))
        have = resource_total_ncpus (res);
    else if (!strcasecmp (r->name, "ngpus"))
        have = resource_total_ngpus (res);
    else if (!strcasecmp (r->name, "nodect"))
        have = resource_total_chunks (res);
    else if (!strcasecmp (r->name, "mpiprocs")) {
        for (int i = 0; i < res->nchunks; i++)
            have += (int64_t)res->chunk[i].count * res->chunk[i].mpiprocs;
    } else if (!strcasecmp (r->name, "mem"))
        have = resource_total_mem (res);
    else if (res->walltime < 0)
        return 0; /* none asked: nothing to compare with */
    else
        have = res->walltime;
    return compare (r->op, have < r->num ? -1 : have > r->num);
}

static int user_match (json_t *users, const char *owner)
{
    json_t *v;
    size_t i;

    json_array_foreach (users, i, v)
    {
        const char *u = json_string_value (v);
        size_t n = u ? strcspn (u, "@") : 0;
        if (u && strlen (owner) == n && strncmp (owner, u, n) == 0)
            return 1;
    }
    return 0;
}

static int job_match (const struct job *job, const struct select_req *q)
{
    char state = job_state_display (job);

    if (state == 'F' && !q->history)
        return 0;
    if (q->arrays_only && !job->is_array)
        return 0;
    if (q->states && !strchr (q->states, state))
        return 0;
    if (q->users && !user_match (q->users, job->rec.owner))
        return 0;
    if (q->queue && q->queue[0] && strcmp (q->queue, job->rec.queue) != 0)
        return 0;
    if (q->name && strcmp (q->name, job->spec.name ? job->spec.name : "") != 0)
        return 0;
    if (q->holds && strcmp (q->holds, job->rec.hold_types) != 0)
        return 0;
    for (int i = 0; i < q->nres; i++)
        if (!res_match (job, &q->res[i]))
            return 0;
    return 1;
}

static int select_parse (json_t *body, struct select_req *q, struct hpcq_error *err)
{
    json_t *res = NULL, *a;
    size_t i;

    memset (q, 0, sizeof (*q));
    if (json_unpack (body, "{s?o s?s s?s s?s s?s s?o s?b s?b}", "users", &q->users,
                     "states", &q->states, "queue", &q->queue, "name", &q->name,
                     "holds", &q->holds, "resources", &res, "history", &q->history,
                     "arrays", &q->arrays_only)
            < 0
        || (q->users && !json_is_array (q->users)) || (res && !json_is_array (res)))
        return invalid (err, "job.select: malformed request");
    if (res && json_array_size (res) > 16)
        return invalid (err, "qselect: at most 16 resource conditions");
    json_array_foreach (res, i, a) if (rescond_parse (a, &q->res[q->nres++], err)
                                       < 0) return -1;
    return 0;
}

static void job_select (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct select_req q;
    struct hpcq_error err;
    struct job **all;
    json_t *ids;
    int n;

    if (select_parse (msg->body, &q, &err) < 0) {
        server_reply_error (c, msg, EINVAL, "%s", err.text);
        return;
    }
    if (!(ids = json_array ())) {
        server_reply_error (c, msg, ENOMEM, "job.select: out of memory");
        return;
    }
    all = jobs_all (srv->jobs, &n);
    for (int i = 0; i < n; i++)
        if (job_match (all[i], &q))
            json_array_append_new (ids, json_string (all[i]->id));
    (void)conn_reply (c, msg, 0, NULL, json_pack ("{s:o}", "ids", ids));
}

static const struct handler job_select_handlers[] = {
    { "job.select", job_select, ROLE_ANY },
    { NULL, NULL, 0 },
};

int job_select_register (struct server *srv)
{
    return server_register (srv, job_select_handlers);
}

/* limits.c - see limits.h
 *
 * Limit values live in one table per scope (the server, each queue that
 * has any); what jobs use lives in a hash of counters keyed by scope and
 * entity ("workq" + "u:alice").  Messages are PBS Pro's (its
 * pbs_messages.c, the msg_et_* family), so that scripts that grep for
 * them carry over; the token bucket follows Slurm's rate_limit.c, with
 * the same settings and defaults.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hash.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db_settings.h"
#include "scheduler/lifecycle_sub.h"
#include "scheduler/array.h"
#include "scheduler/jobs.h"
#include "scheduler/limit_list.h"
#include "scheduler/limits.h"
#include "scheduler/server.h"

/* Attribute index: 0 max_queued, then one per resource. */
enum { LIM_JOBS, LIM_NCPUS, LIM_MEM, LIM_NGPUS, LIM_NATTR };
static const char *res_names[LIM_NATTR] = { NULL, "ncpus", "mem", "ngpus" };

/* The limits of one scope ("" is the server). */
struct scope {
    char name[64];
    struct limit_list *attr[LIM_NATTR];
    UT_hash_handle hh;
};

/* What the jobs of one entity in one scope use. */
struct usage {
    char key[160]; /* scope '\x1f' kind ':' entity */
    int64_t v[LIM_NATTR];
    UT_hash_handle hh;
};

struct bucket {
    uid_t uid;
    int64_t tokens;
    int64_t period; /* refill periods since the epoch */
    int64_t logged; /* when a refusal was last logged */
    UT_hash_handle hh;
};

struct group_name {
    uid_t uid;
    char name[64];
    UT_hash_handle hh;
};

struct limits {
    struct server *srv;
    struct scope *scopes;
    struct usage *usage;
    int active; /* some limit is set somewhere */
    int groups; /* some g: limit is set */
    struct group_name *gcache;

    int rl_enable;
    int64_t rl_bucket_size, rl_refill_rate, rl_refill_period;
    struct bucket *buckets;
};

int limits_attr_index (const char *name, struct hpcq_error *err)
{
    if (strcasecmp (name, "max_queued") == 0)
        return LIM_JOBS;
    if (strncasecmp (name, "max_queued_res.", 15) != 0)
        return -1;
    for (int i = 1; i < LIM_NATTR; i++)
        if (strcasecmp (name + 15, res_names[i]) == 0)
            return i;
    errno = EINVAL;
    errprintf (err, "Unknown resource %s (max_queued_res takes ncpus, mem, ngpus)",
               name + 15);
    return -2;
}

int limits_attr_is_size (int index)
{
    return index == LIM_MEM;
}

int limits_check_value (const char *name, const char *value, struct hpcq_error *err)
{
    int i = limits_attr_index (name, err);
    struct limit_list *l;

    if (i == -1)
        return 0;
    if (i < 0)
        return -1;
    if (value) {
        if (!(l = limit_list_parse (value, limits_attr_is_size (i), err)))
            return -1;
        limit_list_free (l);
    }
    return 1;
}

/* --- scopes --- */

static struct scope *scope_get (struct limits *lim, const char *name, int add)
{
    struct scope *s;

    name = name ? name : "";
    HASH_FIND_STR (lim->scopes, name, s);
    if (s || !add)
        return s;
    s = xzalloc (sizeof (*s));
    snprintf (s->name, sizeof (s->name), "%s", name);
    HASH_ADD_STR (lim->scopes, name, s);
    return s;
}

static void scope_free (struct scope *s)
{
    for (int i = 0; i < LIM_NATTR; i++)
        limit_list_free (s->attr[i]);
    free (s);
}

/* active and groups from what is set. */
static void limits_summarize (struct limits *lim)
{
    struct scope *s, *tmp;

    lim->active = lim->groups = 0;
    HASH_ITER (hh, lim->scopes, s, tmp)
    {
        for (int i = 0; i < LIM_NATTR; i++) {
            if (!s->attr[i])
                continue;
            lim->active = 1;
            for (int k = 0; k < s->attr[i]->n; k++)
                if (s->attr[i]->e[k].kind == 'g')
                    lim->groups = 1;
        }
    }
}

static void attr_store (struct limits *lim, const char *scope, const char *name,
                        const struct limit_list *l)
{
    char text[8192];

    if (!lim->srv)
        return;
    limit_list_format (l, text, sizeof (text));
    if ((l ? db_setting_set (lim->srv->db, scope ? scope : "", name, text)
           : db_setting_delete (lim->srv->db, scope ? scope : "", name))
        < 0)
        log_error ("cannot store %s", name);
}

/* Set or unset one attribute in memory (store: and in the database). */
static int limits_apply (struct limits *lim, const char *scope, const char *name,
                         const char *value, int op, int store, struct hpcq_error *err)
{
    int i = limits_attr_index (name, err);
    struct limit_list *l = NULL, *add;
    struct scope *s;

    if (i < 0) {
        if (i == -1) {
            errno = EINVAL;
            errprintf (err, "Unknown attribute %s", name);
        }
        return -1;
    }
    if (value) {
        if (!(add = limit_list_parse (value, limits_attr_is_size (i), err)))
            return -1;
        s = scope_get (lim, scope, 0);
        if (op == '=')
            l = add;
        else {
            l = limit_list_merge (s ? s->attr[i] : NULL, add, op, err);
            limit_list_free (add);
            if (!l)
                return -1;
        }
        if (l->n == 0) {
            limit_list_free (l);
            l = NULL;
        }
    }
    s = scope_get (lim, scope, 1);
    limit_list_free (s->attr[i]);
    s->attr[i] = l;
    if (store)
        attr_store (lim, scope, name, l);
    limits_summarize (lim);
    return 0;
}

int limits_set (struct limits *lim, const char *scope, const char *name,
                const char *value, int op, struct hpcq_error *err)
{
    const char *base = NULL;

    if (limits_apply (lim, scope, name, value, op, 1, err) < 0)
        return -1;
    /* The server's own value comes back from the config on unset. */
    if (!value && !scope && lim->srv)
        base = config_get (lim->srv->cfg, name, NULL);
    if (base && limits_apply (lim, scope, name, base, '=', 0, err) < 0)
        return -1;
    limits_recount (lim);
    return 0;
}

void limits_drop_scope (struct limits *lim, const char *scope)
{
    struct scope *s = scope_get (lim, scope, 0);

    if (!s)
        return;
    if (lim->srv && db_setting_delete (lim->srv->db, scope, NULL) < 0)
        log_error ("cannot forget the limits of queue %s", scope);
    HASH_DEL (lim->scopes, s);
    scope_free (s);
    limits_summarize (lim);
    limits_recount (lim);
}

void limits_get (const struct limits *lim, const char *scope, const char *name,
                 char *buf, size_t len)
{
    struct scope *s = scope_get ((struct limits *)lim, scope, 0);
    int i = limits_attr_index (name, NULL);

    buf[0] = '\0';
    if (s && i >= 0)
        limit_list_format (s->attr[i], buf, len);
}

void limits_attrs_json (const struct limits *lim, const char *scope, json_t *o)
{
    struct scope *s = scope_get ((struct limits *)lim, scope, 0);
    json_t *res = NULL;
    char text[8192];

    for (int i = 0; s && i < LIM_NATTR; i++) {
        if (!s->attr[i])
            continue;
        limit_list_format (s->attr[i], text, sizeof (text));
        if (i == LIM_JOBS) {
            json_object_set_new (o, "max_queued", json_string (text));
            continue;
        }
        if (!res && !(res = json_object ()))
            return;
        json_object_set_new (res, res_names[i], json_string (text));
    }
    if (res)
        json_object_set_new (o, "max_queued_res", res);
}

/* --- what jobs use --- */

/* uid's primary group by name, cached ("" if it has none). */
static const char *group_of (struct limits *lim, uid_t uid)
{
    struct group_name *g;
    struct passwd pw, *pwr = NULL;
    struct group gr, *grr = NULL;
    char buf[4096];

    HASH_FIND (hh, lim->gcache, &uid, sizeof (uid), g);
    if (g)
        return g->name;
    g = xzalloc (sizeof (*g));
    g->uid = uid;
    if (getpwuid_r (uid, &pw, buf, sizeof (buf), &pwr) == 0 && pwr) {
        gid_t gid = pw.pw_gid;
        if (getgrgid_r (gid, &gr, buf, sizeof (buf), &grr) == 0 && grr)
            snprintf (g->name, sizeof (g->name), "%s", gr.gr_name);
        else
            snprintf (g->name, sizeof (g->name), "gid%u", (unsigned)gid);
    }
    HASH_ADD (hh, lim->gcache, uid, sizeof (uid), g);
    return g->name;
}

static struct usage *usage_get (struct limits *lim, const char *scope, char kind,
                                const char *entity, int add)
{
    struct usage *u;
    char key[sizeof (u->key)];

    snprintf (key, sizeof (key), "%s\x1f%c:%s", scope, kind, entity);
    HASH_FIND_STR (lim->usage, key, u);
    if (u || !add)
        return u;
    u = xzalloc (sizeof (*u));
    memcpy (u->key, key, sizeof (key));
    HASH_ADD_STR (lim->usage, key, u);
    return u;
}

/* What one job of request res adds, n times. */
static void req_amounts (const struct hpcq_resources *res, int64_t n,
                         int64_t v[LIM_NATTR])
{
    v[LIM_JOBS] = n;
    v[LIM_NCPUS] = n * resource_total_ncpus (res);
    v[LIM_MEM] = n * resource_total_mem (res);
    v[LIM_NGPUS] = n * resource_total_ngpus (res);
}

/* The entities a job counts for, in the order PBS checks them. */
struct entities {
    char kind[3];
    const char *name[3];
    int n;
};

static void entities_of (struct limits *lim, uid_t uid, const char *user,
                         struct entities *e)
{
    e->n = 0;
    e->kind[e->n] = 'o';
    e->name[e->n++] = "PBS_ALL";
    e->kind[e->n] = 'u';
    e->name[e->n++] = user;
    if (lim->groups) {
        e->kind[e->n] = 'g';
        e->name[e->n++] = group_of (lim, uid);
    }
}

static void usage_add (struct limits *lim, const char *queue, uid_t uid,
                       const char *user, const int64_t v[LIM_NATTR], int sign)
{
    const char *scopes[2] = { "", queue };
    struct entities e;

    entities_of (lim, uid, user, &e);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < e.n; k++) {
            struct usage *u = usage_get (lim, scopes[s], e.kind[k], e.name[k], 1);
            for (int i = 0; i < LIM_NATTR; i++)
                u->v[i] += sign * v[i];
        }
}

static int counted (const struct job *job)
{
    return !job->is_array && job->rec.state != 'F';
}

/* An array's untouched subjobs (array.h) are no jobs: the array counts for
 * them, with its request, while they are queued or held as it is (until
 * it is deleted or over: array_untouched_state).  A split-out subjob is a
 * job and counts for itself.  Splitting one out, or giving it back, moves
 * one count between the array and the subjob with the same request, so
 * neither is accounted; whatever else befalls the subjob goes through
 * lifecycle_change and limits_account as for any job. */
static int untouched_live (char array_state)
{
    return array_state != 'E' && array_state != 'F';
}

static void account_untouched (struct limits *lim, const struct job *array, int sign)
{
    int64_t v[LIM_NATTR];

    if (!array->arr || array->arr->untouched == 0)
        return;
    req_amounts (&array->spec.res, array->arr->untouched, v);
    usage_add (lim, array->rec.queue, (uid_t)array->rec.uid, array->rec.owner, v, sign);
}

void limits_account (struct limits *lim, const struct job *job, int sign)
{
    int64_t v[LIM_NATTR];

    if (!lim || !lim->active || !counted (job))
        return;
    req_amounts (&job->spec.res, 1, v);
    usage_add (lim, job->rec.queue, (uid_t)job->rec.uid, job->rec.owner, v, sign);
}

void limits_state_changed (struct limits *lim, const struct job *job, char old)
{
    int was, now;
    int64_t v[LIM_NATTR];

    if (!lim || !lim->active)
        return;
    /* An array deleted (E) or over: its untouched subjobs end. */
    if (job->is_array) {
        was = untouched_live (old);
        now = untouched_live (job->rec.state);
        if (was != now)
            account_untouched (lim, job, now ? 1 : -1);
        return;
    }
    was = old != 'F';
    now = job->rec.state != 'F';
    if (was == now)
        return;
    req_amounts (&job->spec.res, 1, v);
    usage_add (lim, job->rec.queue, (uid_t)job->rec.uid, job->rec.owner, v,
               now ? 1 : -1);
}

void limits_account_new (struct limits *lim, const struct job *job)
{
    const struct job_array *a = job->arr;

    if (!job->is_array) {
        limits_account (lim, job, 1);
        return;
    }
    if (!lim || !lim->active || !a)
        return;
    if (untouched_live (job->rec.state))
        account_untouched (lim, job, 1);
    for (int i = 0; i < a->nsub; i++)
        limits_account (lim, a->sub[i], 1);
}

void limits_recount (struct limits *lim)
{
    struct usage *u, *tmp;
    struct job **all;
    int n;

    if (!lim->srv || !lim->srv->jobs)
        return; /* no jobs to count from (tests): the counts stay */
    if (jobs_loading (lim->srv->jobs))
        return; /* the requests are being parsed: counted once they are */
    HASH_ITER (hh, lim->usage, u, tmp)
    {
        HASH_DEL (lim->usage, u);
        free (u);
    }
    if (!lim->active)
        return;
    all = jobs_all (lim->srv->jobs, &n);
    for (int i = 0; i < n; i++)
        if (all[i]->rec.state != 'F')
            limits_account_new (lim, all[i]);
}

/* --- admission --- */

static const struct limit_entry *find_entry (const struct limit_list *l, char kind,
                                             const char *name)
{
    for (int i = 0; l && i < l->n; i++)
        if (l->e[i].kind == kind && strcmp (l->e[i].name, name) == 0)
            return &l->e[i];
    return NULL;
}

/* PBS's refusal for limit attr of scope passed by entity kind:name
 * (generic: the PBS_GENERIC entry was the one). */
static int refuse (struct hpcq_error *err, int attr, const char *scope, char kind,
                   const char *name, int generic)
{
    const char *who = kind == 'u' ? "user" : "group";
    char where[96];

    if (*scope)
        snprintf (where, sizeof (where), "queue %s", scope);
    else
        snprintf (where, sizeof (where), "complex");
    errno = EDQUOT;
    if (attr == LIM_JOBS) {
        if (kind == 'o')
            return errprintf (err, "Maximum number of jobs already in %s", where);
        if (generic)
            return *scope ? errprintf (err, "would exceed queue %s's per-%s limit",
                                       scope, who)
                          : errprintf (err, "would exceed complex's per-%s limit", who);
        return errprintf (err, "Maximum number of jobs for %s %s already in %s", who,
                          name, where);
    }
    if (kind == 'o')
        return errprintf (err, "would exceed limit on resource %s in %s",
                          res_names[attr], where);
    if (generic)
        return errprintf (err, "would exceed per-%s limit on resource %s in %s", who,
                          res_names[attr], where);
    return errprintf (err, "would exceed %s %s's limit on resource %s in %s", who, name,
                      res_names[attr], where);
}

static int admit_scope (struct limits *lim, const struct scope *s,
                        const struct entities *e, const int64_t add[LIM_NATTR],
                        struct hpcq_error *err)
{
    for (int a = 0; a < LIM_NATTR; a++) {
        const struct limit_list *l = s->attr[a];
        for (int k = 0; l && k < e->n; k++) {
            const struct limit_entry *le = find_entry (l, e->kind[k], e->name[k]);
            int generic = 0;
            struct usage *u;
            if (!le && e->kind[k] != 'o') {
                le = find_entry (l, e->kind[k], "PBS_GENERIC");
                generic = 1;
            }
            if (!le)
                continue;
            u = usage_get (lim, s->name, e->kind[k], e->name[k], 0);
            if ((u ? u->v[a] : 0) + add[a] > le->value)
                return refuse (err, a, s->name, e->kind[k], e->name[k], generic);
        }
    }
    return 0;
}

int limits_admit (struct limits *lim, const struct limits_req *req,
                  struct hpcq_error *err)
{
    const char *scopes[2] = { "", req->queue };
    int64_t add[LIM_NATTR];
    struct entities e;

    if (!lim->active)
        return 0;
    req_amounts (req->res, req->n, add);
    entities_of (lim, req->uid, req->user, &e);
    for (int i = 0; i < 2; i++) {
        const struct scope *s = scope_get (lim, scopes[i], 0);
        if (s && admit_scope (lim, s, &e, add, err) < 0)
            return -1;
    }
    return 0;
}

/* --- the submission rate limit --- */

int limits_rate_at (struct limits *lim, uid_t uid, int64_t now, struct hpcq_error *err)
{
    int64_t period = now / lim->rl_refill_period;
    struct bucket *b;
    char user[64];

    if (!lim->rl_enable || uid == 0 || (lim->srv && uid == lim->srv->operator_uid))
        return 0;
    HASH_FIND (hh, lim->buckets, &uid, sizeof (uid), b);
    if (!b) {
        b = xzalloc (sizeof (*b));
        b->uid = uid;
        b->tokens = lim->rl_bucket_size;
        b->period = period;
        HASH_ADD (hh, lim->buckets, uid, sizeof (uid), b);
    }
    if (period > b->period) {
        int64_t gained = (period - b->period) * lim->rl_refill_rate;
        b->tokens = gained >= lim->rl_bucket_size - b->tokens ? lim->rl_bucket_size
                                                              : b->tokens + gained;
        b->period = period;
    }
    if (b->tokens > 0) {
        b->tokens--;
        return 0;
    }
    server_user_name (uid, user, sizeof (user));
    if (b->logged != now) { /* one line a second per user at most */
        b->logged = now;
        log_msg (LOG_WARNING, "rate limit: refusing submissions from %s", user);
    }
    errno = EAGAIN;
    return errprintf (err,
                      "rate limit: user %s submitted more than %lld jobs at once "
                      "and %lld per %lld s after that (rl_bucket_size, rl_refill_rate, "
                      "rl_refill_period); try again in a moment",
                      user, (long long)lim->rl_bucket_size,
                      (long long)lim->rl_refill_rate, (long long)lim->rl_refill_period);
}

int limits_rate (struct limits *lim, uid_t uid, struct hpcq_error *err)
{
    return limits_rate_at (lim, uid, util_wall_secs (), err);
}

/* --- life --- */

/* Server-scope values from the config (same names), then what qmgr
 * stored, which wins. */
static int load_one (const char *scope, const char *name, const char *value, void *arg)
{
    struct limits *lim = arg;
    struct hpcq_error err;

    if (limits_attr_index (name, NULL) < 0)
        return 0; /* another module's setting */
    if (limits_apply (lim, *scope ? scope : NULL, name, value, '=', 0, &err) < 0)
        log_msg (LOG_ERR, "stored %s of %s unreadable, ignored: %s", name,
                 *scope ? scope : "the server", err.text);
    return 0;
}

void limits_rate_config (struct limits *lim, int enable, int64_t bucket_size,
                         int64_t refill_rate, int64_t refill_period)
{
    lim->rl_enable = enable;
    lim->rl_bucket_size = bucket_size;
    lim->rl_refill_rate = refill_rate;
    lim->rl_refill_period = refill_period;
}

/* Slurm's defaults: off, 30 tokens, 2 more each second. */
static int limits_settings (struct limits *lim, struct hpcq_error *err)
{
    const struct config *cfg;
    int64_t enable, size, rate, period;

    limits_rate_config (lim, 0, 30, 2, 1);
    if (!lim->srv)
        return 0;
    cfg = lim->srv->cfg;
    if (config_get_int (cfg, "rl_enable", 0, 0, 1, &enable, err) < 0
        || config_get_int (cfg, "rl_bucket_size", 30, 1, 1000000000, &size, err) < 0
        || config_get_int (cfg, "rl_refill_rate", 2, 1, 1000000000, &rate, err) < 0
        || config_get_int (cfg, "rl_refill_period", 1, 1, 86400, &period, err) < 0)
        return -1;
    limits_rate_config (lim, (int)enable, size, rate, period);
    return 0;
}

static int limits_load (struct limits *lim, struct hpcq_error *err)
{
    static const char *names[] = { "max_queued", "max_queued_res.ncpus",
                                   "max_queued_res.mem", "max_queued_res.ngpus", NULL };

    for (int i = 0; names[i]; i++) {
        const char *v = config_get (lim->srv->cfg, names[i], NULL);
        if (v && limits_apply (lim, NULL, names[i], v, '=', 0, err) < 0)
            return errprintf (err, "config %s: %s", names[i], err->text);
    }
    if (db_setting_foreach (lim->srv->db, load_one, lim) < 0)
        return errprintf (err, "cannot read the limits from the database");
    return 0;
}

/* A state change moves the job between the counts. */
static int limits_on_job (struct server *srv, struct job *job,
                          const struct lifecycle_event *ev, void *arg)
{
    if (ev->point == LC_CHANGED)
        limits_state_changed (arg, job, ev->old);
    return 0;
}

static const struct lifecycle_sub limits_sub = { "limits", limits_on_job, 0 };

struct limits *limits_create (struct server *srv, struct hpcq_error *err)
{
    struct limits *lim = xzalloc (sizeof (*lim));

    lim->srv = srv;
    if (limits_settings (lim, err) < 0 || (srv && limits_load (lim, err) < 0)
        || (srv && lifecycle_subscribe (srv, &limits_sub, lim) < 0
            && errprintf (err, "limits: %s", strerror (errno)) < 0)) {
        limits_destroy (lim);
        return NULL;
    }
    return lim;
}

void limits_destroy (struct limits *lim)
{
    if (!lim)
        return;
    HASH_FREE_ALL (lim->scopes, scope_free);
    HASH_FREE_ALL (lim->usage, free);
    HASH_FREE_ALL (lim->buckets, free);
    HASH_FREE_ALL (lim->gcache, free);
    free (lim);
}

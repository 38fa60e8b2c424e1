/* depend.c - see depend.h */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/depend.h"
#include "scheduler/lifecycle.h"

enum dep_type { DEP_AFTER, DEP_AFTEROK, DEP_AFTERNOTOK, DEP_AFTERANY };

static const char *dep_names[] = { "after", "afterok", "afternotok", "afterany" };

enum dep_state { DEP_WAIT, DEP_MET, DEP_NEVER };

struct dep {
    enum dep_type type;
    int64_t seq;
};

struct waiter {
    struct job *job;
    struct dep *deps;
    int ndeps;
};

/* The jobs held for dependencies, with their parsed dependencies: a plain
 * array, as only the waiting ones are here, not the history. */
struct depend {
    struct waiter *v;
    int n;
};

struct depend *depend_create (void)
{
    return calloc (1, sizeof (struct depend));
}

static int dep_type_of (const char *s, size_t len)
{
    for (int t = 0; t < 4; t++)
        if (strlen (dep_names[t]) == len && strncmp (s, dep_names[t], len) == 0)
            return t;
    return -1;
}

/* Parse "type:id:id,type:id" into deps (caller frees).  -1 with err. */
static int dep_parse (struct server *srv, const char *text, struct dep **depsp, int *np,
                      struct hpcq_error *err)
{
    char *copy = xstrdup (text), *clause, *save = NULL;
    struct dep *deps = NULL;
    int n = 0;

    for (clause = strtok_r (copy, ",", &save); clause;
         clause = strtok_r (NULL, ",", &save)) {
        char *colon = strchr (clause, ':'), *id, *save2 = NULL;
        int type = colon ? dep_type_of (clause, colon - clause) : -1;
        if (type < 0) {
            errprintf_code (err, EINVAL,
                            "unsupported dependency '%s' (after, afterok, "
                            "afternotok or afterany)",
                            clause);
            goto error;
        }
        for (id = strtok_r (colon + 1, ":", &save2); id;
             id = strtok_r (NULL, ":", &save2)) {
            struct job *other = jobs_find (srv->jobs, id);
            if (!other) {
                errprintf_code (err, ENOENT, "Unknown Job Id %s in dependency", id);
                goto error;
            }
            deps = xrealloc (deps, (n + 1) * sizeof (*deps));
            deps[n].type = type;
            deps[n++].seq = other->rec.seq;
        }
    }
    free (copy);
    if (n == 0) {
        errprintf_code (err, EINVAL, "empty dependency '%s'", text);
        free (deps);
        return -1;
    }
    *depsp = deps;
    *np = n;
    return 0;
error:
    free (copy);
    free (deps);
    return -1;
}

static int ended_ok (const struct job *j)
{
    return j->rec.has_exit && j->rec.exit_status == 0;
}

static enum dep_state dep_eval (struct server *srv, const struct dep *d)
{
    struct job *o = jobs_lookup (srv->jobs, d->seq);

    if (!o)
        return DEP_NEVER;
    if (d->type == DEP_AFTER)
        return o->rec.run_count > 0  ? DEP_MET
               : o->rec.state == 'F' ? DEP_NEVER
                                     : DEP_WAIT;
    if (o->rec.state != 'F')
        return DEP_WAIT;
    switch (d->type) {
    case DEP_AFTEROK: return ended_ok (o) ? DEP_MET : DEP_NEVER;
    case DEP_AFTERNOTOK: return ended_ok (o) ? DEP_NEVER : DEP_MET;
    default: return DEP_MET;
    }
}

/* All met, one never, or still waiting; why names the culprit. */
static enum dep_state waiter_eval (struct server *srv, const struct waiter *w,
                                   char *why, size_t len)
{
    enum dep_state st = DEP_MET;

    for (int i = 0; i < w->ndeps; i++) {
        enum dep_state s = dep_eval (srv, &w->deps[i]);
        if (s == DEP_MET)
            continue;
        snprintf (why, len, "%s:%lld.%s", dep_names[w->deps[i].type],
                  (long long)w->deps[i].seq, srv->name);
        if (s == DEP_NEVER)
            return DEP_NEVER;
        st = DEP_WAIT;
    }
    return st;
}

static void hold_types_drop (struct job *job, char h)
{
    char *p = strchr (job->rec.hold_types, h);
    if (p)
        memmove (p, p + 1, strlen (p));
    if (!job->rec.hold_types[0])
        snprintf (job->rec.hold_types, sizeof (job->rec.hold_types), "n");
}

static void hold_types_add (struct job *job, char h)
{
    size_t len = strlen (job->rec.hold_types);

    if (strcmp (job->rec.hold_types, "n") == 0)
        len = 0;
    if (!strchr (job->rec.hold_types, h) && len + 1 < sizeof (job->rec.hold_types)) {
        job->rec.hold_types[len] = h;
        job->rec.hold_types[len + 1] = '\0';
    }
}

int depend_waiting (const struct job *job)
{
    return strchr (job->rec.hold_types, 's') != NULL;
}

static void waiter_remove (struct depend *d, int i)
{
    free (d->v[i].deps);
    d->v[i] = d->v[--d->n];
}

int depend_attach (struct server *srv, struct job *job, struct hpcq_error *err)
{
    struct depend *d = srv->depend;
    struct waiter w = { job, NULL, 0 };
    char why[128] = "";

    if (!job->spec.depend || !*job->spec.depend)
        return 0;
    if (dep_parse (srv, job->spec.depend, &w.deps, &w.ndeps, err) < 0)
        return -1;
    if (waiter_eval (srv, &w, why, sizeof (why)) == DEP_MET && !depend_waiting (job)) {
        free (w.deps);
        return 0;
    }
    d->v = xrealloc (d->v, (d->n + 1) * sizeof (*d->v));
    d->v[d->n++] = w;
    /* A new job is held from its submission (lifecycle_submit holds a job
     * with holds); a reloaded one is held already. */
    if (job->rec.state == JOB_STATE_NEW || job->rec.state == 'H') {
        hold_types_add (job, 's');
        job_set_comment (job, "Job held: waiting for %s", why);
    }
    return 0;
}

int depend_count (struct server *srv)
{
    return srv->depend->n;
}

/* Dependencies met: lift the system hold; queue unless a user hold stays. */
static void depend_release (struct server *srv, struct job *job)
{
    hold_types_drop (job, 's');
    job_set_comment (job, "Dependencies satisfied");
    if (lifecycle_change (srv, job,
                          strpbrk (job->rec.hold_types, "uo")
                              ? 'H'
                              : lifecycle_ready_state (job),
                          JOB_EV_RELEASED, "scheduler", "dependencies satisfied")
        < 0)
        log_error ("job %s: record release", job->id);
    server_request_pass (srv);
}

void depend_update (struct server *srv)
{
    struct depend *d = srv->depend;

    for (int i = d->n - 1; i >= 0; i--) {
        struct job *job = d->v[i].job;
        char why[128] = "";
        enum dep_state st = waiter_eval (srv, &d->v[i], why, sizeof (why));
        if (job->rec.state != 'H') {
            waiter_remove (d, i); /* deleted meanwhile */
            continue;
        }
        if (st == DEP_MET) {
            waiter_remove (d, i);
            depend_release (srv, job);
        } else if (st == DEP_NEVER
                   && !strstr (job->rec.comment ? job->rec.comment : "", "can never")) {
            job_set_comment (job, "Job held: dependency %s can never be satisfied",
                             why);
            if (lifecycle_change (srv, job, 'H', JOB_EV_DEPENDENCY_FAILED, "scheduler",
                                  why)
                < 0)
                log_error ("job %s: record dependency failure", job->id);
        }
    }
}

void depend_destroy (struct depend *d)
{
    if (!d)
        return;
    while (d->n > 0)
        waiter_remove (d, d->n - 1);
    free (d->v);
    free (d);
}

/* limits.h - how much one user (or group, or everyone) may have queued,
 * and how fast a user may submit.
 *
 * Queue limits are PBS Pro's max_queued and max_queued_res.RES, at the
 * server and on each queue, in PBS's limit syntax:
 *     [u:PBS_GENERIC=10], [u:alice=20], [g:staff=50], [o:PBS_ALL=1000]
 * u: a user (PBS_GENERIC: each user without a limit of their own), g: a
 * group (the owner's primary group), o:PBS_ALL: all jobs together.  A job
 * counts from submission until it finishes (queued, held, waiting or
 * running); an array counts as its subjobs, as in PBS.  A submission that
 * would pass a limit is refused with PBS's wording ("Maximum number of
 * jobs for user alice already in complex").  Resources: ncpus, mem, ngpus.
 *
 * Counting costs nothing while no limit is set: the counts are built from
 * every job when a limit is first set (or at start) and then kept as jobs
 * are added, finish, or move (limits_account).
 *
 * The submission rate limit is Slurm 23.02's token bucket (rl_enable,
 * rl_bucket_size, rl_refill_rate, rl_refill_period in the config): each
 * submission takes a token from its user's bucket, which holds at most
 * rl_bucket_size and gains rl_refill_rate every rl_refill_period seconds.
 * Root and the scheduler's user are not limited.
 */
#ifndef HPCQ_SCHEDULER_LIMITS_H
#define HPCQ_SCHEDULER_LIMITS_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/resource.h"
#include "scheduler/limit_list.h"

struct server;
struct job;
struct limits;

/* Which limit an attribute name is: 0 for max_queued, 1 + resource index
 * for max_queued_res.RES, -1 if none (err says why when the name starts
 * "max_queued"). */
int limits_attr_index (const char *name, struct hpcq_error *err);
/* Is attribute index's value a size? */
int limits_attr_is_size (int index);
/* 1 if name is a limit attribute and value (NULL: unset) is valid for it,
 * 0 if name is not a limit attribute, -1 with err if the value (or the
 * resource in the name) is wrong. */
int limits_check_value (const char *name, const char *value, struct hpcq_error *err);

/* srv may be NULL (unit tests): then nothing is recounted from jobs and
 * nobody is exempt from the rate limit.  NULL with err on bad config. */
struct limits *limits_create (struct server *srv, struct hpcq_error *err);
void limits_destroy (struct limits *lim);

/* Set (value) or unset (NULL) attribute name of scope (NULL: the server;
 * else a queue name).  op: '=' replaces, '+' adds entries, '-' removes
 * them.  Recounts what jobs use.  0, or -1 with err (nothing changed). */
int limits_set (struct limits *lim, const char *scope, const char *name,
                const char *value, int op, struct hpcq_error *err);
/* A queue is deleted: forget its limits. */
void limits_drop_scope (struct limits *lim, const char *scope);
/* The attribute's value as text ("" if unset) into buf. */
void limits_get (const struct limits *lim, const char *scope, const char *name,
                 char *buf, size_t len);
/* Every limit set on scope, as qmgr lists them: {"max_queued": "...",
 * "max_queued_res": {"ncpus": "..."}} added to o. */
void limits_attrs_json (const struct limits *lim, const char *scope, json_t *o);

/* Count every job again (after loading, or when limits change). */
void limits_recount (struct limits *lim);

/* What a submission adds: n jobs (an array's subjobs), each using res. */
struct limits_req {
    uid_t uid;
    const char *user;
    const char *queue;
    const struct hpcq_resources *res;
    int n;
};

/* May req be queued?  0, or -1 with errno EDQUOT and PBS's message. */
int limits_admit (struct limits *lim, const struct limits_req *req,
                  struct hpcq_error *err);

/* Add (sign 1) or remove (-1) job's part in the counts: a job that is not
 * an array and not finished counts.  Call it when a job is added, when it
 * finishes (or is brought back), and around a change of queue or request. */
void limits_account (struct limits *lim, const struct job *job, int sign);
/* A new job, or each subjob of a new array. */
void limits_account_new (struct limits *lim, const struct job *job);
/* job's state just changed from old (lifecycle.c): it leaves the counts
 * when it finishes, and comes back if it ever leaves F. */
void limits_state_changed (struct limits *lim, const struct job *job, char old);

/* The token bucket's settings (limits_create reads them from the
 * config; tests set them here). */
void limits_rate_config (struct limits *lim, int enable, int64_t bucket_size,
                         int64_t refill_rate, int64_t refill_period);

/* One submission by uid: 0 if its bucket had a token, else -1 with errno
 * EAGAIN and err ("rate limit: ...").  Always 0 when rl_enable is off. */
int limits_rate (struct limits *lim, uid_t uid, struct hpcq_error *err);
/* The same at a given time (seconds), for tests. */
int limits_rate_at (struct limits *lim, uid_t uid, int64_t now, struct hpcq_error *err);

#endif

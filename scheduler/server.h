/* server.h - the scheduler's context: listeners, dispatch, durable replies.
 *
 * server_create() builds every subsystem (database, jobs, nodes, the
 * scheduling pass) and opens the sockets; main() runs the loop.  Each
 * subsystem registers its own table of message handlers.
 *
 * Durability: handlers change state through the database's open
 * transaction and queue their replies with server_send_after_commit().
 * Once per loop turn the before-sleep hook runs a scheduling pass, commits
 * the batch (one fsync for everything that arrived in that turn: group
 * commit) and only then sends the queued messages, so nothing is
 * acknowledged or launched before it is durable.
 */
#ifndef HPCQ_SCHEDULER_SERVER_H
#define HPCQ_SCHEDULER_SERVER_H

#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include "common/config.h"
#include "common/conn.h"
#include "common/loop.h"
#include "db/db.h"

struct jobs;
struct nodes;
struct worker_link;
struct sched;
struct depend;
struct queues;
struct fairshare;
struct auth;
struct authq;
struct clients;
struct limits;
struct server_attrs;
struct job_ops;
struct power;
struct reclaim;
struct spot_choice;
struct accounting;
struct metrics;
struct telemetry;
struct http;
struct history;
struct deferred;
struct node_health;
struct ckpt;
struct nodeclass;
struct preempt;
struct cost;
struct server;
struct lifecycle_sub;

/* The points where the server calls the daemon's other parts, which it
 * knows by none of their names (scheduler/subsystems.c fills these in):
 * that keeps server.c out of the include circle. */
struct server_hooks {
    /* Once per loop turn, before the batch commits (the scheduling pass). */
    void (*before_commit) (struct server *srv);
    /* Right after the commit: batch is 1 if a transaction was open, secs
     * how long the commit took. */
    void (*after_commit) (struct server *srv, int batch, double secs);
    /* Before a request that needs the jobs' parsed requests: wait for
     * them if they are still being parsed.  0, or -1 if they could not be. */
    int (*wait_loaded) (struct server *srv);
    /* A connection closed (after its queued messages were forgotten). */
    void (*conn_closed) (struct server *srv, struct conn *c);
    /* The HTTP server's address for scheduler.address, or NULL. */
    const char *(*http_address) (struct server *srv);
};

enum {
    ROLE_ANY = 0,  /* users: uid from SO_PEERCRED, or over TCP a MUNGE credential */
    ROLE_NODE = 1, /* worker daemons: a service uid (root, the scheduler's user) */
};

struct handler {
    const char *type;
    void (*fn) (struct server *srv, struct conn *c, struct wire_msg *msg);
    int role;
};

struct server {
    struct loop *loop;
    const struct server_hooks *hooks;
    struct config *cfg;
    struct auth *auth;   /* MUNGE; NULL with auth = none */
    struct authq *authq; /* munged, off the loop (common/authq.h) */
    int64_t session_ms;  /* a TCP link's session key lives this long */
    struct db *db;
    struct jobs *jobs;
    struct nodes *nodes;
    struct worker_link *wlink; /* the workers' handlers, node timeouts */
    struct sched *sched;
    struct depend *depend;
    struct queues *queues;
    struct fairshare *fairshare;
    struct limits *limits;      /* max_queued, the submission rate limit */
    struct server_attrs *attrs; /* qmgr's server attributes */
    struct job_ops *job_ops; /* qsig, qrerun, qrun, qorder, qmsg, waits (job_ops.h) */
    struct power *power;     /* elastic cloud nodes (power.h) */
    struct reclaim *reclaim; /* spot reclaim notices (reclaim.h) */
    struct spot_choice *spot_choice; /* spot or on-demand, by cost (spot_choice.h) */
    struct accounting *accounting;   /* PBS accounting log (accounting.h) */
    struct metrics *metrics;         /* Prometheus counters (metrics.h) */
    struct telemetry *telemetry;     /* GPU telemetry from workers (telemetry.h) */
    struct http *http;         /* /metrics, /api/v1, status page, or NULL (http.h) */
    struct history *history;   /* job_history_duration (history.h) */
    struct deferred *deferred; /* jobs waiting for qsub -a (deferred.h) */
    struct node_health *node_health; /* nodes offlined by health checks */
    struct nodeclass *nodeclass; /* node classes, prices, interruptions (nodeclass.h) */
    struct ckpt *ckpt;           /* checkpoint cadence and requests (ckpt.h) */
    struct preempt *preempt;     /* preemption and suspension (preempt.h) */
    struct cost *cost;           /* what jobs and queues cost (cost.h) */
    char name[64];               /* server name: job ids are NUM.NAME */
    char host[256];              /* this host, for Job_Owner and hello */
    char default_queue[64];
    uid_t operator_uid; /* the scheduler's own uid (plus root) */
    int64_t started_ms;
    int64_t node_timeout_ms;
    /* A node's lease (worker/fence.h): its jobs are killed there this long
     * after its last answered request, before node_timeout_ms can pass. */
    int64_t fence_ms;
    int64_t sched_interval_ms;
    int64_t max_array_size; /* subjobs one array may have (PBS Pro's attribute) */
    int64_t max_spec_size;  /* bytes of a job's request (JOBSPEC_TEXT_MAX at most) */

    int unix_fd, tcp_fd;
    struct clients *clients; /* every connection, and their limits */
    char socket_path[108];
    char address_path[4096];
    int tcp_port;
    char tcp_host[64];

    /* Something changed (a job arrived or ended, a node came up): the
     * scheduling pass runs once before the next commit (sched_run). */
    int pass_requested;

    int64_t stat_commits;   /* transactions committed (group commits) */
    int64_t stat_submitted; /* jobs accepted since start */

    const struct handler *tables[16];
    int ntables;

    /* Who hears of each job's life, in order (lifecycle_subscribe). */
    struct {
        const struct lifecycle_sub *sub;
        void *arg;
    } lc_subs[16];
    int nlc_subs;

    STAILQ_HEAD (, pending) pending; /* messages waiting for the commit */
    /* With replicas: committed here, waiting for a majority (replica.h). */
    struct replica *replica;
    STAILQ_HEAD (, pending) held;
};

/* The server's own life, in the steps subsystems.c puts the subsystems
 * between (subsystems_create, subsystems_destroy: the daemon as a whole).
 * server_new: from cfg (owned by the caller, outlives the server) and
 * hooks (static), its settings read; NULL with err.  server_open: the
 * state directory and the database.  server_hook_loop: the before-sleep
 * hook that commits each loop turn.  server_start: authentication and the
 * sockets, after which anyone may connect.  0 or -1 with err. */
struct server *server_new (struct loop *loop, struct config *cfg,
                           const struct server_hooks *hooks, struct hpcq_error *err);
int server_open (struct server *srv, struct hpcq_error *err);
int server_hook_loop (struct server *srv);
int server_start (struct server *srv, struct hpcq_error *err);
/* Going down: commit what is open (1 if it committed); send (send 1) or
 * drop the messages that waited for it; unhook the loop and close every
 * connection; close the listening sockets; then free the server, the
 * database last (srv may be NULL). */
int server_commit_now (struct server *srv);
void server_flush_pending (struct server *srv, int send);
void server_stop_clients (struct server *srv);
void server_close_sockets (struct server *srv);
void server_free (struct server *srv);

/* A stored request could not be read: the jobs in memory are not what the
 * database holds, so the daemon exits, as after a failed commit. */
void server_load_failed (void) __attribute__ ((noreturn));

int server_register (struct server *srv, const struct handler *table);

/* Ask for a scheduling pass before the next commit. */
static inline void server_request_pass (struct server *srv)
{
    srv->pass_requested = 1;
}

/* Queue msg for c once the current batch is durable.  Takes msg's
 * contents (the struct is left zeroed).  If c closes first it is dropped. */
void server_send_after_commit (struct server *srv, struct conn *c,
                               struct wire_msg *msg);

/* Convenience: a durable reply to req. */
void server_reply_after_commit (struct server *srv, struct conn *c,
                                const struct wire_msg *req, json_t *body);

/* An immediate error reply (nothing to wait for). */
void server_reply_error (struct conn *c, const struct wire_msg *req, int errnum,
                         const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

/* Is uid allowed to act on jobs of owner_uid? (owner, root, the
 * scheduler's user, managers and operators) */
int server_may_act (const struct server *srv, uid_t uid, int64_t owner_uid);

/* Managers change queues and place system holds: root, the scheduler's
 * own user and the users named in the config key 'managers'.  Operators
 * (config 'operators', and every manager) place operator holds. */
int server_is_manager (const struct server *srv, uid_t uid);
int server_is_operator (const struct server *srv, uid_t uid);
/* Root, the scheduler's own user or service_user: who may speak for a
 * node (and is not a user the connection limits count). */
int server_is_service (const struct server *srv, uid_t uid);

/* May uid submit a job, which runs as uid?  Root only if named in the
 * config key 'acl_roots' (PBS Pro's server attribute); everyone else. */
int server_may_run_as (const struct server *srv, uid_t uid);

/* The user name for uid ("uid1234" if it has none). */
void server_user_name (uid_t uid, char *buf, int len);

#endif

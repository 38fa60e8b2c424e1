/* worker.h - the worker daemon's context and its link to the scheduler.
 *
 * The worker registers with node.hello (resources, running jobs, results
 * not yet acknowledged), sends heartbeats, launches and signals jobs on
 * request, and reports each result until the scheduler acknowledges it.
 * When the scheduler goes away the jobs keep running and the worker keeps
 * trying to reconnect.
 *
 * With MUNGE over TCP the link opens with link.open (common/link.h): the
 * worker checks the scheduler's answer, made by root or the cluster's
 * service user, before it says anything else, and from then on every
 * frame, either way, is sealed with the link's session key
 * (common/session.h).  A frame that fails the check closes the link.
 */
#ifndef HPCQ_WORKER_WORKER_H
#define HPCQ_WORKER_WORKER_H

#include <stdint.h>

#include "common/config.h"
#include "common/conn.h"
#include "common/ib.h"
#include "common/loop.h"
#include "worker/gpu.h"

struct tasks;
struct task;
struct notice;
struct gpumon;
struct health;
struct auth;
struct authq;
struct checkpoint;
struct ckpt_remove;
struct tm;
struct fence;

struct worker {
    struct loop *loop;
    struct config *cfg;
    char name[64];
    char server[256]; /* the address tried or connected now */
    /* 'server': one address, or the replicas' list, walked in turn until
     * the leader (the only one that listens) answers. */
    char servers[1024];
    int server_next;
    int ncpus;
    int64_t mem;
    struct gpu gpus[GPU_MAX];
    int ngpus;
    char labels[256];
    /* InfiniBand ports (common/ib.h), read again at each hello, and the
     * usable ones as UCX_NET_DEVICES names them ("" if none). */
    struct ib_port ib[IB_PORT_MAX];
    int nib;
    char ucx_devices[256];
    struct notice *notice; /* the provider's spot notice (notice.h) */
    char spool[4096];
    int64_t heartbeat_ms;
    int64_t usage_ms; /* node.usage every usage_interval (usage.h) */
    int64_t last_usage_ms;
    int64_t kill_delay_ms;

    struct auth *auth;   /* MUNGE; NULL with auth = none */
    struct authq *authq; /* munged, off the loop (common/authq.h) */
    int64_t session_ms;  /* a link's session key lives this long */
    struct conn *link;   /* NULL while disconnected */
    int opening;         /* link.open in flight: nothing else goes out */
    int64_t hello_id;    /* hello in flight, 0 once acknowledged */
    int64_t next_id;
    struct loop_timer *tick;
    int64_t last_beat_ms;
    int64_t next_connect_ms;
    struct tasks *tasks;
    struct gpumon *gpumon; /* real GPUs' telemetry and health, or NULL */
    struct health *health; /* the health check, or NULL */
    struct loop_timer *telemetry;
    struct checkpoint *ckpt;  /* checkpoint reports (checkpoint.h) */
    struct ckpt_remove *ckrm; /* finished jobs' folders removed (ckpt_remove.h) */
    struct tm *tm;            /* the task manager, NULL without (tm.h) */
    struct fence *fence;      /* the lease and its watchdog (fence.h) */
    struct topo *topo;        /* sockets, NUMA nodes, GPUs' places, or NULL (topo.h) */
    /* OCI containers (container.h): the helper that runs a job in one, ""
     * where this node has no runtime (runc and umoci), and the folders an
     * administrator lets jobs mount (container_mount_allow). */
    char container_helper[4096];
    const char *mount_allow;
};

struct worker *worker_create (struct loop *loop, struct config *cfg,
                              struct hpcq_error *err);
void worker_destroy (struct worker *w);

/* Send a request to the scheduler now (body stolen).  Its wire id, or 0
 * when it could not go (no link, or the link is still opening). */
int64_t worker_send (struct worker *w, const char *type, json_t *body);

/* A task finished: report it now if connected (else with the next hello). */
void worker_report (struct worker *w, struct task *t);

/* Send a message that may be lost with the link (telemetry, health: sent
 * again later).  body is stolen.  The request's id, or 0 if not sent. */
int64_t worker_notify (struct worker *w, const char *type, json_t *body);

/* A child that is no job ended (tasks_reap): the health check's. */
void worker_child_exited (struct worker *w, pid_t pid, int status);
/* The node's lease has ended (fence.h): its jobs are killed as fenced.
 * Also before children are reaped, so one the watchdog killed first is
 * reported as fenced. */
void worker_fence_check (struct worker *w);
/* A task's script runs: tell the scheduler (job.started). */
void worker_job_started (struct worker *w, const struct task *t);

#endif

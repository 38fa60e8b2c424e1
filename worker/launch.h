/* launch.h - starting a job's script the way PBS does.
 *
 * The worker writes the script and node file into its spool and forks the
 * job's child, without waiting for it.  The child starts its own session,
 * enters the job's cgroup, becomes the job's owner (privsep_drop: nothing
 * after that has root's power), sets the job's umask, enters the
 * submission directory, resolves and opens the output and error files
 * (NAME.oNUM / NAME.eNUM, or -o/-e/-j) and the checkpoint directory, and
 * execs the script with the PBS environment.
 *
 * The child tells the worker, on a close-on-exec pipe, the output paths
 * it resolved and, if a step failed, why; EOF without an error means the
 * script is running.  The worker reads that pipe from its loop.
 */
#ifndef HPCQ_WORKER_LAUNCH_H
#define HPCQ_WORKER_LAUNCH_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/error.h"
#include "common/jobspec.h"
#include "common/launch_msg.h"
#include "worker/cgroup.h"
#include "worker/gpu.h"
#include "worker/privsep.h"
#include "worker/spool.h"

/* PBS's default job umask, when qsub -W umask= was not given. */
#define LAUNCH_DEFAULT_UMASK 077

struct launch_env {
    struct spool *spool;
    const char *node_name;
    const struct gpu *gpus;
    int ngpus;
    const char *jobdir_root;         /* where sandboxes go; NULL: the owner's home */
    const struct privsep_cred *cred; /* who the job runs as */
    const struct cgroup_job *cg;     /* the job's cgroup, NULL without */
    const char *ckpt_socket;         /* where jobs report checkpoints
                                         * ($HPCQ_CKPT_SOCKET), NULL: none */
    const char *tm_socket;           /* the task manager's socket, NULL without */
    const char *tm_agent;            /* pbs_tmrsh, for Open MPI's launcher */
    const char *ucx_devices;         /* active InfiniBand ports, "mlx5_0:1"
                                      * (UCX_NET_DEVICES); NULL or "": none */
    const char *container_helper;    /* hpcq-container (container.h), NULL or
                                      * "": this node runs no containers */
};

/* Name the sandbox (-W sandbox=PRIVATE: req->sandbox), write the spool
 * files and fork the job's child.  Returns the child's pid (also its
 * session and process group) and the read end of its status pipe in
 * *status_fd (non-blocking, close-on-exec, the caller's to close), or -1
 * with err if the job could not even be forked. */
pid_t launch_start (struct launch_req *req, const struct launch_env *env,
                    int *status_fd, struct hpcq_error *err);

/* What the child said before exec. */
struct launch_status {
    char buf[16384];
    size_t len;
    char stdout_path[4096]; /* where stdout goes, after EOF ("" if the
                                 * child failed before) */
    char stderr_path[4096]; /* where stderr goes (-j oe: the output file) */
    char error[1024];       /* "" if exec succeeded */
};

/* Read what is there.  1 at EOF (st is complete), 0 for more to come,
 * -1 on a read error (st is complete as far as it goes). */
int launch_status_read (int fd, struct launch_status *st);

/* Remove the spool files of a job attempt (script, node file, session). */
void launch_cleanup (struct spool *sp, int64_t seq, int attempt);

/* At start: kill what jobs a previous worker on this spool launched and
 * never saw end (it was killed): every job cgroup it left (cg may be
 * NULL), and the sessions it recorded.  Nobody watches them any more and
 * the scheduler will run them again elsewhere, so they must not run on.
 * Returns how many jobs were killed. */
int launch_kill_leftovers (struct spool *sp, struct cgroups *cg);

/* Record in the spool file name a process that leads a session ("PID
 * START", START its start time, so a reused pid is not mistaken for it). */
void launch_record_process (struct spool *sp, const char *name, pid_t pid);

/* Kill each session recorded in a spool file whose name ends in suffix,
 * if its leader is still the process recorded (never this process), and
 * call each (may be NULL) with the file's name for each one killed; with
 * remove, the records go too.  Returns how many were killed. */
int launch_kill_recorded (struct spool *sp, const char *suffix, int remove,
                          void (*each) (const char *name, void *arg), void *arg);

/* The parts of a launch, exposed for the unit tests.
 * launch_nodefile: PBS_NODEFILE's text (caller frees).
 * launch_environ: the job's environment, NULL-terminated; free with
 * launch_environ_free.  nodes is PBS_NODEFILE's path.
 * launch_resolve_output: PBS's rules for -o/-e (given, or NULL for the
 * default) into buf; it stats the path, so the job's child calls it after
 * it has become the user. */
char *launch_nodefile (const struct launch_req *req);
char **launch_environ (const struct launch_req *req, const struct launch_env *e,
                       const char *nodes);
void launch_environ_free (char **envp);
void launch_resolve_output (const struct launch_req *req, const char *given, char kind,
                            char *buf, int len);

#endif

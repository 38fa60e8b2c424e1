/* health.h - the node's health check, as Slurm's HealthCheckProgram and
 * LBNL's NHC run it.
 *
 * Every health_check_interval seconds (default 60) the worker runs
 * health_check_program (an absolute path; run as the worker's user with
 * no arguments, standard input from /dev/null, HPCQ_NODE_NAME set, killed
 * if it runs longer than the interval or 300 s).  The node is unhealthy
 * if the program exits non-zero or prints a line starting with "ERROR"
 * (NHC's convention); the reason is that line, or the first line printed.
 * The GPUs' health from NVML (gpumon.h: critical XIDs, uncorrectable ECC
 * errors, pending page retirements) is part of the same verdict, checked
 * at the same interval even without a program.  Each verdict goes to the
 * scheduler as node.health {ok, reason}: a failing one takes the node
 * offline with the reason as its comment, a passing one brings it back
 * only if the check had taken it offline (scheduler/node_health.h).
 *
 * A program that cannot be run (missing, not executable) is not a
 * verdict: one line in the log, and the node's state is left as it is.
 */
#ifndef HPCQ_WORKER_HEALTH_H
#define HPCQ_WORKER_HEALTH_H

#include <sys/types.h>

#include "common/error.h"

struct worker;
struct health;

/* Read health_check_program and health_check_interval; NULL (and 0) when
 * there is nothing to check (no program, no real GPUs).  -1 with err on
 * a bad setting. */
int health_create (struct worker *w, struct health **hp, struct hpcq_error *err);
void health_destroy (struct health *h);

/* A child of the worker that is not a job ended: 1 if it was the health
 * check's (it is handled), else 0.  h may be NULL. */
int health_child_exited (struct health *h, pid_t pid, int status);

/* The last verdict was sent before the link dropped: send it again. */
void health_link_up (struct health *h);

#endif

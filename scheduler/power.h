/* power.h - elastic cloud nodes: Slurm's power saving, which cloud users
 * rely on.
 *
 * The nodes of cloud_nodes are known (their sizes judge submissions, and
 * pbsnodes lists them) but powered off ("cloud") until waiting jobs need
 * them.  Every half second the plan places the waiting jobs, highest
 * priority first, on the free resources of the nodes that are up, of the
 * nodes already resuming (as if empty: a node is never resumed twice) and
 * of the powered-off ones, cheapest first (a spot node before an on-demand
 * one: price_per_hour); the powered-off nodes it had to use are resumed by
 * running resume_program with their names, one per argument, at most
 * max_nodes_resuming resuming at a time.  A node whose resume_program fails,
 * or whose worker does not say hello within resume_timeout, is marked down
 * with the reason (pbsnodes -r NODE makes it a cloud node again).  A cloud
 * node that has run no job for suspend_time is suspended: suspend_program
 * with the names; once that exits 0 the node is "cloud" again and its
 * worker's link, if still open, is closed.
 *
 * The programs run as children of the scheduler, reaped from its loop
 * (common/child.h), each killed at its timeout (resume_timeout,
 * suspend_timeout); the loop never waits on them.  Each resume and suspend,
 * success or failure, is an event (job_seq NULL: node_resume,
 * node_resumed, node_resume_failed, node_suspend, node_suspended,
 * node_suspend_failed) and a log line.
 *
 * cloud_nodes: groups separated by ';', each a host list (Slurm's form,
 * "cloud[1-8]") and its size as key=value words: ncpus=N (required),
 * mem=SIZE, ngpus=N, gpu_model=NAME, labels=L1,L2 (spot, class=NAME,
 * price_per_hour=X: nodeclass's labels), price_per_hour=X.
 */
#ifndef HPCQ_SCHEDULER_POWER_H
#define HPCQ_SCHEDULER_POWER_H

#include "common/error.h"
#include "scheduler/server.h"

struct node;

/* Reads and checks the settings (before anything else is touched).  NULL
 * with err: a malformed cloud_nodes, a resume or suspend program that is
 * not an executable file. */
struct power *power_create (struct server *srv, struct hpcq_error *err);

/* Declares the cloud nodes, once the jobs are loaded (a cloud node that
 * runs a job is on, the others off), and starts the timer.  0 or -1 with
 * err. */
int power_start (struct power *p, struct hpcq_error *err);
/* Kills programs still running. */
void power_destroy (struct power *p);

/* n's worker said hello: a cloud node resuming (or off) is on. */
void power_node_hello (struct power *p, struct node *n);

/* pbsnodes -r on n: a cloud node that failed to resume or suspend is a
 * cloud node again (1), or n is none (0). */
int power_node_clear (struct power *p, struct node *n);

/* What an hour of n costs (its price_per_hour label; 0 if none). */
double power_node_price (const struct node *n);

#endif

/* jobwait.h - waiting for a job's end: qsub -W block=true, sbatch --wait.
 *
 * One job.wait request, answered by the scheduler when the job's end is
 * durable; if the scheduler restarts meanwhile, the wait is asked again
 * once it is back (for up to a minute). */
#ifndef HPCQ_CLI_JOBWAIT_H
#define HPCQ_CLI_JOBWAIT_H

/* Wait for jobid.  Returns 0 with *has_exit and *exit_status (the job's
 * Exit_status), and its comment in buf; or -1 after an error line on
 * stderr (prog: ...). */
int jobwait (const char *prog, const char *jobid, int *has_exit, int *exit_status,
             char *comment, int len);

#endif

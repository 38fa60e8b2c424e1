/* interactive.h - qsub -I: a job whose first process is a shell on the
 * first allocated host, its terminal here (PBS Pro's interactive jobs).
 *
 * qsub listens on a TCP port (any address), submits a job whose script
 * runs hpcq-pty (cli/hpcq-pty.c) with qsub's addresses and a fresh cookie
 * (common/ptylink.h), waits for it to start ("qsub: waiting for job ID to
 * start"), takes the first connection that proves the cookie and no other
 * ("qsub: job ID ready"), and relays this terminal (raw mode, window
 * size) until the shell ends, the job is ended (qdel, walltime) or qsub
 * is told to stop.  Then it waits for the job's end ("qsub: job ID
 * completed") and exits with the job's exit status.
 */
#ifndef HPCQ_CLI_INTERACTIVE_H
#define HPCQ_CLI_INTERACTIVE_H

#include "common/error.h"
#include "common/jobspec.h"

/* Prepare spec (parsed options, no script) as an interactive job: listen,
 * make the cookie and the script.  shell: -S, the shell to run (NULL: the
 * owner's login shell).  0 or -1 with err. */
int interactive_prepare (struct hpcq_jobspec *spec, const char *shell,
                         struct hpcq_error *err);

/* The same, with cmd (NULL-terminated) run on the pty instead of a shell,
 * in the job's working directory (srun --pty outside a job). */
int interactive_prepare_command (struct hpcq_jobspec *spec, char *const *cmd,
                                 struct hpcq_error *err);

/* srun's words instead of qsub's: "srun: job N queued and waiting for
 * resources", "srun: job N has been allocated resources", nothing at the
 * end. */
void interactive_srun (void);

/* salloc's words instead of qsub's (Slurm's salloc, on stderr): "salloc:
 * Pending job allocation N", "salloc: Granted job allocation N" when the
 * shell is there, "salloc: Relinquishing job allocation N" at its end. */
void interactive_salloc (void);

/* Submit it and run the session; returns qsub's exit code. */
int interactive_run (struct hpcq_jobspec *spec);

#endif

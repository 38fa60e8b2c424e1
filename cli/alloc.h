/* alloc.h - an allocation made from outside a job, as srun and salloc
 * make one: a job (sbatch --wait, with the options given) whose script is
 * a command; its output is kept in two files of the working directory
 * and printed here when the job ends (not as it comes: docs/compat.md);
 * the exit code is the job's.
 */
#ifndef HPCQ_CLI_ALLOC_H
#define HPCQ_CLI_ALLOC_H

#include <stddef.h>

/* Run sbatch with opts (NULL-terminated) and --wrap wrap; prog names the
 * caller in errors.  With announce, salloc's lines on stderr: "salloc:
 * Granted job allocation N" once the job runs (asked every half second,
 * of that job only), "salloc: Relinquishing job allocation N" after its
 * output.  The job's exit code, or 1. */
int alloc_run (const char *prog, const char *const *opts, const char *wrap,
               int announce);

#endif

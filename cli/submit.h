/* submit.h - what qsub and sbatch share: the script, where the job comes
 * from (PBS_O_*), and the job.submit request. */
#ifndef HPCQ_CLI_SUBMIT_H
#define HPCQ_CLI_SUBMIT_H

#include <stddef.h>

#include "common/error.h"
#include "common/jobspec.h"

/* The script at path (NULL: standard input), at most 4 MiB of text.
 * Caller frees.  NULL with err. */
char *submit_read_script (const char *path, struct hpcq_error *err);

/* The command line as typed (argv[1..]), for Submit_arguments.  Caller frees. */
char *submit_join_args (int argc, char **argv);

/* Where the job comes from: spec->workdir (the current directory unless
 * already set), submit_host and the PBS_O_* variables.  0 or -1 with err. */
int submit_set_origin (struct hpcq_jobspec *spec, struct hpcq_error *err);

/* Send job.submit; the new job's id into jobid.  0 or -1 with err. */
int submit_send (const struct hpcq_jobspec *spec, char *jobid, size_t len,
                 struct hpcq_error *err);

#endif

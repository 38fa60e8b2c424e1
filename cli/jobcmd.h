/* jobcmd.h - what qdel, qhold and qrls share: one request per job id,
 * one error line per job that failed, PBS exit codes. */
#ifndef HPCQ_CLI_JOBCMD_H
#define HPCQ_CLI_JOBCMD_H

#include <jansson.h>

#include "common/cliopt.h"

/* Send request type for each job id in argv[first..argc-1]; each body is
 * {"id": ID} plus the fields of extra (may be NULL; borrowed).  Returns
 * the exit status. */
int jobcmd_run (const char *prog, const char *type, int argc, char **argv, int first,
                json_t *extra);

/* qhold's and qrls's options: -h TYPES (u, o, s or a combination; sets
 * *types, borrowed from argv), and -W/-x accepted for compatibility.
 * Returns 0, or the exit status after an error line. */
int jobcmd_hold_options (const struct cliopt *co, int argc, char **argv,
                         const char **types);

#endif

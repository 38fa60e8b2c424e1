/* jobcmd.h - what qdel, qhold and qrls share: one request per job id,
 * one error line per job that failed, PBS exit codes. */
#ifndef HPCQ_CLI_JOBCMD_H
#define HPCQ_CLI_JOBCMD_H

/* Send request type for each job id in argv[first..argc-1]; body gets
 * "id" and the extra key/value if given.  Returns the exit status. */
int jobcmd_run (const char *prog, const char *type, int argc, char **argv,
                int first, const char *extra_key, const char *extra_value);

#endif

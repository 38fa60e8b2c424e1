/* tm.h - the task manager protocol: a process started in a running job,
 * on any of its hosts, its standard streams carried back (PBS's TM
 * interface without ssh; the worker's side is worker/tm.h, the commands
 * pbsdsh and pbs_tmrsh).
 *
 * One connection carries one process.  Messages (JSON bodies):
 *   tm.spawn  caller -> worker: {jobid, host, argv:[...], env:[...], cwd, detach,
 *             shell, stdin, vnode}; reply {} or an error.  Between workers
 *             it also carries {seq, attempt, uid, owner, mem}.
 *   tm.stdin  {data?, eof?}     caller -> process
 *   tm.ack    {fd, n}           n bytes of stream fd consumed: fd 0 by the
 *                               process, 1 and 2 by the caller
 *   tm.signal {signo}           caller -> process (its session)
 *   tm.output {fd, data}        process -> caller (fd 1 or 2)
 *   tm.exit   {status, cput, mem, error?}  the last message: the TM status
 *             (below), CPU seconds, peak memory in bytes; error says why
 *             when the process was lost (a host failed)
 * Stream bytes travel base64-encoded (tm_data_json): a JSON string must be
 * UTF-8, a process's output need not be.
 *
 * Flow control: a stream has at most TM_WINDOW bytes sent and not yet
 * acknowledged by its consumer, so no hop holds more than that per stream
 * however slow the reader.
 */
#ifndef HPCQ_COMMON_TM_H
#define HPCQ_COMMON_TM_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

/* The variable that names the worker's TM socket in a job's environment. */
#define TM_SOCKET_ENV "HPCQ_TM_SOCKET"

#define TM_WINDOW (256 * 1024)      /* unacknowledged bytes per stream */
#define TM_CHUNK (32 * 1024)        /* most stream bytes in one message */
#define TM_MAX_ARGV 4096            /* arguments in one spawn */
#define TM_MAX_ARGV_BYTES (1 << 20) /* their total size */

/* A task's exit status, as PBS reports a job's: the exit code, or 256 plus
 * the signal that killed it. */
#define TM_STATUS_SIGNALED 256

/* Stream bytes as a JSON string (base64); new reference, NULL on ENOMEM. */
json_t *tm_data_json (const void *buf, size_t len);

/* Read from a stream's fd into buf[TM_CHUNK] what its window still has
 * room for, in_flight bytes being unacknowledged: the bytes read, 0 at its
 * end (end of file or an error), or -1 when there is nothing yet (EAGAIN,
 * EINTR). */
ssize_t tm_read_window (int fd, char *buf, size_t in_flight);

/* The bytes of a tm_data_json string into *buf (caller frees; NUL
 * terminated for convenience, *len excludes it).  -1 with errno EPROTO if
 * v is not one, or ENOMEM. */
int tm_data_decode (json_t *v, char **buf, size_t *len);

/* A wait() status as a TM exit status. */
int tm_status_from_wait (int wstatus);

/* A TM exit status as a process exit code, as a shell reports one: the
 * code, or 128 plus the signal. */
int tm_status_to_exit (int status);

/* argv from a JSON array of strings (1 to TM_MAX_ARGV of them, at most
 * TM_MAX_ARGV_BYTES in all), NULL-terminated; free with tm_argv_free.
 * NULL with errno EPROTO if malformed. */
char **tm_argv_decode (json_t *arr, int *argc);
void tm_argv_free (char **argv);

#endif

/* child.h - run a program beside a daemon's event loop, never waiting on it.
 *
 * The scheduler's power saving runs the administrator's resume and suspend
 * programs this way: the program starts in a process group of its own with
 * standard input from /dev/null and its output into a pipe the loop reads
 * (the last line is kept, to say why it failed); the loop learns of its end
 * through a pidfd and reaps it there; a program still running at its
 * timeout is killed (its whole group, SIGKILL) and reported as timed out.
 * Nothing here blocks: the daemon goes on serving while programs run.
 */
#ifndef HPCQ_COMMON_CHILD_H
#define HPCQ_COMMON_CHILD_H

#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/loop.h"

struct child;

/* The program ended: status as waitpid gives it (WIFEXITED...),
 * timed_out 1 if it was killed at its timeout, last the last line it
 * wrote (stdout and stderr together; "" if none).  The child is freed
 * after this returns: do not destroy it here. */
typedef void (*child_done_f) (struct child *c, int status, int timed_out,
                              const char *last, void *arg);

/* Start argv[0] (an absolute path) with argv, and extra environment
 * entries env ("KEY=VALUE", NULL-terminated; may be NULL) on top of the
 * daemon's, the signal mask and SIGPIPE reset.  timeout_ms > 0: killed
 * after that long.  The new child, or NULL with err (the program could
 * not be started: err says why, and done is never called). */
struct child *child_run (struct loop *loop, char *const argv[], char *const env[],
                         int64_t timeout_ms, child_done_f done, void *arg,
                         struct hpcq_error *err);

/* Its process id. */
pid_t child_pid (const struct child *c);

/* Kill it if it runs (its group, SIGKILL), reap it and free it; done is
 * not called.  For shutdown.  NULL is fine. */
void child_destroy (struct child *c);

/* A waitpid status in words: "exited with status 3", "killed by signal
 * 9", into buf.  Returns buf. */
const char *child_status_text (int status, char *buf, size_t len);

#endif

/* loop.h - the event loop both daemons run (epoll, Redis ae.c in spirit).
 *
 * Watches file descriptors, runs timers, and calls before-sleep hooks once
 * per turn before blocking: that is where the scheduler commits a batch of
 * database writes and flushes the replies that waited for it.
 * Callbacks may add or remove any watch or timer, including their own.
 */
#ifndef HPCQ_COMMON_LOOP_H
#define HPCQ_COMMON_LOOP_H

#include <signal.h>
#include <stdint.h>

/* LOOP_HUP is only reported (with LOOP_READ): the socket hung up or
 * failed, which a watch that does not ask for input still learns. */
enum { LOOP_READ = 1, LOOP_WRITE = 2, LOOP_HUP = 4 };

struct loop;
struct loop_watch;
struct loop_timer;

typedef void (*loop_fd_f) (struct loop *l, int fd, int revents, void *arg);
typedef void (*loop_cb_f) (struct loop *l, void *arg);
typedef void (*loop_signal_f) (struct loop *l, int signo, void *arg);

struct loop *loop_create (void);
void loop_destroy (struct loop *l);

/* Runs until loop_stop().  Returns 0, or -1 if epoll fails. */
int loop_run (struct loop *l);
void loop_stop (struct loop *l);

/* Watch fd for LOOP_READ|LOOP_WRITE.  revents in the callback may include
 * LOOP_READ for hang-ups and errors too, so reads see EOF.  The loop owns
 * the watch; loop_fd_remove frees it (the fd is the caller's to close). */
struct loop_watch *loop_fd_add (struct loop *l, int fd, int events, loop_fd_f cb,
                                void *arg);
int loop_fd_modify (struct loop_watch *w, int events);
void loop_fd_remove (struct loop_watch *w);

/* One-shot (repeat_ms 0) or periodic timer, first firing after after_ms.
 * A one-shot timer is freed after it fires; do not remove it then. */
struct loop_timer *loop_timer_add (struct loop *l, int64_t after_ms, int64_t repeat_ms,
                                   loop_cb_f cb, void *arg);
void loop_timer_remove (struct loop_timer *t);

/* Called once per loop turn, before waiting, in registration order. */
int loop_before_sleep (struct loop *l, loop_cb_f cb, void *arg);
/* Forget a hook (its owner is going away while the loop lives on). */
void loop_before_sleep_remove (struct loop *l, loop_cb_f cb, void *arg);

/* Deliver the given signals through the loop (signalfd): they are blocked
 * for the process and cb runs in loop context.  Returns 0 or -1. */
int loop_signals (struct loop *l, const int *signos, int n, loop_signal_f cb,
                  void *arg);

#endif

/* admit.h - taking connections on a daemon's listening sockets without
 * letting any one peer take the daemon's descriptors or fill its log
 * (docs/security.md, "Private data and limits").  Shared by the
 * scheduler's clients (scheduler/clients.c), the worker's task manager
 * (worker/tm.c) and its checkpoint socket (worker/checkpoint.c).
 *
 *  - Accepting (struct admit): each connection is accepted and handed on
 *    with who is behind it (SO_PEERCRED on a Unix socket, the address on
 *    TCP).  When accept fails for want of descriptors or memory, or the
 *    descriptor it gives is within ADMIT_FD_RESERVE of RLIMIT_NOFILE (the
 *    daemon still needs some: MUNGE credentials, jobs' pipes, its
 *    database), the listening sockets pause (100 ms, doubling to 2 s)
 *    with one log line per pause, instead of failing in a busy loop.
 *  - Counting (struct admit_counts): connections per key (a uid, or a
 *    source address), each key at most a cap; the owner takes a count
 *    when it keeps a connection and gives it back when it closes.
 *  - Logging (struct admit_ratelog): the lines a storm of refusals would
 *    write come out at most once a second, saying how many went unsaid.
 */
#ifndef HPCQ_COMMON_ADMIT_H
#define HPCQ_COMMON_ADMIT_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "common/loop.h"

/* Descriptors kept free for the daemon's own needs. */
#define ADMIT_FD_RESERVE 64

/* Who is behind an accepted connection. */
struct admit_peer {
    int tcp;
    uid_t uid;     /* Unix: the kernel's word; TCP: (uid_t)-1 */
    pid_t pid;     /* Unix: the connecting process; TCP: 0 */
    uint64_t key;  /* what it counts against: its uid, or its address */
    char name[64]; /* "uid 65534 pid 12" or "127.0.0.2", for log lines */
};

/* A connection accepted: fd is the callee's (to keep, or close). */
typedef void (*admit_f) (int fd, const struct admit_peer *peer, void *arg);

struct admit;

/* what names the sockets in log lines ("tm", "checkpoint socket"). */
struct admit *admit_create (struct loop *l, const char *what, admit_f cb, void *arg);
/* Stops watching the sockets (they are the caller's to close). */
void admit_destroy (struct admit *a);

/* Accept on listening socket fd (non-blocking).  0, or -1 with errno. */
int admit_listen (struct admit *a, int fd);

/* The key of a TCP peer's address (what struct admit_peer's key holds). */
uint64_t admit_addr_key (const struct sockaddr *sa);

/* Connections per key. */
struct admit_counts;
struct admit_counts *admit_counts_create (void);
void admit_counts_destroy (struct admit_counts *ac);
/* Count one more for key: 0, or -1 with EUSERS if key holds cap already
 * (the cap may differ by key: a uid with a job here, or without). */
int admit_counts_take (struct admit_counts *ac, uint64_t key, int64_t cap);
/* One of key's connections closed. */
void admit_counts_give (struct admit_counts *ac, uint64_t key);
/* How many key holds now. */
int64_t admit_counts_get (const struct admit_counts *ac, uint64_t key);

/* At most one line per second through it. */
struct admit_ratelog {
    int64_t last_ms;
    int64_t unsaid;
};
void admit_ratelog (struct admit_ratelog *rl, int level, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Many connections need many descriptors: take what the hard limit
 * allows (systemd's default soft limit is 1024). */
void admit_raise_nofile (void);

#endif

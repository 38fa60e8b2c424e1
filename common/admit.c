/* admit.c - see admit.h
 *
 * What scheduler/clients.c did alone before (issue 10, finding 7), for
 * every daemon's listening sockets: the worker's task manager had no cap
 * and, out of descriptors, spun on a socket it could not accept from
 * while its heartbeats failed for want of one (issue 22, finding 1).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/admit.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/util.h"

#define ADMIT_MAX_LISTEN 4
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 2000

struct admit {
    struct loop *loop;
    char what[32];
    admit_f cb;
    void *arg;
    struct loop_watch *watch[ADMIT_MAX_LISTEN];
    int nlisten;
    struct loop_timer *resume; /* accepting paused until it fires */
    int64_t backoff_ms;
    long fd_max; /* descriptors from here on are the reserve */
};

static void admit_resume (struct loop *l, void *arg)
{
    struct admit *a = arg;

    (void)l;
    a->resume = NULL;
    for (int i = 0; i < a->nlisten; i++)
        (void)loop_fd_modify (a->watch[i], LOOP_READ);
}

/* The pending connections wait in the backlog while others close,
 * instead of accept failing in a loop. */
static void admit_pause (struct admit *a, const char *why)
{
    if (a->resume)
        return;
    a->backoff_ms = a->backoff_ms ? a->backoff_ms * 2 : BACKOFF_MIN_MS;
    if (a->backoff_ms > BACKOFF_MAX_MS)
        a->backoff_ms = BACKOFF_MAX_MS;
    log_msg (LOG_WARNING, "%s: accept: %s; not accepting for %lld ms", a->what, why,
             (long long)a->backoff_ms);
    for (int i = 0; i < a->nlisten; i++)
        (void)loop_fd_modify (a->watch[i], 0);
    if (!(a->resume = loop_timer_add (a->loop, a->backoff_ms, 0, admit_resume, a)))
        admit_resume (a->loop, a);
}

uint64_t admit_addr_key (const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (UINT64_C (1) << 32)
               | ntohl (((const struct sockaddr_in *)sa)->sin_addr.s_addr);
    if (sa->sa_family == AF_INET6)
        return (UINT64_C (1) << 63)
               | (XXH3_64bits (&((const struct sockaddr_in6 *)sa)->sin6_addr,
                               sizeof (struct in6_addr))
                  >> 1);
    return UINT64_C (1) << 62;
}

static void peer_identify (int fd, struct admit_peer *p)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof (ss);
    struct ucred cred;
    socklen_t cl = sizeof (cred);

    memset (p, 0, sizeof (*p));
    p->uid = (uid_t)-1;
    if (getsockname (fd, (struct sockaddr *)&ss, &len) == 0
        && ss.ss_family == AF_UNIX) {
        if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0) {
            p->uid = cred.uid;
            p->pid = cred.pid;
        }
        p->key = (uint64_t)p->uid;
        snprintf (p->name, sizeof (p->name), "uid %u pid %d", (unsigned)p->uid,
                  (int)p->pid);
        return;
    }
    p->tcp = 1;
    len = sizeof (ss);
    if (getpeername (fd, (struct sockaddr *)&ss, &len) < 0) {
        snprintf (p->name, sizeof (p->name), "fd%d", fd);
        return;
    }
    p->key = admit_addr_key ((struct sockaddr *)&ss);
    if (ss.ss_family == AF_INET)
        inet_ntop (AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, p->name,
                   sizeof (p->name));
    else if (ss.ss_family == AF_INET6)
        inet_ntop (AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, p->name,
                   sizeof (p->name));
}

static void admit_accept (struct loop *l, int fd, int revents, void *arg)
{
    struct admit *a = arg;
    struct admit_peer peer;
    char why[96];
    int cfd;

    (void)l;
    (void)revents;
    if ((cfd = accept4 (fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            admit_pause (a, strerror (errno));
        else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
            log_error ("%s: accept", a->what);
        return;
    }
    if (a->fd_max > 0 && cfd >= a->fd_max) {
        close (cfd);
        snprintf (why, sizeof (why),
                  "descriptor %d is in the last %d kept for the daemon", cfd,
                  ADMIT_FD_RESERVE);
        admit_pause (a, why);
        return;
    }
    a->backoff_ms = 0;
    peer_identify (cfd, &peer);
    a->cb (cfd, &peer, a->arg);
}

struct admit *admit_create (struct loop *l, const char *what, admit_f cb, void *arg)
{
    struct admit *a = xzalloc (sizeof (*a));

    a->loop = l;
    snprintf (a->what, sizeof (a->what), "%s", what);
    a->cb = cb;
    a->arg = arg;
    return a;
}

int admit_listen (struct admit *a, int fd)
{
    struct rlimit rl;

    if (a->nlisten == ADMIT_MAX_LISTEN) {
        errno = ENOSPC;
        return -1;
    }
    if (!(a->watch[a->nlisten] = loop_fd_add (a->loop, fd, LOOP_READ, admit_accept, a)))
        return -1;
    a->nlisten++;
    if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
        && rl.rlim_cur > 2 * ADMIT_FD_RESERVE)
        a->fd_max = (long)rl.rlim_cur - ADMIT_FD_RESERVE;
    return 0;
}

void admit_destroy (struct admit *a)
{
    if (!a)
        return;
    int saved = errno;
    for (int i = 0; i < a->nlisten; i++)
        loop_fd_remove (a->watch[i]);
    loop_timer_remove (a->resume);
    free (a);
    errno = saved;
}

/* ---- counts ---------------------------------------------------------- */

struct admit_count {
    uint64_t key;
    int64_t n;
    UT_hash_handle hh;
};

struct admit_counts {
    struct admit_count *tab;
};

struct admit_counts *admit_counts_create (void)
{
    return xzalloc (sizeof (struct admit_counts));
}

void admit_counts_destroy (struct admit_counts *ac)
{
    if (!ac)
        return;
    HASH_FREE_ALL (ac->tab, free);
    free (ac);
}

int admit_counts_take (struct admit_counts *ac, uint64_t key, int64_t cap)
{
    struct admit_count *e;

    HASH_FIND (hh, ac->tab, &key, sizeof (key), e);
    if ((e ? e->n : 0) >= cap) {
        errno = EUSERS;
        return -1;
    }
    if (!e) {
        e = xzalloc (sizeof (*e));
        e->key = key;
        HASH_ADD (hh, ac->tab, key, sizeof (e->key), e);
    }
    e->n++;
    return 0;
}

void admit_counts_give (struct admit_counts *ac, uint64_t key)
{
    struct admit_count *e;

    HASH_FIND (hh, ac->tab, &key, sizeof (key), e);
    if (e && --e->n <= 0) {
        HASH_DEL (ac->tab, e);
        free (e);
    }
}

int64_t admit_counts_get (const struct admit_counts *ac, uint64_t key)
{
    struct admit_count *e;

    HASH_FIND (hh, ac->tab, &key, sizeof (key), e);
    return e ? e->n : 0;
}

/* ---- logging --------------------------------------------------------- */

void admit_ratelog (struct admit_ratelog *rl, int level, const char *fmt, ...)
{
    int64_t now = util_now_ms ();
    char text[512];
    va_list ap;

    if (rl->last_ms && now - rl->last_ms < 1000) {
        rl->unsaid++;
        return;
    }
    va_start (ap, fmt);
    vsnprintf (text, sizeof (text), fmt, ap);
    va_end (ap);
    if (rl->unsaid)
        log_msg (level, "%s (and %lld more like it since the last such line)", text,
                 (long long)rl->unsaid);
    else
        log_msg (level, "%s", text);
    rl->last_ms = now;
    rl->unsaid = 0;
}

void admit_raise_nofile (void)
{
    struct rlimit rl;
    rlim_t was;

    if (getrlimit (RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
        return;
    was = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit (RLIMIT_NOFILE, &rl) == 0)
        log_msg (LOG_INFO, "open files: limit raised from %llu to %llu",
                 (unsigned long long)was, (unsigned long long)rl.rlim_max);
}

/* loop.c - see loop.h
 *
 * Removed watches are only unlinked during a dispatch and freed after it,
 * because epoll may already have returned an event that points at them.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "common/loop.h"
#include "common/util.h"

#define LOOP_MAX_EVENTS 64
#define LOOP_MAX_HOOKS 8

struct loop_watch {
    struct loop *loop;
    int fd;
    int events;
    int dead;
    loop_fd_f cb;
    void *arg;
    SLIST_ENTRY (loop_watch) dead_link; /* on dead_watches once removed */
};

struct loop_timer {
    struct loop *loop;
    int64_t due_ms;
    int64_t repeat_ms;
    loop_cb_f cb;
    void *arg;
    int dead;
    LIST_ENTRY (loop_timer) link;
};

struct loop {
    int epfd;
    int stop;
    SLIST_HEAD (, loop_watch) dead_watches; /* freed after the dispatch */
    LIST_HEAD (, loop_timer) timers;        /* newest first */
    struct {
        loop_cb_f cb;
        void *arg;
    } hooks[LOOP_MAX_HOOKS];
    int nhooks;
    int sigfd;
    struct loop_watch *sigwatch;
    loop_signal_f sigcb;
    void *sigarg;
};

struct loop *loop_create (void)
{
    struct loop *l = calloc (1, sizeof (*l));

    if (!l)
        return NULL;
    l->sigfd = -1;
    SLIST_INIT (&l->dead_watches);
    LIST_INIT (&l->timers);
    if ((l->epfd = epoll_create1 (EPOLL_CLOEXEC)) < 0) {
        free (l);
        return NULL;
    }
    return l;
}

static void loop_free_dead (struct loop *l)
{
    struct loop_watch *w;
    struct loop_timer *t, *next;

    while ((w = SLIST_FIRST (&l->dead_watches))) {
        SLIST_REMOVE_HEAD (&l->dead_watches, dead_link);
        free (w);
    }
    for (t = LIST_FIRST (&l->timers); t; t = next) {
        next = LIST_NEXT (t, link);
        if (t->dead) {
            LIST_REMOVE (t, link);
            free (t);
        }
    }
}

void loop_destroy (struct loop *l)
{
    if (!l)
        return;
    int saved = errno;
    if (l->sigwatch)
        loop_fd_remove (l->sigwatch);
    if (l->sigfd >= 0)
        close (l->sigfd);
    struct loop_timer *t;

    LIST_FOREACH (t, &l->timers, link)
    t->dead = 1;
    loop_free_dead (l);
    close (l->epfd);
    free (l);
    errno = saved;
}

static uint32_t to_epoll (int events)
{
    return (events & LOOP_READ ? EPOLLIN : 0) | (events & LOOP_WRITE ? EPOLLOUT : 0);
}

struct loop_watch *loop_fd_add (struct loop *l, int fd, int events, loop_fd_f cb,
                                void *arg)
{
    struct loop_watch *w = calloc (1, sizeof (*w));
    struct epoll_event ev = { 0 };

    if (!w)
        return NULL;
    w->loop = l;
    w->fd = fd;
    w->events = events;
    w->cb = cb;
    w->arg = arg;
    ev.events = to_epoll (events);
    ev.data.ptr = w;
    if (epoll_ctl (l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        int saved = errno;
        free (w);
        errno = saved;
        return NULL;
    }
    return w;
}

int loop_fd_modify (struct loop_watch *w, int events)
{
    struct epoll_event ev = { 0 };

    if (w->events == events)
        return 0;
    ev.events = to_epoll (events);
    ev.data.ptr = w;
    if (epoll_ctl (w->loop->epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0)
        return -1;
    w->events = events;
    return 0;
}

void loop_fd_remove (struct loop_watch *w)
{
    if (!w || w->dead)
        return;
    int saved = errno;
    (void)epoll_ctl (w->loop->epfd, EPOLL_CTL_DEL, w->fd, NULL);
    w->dead = 1;
    SLIST_INSERT_HEAD (&w->loop->dead_watches, w, dead_link);
    errno = saved;
}

struct loop_timer *loop_timer_add (struct loop *l, int64_t after_ms, int64_t repeat_ms,
                                   loop_cb_f cb, void *arg)
{
    struct loop_timer *t = calloc (1, sizeof (*t));

    if (!t)
        return NULL;
    t->loop = l;
    t->due_ms = util_now_ms () + after_ms;
    t->repeat_ms = repeat_ms;
    t->cb = cb;
    t->arg = arg;
    LIST_INSERT_HEAD (&l->timers, t, link);
    return t;
}

void loop_timer_remove (struct loop_timer *t)
{
    if (t)
        t->dead = 1;
}

int loop_before_sleep (struct loop *l, loop_cb_f cb, void *arg)
{
    if (l->nhooks == LOOP_MAX_HOOKS) {
        errno = ENOSPC;
        return -1;
    }
    l->hooks[l->nhooks].cb = cb;
    l->hooks[l->nhooks].arg = arg;
    l->nhooks++;
    return 0;
}

void loop_before_sleep_remove (struct loop *l, loop_cb_f cb, void *arg)
{
    for (int i = 0; i < l->nhooks; i++) {
        if (l->hooks[i].cb == cb && l->hooks[i].arg == arg) {
            memmove (&l->hooks[i], &l->hooks[i + 1],
                     (l->nhooks - i - 1) * sizeof (l->hooks[0]));
            l->nhooks--;
            return;
        }
    }
}

void loop_stop (struct loop *l)
{
    l->stop = 1;
}

static int loop_next_timeout (struct loop *l)
{
    int64_t now = util_now_ms (), best = -1;
    struct loop_timer *t;

    LIST_FOREACH (t, &l->timers, link)
    {
        if (t->dead)
            continue;
        int64_t left = t->due_ms > now ? t->due_ms - now : 0;
        if (best < 0 || left < best)
            best = left;
    }
    return best > 60000 ? 60000 : (int)best;
}

static void loop_run_timers (struct loop *l)
{
    int64_t now = util_now_ms ();
    struct loop_timer *t;

    /* Timers added by a callback join the list head and wait a turn; one
     * removed is only marked dead, so the walk stays valid. */
    LIST_FOREACH (t, &l->timers, link)
    {
        if (t->dead || t->due_ms > now)
            continue;
        if (t->repeat_ms > 0)
            t->due_ms = now + t->repeat_ms;
        else
            t->dead = 1;
        t->cb (l, t->arg);
    }
}

static void loop_dispatch (struct loop *l, struct epoll_event *evs, int n)
{
    for (int i = 0; i < n; i++) {
        struct loop_watch *w = evs[i].data.ptr;
        int revents = 0;

        if (w->dead)
            continue;
        if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP))
            revents |= LOOP_READ;
        if (evs[i].events & EPOLLOUT)
            revents |= LOOP_WRITE;
        if (evs[i].events & (EPOLLHUP | EPOLLERR))
            revents |= LOOP_HUP;
        w->cb (l, w->fd, revents, w->arg);
    }
}

int loop_run (struct loop *l)
{
    struct epoll_event evs[LOOP_MAX_EVENTS];

    l->stop = 0;
    while (!l->stop) {
        for (int i = 0; i < l->nhooks; i++)
            l->hooks[i].cb (l, l->hooks[i].arg);
        loop_free_dead (l);
        if (l->stop)
            break;
        int n = epoll_wait (l->epfd, evs, LOOP_MAX_EVENTS, loop_next_timeout (l));
        if (n < 0 && errno != EINTR)
            return -1;
        if (n > 0)
            loop_dispatch (l, evs, n);
        loop_run_timers (l);
    }
    for (int i = 0; i < l->nhooks; i++)
        l->hooks[i].cb (l, l->hooks[i].arg);
    loop_free_dead (l);
    return 0;
}

static void loop_signal_ready (struct loop *l, int fd, int revents, void *arg)
{
    struct signalfd_siginfo si;

    while (read (fd, &si, sizeof (si)) == (ssize_t)sizeof (si))
        l->sigcb (l, (int)si.ssi_signo, l->sigarg);
}

int loop_signals (struct loop *l, const int *signos, int n, loop_signal_f cb, void *arg)
{
    sigset_t set;

    sigemptyset (&set);
    for (int i = 0; i < n; i++)
        sigaddset (&set, signos[i]);
    if (sigprocmask (SIG_BLOCK, &set, NULL) < 0)
        return -1;
    if ((l->sigfd = signalfd (-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
        return -1;
    l->sigcb = cb;
    l->sigarg = arg;
    if (!(l->sigwatch = loop_fd_add (l, l->sigfd, LOOP_READ, loop_signal_ready, l)))
        return -1;
    return 0;
}

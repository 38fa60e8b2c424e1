/* authq.c - see authq.h
 *
 * Jobs go to the thread through `todo` and come back through `done`, both
 * under one mutex; the thread writes the eventfd once per finished job and
 * the loop empties `done` when it reads it.  A job is freed only on the
 * loop, so cancelling is a flag.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/queue.h>
#include <time.h>
#include <unistd.h>

#include "common/authq.h"
#include "common/log.h"
#include "common/util.h"

enum authq_op { AUTHQ_ENCODE, AUTHQ_DECODE };

struct authq_job {
    enum authq_op op;
    void *in; /* payload (encode) or credential text (decode) */
    int in_len;
    uid_t restrict_uid;
    authq_done_f cb;
    void *arg;
    int cancelled;
    struct authq_result r;
    TAILQ_ENTRY (authq_job) link;
};

TAILQ_HEAD (authq_list, authq_job);

struct authq {
    struct loop *loop;
    struct auth *parent; /* borrowed */
    struct auth *a;      /* the thread's */
    int efd;
    struct loop_watch *watch;
    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct authq_list todo, done;
    int stop;
    int pending;
};

static void job_free (struct authq_job *j)
{
    free (j->in);
    free (j->r.cred);
    free (j->r.payload);
    free (j);
}

static void job_run (struct authq *q, struct authq_job *j)
{
    struct hpcq_error err = { 0 };

    if (j->op == AUTHQ_ENCODE) {
        j->r.cred = auth_encode (q->a, j->in, j->in_len, j->restrict_uid, &err);
        j->r.rc = j->r.cred ? 0 : -1;
    } else
        j->r.rc = auth_decode (q->a, j->in, &j->r.payload, &j->r.len, &j->r.who, &err);
    if (j->r.rc < 0) {
        j->r.errnum = errno ? errno : EPERM;
        snprintf (j->r.error, sizeof (j->r.error), "%s", err.text);
    }
}

static void *authq_thread (void *arg)
{
    struct authq *q = arg;
    uint64_t one = 1;

    pthread_mutex_lock (&q->lock);
    while (!q->stop) {
        struct authq_job *j = TAILQ_FIRST (&q->todo);
        if (!j) {
            pthread_cond_wait (&q->cond, &q->lock);
            continue;
        }
        TAILQ_REMOVE (&q->todo, j, link);
        pthread_mutex_unlock (&q->lock);
        job_run (q, j);
        pthread_mutex_lock (&q->lock);
        TAILQ_INSERT_TAIL (&q->done, j, link);
        /* An eventfd counter cannot fill up in practice (2^64 - 2). */
        (void)!write (q->efd, &one, sizeof (one));
    }
    pthread_mutex_unlock (&q->lock);
    return NULL;
}

/* On the loop: hand each finished job to its callback. */
static void authq_ready (struct loop *l, int fd, int revents, void *arg)
{
    struct authq *q = arg;
    struct authq_list done = TAILQ_HEAD_INITIALIZER (done);
    struct authq_job *j;
    uint64_t n;

    (void)!read (q->efd, &n, sizeof (n));
    pthread_mutex_lock (&q->lock);
    TAILQ_CONCAT (&done, &q->done, link);
    pthread_mutex_unlock (&q->lock);
    while ((j = TAILQ_FIRST (&done))) {
        TAILQ_REMOVE (&done, j, link);
        q->pending--;
        if (!j->cancelled)
            j->cb (&j->r, j->arg);
        job_free (j);
    }
}

struct authq *authq_create (struct loop *l, struct auth *a, struct hpcq_error *err)
{
    struct authq *q = xzalloc (sizeof (*q));
    sigset_t all, old;
    int e;

    q->loop = l;
    q->parent = a;
    q->efd = -1;
    TAILQ_INIT (&q->todo);
    TAILQ_INIT (&q->done);
    pthread_mutex_init (&q->lock, NULL);
    pthread_cond_init (&q->cond, NULL);
    if (!(q->a = auth_clone (a, err)))
        goto error;
    if ((q->efd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        errprintf (err, "eventfd: %s", strerror (errno));
        goto error;
    }
    if (!(q->watch = loop_fd_add (l, q->efd, LOOP_READ, authq_ready, q))) {
        errprintf (err, "cannot watch the MUNGE thread: %s", strerror (errno));
        goto error;
    }
    /* The thread takes no signals: the loop's come through a signalfd
     * (loop_signals), which only sees those blocked in every thread; one
     * the thread could take (SIGCHLD) would be lost to it. */
    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    e = pthread_create (&q->thread, NULL, authq_thread, q);
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    if (e != 0) {
        errno = e;
        errprintf (err, "cannot start the MUNGE thread: %s", strerror (e));
        goto error;
    }
    q->started = 1;
    return q;
error:
    authq_destroy (q);
    return NULL;
}

static void authq_drop (struct authq_list *list)
{
    struct authq_job *j;

    while ((j = TAILQ_FIRST (list))) {
        TAILQ_REMOVE (list, j, link);
        job_free (j);
    }
}

void authq_destroy (struct authq *q)
{
    if (!q)
        return;
    int saved = errno;
    if (q->started) {
        struct timespec ts;
        pthread_mutex_lock (&q->lock);
        q->stop = 1;
        pthread_cond_signal (&q->cond);
        pthread_mutex_unlock (&q->lock);
        /* A thread stuck in munged (read and poll are cancellation
         * points) is not waited for. */
        clock_gettime (CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        if (pthread_timedjoin_np (q->thread, NULL, &ts) != 0) {
            pthread_cancel (q->thread);
            pthread_join (q->thread, NULL);
        }
    }
    authq_drop (&q->todo);
    authq_drop (&q->done);
    loop_fd_remove (q->watch);
    if (q->efd >= 0)
        close (q->efd);
    auth_destroy (q->a);
    pthread_mutex_destroy (&q->lock);
    pthread_cond_destroy (&q->cond);
    free (q);
    errno = saved;
}

struct auth *authq_auth (const struct authq *q)
{
    return q->parent;
}

static struct authq_job *authq_submit (struct authq *q, struct authq_job *j,
                                       authq_done_f cb, void *arg)
{
    j->cb = cb;
    j->arg = arg;
    pthread_mutex_lock (&q->lock);
    TAILQ_INSERT_TAIL (&q->todo, j, link);
    pthread_cond_signal (&q->cond);
    pthread_mutex_unlock (&q->lock);
    q->pending++;
    return j;
}

struct authq_job *authq_encode (struct authq *q, const void *payload, int len,
                                uid_t restrict_uid, authq_done_f cb, void *arg)
{
    struct authq_job *j = xzalloc (sizeof (*j));

    j->op = AUTHQ_ENCODE;
    j->in = xzalloc (len > 0 ? len : 1);
    memcpy (j->in, payload, len);
    j->in_len = len;
    j->restrict_uid = restrict_uid;
    return authq_submit (q, j, cb, arg);
}

struct authq_job *authq_decode (struct authq *q, const char *text, authq_done_f cb,
                                void *arg)
{
    struct authq_job *j = xzalloc (sizeof (*j));

    j->op = AUTHQ_DECODE;
    j->in = xstrdup (text);
    return authq_submit (q, j, cb, arg);
}

void authq_cancel (struct authq_job *j)
{
    if (j)
        j->cancelled = 1; /* read and freed on the loop only */
}

int authq_pending (const struct authq *q)
{
    return q->pending;
}

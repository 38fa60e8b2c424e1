/* privsep.c - see privsep.h */
#include <config.h>
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/idcache.h"
#include "common/log.h"
#include "common/util.h"
#include "worker/privsep.h"

struct helper {
    pid_t pid;
    uid_t uid;
    struct loop_timer *timer;
    privsep_done_f done;
    void *done_arg;
    int timed_out;
    struct privsep *ps;
    LIST_ENTRY (helper) link;
};

struct privsep {
    struct loop *loop;
    LIST_HEAD (, helper) helpers;
};

int privsep_cred_lookup (uid_t uid, struct privsep_cred *c, struct hpcq_error *err)
{
    struct idcache_user u;

    memset (c, 0, sizeof (*c));
    if (idcache_user (uid, &u) < 0) {
        if (errno == EOVERFLOW)
            return errprintf (err, "cannot list the groups of uid %u", (unsigned)uid);
        errno = ENOENT;
        return errprintf (err, "unknown user (uid %u) on this node", (unsigned)uid);
    }
    c->uid = u.uid;
    c->gid = u.gid;
    snprintf (c->name, sizeof (c->name), "%s", u.name);
    snprintf (c->home, sizeof (c->home), "%s", u.home);
    snprintf (c->shell, sizeof (c->shell), "%s", u.shell);
    c->groups = u.groups; /* handed over: released with c */
    c->ngroups = u.ngroups;
    return 0;
}

/* If gid is one of c's groups, it becomes c's group.  getgrouplist() put
 * the primary group in c->groups too. */
static int cred_has_group (struct privsep_cred *c, gid_t gid)
{
    for (int i = 0; i < c->ngroups; i++)
        if (c->groups[i] == gid) {
            c->gid = gid;
            return 1;
        }
    return 0;
}

int privsep_cred_set_group (struct privsep_cred *c, const char *group,
                            struct hpcq_error *err)
{
    struct group gr, *res = NULL;
    struct privsep_cred fresh;
    char buf[16384];

    if (getgrnam_r (group, &gr, buf, sizeof (buf), &res) != 0 || !res) {
        errno = ENOENT;
        return errprintf (err, "group_list: no group %s on this node", group);
    }
    if (cred_has_group (c, gr.gr_gid))
        return 0;
    /* The groups may be a minute old (idcache.h): a refusal is checked
     * against the database itself, so a user just added is let in. */
    idcache_forget (c->uid);
    if (privsep_cred_lookup (c->uid, &fresh, err) == 0) {
        free (c->groups);
        c->groups = fresh.groups;
        c->ngroups = fresh.ngroups;
        if (cred_has_group (c, gr.gr_gid))
            return 0;
    }
    errno = EPERM;
    return errprintf (err, "group_list: %s is not a member of group %s", c->name,
                      group);
}

void privsep_cred_release (struct privsep_cred *c)
{
    if (!c)
        return;
    free (c->groups);
    c->groups = NULL;
    c->ngroups = 0;
}

void privsep_cred_copy (struct privsep_cred *to, const struct privsep_cred *from)
{
    *to = *from;
    to->groups = NULL;
    if (from->ngroups > 0) {
        to->groups = xzalloc (from->ngroups * sizeof (gid_t));
        memcpy (to->groups, from->groups, from->ngroups * sizeof (gid_t));
    }
}

int privsep_drop (const struct privsep_cred *c)
{
    if (geteuid () != 0)
        return 0;
    if (setgroups (c->ngroups, c->groups) < 0 || setgid (c->gid) < 0
        || setuid (c->uid) < 0)
        return -1;
    /* A user other than root must not be able to come back. */
    if (c->uid != 0 && (setuid (0) == 0 || seteuid (0) == 0)) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

struct privsep *privsep_create (struct loop *loop)
{
    struct privsep *ps = xzalloc (sizeof (*ps));

    ps->loop = loop;
    LIST_INIT (&ps->helpers);
    return ps;
}

static void helper_free (struct helper *h)
{
    LIST_REMOVE (h, link);
    loop_timer_remove (h->timer);
    free (h);
}

void privsep_destroy (struct privsep *ps)
{
    if (!ps)
        return;
    while (!LIST_EMPTY (&ps->helpers)) {
        struct helper *h = LIST_FIRST (&ps->helpers);
        (void)kill (h->pid, SIGKILL);
        helper_free (h);
    }
    free (ps);
}

static void helper_timeout (struct loop *l, void *arg)
{
    struct helper *h = arg;

    h->timer = NULL; /* one-shot: freed by the loop */
    h->timed_out = 1;
    log_msg (LOG_WARNING,
             "a file operation as uid %u did not finish in time: killed it",
             (unsigned)h->uid);
    (void)kill (h->pid, SIGKILL);
}

/* The child: the worker's signal mask and dispositions are not its own. */
static void helper_child (const struct privsep_cred *c, privsep_fn fn, void *arg)
{
    sigset_t none;

    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
    signal (SIGPIPE, SIG_DFL);
    if (privsep_drop (c) < 0)
        _exit (126);
    _exit (fn (arg) & 0xff);
}

int privsep_run (struct privsep *ps, const struct privsep_cred *c, int64_t timeout_ms,
                 privsep_fn fn, void *arg, privsep_done_f done, void *done_arg)
{
    struct helper *h;
    pid_t pid;

    if ((pid = fork ()) < 0)
        return -1;
    if (pid == 0)
        helper_child (c, fn, arg);
    h = xzalloc (sizeof (*h));
    h->pid = pid;
    h->uid = c->uid;
    h->done = done;
    h->done_arg = done_arg;
    h->ps = ps;
    if (timeout_ms > 0)
        h->timer = loop_timer_add (ps->loop, timeout_ms, 0, helper_timeout, h);
    LIST_INSERT_HEAD (&ps->helpers, h, link);
    return 0;
}

int privsep_reaped (struct privsep *ps, pid_t pid, int status)
{
    struct helper *h;

    LIST_FOREACH (h, &ps->helpers, link)
    if (h->pid == pid)
        break;
    if (!h)
        return 0;
    if (h->done)
        h->done (WIFEXITED (status) && !h->timed_out ? WEXITSTATUS (status) : -1,
                 h->done_arg);
    helper_free (h);
    return 1;
}

int privsep_count (const struct privsep *ps)
{
    const struct helper *h;
    int n = 0;

    LIST_FOREACH (h, &ps->helpers, link)
    n++;
    return n;
}

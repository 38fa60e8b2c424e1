/* ckpt_remove.c - checkpoint folders removed as their owners, a helper per
 * owner per loop turn (see ckpt_remove.h). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "worker/ckpt_remove.h"
#include "worker/privsep.h"
#include "worker/tasks.h"
#include "worker/worker.h"

/* Folder depth a removal goes to (a deeper tree is left, and said so). */
#define REMOVE_MAX_DEPTH 64
/* Folders one helper removes at most. */
#define REMOVE_BATCH 64

/* One folder to remove: queued, then in a batch. */
struct removal {
    int64_t seq;
    uid_t uid;
    char *path;
    LIST_ENTRY (removal) link;
};

LIST_HEAD (removal_list, removal);

/* One helper's folders, all of one owner. */
struct batch {
    struct ckpt_remove *rm;
    int single; /* retrying one folder alone: its status is its answer */
    struct removal_list folders;
    LIST_ENTRY (batch) link;
};

struct ckpt_remove {
    struct worker *w;
    struct removal_list queued; /* this loop turn's requests */
    struct loop_timer *flush;
    LIST_HEAD (, batch) running;
};

/* ---- in the helper, as the owner ---------------------------------------- */

/* Remove name in dirfd and all under it, never following a symlink (one
 * is removed as itself).  0 or -1 with errno. */
static int remove_at (int parent, const char *name, int depth)
{
    struct dirent *de;
    DIR *d;
    int fd, rc = 0;

    if (unlinkat (parent, name, 0) == 0)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return errno == ENOENT ? 0 : -1;
    if (depth >= REMOVE_MAX_DEPTH) {
        errno = ELOOP;
        return -1;
    }
    if ((fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
        < 0)
        return -1;
    if (!(d = fdopendir (fd))) {
        close (fd);
        return -1;
    }
    while ((de = readdir (d)))
        if (strcmp (de->d_name, ".") && strcmp (de->d_name, "..")
            && remove_at (dirfd (d), de->d_name, depth + 1) < 0)
            rc = -1;
    closedir (d);
    if (rc == 0 && unlinkat (parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        rc = -1;
    return rc;
}

/* 0 removed (or already gone), 1 not the owner's folder, 2 could not. */
static int remove_one (const char *path, uid_t uid)
{
    char parent[4096], *slash;
    struct stat st;
    int dfd, rc;

    snprintf (parent, sizeof (parent), "%s", path);
    if (!(slash = strrchr (parent, '/')) || slash == parent || !slash[1])
        return 2;
    *slash = '\0';
    if ((dfd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return errno == ENOENT ? 0 : 2;
    if (fstatat (dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
        rc = errno == ENOENT ? 0 : 2;
    else if (!S_ISDIR (st.st_mode) || st.st_uid != uid)
        rc = 1;
    else
        rc = remove_at (dfd, slash + 1, 0) == 0 ? 0 : 2;
    close (dfd);
    return rc;
}

/* privsep_run's function: a single folder's status, or for a batch 0 if
 * every folder went and 3 if any did not (each is then tried alone). */
static int remove_as_owner (void *arg)
{
    const struct batch *b = arg;
    const struct removal *r;
    int failed = 0;

    if (b->single)
        return remove_one (LIST_FIRST (&b->folders)->path,
                           LIST_FIRST (&b->folders)->uid);
    LIST_FOREACH (r, &b->folders, link)
    if (remove_one (r->path, r->uid) != 0)
        failed = 1;
    return failed ? 3 : 0;
}

/* ---- in the worker ------------------------------------------------------ */

static void removal_free (struct removal *r)
{
    free (r->path);
    free (r);
}

static void removed_send (struct ckpt_remove *rm, int64_t seq, const char *error)
{
    json_t *body = json_pack ("{s:I s:b}", "seq", (json_int_t)seq, "ok", error == NULL);

    if (body && error)
        json_object_set_new (body, "error", json_string (error));
    (void)worker_send (rm->w, "ckpt.removed", body);
}

/* Who the removal runs as: the owner as this node knows them; a worker
 * that is not root acts as itself whoever asks. */
static int removal_cred (uid_t uid, struct privsep_cred *cred)
{
    struct hpcq_error err;

    if (privsep_cred_lookup (uid, cred, &err) == 0)
        return 0;
    if (geteuid () == 0)
        return -1;
    memset (cred, 0, sizeof (*cred));
    cred->uid = geteuid ();
    cred->gid = getegid ();
    return 0;
}

static void batch_done (int status, void *arg);

/* Start b's helper as its folders' owner; on failure b's folders are
 * dropped unanswered (the scheduler asks again later).  b is freed then. */
static void batch_start (struct ckpt_remove *rm, struct batch *b)
{
    struct removal *first = LIST_FIRST (&b->folders), *r;
    struct privsep_cred cred;

    if (removal_cred (first->uid, &cred) < 0) {
        while ((r = LIST_FIRST (&b->folders))) {
            LIST_REMOVE (r, link);
            removed_send (rm, r->seq, "the folder's owner is unknown on this node");
            removal_free (r);
        }
        free (b);
        return;
    }
    /* No time limit: a large folder takes long, and nothing waits for it. */
    if (privsep_run (tasks_privsep (rm->w->tasks), &cred, 0, remove_as_owner, b,
                     batch_done, b)
        < 0) {
        log_error ("remove the checkpoint folder of job %lld and others",
                   (long long)first->seq);
        while ((r = LIST_FIRST (&b->folders))) {
            LIST_REMOVE (r, link);
            removal_free (r);
        }
        free (b);
    } else
        LIST_INSERT_HEAD (&rm->running, b, link);
    privsep_cred_release (&cred);
}

static int batch_count (const struct batch *b)
{
    const struct removal *r;
    int n = 0;

    LIST_FOREACH (r, &b->folders, link)
    n++;
    return n;
}

static struct batch *batch_new (struct ckpt_remove *rm, int single)
{
    struct batch *b = xzalloc (sizeof (*b));

    b->rm = rm;
    b->single = single;
    LIST_INIT (&b->folders);
    return b;
}

/* A gathered helper failed somewhere: each folder alone, for its answer. */
static void batch_split (struct ckpt_remove *rm, struct batch *b)
{
    struct removal *r;

    while ((r = LIST_FIRST (&b->folders))) {
        struct batch *one = batch_new (rm, 1);
        LIST_REMOVE (r, link);
        LIST_INSERT_HEAD (&one->folders, r, link);
        batch_start (rm, one);
    }
}

/* The helper is done (status -1: killed). */
static void batch_done (int status, void *arg)
{
    static const char *why[] = { NULL, "not a folder of the job's owner",
                                 "cannot remove it" };
    struct batch *b = arg;
    struct ckpt_remove *rm = b->rm;
    struct removal *r;

    LIST_REMOVE (b, link);
    if (!b->single && status != 0) {
        log_msg (LOG_INFO,
                 "checkpoint folders of uid %lld: not all removed by one helper; "
                 "trying each alone",
                 (long long)LIST_FIRST (&b->folders)->uid);
        batch_split (rm, b);
        free (b);
        return;
    }
    if (!b->single)
        log_msg (LOG_INFO, "checkpoint folders of uid %lld: %d removed by one helper",
                 (long long)LIST_FIRST (&b->folders)->uid, batch_count (b));
    while ((r = LIST_FIRST (&b->folders))) {
        LIST_REMOVE (r, link);
        removed_send (rm, r->seq, why[status < 0 || status > 2 ? 2 : status]);
        removal_free (r);
    }
    free (b);
}

/* End of the loop turn: the queued folders, a helper per owner. */
static void flush_queued (struct loop *l, void *arg)
{
    struct ckpt_remove *rm = arg;
    struct removal *r;

    (void)l;
    rm->flush = NULL; /* one-shot: freed by the loop */
    while ((r = LIST_FIRST (&rm->queued))) {
        struct batch *b = batch_new (rm, 0);
        uid_t uid = r->uid;
        struct removal *next;
        int n = 0;
        for (; r && n < REMOVE_BATCH; r = next) {
            next = LIST_NEXT (r, link);
            if (r->uid != uid)
                continue;
            LIST_REMOVE (r, link);
            LIST_INSERT_HEAD (&b->folders, r, link);
            n++;
        }
        b->single = n == 1;
        batch_start (rm, b);
    }
}

void ckpt_remove_msg (struct ckpt_remove *rm, struct conn *c, struct wire_msg *msg)
{
    json_int_t seq, uid;
    const char *path;
    struct removal *r;

    if (json_unpack (msg->body, "{s:I s:s s:I}", "seq", &seq, "path", &path, "uid",
                     &uid)
            < 0
        || path[0] != '/' || uid < 0) {
        (void)conn_reply (c, msg, EPROTO, "ckpt.remove: malformed request", NULL);
        return;
    }
    (void)conn_reply (c, msg, 0, NULL, NULL);
    /* A worker that is not root removes only its own user's folders. */
    if (geteuid () != 0 && (uid_t)uid != geteuid ()) {
        removed_send (rm, seq,
                      "the worker is not root and the folder is another user's");
        return;
    }
    r = xzalloc (sizeof (*r));
    r->seq = seq;
    r->uid = (uid_t)uid;
    r->path = xstrdup (path);
    LIST_INSERT_HEAD (&rm->queued, r, link);
    log_msg (LOG_INFO, "job %lld: removing checkpoint folder %s as uid %lld",
             (long long)seq, path, (long long)uid);
    if (!rm->flush)
        rm->flush = loop_timer_add (rm->w->loop, 0, 0, flush_queued, rm);
}

struct ckpt_remove *ckpt_remove_create (struct worker *w)
{
    struct ckpt_remove *rm = xzalloc (sizeof (*rm));

    rm->w = w;
    LIST_INIT (&rm->queued);
    LIST_INIT (&rm->running);
    return rm;
}

void ckpt_remove_destroy (struct ckpt_remove *rm)
{
    struct removal *r;
    struct batch *b;

    if (!rm)
        return;
    loop_timer_remove (rm->flush);
    while ((r = LIST_FIRST (&rm->queued))) {
        LIST_REMOVE (r, link);
        removal_free (r);
    }
    while ((b = LIST_FIRST (&rm->running))) {
        LIST_REMOVE (b, link);
        while ((r = LIST_FIRST (&b->folders))) {
            LIST_REMOVE (r, link);
            removal_free (r);
        }
        free (b);
    }
    free (rm);
}

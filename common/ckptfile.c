/* ckptfile.c - see ckptfile.h.
 *
 * The checksum is xxHash's XXH3-64 (Debian's libxxhash): fast enough that
 * checking a GB-sized state costs little next to reading it.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/ckptfile.h"
#include "common/ckptreport.h"
#include "common/util.h"

#define MAGIC "HPCQCKPT"
#define FORMAT 1
#define PATH_LEN 4096

struct file_header {
    char magic[8];
    uint32_t format;
    uint32_t zero;
};

struct file_trailer {
    uint64_t payload_bytes;
    uint64_t sum;
};

struct ckptfile_out {
    struct ckptfile_store st;
    uint64_t gen;
    int fd;
    int failed; /* errno of the first failure, 0 if none */
    uint64_t payload_bytes;
    XXH3_state_t *hash;
    char path[PATH_LEN], tmp[PATH_LEN + 8];
};

char *ckptfile_path (const struct ckptfile_store *st, uint64_t gen, const char *part,
                     char *buf, size_t size)
{
    if (part)
        snprintf (buf, size, "%s/%s-%08" PRIu64 ".%s.part", st->dir, st->prefix, gen,
                  part);
    else
        snprintf (buf, size, "%s/%s-%08" PRIu64 ".ckpt", st->dir, st->prefix, gen);
    return buf;
}

/* Does folder entry name belong to st?  If so, *gen is its generation and
 * *commit says whether it is the commit file (not a part or a .tmp). */
static int entry_gen (const struct ckptfile_store *st, const char *name, uint64_t *gen,
                      int *commit)
{
    size_t n = strlen (st->prefix);
    char *end;

    if (strncmp (name, st->prefix, n) != 0 || name[n] != '-' || name[n + 1] < '0'
        || name[n + 1] > '9')
        return 0;
    errno = 0;
    *gen = strtoull (name + n + 1, &end, 10);
    if (errno || *end != '.')
        return 0;
    *commit = strcmp (end, ".ckpt") == 0;
    return 1;
}

static int cmp_desc (const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The generations with a commit file, newest first, in a malloc'd array
 * (*n of them), and in *highest the highest number of any file of st.
 * Returns NULL with errno (ENOENT: no folder). */
static uint64_t *list_commits (const struct ckptfile_store *st, size_t *n,
                               uint64_t *highest)
{
    DIR *dh = opendir (st->dir);
    struct dirent *e;
    uint64_t *gens = NULL;
    size_t cap = 0;

    *n = 0;
    if (highest)
        *highest = 0;
    if (!dh)
        return NULL;
    while ((e = readdir (dh))) {
        uint64_t g;
        int commit;
        if (!entry_gen (st, e->d_name, &g, &commit))
            continue;
        if (highest && g > *highest)
            *highest = g;
        if (!commit)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            uint64_t *p = realloc (gens, cap * sizeof (*gens));
            if (!p) {
                free (gens);
                closedir (dh);
                errno = ENOMEM;
                return NULL;
            }
            gens = p;
        }
        gens[(*n)++] = g;
    }
    closedir (dh);
    if (!gens && !(gens = malloc (sizeof (*gens)))) {
        errno = ENOMEM;
        return NULL;
    }
    qsort (gens, *n, sizeof (*gens), cmp_desc);
    return gens;
}

/* The worker makes a job's folder only when it says it checkpoints
 * (worker/launch.c); else the first checkpoint does, here.  Either way
 * the job's folder ($HPCQ_CHECKPOINT_DIR) must be this user's own: a
 * symlink or another user's folder planted under its name (a shared
 * checkpoint_root) is refused.  A folder an app was given otherwise (a
 * project's, shared by a group) is the user's business. */
static int ckptfile_own_dir (const char *dir, struct hpcq_error *err)
{
    const char *job = getenv ("HPCQ_CHECKPOINT_DIR");
    struct stat sb;

    if (!job || strcmp (job, dir) != 0)
        return 0;
    if (lstat (dir, &sb) < 0)
        return errprintf (err, "cannot create checkpoint folder '%s': %s", dir,
                          strerror (errno));
    if (!S_ISDIR (sb.st_mode) || sb.st_uid != geteuid ()) {
        errno = EPERM;
        return errprintf (err, "checkpoint folder '%s' is not your own folder", dir);
    }
    return 0;
}

/* When this process last took a generation number, and which: a commit
 * of that generation reports the time since as the checkpoint's cost. */
static int64_t next_ms;
static uint64_t next_gen;

int ckptfile_next (const struct ckptfile_store *st, uint64_t *gen,
                   struct hpcq_error *err)
{
    size_t n;
    uint64_t highest;
    uint64_t *gens;

    if (util_mkdir_p (st->dir) < 0)
        return errprintf (err, "cannot create checkpoint folder '%s': %s", st->dir,
                          strerror (errno));
    if (ckptfile_own_dir (st->dir, err) < 0)
        return -1;
    if (!(gens = list_commits (st, &n, &highest)))
        return errprintf (err, "cannot read checkpoint folder '%s': %s", st->dir,
                          strerror (errno));
    free (gens);
    *gen = highest + 1;
    next_gen = *gen;
    next_ms = util_now_ms ();
    return 0;
}

/* ---- writing ---- */

static void out_fail (struct ckptfile_out *o, int e)
{
    if (!o->failed)
        o->failed = e ? e : EIO;
}

/* Write to the file without hashing (header and trailer go through the
 * hash or not as the format says). */
static void out_raw (struct ckptfile_out *o, const void *buf, size_t len)
{
    if (!o->failed && util_write_all (o->fd, buf, len) < 0)
        out_fail (o, errno);
}

struct ckptfile_out *ckptfile_create (const struct ckptfile_store *st, uint64_t gen,
                                      const char *part, struct hpcq_error *err)
{
    struct ckptfile_out *o = calloc (1, sizeof (*o));
    struct file_header h;

    if (!o || !(o->hash = XXH3_createState ())) {
        free (o);
        errprintf (err, "out of memory");
        return NULL;
    }
    o->st = *st;
    o->gen = gen;
    ckptfile_path (st, gen, part, o->path, sizeof (o->path));
    snprintf (o->tmp, sizeof (o->tmp), "%s.tmp", o->path);
    XXH3_64bits_reset (o->hash);
    if ((o->fd = open (o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
        errprintf (err, "cannot create '%s': %s", o->tmp, strerror (errno));
        XXH3_freeState (o->hash);
        free (o);
        return NULL;
    }
    memset (&h, 0, sizeof (h));
    memcpy (h.magic, MAGIC, sizeof (h.magic));
    h.format = FORMAT;
    XXH3_64bits_update (o->hash, &h, sizeof (h));
    out_raw (o, &h, sizeof (h));
    return o;
}

int ckptfile_write (struct ckptfile_out *o, const void *buf, size_t len)
{
    XXH3_64bits_update (o->hash, buf, len);
    o->payload_bytes += len;
    out_raw (o, buf, len);
    if (o->failed) {
        errno = o->failed;
        return -1;
    }
    return 0;
}

static void out_free (struct ckptfile_out *o)
{
    XXH3_freeState (o->hash);
    free (o);
}

void ckptfile_abort (struct ckptfile_out *o)
{
    if (!o)
        return;
    int saved = errno;
    if (o->fd >= 0)
        close (o->fd);
    unlink (o->tmp);
    out_free (o);
    errno = saved;
}

/* Trailer, fsync, rename, fsync the folder.  0, or -1 with err (the .tmp
 * removed); o stays allocated. */
static int out_finish (struct ckptfile_out *o, struct ckptfile_info *info,
                       struct hpcq_error *err)
{
    struct file_trailer t = { o->payload_bytes, XXH3_64bits_digest (o->hash) };

    out_raw (o, &t, sizeof (t));
    if (!o->failed && fsync (o->fd) < 0)
        out_fail (o, errno);
    if (close (o->fd) < 0)
        out_fail (o, errno);
    o->fd = -1;
    if (!o->failed && rename (o->tmp, o->path) < 0)
        out_fail (o, errno);
    if (!o->failed && util_fsync_dir (o->st.dir) < 0)
        out_fail (o, errno);
    if (o->failed) {
        unlink (o->tmp);
        errno = o->failed;
        return errprintf (err, "cannot write checkpoint '%s': %s", o->path,
                          strerror (o->failed));
    }
    if (info) {
        info->bytes = sizeof (struct file_header) + o->payload_bytes + sizeof (t);
        info->sum = t.sum;
    }
    return 0;
}

int ckptfile_close (struct ckptfile_out *o, struct ckptfile_info *info,
                    struct hpcq_error *err)
{
    int rc = out_finish (o, info, err);
    int saved = errno;
    out_free (o);
    errno = saved;
    return rc;
}

/* Delete the generations older than the newest st->keep, commit files
 * first, so no half-deleted generation looks whole.  Best effort: what is
 * left is deleted after a later commit. */
static void prune (const struct ckptfile_store *st)
{
    size_t n;
    uint64_t *gens = list_commits (st, &n, NULL);
    int keep = st->keep >= 1 ? st->keep : 1;

    if (gens && n > (size_t)keep) {
        uint64_t oldest_kept = gens[keep - 1];
        for (int pass = 0; pass < 2; pass++) {
            DIR *dh = opendir (st->dir);
            struct dirent *e;
            while (dh && (e = readdir (dh))) {
                char path[PATH_LEN];
                uint64_t g;
                int commit;
                if (!entry_gen (st, e->d_name, &g, &commit) || g >= oldest_kept
                    || commit != (pass == 0))
                    continue;
                snprintf (path, sizeof (path), "%s/%s", st->dir, e->d_name);
                unlink (path);
            }
            if (dh)
                closedir (dh);
        }
    }
    free (gens);
}

/* Tell the job's worker (when under hpcq) that generation o->gen is
 * whole.  A report that fails is said on stderr; the checkpoint stands. */
static void report (const struct ckptfile_out *o, uint64_t bytes)
{
    struct hpcq_error e;
    double secs =
        o->gen == next_gen && next_ms ? (util_now_ms () - next_ms) / 1000.0 : -1;

    if (ckptreport_done ((int64_t)o->gen, (int64_t)bytes, secs, &e) < 0)
        fprintf (stderr,
                 "%s: checkpoint %" PRIu64 " is whole but was not reported to "
                 "the worker: %s\n",
                 o->st.progname ? o->st.progname : "ckptfile", o->gen, e.text);
}

int ckptfile_commit (struct ckptfile_out *o, uint64_t part_bytes,
                     struct ckptfile_info *info, struct hpcq_error *err)
{
    struct ckptfile_info mine;
    int rc = out_finish (o, &mine, err);

    if (rc == 0) {
        mine.bytes += part_bytes;
        if (info)
            *info = mine;
        prune (&o->st);
        report (o, mine.bytes);
    }
    int saved = errno;
    out_free (o);
    errno = saved;
    return rc;
}

/* ---- reading ---- */

static int read_exact (int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read (fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EBADMSG;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Fail a read: the file is damaged, as why says. */
static void *damaged (int fd, void *buf, const char *why, struct hpcq_error *err)
{
    errprintf (err, "%s", why);
    free (buf);
    close (fd);
    errno = EBADMSG;
    return NULL;
}

void *ckptfile_read (const struct ckptfile_store *st, uint64_t gen, const char *part,
                     size_t *len, struct ckptfile_info *info, struct hpcq_error *err)
{
    char path[PATH_LEN], why[200];
    struct file_header h;
    struct file_trailer t;
    struct stat sb;
    char *buf = NULL;
    const uint64_t frame = sizeof (h) + sizeof (t);
    uint64_t n, sum = 0;
    int fd;

    ckptfile_path (st, gen, part, path, sizeof (path));
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0) {
        int e = errno;
        errprintf (err, "cannot open '%s': %s", path, strerror (e));
        errno = e;
        return NULL;
    }
    if (fstat (fd, &sb) < 0 || (uint64_t)sb.st_size < frame
        || read_exact (fd, &h, sizeof (h)) < 0) {
        snprintf (why, sizeof (why), "truncated to %lld bytes", (long long)sb.st_size);
        return damaged (fd, NULL, why, err);
    }
    if (memcmp (h.magic, MAGIC, sizeof (h.magic)) != 0)
        return damaged (fd, NULL, "not a checkpoint file", err);
    if (h.format != FORMAT) {
        snprintf (why, sizeof (why), "file format %u, this program reads %d",
                  (unsigned)h.format, FORMAT);
        return damaged (fd, NULL, why, err);
    }
    n = (uint64_t)sb.st_size - frame;
    if (!(buf = malloc (n ? n : 1))) {
        close (fd);
        errprintf (err, "out of memory reading '%s'", path);
        errno = ENOMEM;
        return NULL;
    }
    if (read_exact (fd, buf, n) < 0 || read_exact (fd, &t, sizeof (t)) < 0) {
        snprintf (why, sizeof (why), "cannot read: %s", strerror (errno));
        return damaged (fd, buf, why, err);
    }
    if (t.payload_bytes != n) {
        snprintf (why, sizeof (why),
                  "truncated or extended: %" PRIu64 " bytes "
                  "of payload, its trailer says %" PRIu64,
                  n, t.payload_bytes);
        return damaged (fd, buf, why, err);
    }
    XXH3_state_t *hs = XXH3_createState ();
    if (hs) {
        XXH3_64bits_reset (hs);
        XXH3_64bits_update (hs, &h, sizeof (h));
        XXH3_64bits_update (hs, buf, n);
        sum = XXH3_64bits_digest (hs);
        XXH3_freeState (hs);
    }
    if (!hs || sum != t.sum) {
        snprintf (why, sizeof (why),
                  "checksum mismatch: %016" PRIx64 ", its "
                  "trailer says %016" PRIx64,
                  sum, t.sum);
        return damaged (fd, buf, why, err);
    }
    close (fd);
    *len = n;
    if (info) {
        info->bytes = (uint64_t)sb.st_size;
        info->sum = sum;
    }
    return buf;
}

int ckptfile_find (const struct ckptfile_store *st, ckptfile_accept_fn accept,
                   void *arg, uint64_t *gen, void **payload, size_t *len,
                   struct hpcq_error *err)
{
    size_t n;
    uint64_t *gens = list_commits (st, &n, NULL);

    if (!gens) {
        if (errno == ENOENT)
            return 0;
        return errprintf (err, "cannot read checkpoint folder '%s': %s", st->dir,
                          strerror (errno));
    }
    for (size_t i = 0; i < n; i++) {
        struct hpcq_error why = { "" };
        char path[PATH_LEN];
        size_t l = 0;
        void *p = ckptfile_read (st, gens[i], NULL, &l, NULL, &why);
        int rc =
            p ? (accept ? accept (arg, gens[i], p, l, &why) : 0) : CKPTFILE_DAMAGED;
        if (rc == 0) {
            *gen = gens[i];
            *payload = p;
            *len = l;
            free (gens);
            return 1;
        }
        free (p);
        if (rc < 0) {
            if (err)
                *err = why;
            free (gens);
            errno = EINVAL;
            return -1;
        }
        fprintf (stderr, "%s: checkpoint '%s' is damaged (%s)%s\n", st->progname,
                 ckptfile_path (st, gens[i], NULL, path, sizeof (path)), why.text,
                 i + 1 < n ? "; trying the previous one" : "");
    }
    free (gens);
    if (n == 0)
        return 0;
    errprintf (err, "no valid checkpoint in '%s'", st->dir);
    errno = EBADMSG;
    return -1;
}

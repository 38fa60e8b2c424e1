/* checkpoint.c - see checkpoint.h */
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

#include "apps/md/checkpoint.h"
#include "apps/md/comm.h"
#include "apps/md/sim.h"
#include "common/util.h"

#define CKPT_MAGIC "HPCQMDCP"
#define MANIFEST_MAGIC "hpcq-md checkpoint manifest"
#define KEEP_GENERATIONS 2

/* On-disk header of a part (host byte order, little-endian on every
 * machine hpcq targets; the version guards layout changes). */
struct ckpt_header {
    char magic[8];
    uint32_t version;
    uint32_t header_size;
    int64_t step, last_build, nbuilds;
    int32_t rank, nranks;
    int64_t nlocal, natoms;
    int32_t cells[3];
    int32_t pad;
    double density, cutoff, skin, dt;
    uint64_t seed;
};

uint64_t checkpoint_fnv1a (const void *buf, size_t len, uint64_t h)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static void part_name (char *buf, size_t len, const char *dir, long step,
                       int rank)
{
    snprintf (buf, len, "%s/ckpt-%012ld.r%05d.part", dir, step, rank);
}

static void manifest_name (char *buf, size_t len, const char *dir, long step)
{
    snprintf (buf, len, "%s/ckpt-%012ld.manifest", dir, step);
}

/* ---- writing ---- */

struct out {
    int fd;
    uint64_t hash;
    uint64_t bytes;
    int failed;
};

static void out_write (struct out *o, const void *buf, size_t len)
{
    const char *p = buf;
    o->hash = checkpoint_fnv1a (buf, len, o->hash);
    o->bytes += len;
    while (len > 0 && !o->failed) {
        ssize_t n = write (o->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            o->failed = errno ? errno : EIO;
            break;
        }
        p += n;
        len -= n;
    }
}

/* Write via tmp + fsync + rename + fsync(dir).  The body callback
 * streams the content.  Returns 0 or -1 with errno. */
static int atomic_write (const char *dir, const char *path,
                         void (*body) (struct out *, void *), void *arg,
                         uint64_t *hash, uint64_t *bytes)
{
    char tmp[2100];
    struct out o = { .hash = CKPT_FNV_INIT };
    snprintf (tmp, sizeof (tmp), "%s.tmp", path);
    if ((o.fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        return -1;
    body (&o, arg);
    if (!o.failed && fsync (o.fd) < 0)
        o.failed = errno;
    if (close (o.fd) < 0 && !o.failed)
        o.failed = errno;
    if (!o.failed && rename (tmp, path) < 0)
        o.failed = errno;
    if (!o.failed && util_fsync_dir (dir) < 0)
        o.failed = errno;
    if (o.failed) {
        unlink (tmp);
        errno = o.failed;
        return -1;
    }
    if (hash)
        *hash = o.hash;
    if (bytes)
        *bytes = o.bytes;
    return 0;
}

static void part_body (struct out *o, void *arg)
{
    struct md_sim *s = arg;
    struct md_atoms *a = s->a;
    struct ckpt_header h;
    memset (&h, 0, sizeof (h));
    memcpy (h.magic, CKPT_MAGIC, 8);
    h.version = CKPT_VERSION;
    h.header_size = sizeof (h);
    h.step = s->step;
    h.last_build = s->last_build;
    h.nbuilds = s->nbuilds;
    h.rank = comm_rank ();
    h.nranks = comm_size ();
    h.nlocal = a->nlocal;
    h.natoms = s->natoms;
    memcpy (h.cells, s->p.cells, sizeof (h.cells));
    h.density = s->p.density;
    h.cutoff = s->p.cutoff;
    h.skin = s->p.skin;
    h.dt = s->p.dt;
    h.seed = s->p.seed;
    out_write (o, &h, sizeof (h));
    out_write (o, a->id, a->nlocal * sizeof (int64_t));
    for (int d = 0; d < 3; d++)
        out_write (o, a->x[d], a->nlocal * sizeof (double));
    for (int d = 0; d < 3; d++)
        out_write (o, a->v[d], a->nlocal * sizeof (double));
    for (int d = 0; d < 3; d++)
        out_write (o, a->f[d], a->nlocal * sizeof (double));
    for (int d = 0; d < 3; d++)
        out_write (o, a->xb[d], a->nlocal * sizeof (double));
    uint64_t sum = o->hash;
    out_write (o, &sum, sizeof (sum));
}

struct manifest_arg {
    long step;
    int nranks;
    long natoms;
    const long *bytes, *hash;
};

static void manifest_body (struct out *o, void *arg)
{
    struct manifest_arg *m = arg;
    char line[256];
    int n = snprintf (line, sizeof (line), "%s %d\nstep %ld\nnranks %d\n"
                      "natoms %ld\n", MANIFEST_MAGIC, CKPT_VERSION, m->step,
                      m->nranks, m->natoms);
    out_write (o, line, n);
    for (int r = 0; r < m->nranks; r++) {
        n = snprintf (line, sizeof (line), "part %d %ld %016" PRIx64 "\n", r,
                      m->bytes[r], (uint64_t)m->hash[r]);
        out_write (o, line, n);
    }
    n = snprintf (line, sizeof (line), "checksum %016" PRIx64 "\n", o->hash);
    out_write (o, line, n);
}

static int cmp_long_desc (const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Steps of the manifests in dir, newest first; *n gets the count.
 * Returns an array the caller frees, or NULL (errno). */
static long *list_manifests (const char *dir, int *n)
{
    DIR *dh = opendir (dir);
    struct dirent *e;
    long *steps = NULL;
    int cnt = 0, cap = 0;
    *n = 0;
    if (!dh)
        return NULL;
    while ((e = readdir (dh))) {
        long step;
        char tail[32];
        if (sscanf (e->d_name, "ckpt-%ld.%31s", &step, tail) != 2
            || strcmp (tail, "manifest") != 0)
            continue;
        if (cnt == cap) {
            cap = cap ? 2 * cap : 16;
            long *p = realloc (steps, cap * sizeof (long));
            if (!p)
                break;
            steps = p;
        }
        steps[cnt++] = step;
    }
    closedir (dh);
    if (!steps)
        steps = calloc (1, sizeof (long));
    if (steps)
        qsort (steps, cnt, sizeof (long), cmp_long_desc);
    *n = cnt;
    return steps;
}

/* Remove sets older than the newest KEEP_GENERATIONS, and their parts. */
static void prune (const char *dir)
{
    int n;
    long *steps = list_manifests (dir, &n);
    if (!steps || n <= KEEP_GENERATIONS) {
        free (steps);
        return;
    }
    long oldest_kept = steps[KEEP_GENERATIONS - 1];
    DIR *dh = opendir (dir);
    struct dirent *e;
    while (dh && (e = readdir (dh))) {
        long step;
        char path[2100];
        if (sscanf (e->d_name, "ckpt-%ld.", &step) != 1 || step >= oldest_kept)
            continue;
        snprintf (path, sizeof (path), "%s/%s", dir, e->d_name);
        unlink (path);
    }
    if (dh)
        closedir (dh);
    free (steps);
}

int checkpoint_write (struct md_sim *s, struct hpcq_error *err)
{
    const char *dir = s->p.checkpoint_dir;
    int nr = comm_size (), me = comm_rank (), ok[2] = { 0, 0 };
    char path[2100];
    uint64_t hash = 0, bytes = 0;
    long *col = calloc (2 * nr, sizeof (long));

    if (!col)
        return errprintf (err, "out of memory");
    if (me == 0 && mkdir (dir, 0755) < 0 && errno != EEXIST)
        ok[0] = errno;
    comm_max_int (ok, 1);
    if (!ok[0]) {
        part_name (path, sizeof (path), dir, s->step, me);
        if (atomic_write (dir, path, part_body, s, &hash, &bytes) < 0)
            ok[0] = errno;
    }
    col[me] = (long)bytes;
    col[nr + me] = (long)hash;
    comm_sum_long (col, 2 * nr);
    comm_max_int (ok, 1);
    if (!ok[0] && me == 0) {
        struct manifest_arg m = { s->step, nr, s->natoms, col, col + nr };
        manifest_name (path, sizeof (path), dir, s->step);
        if (atomic_write (dir, path, manifest_body, &m, NULL, NULL) < 0)
            ok[1] = errno;
        else
            prune (dir);
    }
    comm_max_int (ok, 2);
    free (col);
    if (ok[0] || ok[1])
        return errprintf (err, "cannot write checkpoint in '%s': %s", dir,
                          strerror (ok[0] ? ok[0] : ok[1]));
    return 0;
}

/* ---- reading ---- */

static char *read_file (const char *path, size_t *len)
{
    FILE *f = fopen (path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek (f, 0, SEEK_END) == 0 && (n = ftell (f)) >= 0
        && fseek (f, 0, SEEK_SET) == 0 && (buf = malloc (n + 1))) {
        if (fread (buf, 1, n, f) != (size_t)n) {
            free (buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
            *len = n;
        }
    }
    fclose (f);
    return buf;
}

struct manifest {
    long step, natoms;
    int nranks;
    long *bytes;
    uint64_t *hash;
};

static void manifest_free (struct manifest *m)
{
    free (m->bytes);
    free (m->hash);
    memset (m, 0, sizeof (*m));
}

/* Parse and check a manifest.  Returns 0, or -1 with why filled. */
static int manifest_read (const char *path, struct manifest *m, char *why,
                          size_t wlen)
{
    size_t len = 0;
    char *buf = read_file (path, &len), *p, *sumline;
    int ver = 0, off = 0;
    uint64_t sum;
    memset (m, 0, sizeof (*m));
    if (!buf)
        return snprintf (why, wlen, "cannot read: %s", strerror (errno)), -1;
    if (strncmp (buf, MANIFEST_MAGIC " ", strlen (MANIFEST_MAGIC) + 1) != 0) {
        snprintf (why, wlen, "not an hpcq-md checkpoint manifest");
        goto bad;
    }
    if (!(sumline = strstr (buf, "checksum "))
        || sscanf (sumline, "checksum %" SCNx64, &sum) != 1
        || checkpoint_fnv1a (buf, sumline - buf, CKPT_FNV_INIT) != sum) {
        snprintf (why, wlen, "manifest checksum mismatch (truncated or edited)");
        goto bad;
    }
    if (sscanf (buf + strlen (MANIFEST_MAGIC), " %d step %ld nranks %d natoms %ld%n",
                &ver, &m->step, &m->nranks, &m->natoms, &off) != 4
        || ver != CKPT_VERSION || m->nranks < 1 || m->nranks > 1 << 20) {
        snprintf (why, wlen, "unsupported manifest version or layout");
        goto bad;
    }
    m->bytes = calloc (m->nranks, sizeof (long));
    m->hash = calloc (m->nranks, sizeof (uint64_t));
    p = buf + strlen (MANIFEST_MAGIC) + off;
    for (int r = 0; m->bytes && m->hash && r < m->nranks; r++) {
        int rr, n = 0;
        if (sscanf (p, " part %d %ld %" SCNx64 "%n", &rr, &m->bytes[r],
                    &m->hash[r], &n) != 3 || rr != r) {
            snprintf (why, wlen, "bad part line for rank %d", r);
            goto bad;
        }
        p += n;
    }
    free (buf);
    return 0;
bad:
    free (buf);
    manifest_free (m);
    return -1;
}

/* Check part r of m: size, checksum, header.  On success *out gets the
 * file's contents (caller frees). */
static int part_read (const char *dir, const struct manifest *m, int r,
                      char **out, char *why, size_t wlen)
{
    char path[2100];
    size_t len = 0;
    uint64_t sum;
    struct ckpt_header h;
    part_name (path, sizeof (path), dir, m->step, r);
    char *buf = read_file (path, &len);
    if (!buf)
        return snprintf (why, wlen, "part %d: cannot read: %s", r,
                         strerror (errno)), -1;
    if (len != (size_t)m->bytes[r] || len < sizeof (h) + sizeof (sum)) {
        snprintf (why, wlen, "part %d: %zu bytes, manifest says %ld", r, len,
                  m->bytes[r]);
        goto bad;
    }
    memcpy (&sum, buf + len - sizeof (sum), sizeof (sum));
    if (checkpoint_fnv1a (buf, len, CKPT_FNV_INIT) != m->hash[r]
        || checkpoint_fnv1a (buf, len - sizeof (sum), CKPT_FNV_INIT) != sum) {
        snprintf (why, wlen, "part %d: checksum mismatch", r);
        goto bad;
    }
    memcpy (&h, buf, sizeof (h));
    if (memcmp (h.magic, CKPT_MAGIC, 8) != 0 || h.version != CKPT_VERSION
        || h.header_size != sizeof (h) || h.step != m->step || h.rank != r
        || h.nranks != m->nranks || h.nlocal < 0
        || len != sizeof (h) + h.nlocal * 13 * sizeof (double) + sizeof (sum)) {
        snprintf (why, wlen, "part %d: header does not match", r);
        goto bad;
    }
    *out = buf;
    return 0;
bad:
    free (buf);
    return -1;
}

/* Is checkpoint m complete and intact?  Rank 0 reads every part. */
static int set_valid (const char *dir, const struct manifest *m, char *why,
                      size_t wlen, struct ckpt_header *h0)
{
    for (int r = 0; r < m->nranks; r++) {
        char *buf = NULL;
        if (part_read (dir, m, r, &buf, why, wlen) < 0)
            return 0;
        if (r == 0)
            memcpy (h0, buf, sizeof (*h0));
        free (buf);
    }
    return 1;
}

/* Rank 0: the newest valid set's step, -1 if there is none, -2 if there
 * are only damaged ones.  Damage is reported as it is found. */
static long find_newest (const char *dir, struct ckpt_header *h0)
{
    int n = 0;
    long *steps = list_manifests (dir, &n), found = n ? -2 : -1;
    for (int i = 0; steps && i < n && found < 0; i++) {
        char path[2100], why[512];
        struct manifest m;
        manifest_name (path, sizeof (path), dir, steps[i]);
        if (manifest_read (path, &m, why, sizeof (why)) == 0) {
            if (set_valid (dir, &m, why, sizeof (why), h0))
                found = steps[i];
            manifest_free (&m);
        }
        if (found < 0)
            fprintf (stderr, "hpcq-md: checkpoint '%s' is damaged (%s)%s\n",
                     path, why, i + 1 < n ? "; trying the previous one" : "");
    }
    free (steps);
    return found;
}

static int system_matches (const struct md_sim *s, const struct ckpt_header *h,
                           struct hpcq_error *err)
{
    if (memcmp (h->cells, s->p.cells, sizeof (h->cells)) != 0
        || h->density != s->p.density || h->natoms != s->natoms)
        return errprintf (err, "checkpoint in '%s' is for a different system "
                          "(%dx%dx%d cells at density %g, not %dx%dx%d at %g)",
                          s->p.checkpoint_dir, h->cells[0], h->cells[1],
                          h->cells[2], h->density, s->p.cells[0], s->p.cells[1],
                          s->p.cells[2], s->p.density);
    return 0;
}

/* Append the atoms of a part's buffer, all of them (mine_only 0) or only
 * those whose last-build position lies in my brick. */
static int part_unpack (struct md_sim *s, const char *buf, int mine_only)
{
    struct ckpt_header h;
    memcpy (&h, buf, sizeof (h));
    long n = h.nlocal;
    const char *p = buf + sizeof (h);
    const int64_t *id = (const int64_t *)p;
    const double *arr = (const double *)(p + n * sizeof (int64_t));
    struct md_atoms *a = s->a;
    /* arrays: x0 x1 x2 v0 v1 v2 f0 f1 f2 xb0 xb1 xb2, n each */
    for (long i = 0; i < n; i++) {
        double xb[3] = { arr[9 * n + i], arr[10 * n + i], arr[11 * n + i] };
        if (mine_only && !domain_owns (s->dom, xb))
            continue;
        if (atoms_reserve (a, a->nlocal + 1) < 0)
            return -1;
        long k = a->nlocal++;
        memcpy (&a->id[k], &id[i], sizeof (int64_t));
        for (int d = 0; d < 3; d++) {
            a->x[d][k] = arr[d * n + i];
            a->v[d][k] = arr[(3 + d) * n + i];
            a->f[d][k] = arr[(6 + d) * n + i];
            a->xb[d][k] = xb[d];
        }
    }
    return 0;
}

static int load_set (struct md_sim *s, long step, int nranks,
                     struct hpcq_error *err)
{
    const char *dir = s->p.checkpoint_dir;
    char path[2100], why[512];
    struct manifest m;
    int fail = 0;
    long total;
    manifest_name (path, sizeof (path), dir, step);
    if (manifest_read (path, &m, why, sizeof (why)) < 0)
        fail = 1;
    s->a->nlocal = s->a->nghost = 0;
    for (int r = 0; !fail && r < m.nranks; r++) {
        char *buf = NULL;
        if (nranks == comm_size () && r != comm_rank ())
            continue;
        if (part_read (dir, &m, r, &buf, why, sizeof (why)) < 0
            || part_unpack (s, buf, nranks != comm_size ()) < 0)
            fail = 1;
        free (buf);
    }
    manifest_free (&m);
    total = s->a->nlocal;
    comm_sum_long (&total, 1);
    comm_max_int (&fail, 1);
    if (fail || total != s->natoms)
        return errprintf (err, "checkpoint '%s' changed while it was read", path);
    return 0;
}

int checkpoint_load (struct md_sim *s, struct hpcq_error *err)
{
    struct ckpt_header h0;
    /* info: step found, nranks, system mismatch flag, last_build, nbuilds */
    long info[5] = { -1, 0, 0, 0, 0 };
    struct hpcq_error e0 = { "" };
    memset (&h0, 0, sizeof (h0));
    if (comm_rank () == 0) {
        info[0] = find_newest (s->p.checkpoint_dir, &h0);
        if (info[0] >= 0) {
            info[1] = h0.nranks;
            info[2] = system_matches (s, &h0, &e0) < 0;
            info[3] = h0.last_build;
            info[4] = h0.nbuilds;
        }
    }
    comm_bcast (info, sizeof (info), 0);
    comm_bcast (&e0, sizeof (e0), 0);
    if (info[0] == -1)
        return 1;
    if (info[0] == -2)
        return errprintf (err, "no valid checkpoint in '%s'", s->p.checkpoint_dir);
    if (info[2]) {
        *err = e0;
        return -1;
    }
    if (load_set (s, info[0], (int)info[1], err) < 0)
        return -1;
    s->step = info[0];
    s->last_build = info[3];
    s->nbuilds = info[4];
    if (comm_rank () == 0)
        fprintf (stderr, "hpcq-md: restarting from step %ld of '%s' (written "
                 "by %ld ranks)\n", s->step, s->p.checkpoint_dir, info[1]);
    return 0;
}

/* checkpoint.c - see checkpoint.h.  Atomic writes, checksums, generations
 * and fallback are common/ckptfile's; this file lays out the parts and
 * the manifest, checks a set is whole and for this system, and moves the
 * atoms between ranks' memory and the files. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/checkpoint.h"
#include "apps/md/comm.h"
#include "apps/md/sim.h"
#include "common/ckptfile.h"

#define PART_MAGIC "HPCQMDCP"
#define MANIFEST_MAGIC "hpcq-md checkpoint manifest"

/* A part's header (host byte order, little-endian on every machine hpcq
 * targets; the version guards layout changes).  After it: ids (int64),
 * x, v, f, xb (doubles, three arrays each), types and image flags (int32,
 * image flags three per atom). */
struct ckpt_header {
    char magic[8];
    uint32_t version;
    uint32_t header_size;
    int64_t step, last_build, nbuilds;
    int32_t rank, nranks;
    int64_t nlocal, natoms;
    int32_t ntypes, pad;
    double lo[3], hi[3];
    double cutoff, skin, dt;
    uint64_t seed;
};

/* bytes per atom in a part */
#define ATOM_BYTES (sizeof (int64_t) + 12 * sizeof (double) + 4 * sizeof (int32_t))

static struct ckptfile_store store (const struct md_sim *s)
{
    return (struct ckptfile_store){ s->p.checkpoint_dir, "md", s->p.checkpoint_keep,
                                    "hpcq-md" };
}

static void part_name (char *buf, size_t len, int rank)
{
    snprintf (buf, len, "r%05d", rank);
}

/* ---- writing ---- */

static void part_write (struct ckptfile_out *o, const struct md_sim *s)
{
    const struct md_atoms *a = s->a;
    struct ckpt_header h;
    size_t n = a->nlocal;
    memset (&h, 0, sizeof (h));
    memcpy (h.magic, PART_MAGIC, 8);
    h.version = CKPT_VERSION;
    h.header_size = sizeof (h);
    h.step = s->step;
    h.last_build = s->last_build;
    h.nbuilds = s->nbuilds;
    h.rank = comm_rank ();
    h.nranks = comm_size ();
    h.nlocal = a->nlocal;
    h.natoms = s->natoms;
    h.ntypes = s->sys.ntypes;
    memcpy (h.lo, s->sys.lo, sizeof (h.lo));
    memcpy (h.hi, s->sys.hi, sizeof (h.hi));
    h.cutoff = s->p.cutoff;
    h.skin = s->p.skin;
    h.dt = s->p.dt;
    h.seed = s->p.seed;
    ckptfile_write (o, &h, sizeof (h));
    ckptfile_write (o, a->id, n * sizeof (int64_t));
    for (int d = 0; d < 3; d++)
        ckptfile_write (o, a->x[d], n * sizeof (double));
    for (int d = 0; d < 3; d++)
        ckptfile_write (o, a->v[d], n * sizeof (double));
    for (int d = 0; d < 3; d++)
        ckptfile_write (o, a->f[d], n * sizeof (double));
    for (int d = 0; d < 3; d++)
        ckptfile_write (o, a->xb[d], n * sizeof (double));
    ckptfile_write (o, a->type, n * sizeof (int32_t));
    ckptfile_write (o, a->img, 3 * n * sizeof (int32_t));
}

/* Rank 0: the manifest, which commits generation gen.  bytes and sums:
 * the parts', by rank. */
static int manifest_commit (const struct md_sim *s, const struct ckptfile_store *st,
                            uint64_t gen, const long *bytes, const long *sums,
                            struct hpcq_error *err)
{
    struct ckptfile_out *o = ckptfile_create (st, gen, NULL, err);
    uint64_t total = 0;
    char line[256];
    int n;

    if (!o)
        return -1;
    n = snprintf (line, sizeof (line), "%s %d\nstep %ld\nnranks %d\nnatoms %ld\n",
                  MANIFEST_MAGIC, CKPT_VERSION, s->step, comm_size (), s->natoms);
    ckptfile_write (o, line, n);
    for (int r = 0; r < comm_size (); r++) {
        uint64_t sum;
        memcpy (&sum, &sums[r], sizeof (sum));
        n = snprintf (line, sizeof (line), "part %d %ld %016" PRIx64 "\n", r, bytes[r],
                      sum);
        ckptfile_write (o, line, n);
        total += bytes[r];
    }
    return ckptfile_commit (o, total, NULL, err);
}

int checkpoint_write (struct md_sim *s, struct hpcq_error *err)
{
    struct ckptfile_store st = store (s);
    struct hpcq_error e = { "" };
    int nr = comm_size (), me = comm_rank (), fail[2] = { 0, 0 };
    long g = 0;
    char part[16];
    /* bytes then checksums of every rank's part, filled by their owners */
    long *col = calloc (2 * nr, sizeof (long));

    if (!col)
        return errprintf (err, "out of memory");
    if (me == 0) {
        uint64_t gen;
        if (ckptfile_next (&st, &gen, &e) < 0)
            fail[0] = errno ? errno : EIO;
        g = (long)gen;
    }
    comm_bcast (&g, sizeof (g), 0);
    comm_max_int (fail, 1);
    if (!fail[0]) {
        struct ckptfile_info info = { 0, 0 };
        struct ckptfile_out *o;
        part_name (part, sizeof (part), me);
        if (!(o = ckptfile_create (&st, (uint64_t)g, part, &e)))
            fail[0] = errno ? errno : EIO;
        else {
            part_write (o, s);
            if (ckptfile_close (o, &info, &e) < 0)
                fail[0] = errno ? errno : EIO;
        }
        col[me] = (long)info.bytes;
        memcpy (&col[nr + me], &info.sum, sizeof (long));
    }
    /* each entry is non-zero on one rank only: the sum is exact */
    comm_sum_long (col, 2 * nr);
    comm_max_int (fail, 1);
    if (!fail[0] && me == 0
        && manifest_commit (s, &st, (uint64_t)g, col, col + nr, &e) < 0)
        fail[1] = errno ? errno : EIO;
    comm_max_int (fail, 2);
    free (col);
    if (fail[0] || fail[1])
        return errprintf (err, "cannot write checkpoint in '%s': %s", st.dir,
                          strerror (fail[0] ? fail[0] : fail[1]));
    return 0;
}

/* ---- reading ---- */

struct manifest {
    long step, natoms;
    int nranks;
    int64_t *bytes;
    uint64_t *sums;
};

static void manifest_free (struct manifest *m)
{
    free (m->bytes);
    free (m->sums);
    memset (m, 0, sizeof (*m));
}

/* Parse a manifest's text.  0, or -1 with err saying why. */
static int manifest_parse (const char *buf, size_t len, struct manifest *m,
                           struct hpcq_error *err)
{
    char *text = malloc (len + 1), *p;
    int ver = 0, off = 0, rc = -1;
    memset (m, 0, sizeof (*m));
    if (!text)
        return errprintf (err, "out of memory");
    memcpy (text, buf, len);
    text[len] = '\0';
    if (strncmp (text, MANIFEST_MAGIC " ", strlen (MANIFEST_MAGIC) + 1) != 0) {
        errprintf (err, "not an hpcq-md checkpoint manifest");
        goto out;
    }
    if (sscanf (text + strlen (MANIFEST_MAGIC), " %d step %ld nranks %d natoms %ld%n",
                &ver, &m->step, &m->nranks, &m->natoms, &off)
            != 4
        || ver != CKPT_VERSION || m->nranks < 1 || m->nranks > 1 << 20) {
        errprintf (err, "unsupported manifest version or layout");
        goto out;
    }
    m->bytes = calloc (m->nranks, sizeof (int64_t));
    m->sums = calloc (m->nranks, sizeof (uint64_t));
    if (!m->bytes || !m->sums) {
        errprintf (err, "out of memory");
        goto out;
    }
    p = text + strlen (MANIFEST_MAGIC) + off;
    for (int r = 0; r < m->nranks; r++) {
        int rr, n = 0;
        if (sscanf (p, " part %d %" SCNd64 " %" SCNx64 "%n", &rr, &m->bytes[r],
                    &m->sums[r], &n)
                != 3
            || rr != r) {
            errprintf (err, "bad part line for rank %d", r);
            goto out;
        }
        p += n;
    }
    rc = 0;
out:
    free (text);
    if (rc < 0)
        manifest_free (m);
    return rc;
}

/* Read part r of generation gen and check it against its manifest entry
 * and header.  Returns the payload (the caller frees it) or NULL with
 * err saying why. */
static char *part_read (const struct ckptfile_store *st, uint64_t gen,
                        const struct manifest *m, int r, struct hpcq_error *err)
{
    struct ckptfile_info info;
    struct hpcq_error why = { "" };
    struct ckpt_header h;
    char part[16];
    size_t len = 0;
    char *buf;

    part_name (part, sizeof (part), r);
    if (!(buf = ckptfile_read (st, gen, part, &len, &info, &why))) {
        errprintf (err, "part %d: %s", r, why.text);
        return NULL;
    }
    memcpy (&h, buf, len >= sizeof (h) ? sizeof (h) : 0);
    if ((int64_t)info.bytes != m->bytes[r] || info.sum != m->sums[r])
        errprintf (err, "part %d: not the part the manifest lists", r);
    else if (len < sizeof (h) || memcmp (h.magic, PART_MAGIC, 8) != 0
             || h.version != CKPT_VERSION || h.header_size != sizeof (h)
             || h.step != m->step || h.rank != r || h.nranks != m->nranks
             || h.nlocal < 0 || len != sizeof (h) + h.nlocal * ATOM_BYTES)
        errprintf (err, "part %d: header does not match", r);
    else
        return buf;
    free (buf);
    return NULL;
}

/* What rank 0 learns about the set it picks. */
struct pick {
    const struct md_sim *s;
    const struct ckptfile_store *st;
    struct ckpt_header h0; /* part 0's header */
};

static int system_matches (const struct md_sim *s, const struct ckpt_header *h,
                           struct hpcq_error *err)
{
    if (h->natoms != s->natoms || h->ntypes != s->sys.ntypes
        || memcmp (h->lo, s->sys.lo, sizeof (h->lo)) != 0
        || memcmp (h->hi, s->sys.hi, sizeof (h->hi)) != 0)
        return errprintf (err,
                          "checkpoint in '%s' is for a different system "
                          "(%ld atoms of %d types in a %g x %g x %g box, not %ld "
                          "of %d in %g x %g x %g)",
                          s->p.checkpoint_dir, (long)h->natoms, h->ntypes,
                          h->hi[0] - h->lo[0], h->hi[1] - h->lo[1], h->hi[2] - h->lo[2],
                          s->natoms, s->sys.ntypes, s->sys.hi[0] - s->sys.lo[0],
                          s->sys.hi[1] - s->sys.lo[1], s->sys.hi[2] - s->sys.lo[2]);
    return 0;
}

/* ckptfile_find's callback: every part whole and listed, and the system
 * this run's. */
static int accept_set (void *arg, uint64_t gen, const void *payload, size_t len,
                       struct hpcq_error *err)
{
    struct pick *pk = arg;
    struct manifest m;
    if (manifest_parse (payload, len, &m, err) < 0)
        return CKPTFILE_DAMAGED;
    for (int r = 0; r < m.nranks; r++) {
        char *buf = part_read (pk->st, gen, &m, r, err);
        if (!buf) {
            manifest_free (&m);
            return CKPTFILE_DAMAGED;
        }
        if (r == 0)
            memcpy (&pk->h0, buf, sizeof (pk->h0));
        free (buf);
    }
    manifest_free (&m);
    return system_matches (pk->s, &pk->h0, err);
}

/* Append the atoms of a part's payload, all of them (mine_only 0) or only
 * those whose last-build position lies in my brick. */
static int part_unpack (struct md_sim *s, const char *buf, int mine_only)
{
    struct ckpt_header h;
    memcpy (&h, buf, sizeof (h));
    long n = h.nlocal;
    const char *p = buf + sizeof (h);
    const char *ids = p, *arr = p + n * sizeof (int64_t);
    const char *types = arr + 12 * n * sizeof (double);
    const char *imgs = types + n * sizeof (int32_t);
    struct md_atoms *a = s->a;
    /* arrays: x0 x1 x2 v0 v1 v2 f0 f1 f2 xb0 xb1 xb2, n each */
    for (long i = 0; i < n; i++) {
        double col[12];
        for (int c = 0; c < 12; c++)
            memcpy (&col[c], arr + (c * n + i) * sizeof (double), sizeof (double));
        if (mine_only && !domain_owns (s->dom, col + 9))
            continue;
        if (atoms_reserve (a, a->nlocal + 1) < 0)
            return -1;
        long k = a->nlocal++;
        memcpy (&a->id[k], ids + i * sizeof (int64_t), sizeof (int64_t));
        memcpy (&a->type[k], types + i * sizeof (int32_t), sizeof (int32_t));
        memcpy (&a->img[3 * k], imgs + 3 * i * sizeof (int32_t), 3 * sizeof (int32_t));
        for (int d = 0; d < 3; d++) {
            a->x[d][k] = col[d];
            a->v[d][k] = col[3 + d];
            a->f[d][k] = col[6 + d];
            a->xb[d][k] = col[9 + d];
        }
    }
    return 0;
}

/* Every rank: read generation gen (chosen and checked by rank 0) again
 * and take its atoms. */
static int load_set (struct md_sim *s, const struct ckptfile_store *st, uint64_t gen,
                     int nranks, struct hpcq_error *err)
{
    struct hpcq_error why = { "" };
    struct manifest m = { 0 };
    size_t len = 0;
    int fail = 0;
    long total;
    char *text = ckptfile_read (st, gen, NULL, &len, NULL, &why);
    if (!text || manifest_parse (text, len, &m, &why) < 0)
        fail = 1;
    free (text);
    s->a->nlocal = s->a->nghost = 0;
    for (int r = 0; !fail && r < m.nranks; r++) {
        char *buf = NULL;
        if (nranks == comm_size () && r != comm_rank ())
            continue;
        if (!(buf = part_read (st, gen, &m, r, &why))
            || part_unpack (s, buf, nranks != comm_size ()) < 0)
            fail = 1;
        free (buf);
    }
    manifest_free (&m);
    total = s->a->nlocal;
    comm_sum_long (&total, 1);
    comm_max_int (&fail, 1);
    if (fail || total != s->natoms)
        return errprintf (err, "checkpoint in '%s' changed while it was read", st->dir);
    return 0;
}

int checkpoint_load (struct md_sim *s, struct hpcq_error *err)
{
    struct ckptfile_store st = store (s);
    struct pick pk;
    /* info: found (1 yes, 0 none, -1 error), generation, nranks, step,
     * last_build, nbuilds */
    long info[6] = { 0, 0, 0, 0, 0, 0 };
    struct hpcq_error e0 = { "" };
    memset (&pk, 0, sizeof (pk));
    pk.s = s;
    pk.st = &st;
    if (comm_rank () == 0) {
        uint64_t gen = 0;
        void *payload = NULL;
        size_t len;
        info[0] = ckptfile_find (&st, accept_set, &pk, &gen, &payload, &len, &e0);
        if (info[0] < 0 && errno == EBADMSG)
            info[0] = -2; /* none of them usable: the other ranks learn it too */
        free (payload);
        info[1] = (long)gen;
        info[2] = pk.h0.nranks;
        info[3] = pk.h0.step;
        info[4] = pk.h0.last_build;
        info[5] = pk.h0.nbuilds;
    }
    comm_bcast (info, sizeof (info), 0);
    comm_bcast (&e0, sizeof (e0), 0);
    if (info[0] == 0)
        return 1;
    if (info[0] < 0) {
        *err = e0;
        errno = info[0] == -2 ? EBADMSG : EINVAL;
        return -1;
    }
    if (load_set (s, &st, (uint64_t)info[1], (int)info[2], err) < 0)
        return -1;
    s->step = info[3];
    s->last_build = info[4];
    s->nbuilds = info[5];
    if (comm_rank () == 0)
        fprintf (stderr,
                 "hpcq-md: restarting from step %ld of '%s' (written "
                 "by %ld ranks)\n",
                 s->step, s->p.checkpoint_dir, info[2]);
    return 0;
}

/* domain.c - see domain.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/comm.h"
#include "apps/md/domain.h"

/* Pick the rank grid with the least brick surface, bricks >= rghost wide. */
static int domain_grid (struct md_domain *dom, struct hpcq_error *err)
{
    int n = dom->nranks, best[3] = { 0, 0, 0 };
    double best_area = -1;
    for (int px = 1; px <= n; px++) {
        if (n % px)
            continue;
        for (int py = 1; py <= n / px; py++) {
            if ((n / px) % py)
                continue;
            int pz = n / px / py, p[3] = { px, py, pz };
            double b[3], area;
            int fits = 1;
            for (int d = 0; d < 3; d++) {
                b[d] = dom->L[d] / p[d];
                if (b[d] < dom->rghost)
                    fits = 0;
            }
            area = b[0] * b[1] + b[1] * b[2] + b[0] * b[2];
            if (fits && (best_area < 0 || area < best_area - 1e-12)) {
                best_area = area;
                memcpy (best, p, sizeof (best));
            }
        }
    }
    if (best_area < 0)
        return errprintf (err,
                          "box %gx%gx%g is too small to split over %d "
                          "ranks with cutoff+skin %g",
                          dom->L[0], dom->L[1], dom->L[2], n, dom->rghost);
    memcpy (dom->p, best, sizeof (best));
    return 0;
}

static int grid_rank (const struct md_domain *dom, const int loc[3])
{
    int c[3];
    for (int d = 0; d < 3; d++)
        c[d] = (loc[d] + dom->p[d]) % dom->p[d];
    return (c[2] * dom->p[1] + c[1]) * dom->p[0] + c[0];
}

struct md_domain *domain_create (const double blo[3], const double bhi[3],
                                 double rghost, struct hpcq_error *err)
{
    struct md_domain *dom = calloc (1, sizeof (*dom));
    const double *L = dom ? dom->L : NULL;
    if (!dom) {
        errprintf (err, "out of memory");
        return NULL;
    }
    for (int d = 0; d < 3; d++) {
        dom->blo[d] = blo[d];
        dom->bhi[d] = bhi[d];
        dom->L[d] = bhi[d] - blo[d];
    }
    dom->rghost = rghost;
    dom->rank = comm_rank ();
    dom->nranks = comm_size ();
    if (domain_grid (dom, err) < 0) {
        free (dom);
        return NULL;
    }
    dom->me[0] = dom->rank % dom->p[0];
    dom->me[1] = (dom->rank / dom->p[0]) % dom->p[1];
    dom->me[2] = dom->rank / (dom->p[0] * dom->p[1]);
    for (int d = 0; d < 3; d++) {
        int loc[3];
        dom->lo[d] = blo[d] + L[d] * dom->me[d] / dom->p[d];
        dom->hi[d] = dom->me[d] == dom->p[d] - 1
                         ? bhi[d]
                         : blo[d] + L[d] * (dom->me[d] + 1) / dom->p[d];
        memcpy (loc, dom->me, sizeof (loc));
        loc[d] = dom->me[d] - 1;
        dom->nbr[d][0] = grid_rank (dom, loc);
        loc[d] = dom->me[d] + 1;
        dom->nbr[d][1] = grid_rank (dom, loc);
    }
    return dom;
}

void domain_destroy (struct md_domain *dom)
{
    if (!dom)
        return;
    int saved = errno;
    for (int s = 0; s < 6; s++)
        free (dom->swap[s].list);
    free (dom->sbuf);
    free (dom->rbuf);
    free (dom);
    errno = saved;
}

int domain_owns (const struct md_domain *dom, const double x[3])
{
    for (int d = 0; d < 3; d++)
        if (x[d] < dom->lo[d] || x[d] >= dom->hi[d])
            return 0;
    return 1;
}

void domain_wrap (struct md_domain *dom, struct md_atoms *a)
{
    for (int d = 0; d < 3; d++) {
        double lo = dom->blo[d], hi = dom->bhi[d], L = dom->L[d], *x = a->x[d];
        int32_t *img = a->img + d;
        for (long i = 0; i < a->nlocal; i++) {
            if (x[i] < lo) {
                x[i] += L;
                img[3 * i]--;
            }
            if (x[i] >= hi) { /* also -tiny + L rounded up to hi */
                x[i] -= L;
                if (x[i] < lo)
                    x[i] = lo;
                img[3 * i]++;
            }
        }
    }
}

void domain_remap (const struct md_domain *dom, double x[3], int32_t img[3])
{
    for (int d = 0; d < 3; d++) {
        while (x[d] < dom->blo[d]) {
            x[d] += dom->L[d];
            img[d]--;
        }
        while (x[d] >= dom->bhi[d]) {
            x[d] -= dom->L[d];
            img[d]++;
        }
        if (x[d] < dom->blo[d])
            x[d] = dom->blo[d];
    }
}

static int buf_reserve (char **buf, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    size_t ncap = n + n / 2 + 1024;
    char *p = realloc (*buf, ncap);
    if (!p)
        return -1;
    *buf = p;
    *cap = ncap;
    return 0;
}

static void oom (void)
{
    fprintf (stderr, "hpcq-md: out of memory\n");
    comm_abort (1);
}

/* ---- migration ---- */

/* id, x, v, f, xb, then type and the image flags as four int32 */
#define MIG_DOUBLES 15

static void mig_pack (struct md_atoms *a, long i, double *out)
{
    int32_t ti[4] = { a->type[i], a->img[3 * i], a->img[3 * i + 1], a->img[3 * i + 2] };
    memcpy (&out[0], &a->id[i], sizeof (int64_t));
    memcpy (&out[13], ti, sizeof (ti));
    for (int d = 0; d < 3; d++) {
        out[1 + d] = a->x[d][i];
        out[4 + d] = a->v[d][i];
        out[7 + d] = a->f[d][i];
        out[10 + d] = a->xb[d][i];
    }
}

static void mig_unpack (struct md_atoms *a, long i, const double *in)
{
    int32_t ti[4];
    memcpy (&a->id[i], &in[0], sizeof (int64_t));
    memcpy (ti, &in[13], sizeof (ti));
    a->type[i] = ti[0];
    memcpy (&a->img[3 * i], ti + 1, 3 * sizeof (int32_t));
    for (int d = 0; d < 3; d++) {
        a->x[d][i] = in[1 + d];
        a->v[d][i] = in[4 + d];
        a->f[d][i] = in[7 + d];
        a->xb[d][i] = in[10 + d];
    }
}

/* Which way atom i must go along d: -1 down, 1 up, 0 stays.  Distances
 * are taken the short way round the periodic box. */
static int mig_dir (const struct md_domain *dom, double x, int d)
{
    double L = dom->L[d];
    if (x < dom->lo[d])
        return dom->lo[d] - x < 0.5 * L ? -1 : 1;
    if (x >= dom->hi[d])
        return x - dom->hi[d] < 0.5 * L ? 1 : -1;
    return 0;
}

/* Pack atoms leaving along d in direction dir, removing them from the
 * local list in a stable way (order of the others kept, so the result is
 * the same whenever the positions are). */
static long mig_collect (struct md_domain *dom, struct md_atoms *a, int d, int dir)
{
    long nsend = 0, keep = 0;
    const size_t rec = MIG_DOUBLES * sizeof (double);
    for (long i = 0; i < a->nlocal; i++) {
        if (mig_dir (dom, a->x[d][i], d) == dir) {
            if (buf_reserve (&dom->sbuf, &dom->scap, (nsend + 1) * rec) < 0)
                oom ();
            mig_pack (a, i, (double *)dom->sbuf + nsend * MIG_DOUBLES);
            nsend++;
        } else {
            if (keep != i)
                atoms_copy (a, keep, i);
            keep++;
        }
    }
    a->nlocal = keep;
    return nsend;
}

static void mig_exchange (struct md_domain *dom, struct md_atoms *a, int d, int dir)
{
    const size_t rec = MIG_DOUBLES * sizeof (double);
    int to = dom->nbr[d][dir > 0], from = dom->nbr[d][dir < 0];
    long nsend = mig_collect (dom, a, d, dir);
    long nrecv = comm_sendrecv_count (nsend, to, from);
    if (buf_reserve (&dom->rbuf, &dom->rcap, nrecv * rec) < 0
        || atoms_reserve (a, a->nlocal + nrecv) < 0)
        oom ();
    comm_sendrecv (dom->sbuf, nsend * rec, to, dom->rbuf, nrecv * rec, from);
    for (long k = 0; k < nrecv; k++)
        mig_unpack (a, a->nlocal + k, (double *)dom->rbuf + k * MIG_DOUBLES);
    a->nlocal += nrecv;
}

int domain_migrate (struct md_domain *dom, struct md_atoms *a)
{
    int bad = 0;
    a->nghost = 0;
    for (int d = 0; d < 3; d++) {
        if (dom->p[d] == 1)
            continue;
        mig_exchange (dom, a, d, -1);
        mig_exchange (dom, a, d, 1);
    }
    for (long i = 0; i < a->nlocal && !bad; i++) {
        double x[3] = { a->x[0][i], a->x[1][i], a->x[2][i] };
        if (!domain_owns (dom, x))
            bad = 1;
    }
    comm_max_int (&bad, 1);
    return bad ? -1 : 0;
}

/* ---- ghosts ---- */

static void swap_add (struct md_swap *sw, long i)
{
    if (sw->n == sw->cap) {
        long ncap = sw->cap ? 2 * sw->cap : 1024;
        long *p = realloc (sw->list, ncap * sizeof (long));
        if (!p)
            oom ();
        sw->list = p;
        sw->cap = ncap;
    }
    sw->list[sw->n++] = i;
}

/* Choose the atoms of [0, nlast) that swap s sends along d. */
static void swap_select (struct md_domain *dom, struct md_atoms *a, struct md_swap *sw,
                         int d, int up, long nlast)
{
    double edge = up ? dom->hi[d] - dom->rghost : dom->lo[d] + dom->rghost;
    const double *x = a->x[d];
    sw->n = 0;
    for (long i = 0; i < nlast; i++)
        if (up ? x[i] >= edge : x[i] < edge)
            swap_add (sw, i);
    memset (sw->shift, 0, sizeof (sw->shift));
    if (!up && dom->me[d] == 0)
        sw->shift[d] = dom->L[d];
    if (up && dom->me[d] == dom->p[d] - 1)
        sw->shift[d] = -dom->L[d];
    sw->sendto = dom->nbr[d][up];
    sw->recvfrom = dom->nbr[d][!up];
}

/* Send positions (and ids and types, if with_id) of the swap's atoms;
 * append what arrives at sw->first. */
static void swap_run (struct md_domain *dom, struct md_atoms *a, struct md_swap *sw,
                      int with_id)
{
    int nd = with_id ? 5 : 3;
    size_t rec = nd * sizeof (double);
    if (sw->sendto == dom->rank && sw->recvfrom == dom->rank) {
        for (int d = 0; d < 3; d++) {
            double *x = a->x[d], sh = sw->shift[d];
            for (long k = 0; k < sw->n; k++)
                x[sw->first + k] = x[sw->list[k]] + sh;
        }
        if (with_id)
            for (long k = 0; k < sw->n; k++) {
                a->id[sw->first + k] = a->id[sw->list[k]];
                a->type[sw->first + k] = a->type[sw->list[k]];
            }
        return;
    }
    if (buf_reserve (&dom->sbuf, &dom->scap, sw->n * rec) < 0
        || buf_reserve (&dom->rbuf, &dom->rcap, sw->nrecv * rec) < 0)
        oom ();
    double *s = (double *)dom->sbuf, *r = (double *)dom->rbuf;
    for (long k = 0; k < sw->n; k++) {
        long i = sw->list[k];
        for (int d = 0; d < 3; d++)
            s[k * nd + d] = a->x[d][i] + sw->shift[d];
        if (with_id) {
            memcpy (&s[k * nd + 3], &a->id[i], sizeof (int64_t));
            memcpy (&s[k * nd + 4], &a->type[i], sizeof (int32_t));
        }
    }
    comm_sendrecv (s, sw->n * rec, sw->sendto, r, sw->nrecv * rec, sw->recvfrom);
    for (long k = 0; k < sw->nrecv; k++) {
        for (int d = 0; d < 3; d++)
            a->x[d][sw->first + k] = r[k * nd + d];
        if (with_id) {
            memcpy (&a->id[sw->first + k], &r[k * nd + 3], sizeof (int64_t));
            memcpy (&a->type[sw->first + k], &r[k * nd + 4], sizeof (int32_t));
        }
    }
}

int domain_borders (struct md_domain *dom, struct md_atoms *a)
{
    a->nghost = 0;
    for (int d = 0; d < 3; d++) {
        long nlast = a->nlocal + a->nghost;
        for (int up = 0; up < 2; up++) {
            struct md_swap *sw = &dom->swap[2 * d + up];
            swap_select (dom, a, sw, d, up, nlast);
            sw->first = a->nlocal + a->nghost;
            sw->nrecv = sw->sendto == dom->rank && sw->recvfrom == dom->rank
                            ? sw->n
                            : comm_sendrecv_count (sw->n, sw->sendto, sw->recvfrom);
            if (atoms_reserve (a, sw->first + sw->nrecv) < 0)
                return -1;
            swap_run (dom, a, sw, 1);
            a->nghost += sw->nrecv;
        }
    }
    return 0;
}

void domain_forward (struct md_domain *dom, struct md_atoms *a)
{
    for (int s = 0; s < 6; s++)
        swap_run (dom, a, &dom->swap[s], 0);
}

/* Swap sw backwards: the forces its ghosts got go to the atoms they copy
 * (on this rank for a periodic image, else on the rank that sent them). */
static void swap_reverse (struct md_domain *dom, struct md_atoms *a, struct md_swap *sw)
{
    const size_t rec = 3 * sizeof (double);
    if (sw->sendto == dom->rank && sw->recvfrom == dom->rank) {
        for (int d = 0; d < 3; d++) {
            double *f = a->f[d];
            const double *g = f + sw->first;
            const long *list = sw->list;
            for (long k = 0; k < sw->n; k++)
                f[list[k]] += g[k];
        }
        return;
    }
    if (buf_reserve (&dom->sbuf, &dom->scap, sw->nrecv * rec) < 0
        || buf_reserve (&dom->rbuf, &dom->rcap, sw->n * rec) < 0)
        oom ();
    double *s = (double *)dom->sbuf, *r = (double *)dom->rbuf;
    for (long k = 0; k < sw->nrecv; k++)
        for (int d = 0; d < 3; d++)
            s[3 * k + d] = a->f[d][sw->first + k];
    comm_sendrecv (s, sw->nrecv * rec, sw->recvfrom, r, sw->n * rec, sw->sendto);
    for (long k = 0; k < sw->n; k++)
        for (int d = 0; d < 3; d++)
            a->f[d][sw->list[k]] += r[3 * k + d];
}

void domain_reverse (struct md_domain *dom, struct md_atoms *a)
{
    for (int s = 5; s >= 0; s--)
        swap_reverse (dom, a, &dom->swap[s]);
}

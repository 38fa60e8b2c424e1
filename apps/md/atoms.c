/* atoms.c - see atoms.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/atoms.h"

static void *heap_alloc (size_t len)
{
    return malloc (len ? len : 1);
}

static const struct md_alloc_ops heap_ops = { heap_alloc, free };

struct md_atoms *atoms_create (const struct md_alloc_ops *mem)
{
    struct md_atoms *a = calloc (1, sizeof (*a));
    if (a)
        a->mem = mem ? mem : &heap_ops;
    return a;
}

#define NARRAYS 12

/* The addresses of all double arrays, so loops can treat them alike. */
static void atoms_arrays (struct md_atoms *a, double **tab[NARRAYS])
{
    for (int d = 0; d < 3; d++) {
        tab[d] = &a->x[d];
        tab[3 + d] = &a->v[d];
        tab[6 + d] = &a->f[d];
        tab[9 + d] = &a->xb[d];
    }
}

void atoms_destroy (struct md_atoms *a)
{
    double **tab[NARRAYS];
    if (!a)
        return;
    int saved = errno;
    atoms_arrays (a, tab);
    for (int k = 0; k < NARRAYS; k++)
        a->mem->release (*tab[k]);
    a->mem->release (a->id);
    free (a);
    errno = saved;
}

/* Reallocate every array to cap atoms with mem, copying used entries. */
static int atoms_realloc (struct md_atoms *a, long cap,
                          const struct md_alloc_ops *mem)
{
    int n = NARRAYS;
    long used = a->nlocal + a->nghost;
    double **tab[NARRAYS];
    double *fresh[NARRAYS];
    int64_t *id = mem->alloc (cap * sizeof (int64_t));
    int k;

    atoms_arrays (a, tab);
    for (k = 0; k < n; k++)
        if (!(fresh[k] = mem->alloc (cap * sizeof (double))))
            break;
    if (k < n || !id) {
        while (k-- > 0)
            mem->release (fresh[k]);
        mem->release (id);
        errno = ENOMEM;
        return -1;
    }
    for (k = 0; k < n; k++) {
        if (*tab[k])
            memcpy (fresh[k], *tab[k], used * sizeof (double));
        a->mem->release (*tab[k]);
        *tab[k] = fresh[k];
    }
    if (a->id)
        memcpy (id, a->id, used * sizeof (int64_t));
    a->mem->release (a->id);
    a->id = id;
    a->cap = cap;
    a->mem = mem;
    return 0;
}

int atoms_reserve (struct md_atoms *a, long n)
{
    if (n <= a->cap)
        return 0;
    /* Grow with slack so ghost counts that change at each rebuild do not
     * reallocate (and, in unified memory, re-migrate) every time. */
    long cap = n + n / 4 + 64;
    return atoms_realloc (a, cap, a->mem);
}

int atoms_set_alloc (struct md_atoms *a, const struct md_alloc_ops *mem)
{
    return atoms_realloc (a, a->cap > 0 ? a->cap : 64, mem);
}

void atoms_copy (struct md_atoms *a, long dst, long src)
{
    for (int d = 0; d < 3; d++) {
        a->x[d][dst] = a->x[d][src];
        a->v[d][dst] = a->v[d][src];
        a->f[d][dst] = a->f[d][src];
        a->xb[d][dst] = a->xb[d][src];
    }
    a->id[dst] = a->id[src];
}

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

/* Every array with its element size: the doubles (positions,
 * velocities, forces, last-build positions), then ids, types and image
 * flags (three per atom). */
#define NARRAYS 15

static void atoms_all (struct md_atoms *a, void **tab[NARRAYS], size_t size[NARRAYS])
{
    for (int d = 0; d < 3; d++) {
        tab[d] = (void **)&a->x[d];
        tab[3 + d] = (void **)&a->v[d];
        tab[6 + d] = (void **)&a->f[d];
        tab[9 + d] = (void **)&a->xb[d];
    }
    for (int k = 0; k < 12; k++)
        size[k] = sizeof (double);
    tab[12] = (void **)&a->id;
    size[12] = sizeof (int64_t);
    tab[13] = (void **)&a->type;
    size[13] = sizeof (int32_t);
    tab[14] = (void **)&a->img;
    size[14] = 3 * sizeof (int32_t);
}

void atoms_destroy (struct md_atoms *a)
{
    void **tab[NARRAYS];
    size_t size[NARRAYS];
    if (!a)
        return;
    int saved = errno;
    atoms_all (a, tab, size);
    for (int k = 0; k < NARRAYS; k++)
        a->mem->release (*tab[k]);
    free (a);
    errno = saved;
}

/* Reallocate every array to cap atoms with mem, copying used entries. */
static int atoms_realloc (struct md_atoms *a, long cap, const struct md_alloc_ops *mem)
{
    long used = a->nlocal + a->nghost;
    void **tab[NARRAYS];
    void *fresh[NARRAYS];
    size_t size[NARRAYS];
    int k;

    atoms_all (a, tab, size);
    for (k = 0; k < NARRAYS; k++)
        if (!(fresh[k] = mem->alloc (cap * size[k])))
            break;
    if (k < NARRAYS) {
        while (k-- > 0)
            mem->release (fresh[k]);
        errno = ENOMEM;
        return -1;
    }
    for (k = 0; k < NARRAYS; k++) {
        if (*tab[k])
            memcpy (fresh[k], *tab[k], used * size[k]);
        a->mem->release (*tab[k]);
        *tab[k] = fresh[k];
    }
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
        a->img[3 * dst + d] = a->img[3 * src + d];
    }
    a->id[dst] = a->id[src];
    a->type[dst] = a->type[src];
}

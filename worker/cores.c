/* cores.c - see cores.h */
#include <config.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "worker/cores.h"

struct cores {
    int nslots;
    unsigned char *used; /* per slot */
    int *cpu;            /* the CPUs slots map onto */
    int ncpu;
    /* With a topology (cores_set_topology): each slot's thread, NUMA node
     * index and that node's OS index and socket; NULL without. */
    int *thread, *numa;
    int numa_os[CORES_NUMA_MAX], socket_of[CORES_NUMA_MAX];
    int real;
};

struct cores *cores_create (int nslots)
{
    struct cores *c = xzalloc (sizeof (*c));
    cpu_set_t set;

    c->nslots = nslots > 0 ? nslots : 1;
    c->used = xzalloc (c->nslots);
    c->cpu = xzalloc (CPU_SETSIZE * sizeof (int));
    if (sched_getaffinity (0, sizeof (set), &set) == 0)
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET (i, &set))
                c->cpu[c->ncpu++] = i;
    if (c->ncpu == 0)
        c->cpu[c->ncpu++] = 0;
    return c;
}

void cores_destroy (struct cores *c)
{
    if (!c)
        return;
    free (c->used);
    free (c->cpu);
    free (c->thread);
    free (c->numa);
    free (c);
}

void cores_set_cpus (struct cores *c, const int *cpus, int ncpus)
{
    c->ncpu = 0;
    for (int i = 0; i < ncpus && i < CPU_SETSIZE; i++)
        c->cpu[c->ncpu++] = cpus[i];
}

int cores_take (struct cores *c, int n, int *slots)
{
    int got = 0;

    for (int s = 0; s < c->nslots && got < n; s++)
        if (!c->used[s]) {
            c->used[s] = 1;
            slots[got++] = s;
        }
    return got;
}

void cores_release (struct cores *c, const int *slots, int n)
{
    for (int i = 0; i < n; i++)
        if (slots[i] >= 0 && slots[i] < c->nslots)
            c->used[slots[i]] = 0;
}

/* A cpuset list ("0-3,8") of the flags set in on[CPU_SETSIZE]. */
static void format_list (const unsigned char *on, char *buf, size_t len)
{
    util_format_cpulist (on, CPU_SETSIZE, buf, len);
}

/* The CPU the cgroup gets for slot s. */
static int slot_cpu (const struct cores *c, int s)
{
    if (c->thread && c->real)
        return c->thread[s];
    return c->cpu[s % c->ncpu];
}

void cores_format (const struct cores *c, const int *slots, int n, char *buf,
                   size_t len)
{
    unsigned char *on = xzalloc (CPU_SETSIZE);

    for (int i = 0; i < n; i++)
        on[slot_cpu (c, slots[i])] = 1;
    format_list (on, buf, len);
    free (on);
}

void cores_format_threads (const struct cores *c, const int *slots, int n, char *buf,
                           size_t len)
{
    unsigned char *on;

    if (!c->thread) {
        cores_format (c, slots, n, buf, len);
        return;
    }
    on = xzalloc (CPU_SETSIZE);
    for (int i = 0; i < n; i++)
        on[c->thread[slots[i]]] = 1;
    format_list (on, buf, len);
    free (on);
}

void cores_format_mems (const struct cores *c, const int *slots, int n, char *buf,
                        size_t len)
{
    unsigned char *on;

    buf[0] = '\0';
    if (!c->thread)
        return;
    on = xzalloc (CPU_SETSIZE);
    for (int i = 0; i < n; i++)
        on[c->numa_os[c->numa[slots[i]]]] = 1;
    format_list (on, buf, len);
    free (on);
}

int cores_real_topology (const struct cores *c)
{
    return c->thread && c->real;
}

void cores_set_topology (struct cores *c, const int *pus, const int *numa, int n,
                         const int *socket_of, const int *numa_os, int nnuma, int real)
{
    if (n <= 0)
        return;
    free (c->thread);
    free (c->numa);
    c->thread = xzalloc ((size_t)c->nslots * sizeof (int));
    c->numa = xzalloc ((size_t)c->nslots * sizeof (int));
    for (int s = 0; s < c->nslots; s++) {
        int t = pus[s % n];
        c->thread[s] = t >= 0 && t < CPU_SETSIZE ? t : 0;
        c->numa[s] = numa[s % n] >= 0 && numa[s % n] < CORES_NUMA_MAX ? numa[s % n] : 0;
    }
    for (int i = 0; i < CORES_NUMA_MAX; i++) {
        c->socket_of[i] = i < nnuma ? socket_of[i] : -1;
        c->numa_os[i] =
            i < nnuma && numa_os[i] >= 0 && numa_os[i] < CPU_SETSIZE ? numa_os[i] : 0;
    }
    c->real = real;
}

/* How far slot s is from where the job wants to be: 0 on a near NUMA
 * node, 1 on a near node's socket, 2 elsewhere, 3 on an avoided node. */
static int slot_rank (const struct cores *c, int s, const unsigned char *near,
                      const unsigned char *avoid, int any_near)
{
    int numa = c->numa[s];

    if (any_near && near[numa])
        return 0;
    if (avoid && avoid[numa])
        return 3;
    if (any_near)
        for (int i = 0; i < CORES_NUMA_MAX; i++)
            if (near[i] && c->socket_of[i] >= 0
                && c->socket_of[i] == c->socket_of[numa])
                return 1;
    return 2;
}

int cores_take_near (struct cores *c, int n, const unsigned char *near,
                     const unsigned char *avoid, int *slots)
{
    int got = 0, any_near = 0;

    if (!c->thread)
        return cores_take (c, n, slots);
    for (int i = 0; near && i < CORES_NUMA_MAX; i++)
        any_near |= near[i];
    for (int rank = 0; rank <= 3 && got < n; rank++)
        for (int s = 0; s < c->nslots && got < n; s++)
            if (!c->used[s] && slot_rank (c, s, near, avoid, any_near) == rank) {
                c->used[s] = 1;
                slots[got++] = s;
            }
    return got;
}

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

void cores_format (const struct cores *c, const int *slots, int n, char *buf,
                   size_t len)
{
    unsigned char *on = xzalloc (CPU_SETSIZE);
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        on[c->cpu[slots[i] % c->ncpu]] = 1;
    for (int cpu = 0; cpu < CPU_SETSIZE && o < len; cpu++) {
        int last = cpu;
        if (!on[cpu])
            continue;
        while (last + 1 < CPU_SETSIZE && on[last + 1])
            last++;
        if (last == cpu)
            o += snprintf (buf + o, len - o, "%s%d", o ? "," : "", cpu);
        else
            o += snprintf (buf + o, len - o, "%s%d-%d", o ? "," : "", cpu, last);
        cpu = last;
    }
    free (on);
}

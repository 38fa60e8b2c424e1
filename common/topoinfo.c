/* topoinfo.c - see topoinfo.h */
#include <config.h>
#include <stdio.h>
#include <string.h>

#include "common/topoinfo.h"

json_t *topoinfo_to_json (const struct topoinfo *t)
{
    json_t *numa = json_array ();

    for (int i = 0; numa && i < t->nnuma; i++)
        json_array_append_new (numa,
                               json_pack ("{s:i s:i s:s s:s}", "os", t->numa[i].os,
                                          "socket", t->numa[i].socket, "cpus",
                                          t->numa[i].cpus, "gpus", t->numa[i].gpus));
    return json_pack ("{s:b s:i s:i s:i s:o}", "simulated", t->simulated, "sockets",
                      t->sockets, "cores", t->cores, "threads", t->threads, "numa",
                      numa);
}

/* A cpuset or index list: digits, ',' and '-' only, so it prints as is. */
static int list_ok (const char *s, size_t max)
{
    size_t n = strlen (s);

    return n < max && strspn (s, "0123456789,-") == n;
}

static int numa_from_json (json_t *v, struct topoinfo_numa *out)
{
    const char *cpus, *gpus;

    if (json_unpack (v, "{s:i s:i s:s s:s}", "os", &out->os, "socket", &out->socket,
                     "cpus", &cpus, "gpus", &gpus)
            < 0
        || out->os < 0 || out->socket < 0 || !list_ok (cpus, sizeof (out->cpus))
        || !list_ok (gpus, sizeof (out->gpus)))
        return -1;
    snprintf (out->cpus, sizeof (out->cpus), "%s", cpus);
    snprintf (out->gpus, sizeof (out->gpus), "%s", gpus);
    return 0;
}

int topoinfo_from_json (json_t *o, struct topoinfo *t)
{
    json_t *numa, *v;
    size_t i;

    memset (t, 0, sizeof (*t));
    if (!o)
        return 0;
    if (json_unpack (o, "{s:b s:i s:i s:i s:o}", "simulated", &t->simulated, "sockets",
                     &t->sockets, "cores", &t->cores, "threads", &t->threads, "numa",
                     &numa)
            < 0
        || t->sockets < 0 || t->cores < 0 || t->threads < 0 || !json_is_array (numa)
        || json_array_size (numa) > TOPOINFO_NUMA_MAX)
        goto bad;
    json_array_foreach (numa, i, v)
    {
        if (numa_from_json (v, &t->numa[i]) < 0)
            goto bad;
    }
    t->nnuma = (int)json_array_size (numa);
    return 0;
bad:
    memset (t, 0, sizeof (*t));
    return -1;
}

void topoinfo_summary (const struct topoinfo *t, char *buf, size_t len)
{
    snprintf (buf, len, "%d socket%s, %d cores, %d threads, %d NUMA node%s%s",
              t->sockets, t->sockets == 1 ? "" : "s", t->cores, t->threads, t->nnuma,
              t->nnuma == 1 ? "" : "s", t->simulated ? " (simulated)" : "");
}

/* srun_gpu.c - see srun_gpu.h */
#include <config.h>
#include <stdio.h>
#include <string.h>

#include "cli/srun_gpu.h"
#include "common/util.h"

int srun_gpu_per_task (struct srun_gpu *g, const char *arg, struct hpcq_error *err)
{
    /* "[type:]N", as Slurm takes it; the type is the job's. */
    const char *n = strrchr (arg, ':') ? strrchr (arg, ':') + 1 : arg;

    if (util_parse_int (n, 1, 64, &g->per_task) < 0)
        return errprintf (err, "Invalid --gpus-per-task specification: %s", arg);
    return 0;
}

static int parse_map (struct srun_gpu *g, const char *list, struct hpcq_error *err)
{
    char buf[512], *tok, *save = NULL;

    snprintf (buf, sizeof (buf), "%s", list);
    g->nmap = 0;
    for (tok = strtok_r (buf, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
        if (g->nmap == (int)ARRAY_SIZE (g->map)
            || util_parse_int (tok, 0, 63, &g->map[g->nmap++]) < 0)
            return errprintf (err, "Invalid --gpu-bind specification: map_gpu:%s",
                              list);
    if (!g->nmap)
        return errprintf (err, "Invalid --gpu-bind specification: map_gpu:%s", list);
    return 0;
}

int srun_gpu_bind (struct srun_gpu *g, const char *arg, struct hpcq_error *err)
{
    const char *v = arg;

    if (!strncmp (v, "verbose,", 8))
        v += 8;
    else if (!strcmp (v, "verbose"))
        return 0;
    if (!strcmp (v, "none"))
        g->none = 1;
    else if (!strcmp (v, "closest"))
        g->none = 0;
    else if (!strncmp (v, "per_task:", 9)) {
        if (util_parse_int (v + 9, 1, 64, &g->per_task) < 0)
            return errprintf (err, "Invalid --gpu-bind specification: %s", arg);
    } else if (!strncmp (v, "map_gpu:", 8))
        return parse_map (g, v + 8, err);
    else
        return errprintf (err,
                          "--gpu-bind=%s: hpcq binds none, closest, per_task:N or "
                          "map_gpu:LIST",
                          arg);
    return 0;
}

int srun_gpu_splits (const struct srun_gpu *g)
{
    return !g->none && (g->per_task > 0 || g->nmap > 0);
}

int srun_gpu_task (const struct srun_gpu *g, const char *node_gpus, int l, char *buf,
                   size_t len, struct hpcq_error *err)
{
    char copy[512], *tok, *save = NULL, *list[64];
    int n = 0, first, count;
    size_t o = 0;

    snprintf (copy, sizeof (copy), "%s", node_gpus ? node_gpus : "");
    for (tok = strtok_r (copy, ",", &save); tok && n < 64;
         tok = strtok_r (NULL, ",", &save))
        list[n++] = tok;
    buf[0] = '\0';
    if (g->nmap) {
        first = g->map[l % g->nmap];
        count = 1;
    } else {
        first = l * g->per_task;
        count = g->per_task;
    }
    if (first + count > n)
        return errprintf (err,
                          "the node has %d GPU%s of the job's for its tasks, task %d "
                          "would need GPU %d",
                          n, n == 1 ? "" : "s", l, first + count - 1);
    for (int i = first; i < first + count; i++)
        o += snprintf (buf + o, o < len ? len - o : 0, "%s%s", o ? "," : "", list[i]);
    return 0;
}

/* fuzz_telemetry.c - a worker's node.telemetry report (scheduler/gpu_report.c:
 * gpu_report_parse, then gpu_report_put as /metrics renders it).  The input
 * is the message body's JSON.  Properties: an accepted report has at most
 * GPU_MAX GPUs of distinct indices, and renders, whatever its strings hold,
 * into one well-formed line per value (the metric named for its field,
 * labels that read back as the report's strings, a finite value), no two
 * of them the same series.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/gpu_report.h"
#include "tests/fuzz/fuzz.h"

/* Read one label value in quotes at *p, unescaping into out.  -1 if bad. */
static int read_label (const char **p, char *out, size_t len)
{
    const char *s = *p;
    size_t n = 0;

    if (*s++ != '"')
        return -1;
    for (; *s && *s != '"'; s++) {
        char c = *s;
        if (c == '\n')
            return -1;
        if (c == '\\') {
            c = *++s;
            if (c == 'n')
                c = '\n';
            else if (c != '\\' && c != '"')
                return -1;
        }
        if (n + 1 >= len)
            return -1;
        out[n++] = c;
    }
    if (*s != '"')
        return -1;
    out[n] = '\0';
    *p = s + 1;
    return 0;
}

/* line (without its newline) must be field i of g on host, held by job. */
static void check_line (const char *line, int i, const struct gpu_report *g,
                        const char *host, const char *job)
{
    static const char *const names[] = { "gpu",       "UUID",     "device",
                                         "modelName", "Hostname", "hpc_job" };
    const char *metric = gpu_report_fields[i].metric, *p = line;
    char want[6][128], got[128], *end;
    int nl = job ? 6 : 5;
    double v;

    snprintf (want[0], sizeof (want[0]), "%d", g->index);
    snprintf (want[1], sizeof (want[1]), "%s", g->uuid);
    snprintf (want[2], sizeof (want[2]), "nvidia%d", g->index);
    snprintf (want[3], sizeof (want[3]), "%s", g->model);
    snprintf (want[4], sizeof (want[4]), "%s", host);
    snprintf (want[5], sizeof (want[5]), "%s", job ? job : "");
    if (strncmp (p, metric, strlen (metric)) != 0 || p[strlen (metric)] != '{')
        fuzz_fail ("line '%s' is not %s", line, metric);
    p += strlen (metric) + 1;
    for (int k = 0; k < nl; k++) {
        size_t len = strlen (names[k]);
        if (strncmp (p, names[k], len) != 0 || p[len] != '=')
            fuzz_fail ("line '%s': label %d is not %s", line, k, names[k]);
        p += len + 1;
        if (read_label (&p, got, sizeof (got)) < 0 || strcmp (got, want[k]) != 0)
            fuzz_fail ("line '%s': %s does not read back", line, names[k]);
        if (*p != (k + 1 < nl ? ',' : '}'))
            fuzz_fail ("line '%s': no separator after %s", line, names[k]);
        p++;
    }
    if (*p++ != ' ')
        fuzz_fail ("line '%s': no value", line);
    v = strtod (p, &end);
    if (end == p || *end || !isfinite (v))
        fuzz_fail ("line '%s': value '%s'", line, p);
}

FUZZ_TARGET (telemetry)
{
    static struct gpu_report gpus[GPU_MAX];
    struct hpcq_error err;
    json_t *body = json_loadb ((const char *)data, size, 0, NULL);
    char *out = NULL, *line, *save = NULL;
    size_t len = 0;
    int n, lines = 0, k = 0;
    FILE *f;

    fuzz_setup ();
    if (!body)
        return 0;
    if ((n = gpu_report_parse (body, gpus, &err)) < 0) {
        json_decref (body);
        return 0;
    }
    json_decref (body);
    if (n > GPU_MAX)
        fuzz_fail ("%d GPUs accepted", n);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (gpus[a].index == gpus[b].index)
                fuzz_fail ("GPU %d accepted twice", gpus[a].index);
    if (!(f = open_memstream (&out, &len)))
        abort ();
    for (int g = 0; g < n; g++)
        for (int i = 0; i < GPU_REPORT_NFIELDS; i++)
            if (gpus[g].have & (1u << i)) {
                gpu_report_put (f, i, &gpus[g], "node\"1\\", g % 2 ? "7.srv" : NULL);
                lines++;
            }
    if (fclose (f) != 0)
        abort ();
    /* Read back in the order written: one line per value. */
    line = strtok_r (out, "\n", &save);
    for (int g = 0; g < n; g++)
        for (int i = 0; i < GPU_REPORT_NFIELDS; i++)
            if (gpus[g].have & (1u << i)) {
                if (!line)
                    fuzz_fail ("%d lines for %d values", k, lines);
                check_line (line, i, &gpus[g], "node\"1\\", g % 2 ? "7.srv" : NULL);
                line = strtok_r (NULL, "\n", &save);
                k++;
            }
    if (line)
        fuzz_fail ("more lines than the %d values", lines);
    free (out);
    return 0;
}

/* sim_report.c - see sim_report.h. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#ifdef HAVE_PNG
#include <png.h>
#endif

#include "common/util.h"
#include "sim/sim_report.h"

/* The metrics over the jobs of queue (NULL: all jobs). */
static void metrics_of (const struct sim_report *rep, const struct sim_run *run,
                        const char *queue, struct sim_metrics *m)
{
    const struct sim_trace *t = rep->trace;
    double wait_sum = 0, bsld_sum = 0, core_s = 0, gpu_s = 0;
    double cores = (double)rep->cluster->nodes * rep->cluster->cores;
    double gpus = (double)rep->cluster->nodes * rep->cluster->gpus;

    memset (m, 0, sizeof (*m));
    for (int i = 0; i < run->njobs; i++) {
        const struct sim_outcome *o = &run->out[i];
        int64_t wait;
        if (queue && strcmp (t->job[i].queue, queue) != 0)
            continue;
        if (o->skipped) {
            m->skipped++;
            continue;
        }
        wait = o->start - t->job[i].submit;
        if (m->jobs == 0 || t->job[i].submit < m->first_arrival)
            m->first_arrival = t->job[i].submit;
        if (m->jobs == 0 || o->end > m->last_end)
            m->last_end = o->end;
        m->jobs++;
        wait_sum += (double)wait;
        if (wait > m->max_wait)
            m->max_wait = wait;
        bsld_sum +=
            fmax (1.0, (double)(o->end - t->job[i].submit)
                           / (double)(o->work > SIM_BSLD_TAU ? o->work : SIM_BSLD_TAU));
        core_s += o->core_s;
        gpu_s += o->gpu_s;
        m->attempts += o->attempts;
        m->lost_node_h += o->lost_node_s / 3600;
        m->ckpt_node_h += o->ckpt_node_s / 3600;
        m->cost += o->cost;
    }
    if (m->jobs == 0)
        return;
    m->makespan = m->last_end - m->first_arrival;
    m->mean_wait = wait_sum / m->jobs;
    m->mean_bsld = bsld_sum / m->jobs;
    if (m->makespan > 0) {
        m->utilization = core_s / (cores * (double)m->makespan);
        m->gpu_utilization = gpus > 0 ? gpu_s / (gpus * (double)m->makespan) : 0;
    }
}

void sim_metrics_compute (const struct sim_report *rep, const struct sim_run *run,
                          struct sim_metrics *m)
{
    metrics_of (rep, run, NULL, m);
}

/* The same policy's run with nothing interrupted, or NULL. */
static const struct sim_run *baseline_of (const struct sim_report *rep,
                                          const struct sim_run *run)
{
    for (int i = 0; i < rep->nruns; i++)
        if (strcmp (rep->runs[i].policy, run->policy) == 0 && rep->runs[i].scenario
            && strcmp (rep->runs[i].scenario, "on-demand") == 0)
            return &rep->runs[i];
    return NULL;
}

/* run's cost against its baseline's (1 if that cost nothing). */
static double cost_ratio (const struct sim_report *rep, const struct sim_run *run)
{
    const struct sim_run *b = baseline_of (rep, run);
    struct sim_metrics m, mb;

    if (!b)
        return 1;
    sim_metrics_compute (rep, run, &m);
    sim_metrics_compute (rep, b, &mb);
    return mb.cost > 0 ? m.cost / mb.cost : 1;
}

static void table_interrupts (const struct sim_report *rep, FILE *f)
{
    fprintf (f, "%-13s %-11s %-14s %6s %8s %6s %12s %9s %10s %9s %9s %10s %6s\n",
             "policy", "scenario", "ckpt", "jobs", "attempts", "util", "mean_wait_s",
             "mean_bsld", "makespan_s", "lost_nh", "ckpt_nh", "cost", "vs_od");
    for (int i = 0; i < rep->nruns; i++) {
        const struct sim_run *r = &rep->runs[i];
        struct sim_metrics m;
        sim_metrics_compute (rep, r, &m);
        fprintf (
            f,
            "%-13s %-11s %-14s %6d %8d %6.3f %12.1f %9.2f %10lld %9.2f %9.2f %10.2f "
            "%6.3f\n",
            r->policy, r->scenario, r->ckpt, m.jobs, m.attempts, m.utilization,
            m.mean_wait, m.mean_bsld, (long long)m.makespan, m.lost_node_h,
            m.ckpt_node_h, m.cost, cost_ratio (rep, r));
    }
}

void sim_report_table (const struct sim_report *rep, FILE *f)
{
    if (rep->interrupts) {
        table_interrupts (rep, f);
        return;
    }
    fprintf (f, "%-13s %7s %7s %6s %12s %10s %10s %10s %8s\n", "policy", "jobs",
             "skipped", "util", "mean_wait_s", "max_wait_s", "mean_bsld", "makespan_s",
             "cpu_s");
    for (int i = 0; i < rep->nruns; i++) {
        struct sim_metrics m;
        sim_metrics_compute (rep, &rep->runs[i], &m);
        fprintf (f, "%-13s %7d %7d %6.3f %12.1f %10lld %10.2f %10lld %8.2f\n",
                 rep->runs[i].policy, m.jobs, m.skipped, m.utilization, m.mean_wait,
                 (long long)m.max_wait, m.mean_bsld, (long long)m.makespan,
                 rep->runs[i].cpu_s);
    }
}

#define MAX_QUEUES 64

/* Per queue of a GPU workload (the first MAX_QUEUES names): jobs, waits
 * and bounded slowdown, so queues with different jobs can be told apart. */
static json_t *queues_json (const struct sim_report *rep, const struct sim_run *run)
{
    const char *name[MAX_QUEUES];
    int n = 0;
    json_t *a = json_array ();

    for (int i = 0; i < rep->trace->njobs && n < MAX_QUEUES; i++) {
        int k = 0;
        while (k < n && strcmp (name[k], rep->trace->job[i].queue) != 0)
            k++;
        if (k == n)
            name[n++] = rep->trace->job[i].queue;
    }
    for (int k = 0; a && k < n; k++) {
        struct sim_metrics m;
        metrics_of (rep, run, name[k], &m);
        if (json_array_append_new (a, json_pack ("{s:s s:i s:i s:f s:I s:f}", "queue",
                                                 name[k], "jobs", m.jobs,
                                                 "skipped_too_large", m.skipped,
                                                 "mean_wait", m.mean_wait, "max_wait",
                                                 (json_int_t)m.max_wait, "mean_bsld",
                                                 m.mean_bsld))
            < 0) {
            json_decref (a);
            return NULL;
        }
    }
    return a;
}

/* Add extra's members to o and drop extra (NULL: -1).  0 or -1. */
static int json_update_steal (json_t *o, json_t *extra)
{
    int rc = extra ? json_object_update (o, extra) : -1;

    json_decref (extra);
    return rc;
}

static json_t *run_json (const struct sim_report *rep, const struct sim_run *run)
{
    struct sim_metrics m;
    json_t *o;

    sim_metrics_compute (rep, run, &m);
    o = json_pack ("{s:s s:i s:i s:f s:f s:f s:I s:f s:I s:I s:I s:f}", "policy",
                   run->policy, "jobs", m.jobs, "skipped_too_large", m.skipped,
                   "utilization", m.utilization, "gpu_utilization", m.gpu_utilization,
                   "mean_wait", m.mean_wait, "max_wait", (json_int_t)m.max_wait,
                   "mean_bsld", m.mean_bsld, "makespan", (json_int_t)m.makespan,
                   "first_arrival", (json_int_t)m.first_arrival, "last_end",
                   (json_int_t)m.last_end, "cpu_s", run->cpu_s);
    if (o && rep->trace->gpu_format
        && json_object_set_new (o, "queues", queues_json (rep, run)) < 0) {
        json_decref (o);
        return NULL;
    }
    if (o && rep->interrupts
        && json_update_steal (
               o, json_pack ("{s:s s:s s:i s:i s:i s:i s:f s:f s:f s:f}", "scenario",
                             run->scenario, "ckpt", run->ckpt, "attempts", m.attempts,
                             "reclaims", run->reclaims, "failures", run->failures,
                             "interrupted", run->interrupted, "lost_node_hours",
                             m.lost_node_h, "ckpt_node_hours", m.ckpt_node_h, "cost",
                             m.cost, "cost_vs_ondemand", cost_ratio (rep, run)))
               < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
}

static json_t *report_json (const struct sim_report *rep)
{
    const struct sim_cluster *c = rep->cluster;
    json_t *runs = json_array ();
    json_t *o;

    for (int i = 0; runs && i < rep->nruns; i++)
        if (json_array_append_new (runs, run_json (rep, &rep->runs[i])) < 0) {
            json_decref (runs);
            return NULL;
        }
    o = json_pack ("{s:s s:s s:i s:i s:{s:i s:i s:i s:i} s:o}", "trace",
                   rep->trace_path, "format", rep->trace->gpu_format ? "gpu" : "swf",
                   "jobs_read", rep->trace->njobs + rep->trace->invalid,
                   "skipped_invalid", rep->trace->invalid, "cluster", "nodes", c->nodes,
                   "cores", c->cores, "gpus", c->gpus, "total_cores",
                   c->nodes * c->cores, "policies", runs);
    return o;
}

int sim_report_json (const struct sim_report *rep, const char *path,
                     struct hpcq_error *err)
{
    json_t *o = report_json (rep);
    int rc;

    if (!o)
        return errprintf (err, "out of memory");
    if (strcmp (path, "-") == 0)
        rc = json_dumpf (o, stdout, JSON_INDENT (2)) == 0 && fputc ('\n', stdout) != EOF
                 ? 0
                 : -1;
    else
        rc = json_dump_file (o, path, JSON_INDENT (2));
    json_decref (o);
    if (rc < 0)
        return errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    return 0;
}

int sim_report_jobs (const struct sim_report *rep, const char *path,
                     struct hpcq_error *err)
{
    FILE *f = fopen (path, "w");

    if (!f)
        return errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    fprintf (f, "policy,id,submit,start,end,cores,gpus%s\n",
             rep->interrupts ? ",scenario,ckpt,attempts,lost_node_s,cost" : "");
    for (int r = 0; r < rep->nruns; r++) {
        const struct sim_run *run = &rep->runs[r];
        for (int i = 0; i < run->njobs; i++) {
            const struct sim_outcome *o = &run->out[i];
            const struct sim_job *j = &rep->trace->job[i];
            if (o->skipped)
                fprintf (f, "%s,%lld,%lld,,,0,0", run->policy, (long long)j->id,
                         (long long)j->submit);
            else
                fprintf (f, "%s,%lld,%lld,%lld,%lld,%d,%d", run->policy,
                         (long long)j->id, (long long)j->submit, (long long)o->start,
                         (long long)o->end, o->cores, o->gpus);
            if (rep->interrupts)
                fprintf (f, ",%s,%s,%d,%.1f,%.4f", run->scenario, run->ckpt,
                         o->attempts, o->lost_node_s, o->cost);
            fputc ('\n', f);
        }
    }
    if (ferror (f) | (fclose (f) != 0))
        return errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    return 0;
}

#ifdef HAVE_PNG

#define CHART_W 1000
#define CHART_H 600
#define MARGIN 20
#define PANEL_H ((CHART_H - 3 * MARGIN) / 2)

/* One colour per policy, in the order they were run. */
static const unsigned char palette[][3] = {
    { 200, 40, 40 }, { 40, 80, 200 },  { 30, 150, 60 },
    { 230, 140, 0 }, { 130, 50, 160 },
};

struct canvas {
    unsigned char *rgb;
};

static void put (struct canvas *cv, int x, int y, const unsigned char *c)
{
    if (x >= 0 && x < CHART_W && y >= 0 && y < CHART_H)
        memcpy (cv->rgb + 3 * ((size_t)y * CHART_W + x), c, 3);
}

static void line (struct canvas *cv, int x0, int y0, int x1, int y1,
                  const unsigned char *c)
{
    int dx = abs (x1 - x0), dy = -abs (y1 - y0);
    int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, e = dx + dy;

    for (;;) {
        put (cv, x0, y0, c);
        put (cv, x0, y0 + 1, c);
        if (x0 == x1 && y0 == y1)
            break;
        if (2 * e >= dy) {
            e += dy;
            x0 += sx;
        }
        if (2 * e <= dx) {
            e += dx;
            y0 += sy;
        }
    }
}

static void frame (struct canvas *cv, int top)
{
    static const unsigned char grey[3] = { 160, 160, 160 },
                               light[3] = { 225, 225, 225 };

    for (int k = 1; k < 4; k++)
        line (cv, MARGIN, top + k * PANEL_H / 4, CHART_W - MARGIN,
              top + k * PANEL_H / 4, light);
    line (cv, MARGIN, top, CHART_W - MARGIN, top, grey);
    line (cv, MARGIN, top + PANEL_H, CHART_W - MARGIN, top + PANEL_H, grey);
    line (cv, MARGIN, top, MARGIN, top + PANEL_H, grey);
    line (cv, CHART_W - MARGIN, top, CHART_W - MARGIN, top + PANEL_H, grey);
}

/* Time-weighted means of a run's queue length (q) and busy core fraction
 * (u) over ncol equal spans of [t0, t1]. */
static void bucket (const struct sim_run *run, int64_t t0, int64_t t1, int ncol,
                    double cores, double *q, double *u)
{
    double dt = (double)(t1 - t0) / ncol;

    memset (q, 0, ncol * sizeof (*q));
    memset (u, 0, ncol * sizeof (*u));
    for (int i = 0; i + 1 < run->nseries; i++) {
        const struct sim_sample *s = &run->series[i];
        double a = (double)(s->time - t0), b = (double)(run->series[i + 1].time - t0);
        /* column by column; k moves on even where rounding puts
         * (k + 1) * dt at or before a */
        for (int k = (int)(a / dt); a < b && k < ncol; k++) {
            double end = fmin (b, (k + 1) * dt);
            if (end <= a)
                continue;
            q[k] += s->queued * (end - a) / dt;
            u[k] += s->cores_used / cores * (end - a) / dt;
            a = end;
        }
    }
}

static void plot (struct canvas *cv, const double *v, int ncol, double vmax, int top,
                  const unsigned char *c)
{
    int px = 0, py = 0;

    for (int k = 0; k < ncol; k++) {
        int x = MARGIN + k, y = top + PANEL_H - (int)lround (v[k] / vmax * PANEL_H);
        if (k > 0)
            line (cv, px, py, x, y, c);
        px = x;
        py = y;
    }
}

/* libpng reports errors by longjmp back here, so nothing this function
 * owns may be allocated between setjmp and the end. */
static int png_emit (FILE *f, const unsigned char *rgb)
{
    png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct (png) : NULL;
    int rc = -1;

    if (info && setjmp (png_jmpbuf (png)) == 0) {
        png_init_io (png, f);
        png_set_IHDR (png, info, CHART_W, CHART_H, 8, PNG_COLOR_TYPE_RGB,
                      PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                      PNG_FILTER_TYPE_DEFAULT);
        png_write_info (png, info);
        for (int y = 0; y < CHART_H; y++)
            png_write_row (png, rgb + (size_t)3 * CHART_W * y);
        png_write_end (png, NULL);
        rc = 0;
    }
    if (png)
        png_destroy_write_struct (&png, info ? &info : NULL);
    return rc;
}

/* The span the chart covers: from the first instant of any run to the
 * last. */
static void time_span (const struct sim_report *rep, int64_t *t0, int64_t *t1)
{
    *t0 = INT64_MAX;
    *t1 = INT64_MIN;
    for (int r = 0; r < rep->nruns; r++) {
        const struct sim_run *run = &rep->runs[r];
        if (run->nseries == 0)
            continue;
        if (run->series[0].time < *t0)
            *t0 = run->series[0].time;
        if (run->series[run->nseries - 1].time > *t1)
            *t1 = run->series[run->nseries - 1].time;
    }
    if (*t1 <= *t0)
        *t1 = *t0 + 1;
}

/* A filled bar from x0 to x1 wide, frac (0..1) of a panel's height high. */
static void bar (struct canvas *cv, int x0, int x1, int top, double frac,
                 const unsigned char *c)
{
    int h = (int)lround (fmin (fmax (frac, 0), 1) * PANEL_H);

    for (int y = top + PANEL_H - h; y < top + PANEL_H; y++)
        line (cv, x0, y, x1, y, c);
}

/* Index of name among the runs' checkpoint policy names, in order of first
 * appearance: the colour of its bars. */
static int ckpt_index (const struct sim_report *rep, const char *name)
{
    int k = 0;

    for (int i = 0; i < rep->nruns; i++) {
        const char *n = rep->runs[i].ckpt;
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= strcmp (rep->runs[j].ckpt, n) == 0;
        if (seen)
            continue;
        if (strcmp (n, name) == 0)
            return k;
        k++;
    }
    return k;
}

/* The interruption chart: a bar per run, runs of one scenario side by
 * side and a gap between scenarios; lost node-hours above, cost against
 * the all-on-demand run below (a grey line at 1). */
static void chart_interrupts (const struct sim_report *rep, struct canvas *cv)
{
    static const unsigned char grey[3] = { 120, 120, 120 };
    const int npal = (int)ARRAY_SIZE (palette);
    int groups = 0, slots, x;
    double lmax = 1e-9, cmax = 1.25;

    for (int i = 0; i < rep->nruns; i++) {
        struct sim_metrics m;
        sim_metrics_compute (rep, &rep->runs[i], &m);
        lmax = fmax (lmax, m.lost_node_h);
        cmax = fmax (cmax, cost_ratio (rep, &rep->runs[i]));
        groups += i == 0
                  || strcmp (rep->runs[i].scenario, rep->runs[i - 1].scenario) != 0
                  || strcmp (rep->runs[i].policy, rep->runs[i - 1].policy) != 0;
    }
    frame (cv, MARGIN);
    frame (cv, 2 * MARGIN + PANEL_H);
    slots = rep->nruns + groups;
    x = MARGIN + 4;
    for (int i = 0; i < rep->nruns; i++) {
        const struct sim_run *r = &rep->runs[i];
        int w = (CHART_W - 2 * MARGIN - 8) / (slots > 0 ? slots : 1);
        const unsigned char *c = palette[ckpt_index (rep, r->ckpt) % npal];
        struct sim_metrics m;
        if (i > 0
            && (strcmp (r->scenario, rep->runs[i - 1].scenario) != 0
                || strcmp (r->policy, rep->runs[i - 1].policy) != 0))
            x += w; /* the gap between groups */
        sim_metrics_compute (rep, r, &m);
        bar (cv, x + 1, x + w - 2, MARGIN, m.lost_node_h / lmax, c);
        bar (cv, x + 1, x + w - 2, 2 * MARGIN + PANEL_H, cost_ratio (rep, r) / cmax, c);
        x += w;
    }
    line (cv, MARGIN, 2 * MARGIN + 2 * PANEL_H - (int)lround (PANEL_H / cmax),
          CHART_W - MARGIN, 2 * MARGIN + 2 * PANEL_H - (int)lround (PANEL_H / cmax),
          grey);
}

int sim_report_png (const struct sim_report *rep, const char *path,
                    struct hpcq_error *err)
{
    enum { NCOL = CHART_W - 2 * MARGIN };
    const int npal = (int)ARRAY_SIZE (palette);
    double cores = (double)rep->cluster->nodes * rep->cluster->cores;
    double *q = calloc ((size_t)rep->nruns * NCOL, sizeof (*q));
    double *u = calloc ((size_t)rep->nruns * NCOL, sizeof (*u));
    struct canvas cv = { calloc ((size_t)3 * CHART_W * CHART_H, 1) };
    double qmax = 1;
    int64_t t0, t1;
    FILE *f = NULL;
    int rc = -1;

    if (!q || !u || !cv.rgb) {
        errprintf (err, "out of memory");
        goto out;
    }
    memset (cv.rgb, 255, (size_t)3 * CHART_W * CHART_H);
    if (rep->interrupts) {
        chart_interrupts (rep, &cv);
        goto write;
    }
    time_span (rep, &t0, &t1);
    for (int r = 0; r < rep->nruns; r++) {
        bucket (&rep->runs[r], t0, t1, NCOL, cores, q + r * NCOL, u + r * NCOL);
        for (int k = 0; k < NCOL; k++)
            qmax = fmax (qmax, q[r * NCOL + k]);
    }
    frame (&cv, MARGIN);
    frame (&cv, 2 * MARGIN + PANEL_H);
    for (int r = 0; r < rep->nruns; r++) {
        const unsigned char *c = palette[r % npal];
        plot (&cv, q + r * NCOL, NCOL, qmax, MARGIN, c);
        plot (&cv, u + r * NCOL, NCOL, 1.0, 2 * MARGIN + PANEL_H, c);
        for (int y = 4; y < 12; y++) /* legend: a swatch per policy, in order */
            line (&cv, MARGIN + 4 + 14 * r, MARGIN + y, MARGIN + 14 + 14 * r,
                  MARGIN + y, c);
    }
write:
    if (!(f = fopen (path, "wb")) || png_emit (f, cv.rgb) < 0) {
        errprintf (err, "cannot write '%s': %s", path,
                   f ? "png error" : strerror (errno));
        goto out;
    }
    rc = 0;
out:
    if (f && fclose (f) != 0 && rc == 0)
        rc = errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    free (q);
    free (u);
    free (cv.rgb);
    return rc;
}

#else

int sim_report_png (const struct sim_report *rep, const char *path,
                    struct hpcq_error *err)
{
    return errprintf (err, "cannot write '%s': hpcq-sim was built without libpng",
                      path);
}

#endif

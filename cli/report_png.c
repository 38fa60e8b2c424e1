/* report_png.c - hpcq-report --png: core- and GPU-hours per day, drawn
 * with cairo.
 *
 * Two bars per day on one axis in hours, on the left: core-hours, and
 * whole-GPU hours with MIG-instance hours stacked on top.  Cost per day
 * (the stored cost of the attempts, report.h, spread over the days they
 * ran) is a line on a second axis, on the right, in the currency named
 * (the config's currency, docs/config.example).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/report.h"

#ifdef HAVE_CAIRO
#include <cairo.h>

#define W 960
#define H 440
#define LEFT 70
#define RIGHT 70
#define TOP 56
#define BOTTOM 70

/* A round step for about five gridlines up to max. */
static double nice_step (double max)
{
    double raw = max / 5, mag = pow (10, floor (log10 (raw))), f = raw / mag;

    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void text_at (cairo_t *cr, double x, double y, const char *s, double align)
{
    cairo_text_extents_t e;

    cairo_text_extents (cr, s, &e);
    cairo_move_to (cr, x - e.width * align, y);
    cairo_show_text (cr, s);
}

static void draw_axes (cairo_t *cr, double max, double step)
{
    char label[32];

    cairo_set_font_size (cr, 11);
    for (double v = 0; v <= max + step / 2; v += step) {
        double y = H - BOTTOM - (H - TOP - BOTTOM) * v / max;
        cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
        cairo_move_to (cr, LEFT, y);
        cairo_line_to (cr, W - RIGHT, y);
        cairo_stroke (cr);
        cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
        snprintf (label, sizeof (label), "%g", v);
        text_at (cr, LEFT - 6, y + 4, label, 1.0);
    }
}

static void legend_box (cairo_t *cr, double x, double r, double g, double b,
                        const char *text)
{
    cairo_set_source_rgb (cr, r, g, b);
    cairo_rectangle (cr, x, 32, 10, 10);
    cairo_fill (cr);
    cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
    text_at (cr, x + 15, 41, text, 0);
}

static void draw_legend (cairo_t *cr, const struct report *r, const char *cost_label)
{
    char title[128], from[32], to[32], line[96];
    time_t f = (time_t)r->from, t = (time_t)r->to;
    struct tm tm;

    localtime_r (&f, &tm);
    strftime (from, sizeof (from), "%Y-%m-%d", &tm);
    localtime_r (&t, &tm);
    strftime (to, sizeof (to), "%Y-%m-%d", &tm);
    snprintf (title, sizeof (title), "Core-, GPU-hours and cost per day, %s to %s",
              from, to);
    cairo_set_source_rgb (cr, 0.1, 0.1, 0.15);
    cairo_set_font_size (cr, 15);
    text_at (cr, LEFT, 22, title, 0);
    cairo_set_font_size (cr, 11);
    legend_box (cr, LEFT, 0.55, 0.58, 0.66, "core-hours");
    legend_box (cr, LEFT + 90, 0.18, 0.62, 0.43, "GPU-hours");
    legend_box (cr, LEFT + 180, 0.76, 0.49, 0.05, "MIG-instance-hours");
    /* Under the title, so a long currency name has room. */
    cairo_set_source_rgb (cr, 0.2, 0.35, 0.75);
    cairo_move_to (cr, LEFT + 330, 37);
    cairo_line_to (cr, LEFT + 345, 37);
    cairo_stroke (cr);
    cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
    snprintf (line, sizeof (line), "%s per day (right axis)", cost_label);
    text_at (cr, LEFT + 350, 41, line, 0);
    cairo_save (cr);
    cairo_translate (cr, 18, TOP + (H - TOP - BOTTOM) / 2.0);
    cairo_rotate (cr, -M_PI / 2);
    text_at (cr, 0, 0, "hours", 0.5);
    cairo_restore (cr);
}

/* Cost per day: a line through the days' middles, its axis on the right. */
static void draw_cost (cairo_t *cr, const struct report *r, double slot,
                       const char *cost_label)
{
    double max = 0, step, scale, base = H - BOTTOM;
    char label[32];

    for (int i = 0; i < r->ndays; i++)
        max = fmax (max, r->day_cost[i]);
    step = nice_step (max > 0 ? max : 1);
    max = ceil ((max > 0 ? max : 1) / step) * step;
    scale = (H - TOP - BOTTOM) / max;
    cairo_set_font_size (cr, 11);
    cairo_set_source_rgb (cr, 0.2, 0.35, 0.75);
    for (double v = 0; v <= max + step / 2; v += step) {
        snprintf (label, sizeof (label), "%g", v);
        text_at (cr, W - RIGHT + 6, base - v * scale + 4, label, 0);
    }
    cairo_set_line_width (cr, 2);
    for (int i = 0; i < r->ndays; i++) {
        double x = LEFT + (i + 0.5) * slot, y = base - r->day_cost[i] * scale;
        if (i == 0)
            cairo_move_to (cr, x, y);
        else
            cairo_line_to (cr, x, y);
    }
    cairo_stroke (cr);
    cairo_set_line_width (cr, 1);
    cairo_save (cr);
    cairo_translate (cr, W - 12, TOP + (H - TOP - BOTTOM) / 2.0);
    cairo_rotate (cr, M_PI / 2);
    text_at (cr, 0, 0, cost_label, 0.5);
    cairo_restore (cr);
}

int report_png (const struct report *r, const char *path, const char *currency,
                struct hpcq_error *err)
{
    cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create (s);
    double max = 0, step, slot;
    int every, rc = 0;
    char cost_label[64];

    snprintf (cost_label, sizeof (cost_label), "cost%s%.40s%s",
              currency ? " (" : " (no currency set)", currency ? currency : "",
              currency ? ")" : "");
    for (int i = 0; i < r->ndays; i++)
        max = fmax (max, fmax (r->day_core_s[i], r->day_gpu_s[i] + r->day_mig_s[i])
                             / 3600.0);
    step = nice_step (max > 0 ? max : 1);
    max = ceil ((max > 0 ? max : 1) / step) * step;
    cairo_set_source_rgb (cr, 1, 1, 1);
    cairo_paint (cr);
    cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                            CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_line_width (cr, 1);
    draw_axes (cr, max, step);
    draw_legend (cr, r, cost_label);
    slot = (double)(W - LEFT - RIGHT) / (r->ndays > 0 ? r->ndays : 1);
    every = (int)ceil (60.0 / slot); /* a date label every ~60 pixels */
    for (int i = 0; i < r->ndays; i++) {
        double c = r->day_core_s[i] / 3600.0;
        double g = r->day_gpu_s[i] / 3600.0, m = r->day_mig_s[i] / 3600.0;
        double x = LEFT + i * slot + slot * 0.15, bw = slot * 0.35;
        double scale = (H - TOP - BOTTOM) / max, base = H - BOTTOM;
        cairo_set_source_rgb (cr, 0.55, 0.58, 0.66);
        cairo_rectangle (cr, x, base - c * scale, bw, c * scale);
        cairo_fill (cr);
        x += bw;
        cairo_set_source_rgb (cr, 0.18, 0.62, 0.43);
        cairo_rectangle (cr, x, base - g * scale, bw, g * scale);
        cairo_fill (cr);
        cairo_set_source_rgb (cr, 0.76, 0.49, 0.05);
        cairo_rectangle (cr, x, base - (g + m) * scale, bw, m * scale);
        cairo_fill (cr);
        if (i % every == 0) {
            char label[16];
            time_t day = (time_t)(r->day0 + (int64_t)i * 86400 + 43200);
            struct tm tm;
            localtime_r (&day, &tm);
            strftime (label, sizeof (label), "%m-%d", &tm);
            cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
            text_at (cr, x, H - BOTTOM + 16, label, 0.5);
        }
    }
    draw_cost (cr, r, slot, cost_label);
    cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
    cairo_move_to (cr, LEFT, H - BOTTOM + 0.5);
    cairo_line_to (cr, W - RIGHT, H - BOTTOM + 0.5);
    cairo_stroke (cr);
    if (cairo_surface_write_to_png (s, path) != CAIRO_STATUS_SUCCESS)
        rc = errprintf (err, "cannot write '%s'", path);
    cairo_destroy (cr);
    cairo_surface_destroy (s);
    return rc;
}

#else

int report_png (const struct report *r, const char *path, const char *currency,
                struct hpcq_error *err)
{
    return errprintf (err,
                      "cannot write '%s': hpcq-report was built without cairo "
                      "(Debian: libcairo2-dev)",
                      path);
}

#endif

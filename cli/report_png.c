/* report_png.c - hpcq-report --png: GPU-hours per day, drawn with cairo.
 *
 * One bar per day: whole-GPU hours, with MIG-instance hours stacked on
 * top, the axis in hours on the left.  Cost per day (the stored cost of
 * the attempts, report.h, spread over the days they ran) is a line on a
 * second axis, on the right.
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
#define TOP 50
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

static void draw_legend (cairo_t *cr, const struct report *r)
{
    char title[128], from[32], to[32];
    time_t f = (time_t)r->from, t = (time_t)r->to;
    struct tm tm;

    localtime_r (&f, &tm);
    strftime (from, sizeof (from), "%Y-%m-%d", &tm);
    localtime_r (&t, &tm);
    strftime (to, sizeof (to), "%Y-%m-%d", &tm);
    snprintf (title, sizeof (title), "GPU-hours and cost per day, %s to %s", from, to);
    cairo_set_source_rgb (cr, 0.1, 0.1, 0.15);
    cairo_set_font_size (cr, 15);
    text_at (cr, LEFT, 28, title, 0);
    cairo_set_font_size (cr, 11);
    cairo_set_source_rgb (cr, 0.18, 0.62, 0.43);
    cairo_rectangle (cr, W - 430, 18, 10, 10);
    cairo_fill (cr);
    cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
    text_at (cr, W - 415, 27, "whole GPUs", 0);
    cairo_set_source_rgb (cr, 0.76, 0.49, 0.05);
    cairo_rectangle (cr, W - 340, 18, 10, 10);
    cairo_fill (cr);
    cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
    text_at (cr, W - 325, 27, "MIG instances", 0);
    cairo_set_source_rgb (cr, 0.2, 0.35, 0.75);
    cairo_move_to (cr, W - 230, 23);
    cairo_line_to (cr, W - 215, 23);
    cairo_stroke (cr);
    cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
    text_at (cr, W - 210, 27, "cost per day (right axis)", 0);
    cairo_save (cr);
    cairo_translate (cr, 18, TOP + (H - TOP - BOTTOM) / 2.0);
    cairo_rotate (cr, -M_PI / 2);
    text_at (cr, 0, 0, "hours", 0.5);
    cairo_restore (cr);
}

/* Cost per day: a line through the days' middles, its axis on the right. */
static void draw_cost (cairo_t *cr, const struct report *r, double slot)
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
    text_at (cr, 0, 0, "cost", 0.5);
    cairo_restore (cr);
}

int report_png (const struct report *r, const char *path, struct hpcq_error *err)
{
    cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create (s);
    double max = 0, step, slot;
    int every, rc = 0;

    for (int i = 0; i < r->ndays; i++)
        max = fmax (max, (r->day_gpu_s[i] + r->day_mig_s[i]) / 3600.0);
    step = nice_step (max > 0 ? max : 1);
    max = ceil ((max > 0 ? max : 1) / step) * step;
    cairo_set_source_rgb (cr, 1, 1, 1);
    cairo_paint (cr);
    cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                            CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_line_width (cr, 1);
    draw_axes (cr, max, step);
    draw_legend (cr, r);
    slot = (double)(W - LEFT - RIGHT) / (r->ndays > 0 ? r->ndays : 1);
    every = (int)ceil (60.0 / slot); /* a date label every ~60 pixels */
    for (int i = 0; i < r->ndays; i++) {
        double g = r->day_gpu_s[i] / 3600.0, m = r->day_mig_s[i] / 3600.0;
        double x = LEFT + i * slot + slot * 0.15, bw = slot * 0.7;
        double scale = (H - TOP - BOTTOM) / max, base = H - BOTTOM;
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
            text_at (cr, x + bw / 2, H - BOTTOM + 16, label, 0.5);
        }
    }
    draw_cost (cr, r, slot);
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

int report_png (const struct report *r, const char *path, struct hpcq_error *err)
{
    return errprintf (err,
                      "cannot write '%s': hpcq-report was built without cairo "
                      "(Debian: libcairo2-dev)",
                      path);
}

#endif

/* test_stepframe.c - srun's and hpcq-stepd's frames (common/stepframe.h):
 * reassembled from a stream that comes a byte at a time; one too big is
 * refused. */
#include <config.h>
#include <stdio.h>
#include <string.h>

#include "common/stepframe.h"
#include "common/test/tap.h"

struct got {
    char text[256];
};

static void on_frame (int type, uint32_t task, const unsigned char *data, size_t len,
                      void *arg)
{
    struct got *g = arg;
    size_t o = strlen (g->text);

    snprintf (g->text + o, sizeof (g->text) - o, "%c%u:%.*s;", type, task, (int)len,
              (const char *)data);
}

static void test_frames (void)
{
    unsigned char buf[64], h[STEPFRAME_HEADER];
    struct stepframe_reader r = { 0 };
    struct got g = { "" };
    size_t n = 0;

    stepframe_header (h, STEPFRAME_STDOUT, 3, 5);
    memcpy (buf, h, sizeof (h));
    memcpy (buf + 9, "hello", 5);
    stepframe_header (h, STEPFRAME_FENCE, 0, 0);
    memcpy (buf + 14, h, sizeof (h));
    n = 23;
    /* A byte at a time, as a stream may come. */
    for (size_t i = 0; i < n; i++)
        stepframe_feed (&r, buf + i, 1, on_frame, &g);
    ok (!strcmp (g.text, "o3:hello;f0:;"), "frames from single bytes: %s", g.text);
    stepframe_header (h, STEPFRAME_STDOUT, 0, STEPFRAME_MAX + 1);
    ok (stepframe_feed (&r, h, sizeof (h), on_frame, &g) < 0,
        "a frame too big: EPROTO");
    stepframe_reader_release (&r);
}

int main (void)
{
    plan (NO_PLAN);
    test_frames ();
    return done_testing ();
}

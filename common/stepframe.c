/* stepframe.c - see stepframe.h */
#include <config.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/stepframe.h"

void stepframe_u32 (unsigned char *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

uint32_t stepframe_get_u32 (const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void stepframe_header (unsigned char *h, int type, uint32_t task, uint32_t len)
{
    h[0] = (unsigned char)type;
    stepframe_u32 (h + 1, task);
    stepframe_u32 (h + 5, len);
}

int stepframe_feed (struct stepframe_reader *r, const void *data, size_t len,
                    stepframe_f f, void *arg)
{
    size_t off = 0;

    if (r->bad)
        return errno = EPROTO, -1;
    if (r->len + len > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        unsigned char *nb;
        while (cap < r->len + len)
            cap *= 2;
        if (!(nb = realloc (r->buf, cap)))
            return errno = ENOMEM, -1;
        r->buf = nb;
        r->cap = cap;
    }
    memcpy (r->buf + r->len, data, len);
    r->len += len;
    while (r->len - off >= STEPFRAME_HEADER) {
        const unsigned char *h = r->buf + off;
        uint32_t n = stepframe_get_u32 (h + 5);
        if (n > STEPFRAME_MAX) {
            r->bad = 1;
            return errno = EPROTO, -1;
        }
        if (r->len - off < STEPFRAME_HEADER + (size_t)n)
            break;
        f (h[0], stepframe_get_u32 (h + 1), h + STEPFRAME_HEADER, n, arg);
        off += STEPFRAME_HEADER + n;
    }
    memmove (r->buf, r->buf + off, r->len - off);
    r->len -= off;
    return 0;
}

void stepframe_reader_release (struct stepframe_reader *r)
{
    free (r->buf);
    memset (r, 0, sizeof (*r));
}

/* fuzz_session.c - a sealed link's framing (common/session.h), as conn.c
 * runs it on every frame a TCP peer sends once its link is open.
 *
 * The first byte picks what the rest is:
 *   even: frames from a peer without the key, each a 2-byte length and
 *         that many bytes, into session_open: none may open (the fuzzer
 *         cannot forge an HMAC-SHA256), and a refusal must leave the
 *         expected sequence number where it was;
 *   odd:  messages the real peer sends, split the same way, sealed by one
 *         end and opened by the other: each must open, in order, to the
 *         same bytes, and then be refused when replayed, when one byte
 *         of it (picked by the input) is changed, or when cut short.
 * What opens goes on to wire_decode, as in conn.c.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/session.h"
#include "common/wire.h"
#include "tests/fuzz/fuzz.h"

static const uint8_t si[SESSION_SECRET_LEN] = { 1, 2, 3 };
static const uint8_t sr[SESSION_SECRET_LEN] = { 4, 5, 6 };
static const char *binding = "00000000000000000000000000000001:"
                             "00000000000000000000000000000002";

/* The next chunk of the input: *len bytes at *p, or 0 when none is left. */
static int next_chunk (const uint8_t **data, size_t *size, const uint8_t **p,
                       size_t *len)
{
    if (*size < 2)
        return 0;
    *len = ((size_t)(*data)[0] << 8 | (*data)[1]) % 4096;
    *data += 2;
    *size -= 2;
    if (*len > *size)
        *len = *size;
    *p = *data;
    *data += *len;
    *size -= *len;
    return 1;
}

static void decode (const char *json, size_t len)
{
    struct hpcq_error err;
    struct wire_msg m;

    if (wire_decode (json, len, &m, &err) == 0)
        wire_msg_release (&m);
}

static void strangers (struct session *r, const uint8_t *data, size_t size)
{
    const uint8_t *p;
    size_t len;

    while (next_chunk (&data, &size, &p, &len)) {
        struct hpcq_error err;
        uint64_t before = session_received (r);
        if (session_open (r, (const char *)p, len, &err) >= 0)
            fuzz_fail ("a frame of %zu bytes opened without the key", len);
        if (errno != EPERM || session_received (r) != before)
            fuzz_fail ("a refusal moved the sequence or set errno %d", errno);
    }
}

static void peers (struct session *i, struct session *r, const uint8_t *data,
                   size_t size)
{
    const uint8_t *p;
    size_t len;

    while (next_chunk (&data, &size, &p, &len)) {
        struct hpcq_error err;
        char *f = malloc (len + SESSION_TRAILER_LEN + 1);
        size_t n = len + SESSION_TRAILER_LEN;
        ssize_t got;

        if (!f)
            abort ();
        if (len == 0) { /* no message is empty: session_open refuses it */
            free (f);
            continue;
        }
        memcpy (f, p, len);
        session_seal (i, f, len, (unsigned char *)f + len);
        {
            /* Damaged in flight: one byte changed, or the frame cut. */
            size_t at = p[0] % n;
            f[at] ^= (char)(p[len - 1] | 1);
            if (session_open (r, f, n, &err) >= 0)
                fuzz_fail ("a frame with byte %zu changed opened", at);
            f[at] ^= (char)(p[len - 1] | 1);
            if (session_open (r, f, n - 1 - p[0] % len, &err) >= 0)
                fuzz_fail ("a truncated frame opened");
        }
        if ((got = session_open (r, f, n, &err)) != (ssize_t)len
            || memcmp (f, p, len) != 0)
            fuzz_fail ("a sealed frame of %zu bytes did not open: %s", len, err.text);
        decode (f, len);
        if (session_open (r, f, n, &err) >= 0)
            fuzz_fail ("a replayed frame opened");
        free (f);
    }
}

FUZZ_TARGET (session)
{
    struct session *i, *r;

    fuzz_setup ();
    if (size < 1)
        return 0;
    i = session_create (si, sr, binding, 1, 0, 0);
    r = session_create (sr, si, binding, 0, 0, 0);
    if (data[0] & 1)
        peers (i, r, data + 1, size - 1);
    else
        strangers (r, data + 1, size - 1);
    session_destroy (i);
    session_destroy (r);
    return 0;
}

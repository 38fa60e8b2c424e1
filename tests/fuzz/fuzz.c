/* fuzz.c - see fuzz.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/jobspec.h"
#include "common/log.h"
#include "common/wire.h"
#include "tests/fuzz/fuzz.h"

char *fuzz_string (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);

    if (!s)
        fuzz_fail ("out of memory copying %zu bytes", size);
    memcpy (s, data, size);
    s[size] = '\0';
    return s;
}

const char *fuzz_file (const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];

    if (fd < 0) {
        if ((fd = memfd_create ("hpcq-fuzz", MFD_CLOEXEC)) < 0)
            fuzz_fail ("memfd_create: %m");
        snprintf (path, sizeof (path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate (fd, 0) < 0
        || (size > 0 && pwrite (fd, data, size, 0) != (ssize_t)size))
        fuzz_fail ("cannot write the input to %s: %m", path);
    /* Without /proc the parser would only ever see "cannot open". */
    if (access (path, R_OK) < 0)
        fuzz_fail ("cannot read back %s: %m", path);
    return path;
}

void fuzz_setup (void)
{
    static int done;

    if (!done) {
        log_set_level (LOG_ERR);
        done = 1;
    }
}

static char *fuzz_dump (const json_t *o)
{
    char *s = o ? json_dumps (o, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

    return s ? s : strdup ("(null)");
}

static int same_string (const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp (a, b) == 0);
}

/* The receiver's check of a credential compares the digest it computes
 * of the message it decoded with the one the sender signed: both must be
 * the same for a message as a sender builds it (a request carries no
 * errnum or error), and differ between the two directions. */
static void check_digest (const struct wire_msg *sent, const struct wire_msg *got)
{
    uint8_t a[AUTH_DIGEST_LEN], b[AUTH_DIGEST_LEN], c[AUTH_DIGEST_LEN];
    const char *binding =
        "0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210";

    if (!sent->is_reply && (sent->errnum || sent->errstr))
        return; /* no sender builds this */
    if (auth_digest (sent, AUTH_TO_SCHEDULER, binding, a) < 0
        || auth_digest (got, AUTH_TO_SCHEDULER, binding, b) < 0
        || auth_digest (got, AUTH_TO_WORKER, binding, c) < 0)
        fuzz_fail ("auth_digest: %m");
    if (memcmp (a, b, sizeof (a)) != 0)
        fuzz_fail ("a %s message's digest changed on its way through the wire",
                   sent->type);
    if (memcmp (b, c, sizeof (b)) == 0)
        fuzz_fail ("the same digest for both directions");
}

void fuzz_check_msg (const struct wire_msg *m)
{
    struct wire_msg back;
    struct hpcq_error err;
    size_t len;
    char *buf;

    if (m->version != WIRE_VERSION || m->type[0] == '\0'
        || strlen (m->type) >= WIRE_TYPE_MAX || m->errnum < 0 || m->errnum > 4095
        || !json_is_object (m->body))
        fuzz_fail ("wire_decode let through a bad envelope (type '%s', errnum %d)",
                   m->type, m->errnum);
    if (!(buf = wire_encode (m, &len))) {
        if (errno == EMSGSIZE)
            return;
        fuzz_fail ("wire_encode: %m");
    }
    if (wire_decode (buf + WIRE_HDR_LEN, len - WIRE_HDR_LEN, &back, &err) < 0)
        fuzz_fail ("a message does not decode after encoding: %s", err.text);
    if (back.version != m->version || strcmp (back.type, m->type) != 0
        || back.id != m->id
        || back.is_reply != m->is_reply
        /* errnum and error mean something, and are sent, in replies only */
        || (m->is_reply
            && (back.errnum != m->errnum || !same_string (back.errstr, m->errstr)))
        || !json_equal (back.body, m->body) || (!back.cred != !m->cred)
        || (m->cred && !json_equal (back.cred, m->cred)))
        fuzz_fail ("a message changed on its way through wire_encode: %.*s",
                   (int)(len - WIRE_HDR_LEN), buf + WIRE_HDR_LEN);
    check_digest (m, &back);
    wire_msg_release (&back);
    free (buf);
}

static void set_default (char **member, const char *value)
{
    if (!*member && !(*member = strdup (value)))
        fuzz_fail ("out of memory");
}

void fuzz_check_spec (struct hpcq_jobspec *spec)
{
    struct hpcq_jobspec back;
    struct hpcq_error err;
    json_t *sent, *again;

    set_default (&spec->name, "fuzz");
    set_default (&spec->workdir, "/tmp");
    set_default (&spec->script, "#!/bin/sh\n");
    if (resource_finalize (&spec->res, &err) < 0)
        return; /* qsub refuses it: nothing is sent */
    if (!(sent = jobspec_to_json (spec))) {
        if (errno == EILSEQ)
            return; /* not UTF-8: qsub refuses it */
        fuzz_fail ("jobspec_to_json: %m");
    }
    if (jobspec_from_json (sent, &back, &err) < 0) {
        char *text = fuzz_dump (sent);
        fuzz_fail ("the scheduler refuses what qsub sends (%s): %s", err.text, text);
    }
    again = jobspec_to_json (&back);
    if (!again || !json_equal (sent, again)) {
        char *a = fuzz_dump (sent), *b = fuzz_dump (again);
        fuzz_fail ("a request changed on its way to the scheduler:\n%s\n%s", a, b);
    }
    json_decref (again);
    json_decref (sent);
    jobspec_release (&back);
}

void fuzz_fail (const char *fmt, ...)
{
    va_list ap;

    fprintf (stderr, "fuzz: property failed: ");
    va_start (ap, fmt);
    vfprintf (stderr, fmt, ap);
    va_end (ap);
    fputc ('\n', stderr);
    abort ();
}

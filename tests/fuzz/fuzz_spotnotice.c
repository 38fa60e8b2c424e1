/* fuzz_spotnotice.c - what a spot node's worker reads from its cloud's
 * metadata service (common/spotnotice.c): spotnotice_parse on the
 * document, spotnotice_token on AWS's IMDSv2 token.  The answer comes over
 * plain HTTP from whatever listens at notice_url, so anyone who can
 * answer there controls it.  The first byte picks the provider (bits 0-1)
 * and the HTTP status (bits 2-4); the rest is the body.
 * Properties: the result is -1, 0 or 1; a refusal is one line of text and
 * leaves no notice; no notice leaves the notice empty; a notice has a
 * known action and, for GCP, 30 s of notice; the same bytes read the
 * same way twice; an accepted token is 1..255 printable bytes, so it
 * cannot add headers to the next request.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <string.h>

#include "common/spotnotice.h"
#include "tests/fuzz/fuzz.h"

#define NOW 1505722800

static const long statuses[] = { 200, 404, 401, 403, 500, 200, 200, 301 };
static const char *const actions[] = { "terminate", "stop", "hibernate", "preempt" };

static void check_refusal (const struct hpcq_error *err)
{
    if (!err->text[0] || strchr (err->text, '\n'))
        fuzz_fail ("a refusal must be one line: '%s'", err->text);
}

static void check_notice (int p, const struct spotnotice *n)
{
    int known = 0;

    for (size_t i = 0; i < sizeof (actions) / sizeof (actions[0]); i++)
        known |= strcmp (n->action, actions[i]) == 0;
    if (!known)
        fuzz_fail ("a notice with action '%.32s'", n->action);
    if (p == SPOTNOTICE_GCP && n->deadline != NOW + SPOTNOTICE_GCP_SECONDS)
        fuzz_fail ("a GCP notice with %lld s left", (long long)(n->deadline - NOW));
}

static void check_token (long status, const char *body, size_t len)
{
    char tok[256];
    struct hpcq_error err;

    if (spotnotice_token (status, body, len, tok, sizeof (tok), &err) < 0) {
        check_refusal (&err);
        if (tok[0])
            fuzz_fail ("a refused token was kept");
        return;
    }
    if (strlen (tok) != len || len < 1 || len > 255 || memcmp (tok, body, len) != 0)
        fuzz_fail ("the token is not what was sent");
    for (size_t i = 0; i < len; i++)
        if (tok[i] < 0x21 || tok[i] > 0x7e)
            fuzz_fail ("the token has byte 0x%02x", (unsigned char)tok[i]);
}

FUZZ_TARGET (spotnotice)
{
    static const struct spotnotice empty;
    struct spotnotice n, again;
    struct hpcq_error err, err2;
    const char *body;
    long status;
    int p, rc;

    fuzz_setup ();
    if (size < 1)
        return 0;
    p = data[0] % 3;
    status = statuses[(data[0] >> 2) % 8];
    body = (const char *)data + 1;
    size--;
    rc = spotnotice_parse (p, status, body, size, "vm1", NOW, &n, &err);
    if (rc != spotnotice_parse (p, status, body, size, "vm1", NOW, &again, &err2)
        || memcmp (&n, &again, sizeof (n)) != 0)
        fuzz_fail ("the same answer read two ways");
    if (rc < 0)
        check_refusal (&err);
    else if (rc == 0 && memcmp (&n, &empty, sizeof (n)) != 0)
        fuzz_fail ("no notice, yet the notice is filled");
    else if (rc == 1)
        check_notice (p, &n);
    else if (rc != 0)
        fuzz_fail ("spotnotice_parse returned %d", rc);
    check_token (status, body, size);
    return 0;
}

/* fuzz_link.c - what a link's handshake reads from the peer before any
 * key exists (common/link.h): the message, as wire_decode gives it, read
 * as a link.open (its nonce, its credential's text) and as the answer to
 * ours (auth_link_answer: the binding it makes).  A binding is always our
 * nonce, a colon and 32 hex digits of theirs; and a credential payload
 * made for a message (link_payload) is accepted for that message only:
 * not in the other direction, not on another link.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <string.h>

#include "common/auth.h"
#include "common/link.h"
#include "common/wire.h"
#include "tests/fuzz/fuzz.h"

static const char *ours = "0123456789abcdef0123456789abcdef";

FUZZ_TARGET (link)
{
    uint8_t payload[LINK_PAYLOAD_LEN], secret[SESSION_SECRET_LEN] = { 9 },
                                       got[SESSION_SECRET_LEN];
    char binding[AUTH_BINDING_MAX];
    struct hpcq_error err;
    struct wire_msg m;
    const char *nonce = NULL;

    fuzz_setup ();
    if (wire_decode ((const char *)data, size, &m, &err) < 0)
        return 0;
    (void)auth_cred_text (&m, &err);
    if (json_unpack (m.body, "{s:s}", "nonce", &nonce) == 0)
        (void)link_nonce_ok (nonce);
    if (auth_link_answer (&m, m.id, ours, binding, &err) == 0) {
        const char *colon = strchr (binding, ':');
        if (!colon || (size_t)(colon - binding) != strlen (ours)
            || strlen (colon + 1) != AUTH_NONCE_HEX)
            fuzz_fail ("binding '%s' is not ours:theirs", binding);
    }
    if (link_payload (&m, AUTH_TO_TM, ours, secret, payload) == 0) {
        if (link_payload_check (&m, AUTH_TO_TM, ours, payload, sizeof (payload), got,
                                &err)
                < 0
            || memcmp (got, secret, sizeof (got)) != 0)
            fuzz_fail ("a payload made for %s was refused: %s", m.type, err.text);
        if (link_payload_check (&m, AUTH_FROM_TM, ours, payload, sizeof (payload), got,
                                &err)
            == 0)
            fuzz_fail ("a payload was accepted in the other direction");
        if (link_payload_check (&m, AUTH_TO_TM, "another", payload, sizeof (payload),
                                got, &err)
            == 0)
            fuzz_fail ("a payload was accepted on another link");
        if (link_payload_check (&m, AUTH_TO_TM, ours, payload, (int)(size % 64), got,
                                &err)
            == 0)
            fuzz_fail ("a payload of %zu bytes was accepted", size % 64);
    }
    fuzz_check_msg (&m);
    wire_msg_release (&m);
    return 0;
}

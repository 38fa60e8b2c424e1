/* fuzz_envelope.c - one message body as JSON text, straight into
 * wire_decode's envelope checks (version, type, id, cred, body, the reply
 * fields), without the framing the wire target must first get right.
 * What is accepted must be what the sender wrote: the type the handler
 * table is searched with is the sender's whole type, not a prefix of it.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <string.h>

#include "common/wire.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET (envelope)
{
    struct wire_msg m;
    struct hpcq_error err;
    json_t *o, *type;

    fuzz_setup ();
    if (wire_decode ((const char *)data, size, &m, &err) < 0) {
        if (errno != EPROTO)
            fuzz_fail ("wire_decode failed with errno %d, not EPROTO", errno);
        return 0;
    }
    if (!(o = json_loadb ((const char *)data, size, 0, NULL))
        || !(type = json_object_get (o, "type")))
        fuzz_fail ("wire_decode accepted what jansson cannot read back");
    if (json_string_length (type) != strlen (m.type))
        fuzz_fail ("type '%s' decoded from a %zu-byte string", m.type,
                   json_string_length (type));
    json_decref (o);
    fuzz_check_msg (&m);
    wire_msg_release (&m);
    return 0;
}

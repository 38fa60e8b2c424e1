/* fuzz_wire.c - the byte stream a peer sends: frames read as conn.c reads
 * them (wire_frame_len on each 4-byte header, then wire_decode on the
 * body), until the input ends or a frame is refused.  Every message that
 * decodes must survive wire_encode and decode again unchanged.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <string.h>

#include "common/wire.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET (wire)
{
    size_t off = 0, len;

    fuzz_setup ();
    while (size - off >= WIRE_HDR_LEN) {
        struct wire_msg m;
        struct hpcq_error err;

        if (wire_frame_len (data + off, &len) < 0)
            break;
        if (len == 0 || len > WIRE_MAX_MSG)
            fuzz_fail ("wire_frame_len accepted a length of %zu", len);
        off += WIRE_HDR_LEN;
        if (len > size - off)
            break; /* truncated: conn.c waits for more */
        if (wire_decode ((const char *)data + off, len, &m, &err) == 0) {
            fuzz_check_msg (&m);
            wire_msg_release (&m);
        }
        off += len;
    }
    return 0;
}

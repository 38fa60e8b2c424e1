/* wire.h - hpcq's message format, spoken by CLI, scheduler and workers.
 *
 * A message is a 4-byte big-endian length followed by that many bytes of
 * JSON:
 *   {"v":1, "type":"job.submit", "id":7, "cred":null, "body":{...}}
 * A reply repeats type and id and adds "reply":true, "errnum" (an errno
 * value, 0 for success) and "error" (one line for a person).
 * "cred" is carried untouched: it is where a MUNGE credential will go, so
 * authentication needs no format change.  Messages over WIRE_MAX_MSG are a
 * protocol error and the receiver drops the connection.
 * JSON stays at this edge: handlers unpack the body once into C structs.
 */
#ifndef HPCQ_COMMON_WIRE_H
#define HPCQ_COMMON_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "common/error.h"

#define WIRE_VERSION 1
#define WIRE_HDR_LEN 4
#define WIRE_MAX_MSG (8 * 1024 * 1024)
#define WIRE_TYPE_MAX 64

struct wire_msg {
    int version;
    char type[WIRE_TYPE_MAX];
    int64_t id;
    int is_reply;
    int errnum;   /* replies: 0 or an errno value */
    char *errstr; /* replies: message or NULL (owned) */
    json_t *cred; /* reserved for authentication, may be NULL (owned) */
    json_t *body; /* always an object after decode (owned) */
};

/* Free what m owns; m itself is the caller's. */
void wire_msg_release (struct wire_msg *m);

/* Frame m: returns a malloc'ed buffer of *lenp bytes (header + JSON), or
 * NULL with errno (EMSGSIZE when the JSON exceeds WIRE_MAX_MSG). */
char *wire_encode (const struct wire_msg *m, size_t *lenp);

/* Body length from a frame header; -1 with EMSGSIZE if 0 or too large. */
int wire_frame_len (const unsigned char hdr[WIRE_HDR_LEN], size_t *lenp);

/* Parse one frame body (JSON text, not NUL-terminated) into m, checking the
 * envelope: version, type string, id, body object.  -1 with EPROTO and err. */
int wire_decode (const char *json, size_t len, struct wire_msg *m,
                 struct hpcq_error *err);

/* Build a request; body reference is stolen (NULL means {}). */
void wire_request_init (struct wire_msg *m, const char *type, int64_t id, json_t *body);

/* Build the reply to req; body stolen (NULL means {}), errstr copied. */
void wire_reply_init (struct wire_msg *m, const struct wire_msg *req, int errnum,
                      const char *errstr, json_t *body);

#endif

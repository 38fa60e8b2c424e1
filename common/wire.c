/* wire.c - see wire.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wire.h"

void wire_msg_release (struct wire_msg *m)
{
    if (!m)
        return;
    free (m->errstr);
    json_decref (m->cred);
    json_decref (m->body);
    memset (m, 0, sizeof (*m));
}

static void wire_init (struct wire_msg *m, const char *type, int64_t id, json_t *body)
{
    memset (m, 0, sizeof (*m));
    m->version = WIRE_VERSION;
    snprintf (m->type, sizeof (m->type), "%s", type);
    m->id = id;
    m->body = body ? body : json_object ();
}

void wire_request_init (struct wire_msg *m, const char *type, int64_t id, json_t *body)
{
    wire_init (m, type, id, body);
}

void wire_reply_init (struct wire_msg *m, const struct wire_msg *req, int errnum,
                      const char *errstr, json_t *body)
{
    wire_init (m, req->type, req->id, body);
    m->is_reply = 1;
    m->errnum = (int)errnum;
    m->errstr = errstr ? strdup (errstr) : NULL;
}

char *wire_encode (const struct wire_msg *m, size_t *lenp)
{
    json_t *o;
    char *json, *buf;
    size_t len;

    o = json_pack ("{s:i s:s s:I s:O* s:O*}", "v", m->version, "type", m->type, "id",
                   (json_int_t)m->id, "cred", m->cred, "body", m->body);
    if (!o) {
        errno = ENOMEM;
        return NULL;
    }
    if (m->is_reply) {
        json_object_set_new (o, "reply", json_true ());
        json_object_set_new (o, "errnum", json_integer (m->errnum));
        if (m->errstr)
            json_object_set_new (o, "error", json_string (m->errstr));
    }
    json = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    if (!json) {
        errno = ENOMEM;
        return NULL;
    }
    len = strlen (json);
    if (len > WIRE_MAX_MSG) {
        free (json);
        errno = EMSGSIZE;
        return NULL;
    }
    if (!(buf = malloc (WIRE_HDR_LEN + len))) {
        free (json);
        return NULL;
    }
    buf[0] = (char)((len >> 24) & 0xff);
    buf[1] = (char)((len >> 16) & 0xff);
    buf[2] = (char)((len >> 8) & 0xff);
    buf[3] = (char)(len & 0xff);
    memcpy (buf + WIRE_HDR_LEN, json, len);
    free (json);
    *lenp = WIRE_HDR_LEN + len;
    return buf;
}

int wire_frame_len (const unsigned char hdr[WIRE_HDR_LEN], size_t *lenp)
{
    size_t len = ((size_t)hdr[0] << 24) | ((size_t)hdr[1] << 16) | ((size_t)hdr[2] << 8)
                 | (size_t)hdr[3];

    if (len == 0 || len > WIRE_MAX_MSG) {
        errno = EMSGSIZE;
        return -1;
    }
    *lenp = len;
    return 0;
}

static int wire_fail (struct wire_msg *m, struct hpcq_error *err, const char *what)
{
    wire_msg_release (m);
    errno = EPROTO;
    return errprintf (err, "malformed message: %s", what);
}

int wire_decode (const char *json, size_t len, struct wire_msg *m,
                 struct hpcq_error *err)
{
    json_error_t jerr;
    json_t *o, *cred = NULL, *body = NULL;
    const char *type, *errstr = NULL;
    json_int_t id, version, errnum = 0;
    int reply = 0;

    memset (m, 0, sizeof (*m));
    if (!(o = json_loadb (json, len, JSON_REJECT_DUPLICATES, &jerr)))
        return wire_fail (m, err, "not JSON");
    if (json_unpack_ex (o, &jerr, 0, "{s:I s:s s:I s?o s?o s?b s?I s?s}", "v", &version,
                        "type", &type, "id", &id, "cred", &cred, "body", &body, "reply",
                        &reply, "errnum", &errnum, "error", &errstr)
        < 0) {
        json_decref (o);
        return wire_fail (m, err, "bad envelope");
    }
    if (version != WIRE_VERSION) {
        json_decref (o);
        return wire_fail (m, err, "unsupported version");
    }
    if (strlen (type) == 0 || strlen (type) >= WIRE_TYPE_MAX
        || (body && !json_is_object (body)) || errnum < 0 || errnum > 4095) {
        json_decref (o);
        return wire_fail (m, err, "bad type or body");
    }
    m->version = (int)version;
    snprintf (m->type, sizeof (m->type), "%s", type);
    m->id = id;
    m->is_reply = reply;
    m->errnum = errnum;
    m->errstr = errstr ? strdup (errstr) : NULL;
    /* cred and body are borrowed from o: take our own references. */
    m->cred = cred && !json_is_null (cred) ? json_incref (cred) : NULL;
    m->body = body ? json_incref (body) : json_object ();
    json_decref (o);
    return 0;
}

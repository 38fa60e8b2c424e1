/* spotnotice.c - see spotnotice.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/spotnotice.h"

#define DOC_MAX 65536 /* longer answers are not a provider's notice */

static const char *const names[] = { "aws", "gcp", "azure" };

int spotnotice_provider (const char *name)
{
    for (int i = 0; i < (int)(sizeof (names) / sizeof (names[0])); i++)
        if (name && strcmp (name, names[i]) == 0)
            return i;
    return -1;
}

const char *spotnotice_provider_name (enum spotnotice_provider p)
{
    return p >= SPOTNOTICE_AWS && p <= SPOTNOTICE_AZURE ? names[p] : "?";
}

/* A time in format fmt (UTC) into wall seconds: 0, or -1. */
static int parse_time (const char *s, const char *fmt, int64_t *out)
{
    struct tm tm;
    const char *end;

    memset (&tm, 0, sizeof (tm));
    if (!(end = strptime (s, fmt, &tm)) || *end)
        return -1;
    *out = (int64_t)timegm (&tm);
    return 0;
}

/* The body as JSON (it must be an object). */
static json_t *body_json (const char *body, size_t len, const char *what,
                          struct hpcq_error *err)
{
    json_error_t jerr;
    json_t *o = json_loadb (body, len, 0, &jerr);

    if (!o || !json_is_object (o)) {
        json_decref (o);
        errprintf (err, "%s is not a JSON object%s%s", what, o ? "" : ": ",
                   o ? "" : jerr.text);
        return NULL;
    }
    return o;
}

static int aws_parse (long status, const char *body, size_t len, struct spotnotice *out,
                      struct hpcq_error *err)
{
    const char *action, *when;
    json_t *o;
    int rc = -1;

    if (status == 404)
        return 0;
    if (status != 200)
        return errprintf (err, "instance-action: unexpected HTTP status %ld", status);
    if (!(o = body_json (body, len, "instance-action", err)))
        return -1;
    if (json_unpack (o, "{s:s s:s}", "action", &action, "time", &when) < 0)
        errprintf (err, "instance-action lacks \"action\" or \"time\" strings");
    else if (strcmp (action, "terminate") && strcmp (action, "stop")
             && strcmp (action, "hibernate"))
        errprintf (err, "instance-action: unknown action '%.32s'", action);
    else if (parse_time (when, "%Y-%m-%dT%H:%M:%SZ", &out->deadline) < 0)
        errprintf (err, "instance-action: bad time '%.64s' (want 2017-09-18T08:22:00Z)",
                   when);
    else {
        snprintf (out->action, sizeof (out->action), "%s", action);
        rc = 1;
    }
    json_decref (o);
    return rc;
}

static int gcp_parse (long status, const char *body, size_t len, int64_t now,
                      struct spotnotice *out, struct hpcq_error *err)
{
    while (len > 0 && (body[len - 1] == '\n' || body[len - 1] == '\r'))
        len--;
    if (status != 200)
        return errprintf (err, "preempted: unexpected HTTP status %ld", status);
    if (len == 5 && strncmp (body, "FALSE", 5) == 0)
        return 0;
    if (len == 4 && strncmp (body, "TRUE", 4) == 0) {
        snprintf (out->action, sizeof (out->action), "preempt");
        out->deadline = now + SPOTNOTICE_GCP_SECONDS;
        return 1;
    }
    return errprintf (err, "preempted: expected TRUE or FALSE, got %zu bytes", len);
}

/* 1 if the event's Resources name resource (or none was asked for). */
static int azure_names (json_t *ev, const char *resource)
{
    json_t *r = json_object_get (ev, "Resources"), *v;
    size_t i;

    if (!resource || !resource[0])
        return 1;
    json_array_foreach (r, i, v) if (json_is_string (v)
                                     && strcmp (json_string_value (v), resource)
                                            == 0) return 1;
    return 0;
}

static int azure_parse (long status, const char *body, size_t len, const char *resource,
                        int64_t now, struct spotnotice *out, struct hpcq_error *err)
{
    json_t *o, *events, *ev;
    size_t i;
    int rc = 0;

    if (status != 200)
        return errprintf (err, "scheduledevents: unexpected HTTP status %ld", status);
    if (!(o = body_json (body, len, "scheduledevents", err)))
        return -1;
    if (!json_is_array (events = json_object_get (o, "Events"))) {
        json_decref (o);
        return errprintf (err, "scheduledevents lacks an \"Events\" array");
    }
    json_array_foreach (events, i, ev)
    {
        const char *type = json_string_value (json_object_get (ev, "EventType"));
        const char *nb = json_string_value (json_object_get (ev, "NotBefore"));
        int64_t when = now;
        if (!json_is_object (ev) || !type) {
            rc = errprintf (err, "scheduledevents: event %zu has no EventType", i);
            break;
        }
        if (strcmp (type, "Preempt") != 0 || !azure_names (ev, resource))
            continue;
        /* An event already started has NotBefore "". */
        if (nb && nb[0] && parse_time (nb, "%a, %d %b %Y %H:%M:%S GMT", &when) < 0) {
            rc = errprintf (err, "scheduledevents: bad NotBefore '%.64s'", nb);
            break;
        }
        snprintf (out->action, sizeof (out->action), "preempt");
        out->deadline = when;
        rc = 1;
        break;
    }
    json_decref (o);
    return rc;
}

int spotnotice_token (long status, const char *body, size_t len, char *out, size_t size,
                      struct hpcq_error *err)
{
    if (size > 0)
        out[0] = '\0';
    if (status != 200)
        return errprintf (err, "no IMDSv2 token (HTTP status %ld)", status);
    if (!body || len == 0 || len >= size)
        return errprintf (err, "no IMDSv2 token (%zu bytes)", len);
    /* Printable ASCII only: a CR or LF would end the header and let the
     * answer write headers of its own into the next request. */
    for (size_t i = 0; i < len; i++)
        if (body[i] < 0x21 || body[i] > 0x7e)
            return errprintf (err, "no IMDSv2 token (byte %zu is 0x%02x)", i,
                              (unsigned char)body[i]);
    memcpy (out, body, len);
    out[len] = '\0';
    return 0;
}

/* The complaint quotes what the service sent (and jansson's message may
 * too): it goes to the log as one line, so no control byte of the
 * answer may start a forged line of its own. */
static int one_line (struct hpcq_error *err)
{
    for (char *c = err->text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return -1;
}

static int parse (enum spotnotice_provider p, long status, const char *body, size_t len,
                  const char *resource, int64_t now, struct spotnotice *out,
                  struct hpcq_error *err)
{
    memset (out, 0, sizeof (*out));
    if (len > DOC_MAX)
        return errprintf (err, "answer of %zu bytes is too long for a notice", len);
    if (!body)
        len = 0, body = "";
    switch (p) {
    case SPOTNOTICE_AWS: return aws_parse (status, body, len, out, err);
    case SPOTNOTICE_GCP: return gcp_parse (status, body, len, now, out, err);
    case SPOTNOTICE_AZURE:
        return azure_parse (status, body, len, resource, now, out, err);
    }
    return errprintf (err, "unknown provider");
}

int spotnotice_parse (enum spotnotice_provider p, long status, const char *body,
                      size_t len, const char *resource, int64_t now,
                      struct spotnotice *out, struct hpcq_error *err)
{
    int rc = parse (p, status, body, len, resource, now, out, err);

    if (rc < 0) {
        memset (out, 0, sizeof (*out));
        return one_line (err);
    }
    return rc;
}

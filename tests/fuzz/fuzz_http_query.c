/* fuzz_http_query.c - the REST API's query arguments (scheduler/web/api_query.c:
 * api_query_jobs, api_query_limit), which any HTTP client sends.  The input
 * is a query string, split and unescaped as libmicrohttpd does before the
 * API sees it (split at '&' and the first '=', '+' as space, then
 * MHD_http_unescape; the first of a repeated key wins, as
 * MHD_lookup_connection_value gives it).  Properties: an accepted filter
 * keeps the user as given, has distinct states among PBS's letters and a
 * limit from 1 when one was given; a refused one says why in one line of
 * printable ASCII (it goes into the JSON error); an events limit is within
 * 1..200.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/web/api_query.h"
#include "tests/fuzz/fuzz.h"

enum { USER, STATE, HISTORY, SUBJOBS, LIMIT, NKEYS };
static const char *const keys[NKEYS] = { "user", "state", "history", "subjobs",
                                         "limit" };

/* Split s (modified) into the known keys' first values. */
static void split (char *s, const char *val[NKEYS])
{
    char *save = NULL;

    for (char *kv = strtok_r (s, "&", &save); kv; kv = strtok_r (NULL, "&", &save)) {
        char *v = strchr (kv, '=');
        if (v)
            *v++ = '\0';
        for (char *p = kv; *p; p++)
            *p = *p == '+' ? ' ' : *p;
        MHD_http_unescape (kv);
        for (char *p = v; p && *p; p++)
            *p = *p == '+' ? ' ' : *p;
        if (v)
            MHD_http_unescape (v);
        for (int i = 0; i < NKEYS; i++)
            if (!val[i] && strcmp (kv, keys[i]) == 0)
                val[i] = v ? v : "";
    }
}

static void check_message (const char *what, const struct hpcq_error *err)
{
    if (!err->text[0])
        fuzz_fail ("%s refused without a reason", what);
    for (const char *p = err->text; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            fuzz_fail ("%s: the reason holds byte 0x%02x", what, (unsigned char)*p);
}

FUZZ_TARGET (http_query)
{
    char *s = fuzz_string (data, size);
    const char *val[NKEYS] = { NULL };
    struct api_query q;
    struct hpcq_error err = { "" };
    long limit;

    fuzz_setup ();
    split (s, val);
    if (api_query_jobs (&q, val[USER], val[STATE], val[HISTORY], val[SUBJOBS],
                        val[LIMIT], &err)
        == 0) {
        if (strcmp (q.user, val[USER] ? val[USER] : "") != 0)
            fuzz_fail ("user=%s read as '%s'", val[USER], q.user);
        for (const char *p = q.states; *p; p++)
            if (!strchr (API_QUERY_STATES, *p) || strchr (p + 1, *p))
                fuzz_fail ("state=%s read as '%s'", val[STATE], q.states);
        if (val[STATE] && *val[STATE] && !q.states[0])
            fuzz_fail ("state=%s read as no state", val[STATE]);
        if ((val[LIMIT] && q.limit < 1) || (!val[LIMIT] && q.limit != 0))
            fuzz_fail ("limit=%s read as %ld", val[LIMIT] ? val[LIMIT] : "(none)",
                       q.limit);
        if ((q.history != 0 && q.history != 1) || (q.subjobs != 0 && q.subjobs != 1))
            fuzz_fail ("history %d, subjobs %d", q.history, q.subjobs);
    } else
        check_message ("the jobs query", &err);
    err.text[0] = '\0';
    if (api_query_limit (val[LIMIT], 20, 200, &limit, &err) == 0) {
        if (limit < 1 || limit > 200)
            fuzz_fail ("events limit=%s read as %ld", val[LIMIT], limit);
    } else
        check_message ("the events limit", &err);
    free (s);
    return 0;
}

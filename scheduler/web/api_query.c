/* api_query.c - see api_query.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"
#include "scheduler/web/api_query.h"

/* At most len - 1 bytes of s for an error message, each printable ASCII or
 * '?': the message goes into JSON (which wants UTF-8) on one line. */
static const char *shown (const char *s, char *buf, size_t len)
{
    size_t i;

    for (i = 0; s && s[i] && i + 1 < len; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    buf[i] = '\0';
    return buf;
}

/* state= as PBS letters or words, comma separated: a set of letters. */
static int parse_states (const char *s, char *set, size_t len)
{
    static const struct {
        const char *word;
        char letter;
    } names[] = {
        { "queued", 'Q' },    { "held", 'H' },    { "waiting", 'W' },
        { "running", 'R' },   { "exiting", 'E' }, { "finished", 'F' },
        { "suspended", 'S' }, { "begun", 'B' },
    };
    size_t k = 0;

    set[0] = '\0';
    while (s && *s) {
        size_t n = strcspn (s, ",");
        char letter = 0;
        for (size_t i = 0; i < ARRAY_SIZE (names) && n > 0; i++)
            if ((n == strlen (names[i].word) && !strncasecmp (s, names[i].word, n))
                || (n == 1 && names[i].letter == s[0]))
                letter = names[i].letter;
        if (!letter)
            return -1;
        if (!strchr (set, letter)) {
            if (k + 1 >= len)
                return -1;
            set[k++] = letter;
            set[k] = '\0';
        }
        s += n + (s[n] == ',');
    }
    return 0;
}

int api_query_limit (const char *s, long dflt, long max, long *out,
                     struct hpcq_error *err)
{
    char *end, b[33];
    long v;

    if (!s) {
        *out = dflt;
        return 0;
    }
    errno = 0;
    v = strtol (s, &end, 10);
    if (end == s || *end || v < 1 || (errno == ERANGE && v != LONG_MAX))
        return errprintf_code (err, EINVAL, "bad limit=%s (a whole number from 1)",
                               shown (s, b, sizeof (b)));
    *out = v > max ? max : v;
    return 0;
}

static int flag (const char *s)
{
    return s && strcmp (s, "0") != 0;
}

int api_query_jobs (struct api_query *q, const char *user, const char *state,
                    const char *history, const char *subjobs, const char *limit,
                    struct hpcq_error *err)
{
    char b[65];

    memset (q, 0, sizeof (*q));
    if (user && strlen (user) >= sizeof (q->user))
        return errprintf_code (err, EINVAL, "bad user=%s... (too long)",
                               shown (user, b, 33));
    if (parse_states (state, q->states, sizeof (q->states)) < 0)
        return errprintf_code (err, EINVAL,
                               "bad state=%s (states: Q H W R E F S B, "
                               "or their names, comma separated)",
                               shown (state, b, sizeof (b)));
    if (api_query_limit (limit, 0, LONG_MAX, &q->limit, err) < 0)
        return -1;
    snprintf (q->user, sizeof (q->user), "%s", user ? user : "");
    q->history = flag (history);
    q->subjobs = flag (subjobs);
    return 0;
}

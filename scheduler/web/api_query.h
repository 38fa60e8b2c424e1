/* api_query.h - the query arguments of the REST API (api.h), read into a
 * filter.  They come from any HTTP client, so they have a fuzz target
 * (tests/fuzz/fuzz_http_query.c) and no dependence on the server.
 *
 *   /api/v1/jobs?user=NAME&state=LIST&history=1&subjobs=1&limit=N
 *   /api/v1/events?limit=N
 *
 * state= is PBS's letters or their names, comma separated (R,Q or
 * running,queued); limit= a whole number from 1.  A bad argument refuses
 * the request (400) with one line; an unknown argument is ignored, as
 * slurmrestd ignores it.
 */
#ifndef HPCQ_SCHEDULER_WEB_API_QUERY_H
#define HPCQ_SCHEDULER_WEB_API_QUERY_H

#include "common/error.h"

#define API_QUERY_STATES "QHWREFSB"

struct api_query {
    char user[64];   /* "" = anyone's */
    char states[16]; /* letters of API_QUERY_STATES, distinct; "" = any but F */
    int history;     /* finished jobs too */
    int subjobs;     /* arrays' subjobs too */
    long limit;      /* at most this many, 0 = no limit */
};

/* The jobs list's arguments (each NULL when absent) into q.  0, or -1 with
 * err (EINVAL). */
int api_query_jobs (struct api_query *q, const char *user, const char *state,
                    const char *history, const char *subjobs, const char *limit,
                    struct hpcq_error *err);

/* limit= (NULL: dflt) into *out, within 1..max (more is max).  0, or -1
 * with err (EINVAL) for anything but a whole number from 1. */
int api_query_limit (const char *s, long dflt, long max, long *out,
                     struct hpcq_error *err);

#endif

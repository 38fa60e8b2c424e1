/* http.h - the scheduler's HTTP server: /metrics, /api/v1/..., the status page.
 *
 * libmicrohttpd, driven by the scheduler's own event loop (its epoll fd
 * is one more watch; no threads), listening on metrics_listen (off unless
 * set).  Read-only: GET and HEAD; any other method is 405, an unknown
 * path 404, and the daemon keeps serving.
 *
 * Who may ask (docs/http.md):
 *  - from a loopback address, anyone on this host; the kernel says which
 *    user owns the client's socket (sockdiag.h), so that user sees their
 *    own jobs in full, others' as the qstat table shows them; operators,
 *    and everyone when query_other_jobs is true, see others' jobs less
 *    their private fields (environment, arguments, paths, account, mail,
 *    dependencies); managers see everything;
 *  - from any other address, only with "Authorization: Bearer TOKEN",
 *    TOKEN being the contents of http_token_file, a file only its owner
 *    (root, or the scheduler's user) may read; a token holder sees what a
 *    manager sees.  Without http_token_file other addresses get 403.
 *
 * Modules register their paths (http_route); a handler answers once with
 * one of the http_reply* functions, a big answer as a stream made as the
 * client reads it (http_reply_stream), never in one loop turn.
 */
#ifndef HPCQ_SCHEDULER_WEB_HTTP_H
#define HPCQ_SCHEDULER_WEB_HTTP_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "scheduler/server.h"

struct http;

/* Who asked. */
struct http_caller {
    int manager;  /* sees every job in full (manager, token holder) */
    int operator; /* sees every job, less its private fields */
    int known;    /* uid is the caller's (loopback, kernel's word) */
    uid_t uid;
    char user[64]; /* uid's name, "" if not known */
    char addr[64]; /* the client's address */
};

struct http_req {
    struct http *http;
    struct server *srv;
    void *conn; /* the MHD_Connection */
    const char *path;
    const char *rest; /* the path after a prefix route's prefix */
    struct http_caller who;
    int answered;
};

/* A handler answers r with one http_reply* call; its return is theirs. */
typedef int (*http_handler_f) (struct http_req *r, void *arg);

/* Listen on metrics_listen if set (else *hp = NULL and 0).  -1 with err,
 * one line for a person: a malformed address, one that cannot be bound,
 * an unsafe http_token_file. */
int http_create (struct server *srv, struct http **hp, struct hpcq_error *err);
void http_destroy (struct http *h);

/* Serve path (exactly, or with prefix 1 everything under it). */
int http_route (struct http *h, const char *path, int prefix, http_handler_f fn,
                void *arg);

/* The address and port it listens on ("127.0.0.1:9100"). */
const char *http_address (const struct http *h);

/* A query argument (?user=alice), or NULL. */
const char *http_arg (struct http_req *r, const char *key);

/* Answers.  Each takes what it is given (body, o) whatever happens. */
int http_reply (struct http_req *r, int status, const char *type, char *body,
                size_t len);
int http_reply_json (struct http_req *r, int status, json_t *o);
/* A body that lives as long as the program (a constant). */
int http_reply_static (struct http_req *r, int status, const char *type,
                       const char *body, size_t len);
/* An error in slurmrestd's shape: {"errors": [{"error": ..., "error_number":
 * status}], ...} (api.h adds the meta). */
int http_reply_error (struct http_req *r, int status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* A body made in parts: fill writes up to max bytes into buf and returns
 * how many (0 is taken as "not yet": return at least 1 until the end), or
 * -1 at the end.  done frees arg (whether or not the stream finished). */
int http_reply_stream (struct http_req *r, const char *type,
                       ssize_t (*fill) (void *arg, char *buf, size_t max), void *arg,
                       void (*done) (void *arg));

/* How much of a job the caller sees. */
enum http_view {
    HTTP_VIEW_TABLE, /* what the qstat table shows of anyone's job */
    HTTP_VIEW_FULL,  /* qstat -f: its owner, operators, managers, the token,
                        everyone with query_other_jobs */
};
enum http_view http_job_view (const struct http_req *r, int64_t owner_uid);

/* May the caller see more of owner_uid's job than the table (owner_uid
 * -1: of anyone's, as per-user metrics and others' events show)? */
int http_may_see (const struct http_req *r, int64_t owner_uid);

#endif

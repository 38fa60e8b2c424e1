/* notice.c - see notice.h
 *
 * libcurl's multi interface on the worker's loop: curl tells which
 * sockets to watch (CURLMOPT_SOCKETFUNCTION) and when to call it back
 * (CURLMOPT_TIMERFUNCTION); the loop watches them and calls
 * curl_multi_socket_action.  One transfer at a time: the AWS token, then
 * the document.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/spotnotice.h"
#include "common/util.h"
#include "worker/notice.h"
#include "worker/worker.h"

#define NOTICE_BODY_MAX 65536
#define NOTICE_TOKEN_TTL 21600 /* seconds: AWS's example and most */
#define NOTICE_TIMEOUT_MS 2000 /* a metadata service answers at once */

enum { XFER_TOKEN, XFER_DOC };

struct xfer {
    CURL *easy;
    struct curl_slist *hdr;
    char *buf;
    size_t len;
    int kind;
};

struct notice {
    struct worker *w;
    int provider; /* enum spotnotice_provider, -1: off */
    char url[1024], token_url[1024];
    const char *resource; /* azure: this VM's name */
    int64_t interval_ms;
    CURLM *multi;
    struct loop_timer *poll, *curl_timer;
    struct xfer *x; /* the transfer in flight, or NULL */
    char token[256];
    int64_t token_ms;      /* when it was given (0: none) */
    struct spotnotice cur; /* the notice, once one came */
    int have, acked;
    int64_t sent_id;
    char last_err[256];
};

static void poll_start (struct notice *n);

/* --- reporting --- */

static void report (struct notice *n)
{
    struct worker *w = n->w;

    if (!n->have || n->acked || !w->link || w->hello_id)
        return;
    n->sent_id = worker_send (w, "node.notice",
                              json_pack ("{s:s s:s s:I}", "provider",
                                         spotnotice_provider_name (n->provider),
                                         "action", n->cur.action, "deadline",
                                         (json_int_t)n->cur.deadline));
}

void notice_link_up (struct notice *n)
{
    if (n)
        report (n);
}

int notice_reply (struct notice *n, const struct wire_msg *msg)
{
    if (!n || !n->sent_id || msg->id != n->sent_id)
        return 0;
    n->sent_id = 0;
    if (msg->errnum)
        log_msg (LOG_ERR, "scheduler refused the spot notice: %s",
                 msg->errstr ? msg->errstr : "?");
    else
        n->acked = 1;
    return 1;
}

/* Complain once per complaint: a poll every few seconds must not fill
 * the log with the same line. */
static void complain (struct notice *n, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void complain (struct notice *n, const char *fmt, ...)
{
    char buf[sizeof (n->last_err)];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    if (strcmp (buf, n->last_err) != 0) {
        log_msg (LOG_WARNING, "spot notice: %s", buf);
        snprintf (n->last_err, sizeof (n->last_err), "%s", buf);
    }
}

/* What the document said. */
static void document (struct notice *n, long status, const char *body, size_t len)
{
    struct spotnotice sn;
    struct hpcq_error err;
    int rc = spotnotice_parse (n->provider, status, body, len, n->resource,
                               util_wall_secs (), &sn, &err);

    if (rc < 0) {
        complain (n, "%s: %s (ignored)", n->url, err.text);
        return;
    }
    n->last_err[0] = '\0';
    if (rc == 0 || (n->have && sn.deadline == n->cur.deadline))
        return;
    log_msg (LOG_WARNING, "spot notice from %s: %s in %lld s",
             spotnotice_provider_name (n->provider), sn.action,
             (long long)(sn.deadline - util_wall_secs ()));
    n->cur = sn;
    n->have = 1;
    n->acked = 0;
    report (n);
}

/* --- transfers --- */

static size_t on_data (char *data, size_t size, size_t nmemb, void *arg)
{
    struct xfer *x = arg;
    size_t add = size * nmemb;

    if (x->len + add > NOTICE_BODY_MAX)
        return 0; /* too long to be a notice: the transfer fails */
    x->buf = xrealloc (x->buf, x->len + add + 1);
    memcpy (x->buf + x->len, data, add);
    x->len += add;
    x->buf[x->len] = '\0';
    return add;
}

static void xfer_free (struct notice *n, struct xfer *x)
{
    if (!x)
        return;
    if (x->easy) {
        curl_multi_remove_handle (n->multi, x->easy);
        curl_easy_cleanup (x->easy);
    }
    curl_slist_free_all (x->hdr);
    free (x->buf);
    free (x);
}

static int xfer_start (struct notice *n, int kind)
{
    struct xfer *x = xzalloc (sizeof (*x));
    char h[400];

    x->kind = kind;
    if (!(x->easy = curl_easy_init ()))
        goto error;
    if (kind == XFER_TOKEN) {
        snprintf (h, sizeof (h), "X-aws-ec2-metadata-token-ttl-seconds: %d",
                  NOTICE_TOKEN_TTL);
        x->hdr = curl_slist_append (x->hdr, h);
        curl_easy_setopt (x->easy, CURLOPT_URL, n->token_url);
        curl_easy_setopt (x->easy, CURLOPT_CUSTOMREQUEST, "PUT");
        curl_easy_setopt (x->easy, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt (x->easy, CURLOPT_POSTFIELDSIZE, 0L);
    } else {
        if (n->provider == SPOTNOTICE_AWS)
            snprintf (h, sizeof (h), "X-aws-ec2-metadata-token: %s", n->token);
        else if (n->provider == SPOTNOTICE_GCP)
            snprintf (h, sizeof (h), "Metadata-Flavor: Google");
        else
            snprintf (h, sizeof (h), "Metadata: true");
        x->hdr = curl_slist_append (x->hdr, h);
        curl_easy_setopt (x->easy, CURLOPT_URL, n->url);
    }
    curl_easy_setopt (x->easy, CURLOPT_HTTPHEADER, x->hdr);
    curl_easy_setopt (x->easy, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt (x->easy, CURLOPT_WRITEDATA, x);
    curl_easy_setopt (x->easy, CURLOPT_PRIVATE, x);
    curl_easy_setopt (x->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt (x->easy, CURLOPT_NOPROXY, "*"); /* a metadata service is local */
    curl_easy_setopt (x->easy, CURLOPT_TIMEOUT_MS, (long)NOTICE_TIMEOUT_MS);
    curl_easy_setopt (x->easy, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt (x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt (x->easy, CURLOPT_PROTOCOLS,
                      (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    if (!x->hdr || curl_multi_add_handle (n->multi, x->easy) != CURLM_OK)
        goto error;
    n->x = x;
    return 0;
error:
    xfer_free (n, x);
    complain (n, "cannot start a transfer to %s",
              kind == XFER_TOKEN ? n->token_url : n->url);
    return -1;
}

static void xfer_done (struct notice *n, struct xfer *x, CURLcode res)
{
    long status = 0;

    n->x = NULL;
    curl_easy_getinfo (x->easy, CURLINFO_RESPONSE_CODE, &status);
    if (res != CURLE_OK)
        complain (n, "%s: %s", x->kind == XFER_TOKEN ? n->token_url : n->url,
                  curl_easy_strerror (res));
    else if (x->kind == XFER_TOKEN) {
        struct hpcq_error err;
        if (spotnotice_token (status, x->buf, x->len, n->token, sizeof (n->token), &err)
            < 0)
            complain (n, "%s: %s", n->token_url, err.text);
        else {
            n->token_ms = util_now_ms ();
            xfer_free (n, x);
            (void)xfer_start (n, XFER_DOC);
            return;
        }
    } else if (n->provider == SPOTNOTICE_AWS && status == 401) {
        n->token_ms = 0; /* expired: ask again next time */
        complain (n, "%s: the IMDSv2 token was refused (HTTP 401)", n->url);
    } else
        document (n, status, x->buf, x->len);
    xfer_free (n, x);
}

static void check_done (struct notice *n)
{
    CURLMsg *m;
    int left;

    while ((m = curl_multi_info_read (n->multi, &left))) {
        struct xfer *x;
        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo (m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        xfer_done (n, x, m->data.result);
    }
}

/* --- curl on the loop --- */

static void on_fd (struct loop *l, int fd, int revents, void *arg)
{
    struct notice *n = arg;
    int running, flags = (revents & LOOP_READ ? CURL_CSELECT_IN : 0)
                         | (revents & LOOP_WRITE ? CURL_CSELECT_OUT : 0);

    curl_multi_socket_action (n->multi, fd, flags, &running);
    check_done (n);
}

static int on_socket (CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
    struct notice *n = userp;
    struct loop_watch *watch = socketp;
    int ev =
        (what & CURL_POLL_IN ? LOOP_READ : 0) | (what & CURL_POLL_OUT ? LOOP_WRITE : 0);

    if (what == CURL_POLL_REMOVE) {
        loop_fd_remove (watch);
        curl_multi_assign (n->multi, s, NULL);
        return 0;
    }
    if (!watch) {
        if (!(watch = loop_fd_add (n->w->loop, s, ev, on_fd, n)))
            return -1;
        curl_multi_assign (n->multi, s, watch);
    } else if (loop_fd_modify (watch, ev) < 0)
        return -1;
    return 0;
}

static void on_curl_timer (struct loop *l, void *arg)
{
    struct notice *n = arg;
    int running;

    n->curl_timer = NULL; /* one-shot: freed by the loop */
    curl_multi_socket_action (n->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done (n);
}

static int on_timer (CURLM *multi, long timeout_ms, void *userp)
{
    struct notice *n = userp;

    if (n->curl_timer) {
        loop_timer_remove (n->curl_timer);
        n->curl_timer = NULL;
    }
    if (timeout_ms >= 0
        && !(n->curl_timer =
                 loop_timer_add (n->w->loop, timeout_ms, 0, on_curl_timer, n)))
        return -1;
    return 0;
}

/* --- polling --- */

static void poll_start (struct notice *n)
{
    int64_t now = util_now_ms ();

    if (n->x)
        return; /* the last poll still runs: no second one */
    if (n->provider == SPOTNOTICE_AWS
        && (!n->token_ms || now - n->token_ms > NOTICE_TOKEN_TTL * 1000 / 2))
        (void)xfer_start (n, XFER_TOKEN);
    else
        (void)xfer_start (n, XFER_DOC);
}

static void on_poll (struct loop *l, void *arg)
{
    poll_start (arg);
}

/* scheme://host[:port] of url with path. */
static int token_url_of (const char *url, char *buf, size_t len)
{
    const char *p = strstr (url, "://");
    size_t n;

    if (!p)
        return -1;
    p += 3;
    n = (size_t)(p - url) + strcspn (p, "/?#");
    return snprintf (buf, len, "%.*s/latest/api/token", (int)n, url) < (int)len ? 0
                                                                                : -1;
}

struct notice *notice_create (struct worker *w, struct hpcq_error *err)
{
    struct notice *n = xzalloc (sizeof (*n));
    const char *prov = config_get (w->cfg, "notice_provider", NULL);
    const char *url = config_get (w->cfg, "notice_url", NULL);
    const char *turl = config_get (w->cfg, "notice_token_url", NULL);
    /* 1 s: the goal is a job running elsewhere within 5 s of the notice,
     * and the worst case is a whole interval before the notice is seen
     * (AWS advises 5 s, which alone would take all of it); the cost is
     * one small local HTTP request a second (bench/RESULTS.md). */
    const char *iv = config_get (w->cfg, "notice_interval", "1");
    double secs;

    n->w = w;
    n->provider = -1;
    n->resource = w->name;
    if (!prov && !url)
        return n;
    if (!prov || (n->provider = spotnotice_provider (prov)) < 0) {
        errprintf (err, "notice_provider '%s': aws, gcp or azure", prov ? prov : "");
        goto error;
    }
    if (!url || (strncmp (url, "http://", 7) && strncmp (url, "https://", 8))
        || snprintf (n->url, sizeof (n->url), "%s", url) >= (int)sizeof (n->url)) {
        errprintf (err,
                   "notice_url '%s': an http:// or https:// URL is required with "
                   "notice_provider",
                   url ? url : "");
        goto error;
    }
    if (turl ? snprintf (n->token_url, sizeof (n->token_url), "%s", turl)
                   >= (int)sizeof (n->token_url)
             : token_url_of (n->url, n->token_url, sizeof (n->token_url)) < 0) {
        errprintf (err, "notice_token_url: cannot make one from '%s'", url);
        goto error;
    }
    if (util_parse_double (iv, 0.05, 3600, &secs) < 0) {
        errprintf (err, "notice_interval '%s': seconds from 0.05 to 3600", iv);
        goto error;
    }
    n->interval_ms = (int64_t)(secs * 1000);
    if (curl_global_init (CURL_GLOBAL_DEFAULT) != CURLE_OK
        || !(n->multi = curl_multi_init ())) {
        errprintf (err, "libcurl: cannot initialize");
        goto error;
    }
    curl_multi_setopt (n->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt (n->multi, CURLMOPT_SOCKETDATA, n);
    curl_multi_setopt (n->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt (n->multi, CURLMOPT_TIMERDATA, n);
    if (!(n->poll = loop_timer_add (w->loop, 0, n->interval_ms, on_poll, n))) {
        errprintf (err, "event loop: %s", strerror (errno));
        goto error;
    }
    log_msg (LOG_INFO, "watching for %s spot notices at %s every %g s", prov, n->url,
             secs);
    return n;
error:
    notice_destroy (n);
    return NULL;
}

void notice_destroy (struct notice *n)
{
    if (!n)
        return;
    loop_timer_remove (n->poll);
    xfer_free (n, n->x);
    if (n->curl_timer)
        loop_timer_remove (n->curl_timer);
    if (n->multi) {
        curl_multi_cleanup (n->multi);
        curl_global_cleanup ();
    }
    free (n);
}

/* qstat_alt.c - see qstat_alt.h */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/qstat_alt.h"
#include "common/client.h"
#include "common/util.h"

/* PBS Pro's widths: narrow (80 columns) and wide (-w). */
struct widths {
    int id, user, queue, name, sess, nds, tsk;
};
static const struct widths narrow = { 15, 8, 8, 10, 6, 3, 3 };
static const struct widths wide = { 30, 15, 15, 15, 8, 4, 5 };

#define LINE_LIMIT 78 /* -n: host lists break past this */

struct view_state {
    const struct qstat_view *v;
    const struct widths *w;
    int header_done;
    json_t *missing;
    /* -T: the jobs, sorted before printing as PBS sorts them (running
     * ones first by start, then by estimated start); held whole. */
    json_t *sorted;
    char *server; /* the first reply's, for the header */
};

int qstat_view_wanted (const struct qstat_view *v)
{
    return v->alt || v->arrays;
}

static const char *str_of (json_t *o, const char *key)
{
    return json_string_value (json_object_get (o, key));
}

static const char *dash_if_null (const char *s)
{
    return s ? s : "--";
}

/* An attribute as text (integers too), or NULL. */
static const char *text_of (json_t *o, const char *key, char *buf, size_t len)
{
    json_t *v = json_object_get (o, key);

    if (json_is_integer (v)) {
        snprintf (buf, len, "%lld", (long long)json_integer_value (v));
        return buf;
    }
    return json_string_value (v);
}

/* A value cut to n columns ends in '*', as PBS marks it. */
static void cut (char *dst, size_t len, const char *src, int n)
{
    snprintf (dst, len, "%s", src ? src : "--");
    if ((int)strlen (dst) > n && n > 0)
        dst[n - 1] = '*';
}

static void print_header (struct view_state *s, const char *server)
{
    const struct widths *w = s->w;
    int lead = w->id + w->user + w->queue + w->name + w->sess + w->nds + w->tsk + 7;
    static const char dash[] = "------------------------------";

    printf ("\n%s: \n", server ? server : "");
    if (s->v->est)
        printf ("%*s%s\n", lead + 15, "", "Est");
    printf ("%*s%-7s%-8s%s\n", lead, "", "Req'd", "Req'd",
            s->v->est ? "Start" : "Elap");
    printf ("%-*s %-*s %-*s %-*s %-*s %-*s %-*s Memory Time  S Time\n", w->id, "Job ID",
            w->user, "Username", w->queue, "Queue", w->name, "Jobname", w->sess,
            "SessID", w->nds, "NDS", w->tsk, "TSK");
    printf ("%.*s %.*s %.*s %.*s %.*s %.*s %.*s ------ ----- - -----\n", w->id, dash,
            w->user, dash, w->queue, dash, w->name, dash, w->sess, dash, w->nds, dash,
            w->tsk, dash);
}

/* The estimated start as PBS's -T shows it: "--" if none or past; today
 * HH:MM; within a week the day and hour ("Tu 15"); this year the month;
 * within five years the year; then ">5yrs". */
/* A time as the scheduler writes it (ctime), or -1. */
static time_t ctime_parse (const char *when)
{
    struct tm tm = { 0 };

    if (!when || !strptime (when, "%a %b %e %H:%M:%S %Y", &tm))
        return -1;
    tm.tm_isdst = -1;
    return mktime (&tm);
}

static void est_text (const char *when, char *buf, size_t len)
{
    struct tm est, now;
    time_t t = time (NULL), start = ctime_parse (when);

    snprintf (buf, len, "--");
    if (start < t)
        return;
    localtime_r (&t, &now);
    localtime_r (&start, &est);
    if (now.tm_year == est.tm_year && now.tm_yday == est.tm_yday)
        strftime (buf, len, "%H:%M", &est);
    else if (start - t < 7 * 86400) {
        char day[16], hour[8];
        strftime (day, sizeof (day), "%a", &est);
        strftime (hour, sizeof (hour), "%H", &est);
        snprintf (buf, len, "%2.2s %s", day, hour);
    } else if (now.tm_year == est.tm_year)
        strftime (buf, len, "%b", &est);
    else if (est.tm_year - now.tm_year < 5)
        strftime (buf, len, "%Y", &est);
    else
        snprintf (buf, len, ">5yrs");
}

/* exec_host's hosts, "+"-joined, short names: on the job's line (-1) or
 * under it, broken before LINE_LIMIT. */
static void print_hosts (const char *hosts, int oneline)
{
    char *copy = xstrdup (hosts ? hosts : ""), *save = NULL, *h;
    char line[LINE_LIMIT + 2];
    size_t used = 0;

    line[0] = '\0';
    for (h = strtok_r (copy, "+", &save); h; h = strtok_r (NULL, "+", &save)) {
        size_t n = strlen (h);
        if (!oneline && used && used + n + 1 > LINE_LIMIT) {
            printf ("   %s\n", line);
            used = 0;
            line[0] = '\0';
        }
        if (oneline) {
            printf ("%s%s", used ? "+" : "", h);
            used += n + 1;
            continue;
        }
        used +=
            snprintf (line + used, sizeof (line) - used, "%s%s", used ? "+" : "", h);
        if (used >= sizeof (line))
            used = sizeof (line) - 1;
    }
    if (oneline)
        printf ("\n");
    else if (used)
        printf ("   %s\n", line);
    free (copy);
}

static int state_wanted (const struct qstat_view *v, json_t *job)
{
    const char *st = str_of (job, "job_state");
    char c = st ? st[0] : '?';

    if (v->only_finished && c != 'F')
        return 0;
    if (v->running && !strchr ("RSE", c))
        return 0;
    if (v->idle && !strchr ("QHW", c))
        return 0;
    if (v->arrays && !json_object_get (job, "array")
        && !json_object_get (job, "array_id"))
        return 0;
    return 1;
}

/* -J without -a: the default table, of arrays only. */
static void print_default_row (struct view_state *s, const char *id, json_t *job)
{
    int w = s->v->wide ? 30 : 16;
    json_t *ru = json_object_get (job, "resources_used");
    const char *owner = str_of (job, "Job_Owner"), *cput = str_of (ru, "cput");
    char user[256];

    if (!s->header_done++) {
        printf ("%-*s  %-*s %-*s  %8s %s %s\n", w, "Job id", w, "Name", w, "User",
                "Time Use", "S", "Queue");
        printf ("%.*s  %.*s %.*s  -------- - -----\n", w,
                "------------------------------", w, "------------------------------",
                w, "------------------------------");
    }
    snprintf (user, sizeof (user), "%s", owner ? owner : "");
    user[strcspn (user, "@")] = '\0';
    printf ("%-*.*s  %-*.*s %-*.*s  %8s %s %s\n", w, w, id, w, w,
            str_of (job, "Job_Name") ? str_of (job, "Job_Name") : "", w, w, user,
            cput ? cput : "0", str_of (job, "job_state"), str_of (job, "queue"));
}

static void print_alt_row (struct view_state *s, const char *server, const char *id,
                           json_t *job)
{
    const struct widths *w = s->w;
    json_t *rl = json_object_get (job, "Resource_List");
    json_t *ru = json_object_get (job, "resources_used");
    json_t *est = json_object_get (job, "estimated");
    const char *st = str_of (job, "job_state"), *comment = str_of (job, "comment");
    char jid[256], owner[256], user[256], queue[256], name[256], sess[32], nds[32];
    char tsk[32], mem[32], rtime[32], etime[32], num[32];

    if (!s->header_done++)
        print_header (s, server);
    cut (jid, sizeof (jid), id, w->id);
    snprintf (owner, sizeof (owner), "%s", dash_if_null (str_of (job, "Job_Owner")));
    owner[strcspn (owner, "@")] = '\0';
    cut (user, sizeof (user), owner, w->user);
    cut (queue, sizeof (queue), str_of (job, "queue"), w->queue);
    cut (name, sizeof (name), str_of (job, "Job_Name"), w->name);
    cut (sess, sizeof (sess), text_of (job, "session_id", num, sizeof (num)), w->sess);
    cut (nds, sizeof (nds), text_of (rl, "nodect", num, sizeof (num)), w->nds);
    cut (tsk, sizeof (tsk), text_of (rl, "ncpus", num, sizeof (num)), w->tsk);
    snprintf (mem, sizeof (mem), "%s", dash_if_null (str_of (rl, "mem")));
    snprintf (rtime, sizeof (rtime), "%s", dash_if_null (str_of (rl, "walltime")));
    if (!s->v->est)
        snprintf (etime, sizeof (etime), "%s", dash_if_null (str_of (ru, "walltime")));
    else if (st && strchr ("QSB", st[0])) /* PBS estimates these only */
        est_text (str_of (est, "start_time"), etime, sizeof (etime));
    else
        snprintf (etime, sizeof (etime), "--");
    printf ("%-*.*s %-*.*s %-*.*s %-*.*s %*.*s %*.*s %*.*s %6.6s %5.5s %1.1s %5.5s",
            w->id, w->id, jid, w->user, w->user, user, w->queue, w->queue, queue,
            w->name, w->name, name, w->sess, w->sess, sess, w->nds, w->nds, nds, w->tsk,
            w->tsk, tsk, mem, rtime, st ? st : "?", etime);
    if (s->v->nodes && s->v->oneline) {
        printf (" ");
        print_hosts (dash_if_null (str_of (job, "exec_host")), 1);
    } else {
        printf ("\n");
        if (s->v->nodes)
            print_hosts (dash_if_null (str_of (job, "exec_host")), 0);
    }
    if (s->v->comment && comment && comment[0]) {
        int max = s->v->wide ? 114 : 74;
        if ((int)strlen (comment) > max)
            printf ("   %.*s...\n", max - 3, comment);
        else
            printf ("   %s\n", comment);
    }
}

static void show_chunk (json_t *reply, void *arg)
{
    struct view_state *s = arg;
    const char *server = str_of (reply, "server"), *id;
    json_t *job;

    if (!s->missing)
        s->missing = json_incref (reply);
    json_object_foreach (json_object_get (reply, "jobs"), id, job)
    {
        if (!state_wanted (s->v, job))
            continue;
        if (s->sorted) /* -T: printed once all are in */
            json_array_append_new (
                s->sorted,
                json_pack ("{s:s s:O s:I s:I s:i}", "id", id, "job", job, "stime",
                           (json_int_t)ctime_parse (str_of (job, "stime")), "est",
                           (json_int_t)ctime_parse (str_of (
                               json_object_get (job, "estimated"), "start_time")),
                           "n", (int)json_array_size (s->sorted)));
        else if (s->v->alt)
            print_alt_row (s, server, id, job);
        else
            print_default_row (s, id, job);
    }
    if (!s->server && server)
        s->server = xstrdup (server);
}

static json_int_t int_of (json_t *o, const char *key)
{
    return json_integer_value (json_object_get (o, key));
}

/* PBS's -T order (OpenPBS qstat.c cmp_est_time): started jobs first, by
 * start time; then by estimated start, those without one last; else as
 * they came. */
static int cmp_est (const void *pa, const void *pb)
{
    json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    json_int_t sa = int_of (a, "stime"), sb = int_of (b, "stime");
    json_int_t ea = int_of (a, "est"), eb = int_of (b, "est");
    const char *st_a = str_of (json_object_get (a, "job"), "job_state");
    const char *st_b = str_of (json_object_get (b, "job"), "job_state");
    int ra = st_a && strchr ("RSE", st_a[0]), rb = st_b && strchr ("RSE", st_b[0]);

    if (ra != rb)
        return rb - ra;
    if (ra && sa != sb)
        return sa < sb ? -1 : 1;
    if (!ra && ea != eb) {
        if (ea < 0 || eb < 0)
            return ea < 0 ? 1 : -1;
        return ea < eb ? -1 : 1;
    }
    return int_of (a, "n") < int_of (b, "n") ? -1 : 1;
}

static void print_sorted (struct view_state *s)
{
    size_t n = json_array_size (s->sorted);
    json_t **v = n ? xzalloc (n * sizeof (*v)) : NULL;

    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get (s->sorted, i);
    if (n)
        qsort (v, n, sizeof (*v), cmp_est);
    for (size_t i = 0; i < n; i++)
        print_alt_row (s, s->server, str_of (v[i], "id"),
                       json_object_get (v[i], "job"));
    free (v);
}

void qstat_view_show (const struct qstat_view *v, json_t *body, json_t **missing)
{
    struct view_state s = { .v = v, .w = v->wide ? &wide : &narrow };
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);

    if (v->est && v->alt)
        s.sorted = json_array ();
    if (!c || client_rpc_stream (c, "job.stat", body, show_chunk, &s, &err) < 0) {
        fprintf (stderr, "qstat: %s\n", err.text);
        exit (1);
    }
    client_destroy (c);
    if (s.sorted)
        print_sorted (&s);
    json_decref (s.sorted);
    free (s.server);
    *missing = s.missing;
}

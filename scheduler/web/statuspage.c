/* statuspage.c - see statuspage.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "scheduler/array.h"
#include "scheduler/job_attr.h"
#include "scheduler/job_counts.h"
#include "scheduler/jobs.h"
#include "scheduler/node_admin.h"
#include "scheduler/nodes.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/queue.h"
#include "scheduler/web/api.h"
#include "scheduler/web/api_query.h"
#include "scheduler/web/html.h"
#include "scheduler/web/statuspage.h"
#include "scheduler/web/www/status_html.h" /* generated: statuspage_html[] */

/* Where the rendered page goes in status.html. */
#define PAGE_MARK "<!--@page-->"
/* Waiting and running jobs shown (a page is made in one loop turn); the
 * queue table has the counts. */
#define PAGE_WAITING 200
#define PAGE_RUNNING 1000
#define PAGE_EVENTS 15

/* One request's view: who asks and what they filter by. */
struct page {
    struct http_req *r;
    struct server *srv;
    FILE *f;
    struct api_query q; /* user= and state= (api_query.h) */
    const char *queue;  /* queue=, NULL for all */
    int64_t now;
};

/* The user part of an owner ("alice@host"). */
static int owner_is (const char *owner, const char *user)
{
    size_t n = strcspn (owner, "@");

    return strlen (user) == n && strncmp (owner, user, n) == 0;
}

static int page_wants (const struct page *p, const struct job *job)
{
    char st = job_state_display (job);

    if (p->q.user[0] && !owner_is (job->rec.owner, p->q.user))
        return 0;
    if (p->queue && strcmp (job->rec.queue, p->queue) != 0)
        return 0;
    return !p->q.states[0] || strchr (p->q.states, st)
           || strchr (p->q.states, job->rec.state);
}

static const char *str_of (json_t *o, const char *key)
{
    const char *s = json_string_value (json_object_get (o, key));
    return s ? s : "";
}

static void td_text (FILE *f, const char *s)
{
    fputs ("<td>", f);
    html_text (f, s);
    fputs ("</td>", f);
}

/* A link to the job's own view, keeping the page's other arguments out
 * (they filter lists; the detail is one job). */
static void td_job (FILE *f, const char *id)
{
    fputs ("<td><a href=\"?job=", f);
    html_url (f, id);
    fputs ("\">", f);
    html_text (f, id);
    fputs ("</a></td>", f);
}

/* ---- queues and the header ---------------------------------------------- */

/* The counts of job_counts.h: every job and subjob in its state, the
 * numbers /metrics shows; the header adds up the rows shown, so the two
 * cannot disagree. */
static void page_queues (struct page *p, int totals[JOB_COUNTS_NSTATES])
{
    const struct job_counts *jc = jobs_counts (p->srv->jobs);
    int n;
    struct queue **all = queue_all (p->srv->queues, &n);
    FILE *f = p->f;

    fputs ("<section id=\"queues-section\"><h2>Queues</h2><div class=\"scroll\">"
           "<table id=\"queues\"><thead><tr><th>Queue</th><th>Enabled</th>"
           "<th>Started</th>",
           f);
    for (int s = 0; s < JOB_COUNTS_NSTATES; s++)
        fprintf (f, "<th>%c%s</th>", job_counts_state_names[s][0] - 'a' + 'A',
                 job_counts_state_names[s] + 1);
    fputs ("<th>Total</th></tr></thead><tbody>", f);
    for (int i = 0; i < n; i++) {
        const struct queue *q = all[i];
        int total = 0;
        if (p->queue && strcmp (q->rec.name, p->queue) != 0)
            continue;
        fputs ("<tr class=\"queue\" data-name=\"", f);
        html_text (f, q->rec.name);
        fputs ("\">", f);
        td_text (f, q->rec.name);
        td_text (f, q->rec.enabled ? "True" : "False");
        td_text (f, q->rec.started ? "True" : "False");
        for (int s = 0; s < JOB_COUNTS_NSTATES; s++) {
            int c = job_counts_get (jc, q->rec.name, job_counts_states[s]);
            totals[s] += c;
            total += c;
            fprintf (f, "<td>%d</td>", c);
        }
        fprintf (f, "<td>%d</td></tr>", total);
    }
    fputs ("</tbody></table></div></section>", f);
}

static int state_total (const int totals[JOB_COUNTS_NSTATES], const char *states)
{
    int sum = 0;

    for (int s = 0; s < JOB_COUNTS_NSTATES; s++)
        if (strchr (states, job_counts_states[s]))
            sum += totals[s];
    return sum;
}

static void page_summary (struct page *p, const int totals[JOB_COUNTS_NSTATES])
{
    int nnodes, running = state_total (totals, "RES"),
                waiting = state_total (totals, "QHW");

    (void)nodes_all (p->srv->nodes, &nnodes);
    fprintf (p->f,
             "<span id=\"summary\" class=\"dim\" data-running=\"%d\" "
             "data-waiting=\"%d\">%d running, %d waiting, %d nodes</span>",
             running, waiting, running, waiting, nnodes);
    fputs ("<span id=\"updated\" class=\"dim\">updated ", p->f);
    html_time (p->f, p->now);
    fputs ("</span>", p->f);
}

/* ---- nodes -------------------------------------------------------------- */

static void cells (FILE *f, int n, int used, const char *kind)
{
    fputs ("<div class=\"cells\">", f);
    for (int i = 0; i < n; i++)
        fprintf (f, "<span class=\"cell %s%s\"></span>", kind, i < used ? " used" : "");
    fputs ("</div>", f);
}

/* PBS says "free" of a node with a core left ("the free state is the
 * absence of all other states", pbsnodes(8B); job-busy only once every
 * CPU is assigned); a person reads "free" as idle, so a node in use but
 * not full is badged so.  data-state keeps PBS's word. */
static const char *node_badge (json_t *n)
{
    const char *state = str_of (n, "state");
    json_int_t used = json_integer_value (json_object_get (n, "ncpus_used"));
    json_int_t gused = json_integer_value (json_object_get (n, "ngpus_used"));

    if (strcmp (state, "free") == 0 && (used > 0 || gused > 0))
        return "partly busy";
    return state;
}

static void node_gpus (FILE *f, json_t *gpus)
{
    int whole = 0, whole_used = 0, simulated = 0;
    size_t i;
    json_t *g;

    json_array_foreach (gpus, i, g)
    {
        if (json_array_size (json_object_get (g, "mig")))
            continue;
        whole++;
        whole_used += json_is_true (json_object_get (g, "used"));
        simulated |= json_is_true (json_object_get (g, "simulated"));
    }
    if (whole) {
        fprintf (f, "<div class=\"label\">GPUs %d/%d%s</div><div class=\"cells\">",
                 whole_used, whole, simulated ? " (simulated)" : "");
        json_array_foreach (gpus, i,
                            g) if (!json_array_size (json_object_get (g, "mig")))
            fprintf (f, "<span class=\"cell gpu%s\"></span>",
                     json_is_true (json_object_get (g, "used")) ? " used" : "");
        fputs ("</div>", f);
    }
    json_array_foreach (gpus, i, g)
    {
        json_t *migs = json_object_get (g, "mig"), *m;
        size_t k;
        int used = 0;
        if (!json_array_size (migs))
            continue;
        json_array_foreach (migs, k, m) used +=
            json_is_true (json_object_get (m, "used"));
        fprintf (f,
                 "<div class=\"label\">GPU %lld MIG %d/%zu</div><div class=\"cells\">",
                 (long long)json_integer_value (json_object_get (g, "index")), used,
                 json_array_size (migs));
        json_array_foreach (migs, k, m)
        {
            fprintf (f, "<span class=\"cell mig%s\" title=\"",
                     json_is_true (json_object_get (m, "used")) ? " used" : "");
            html_text (f, str_of (m, "profile"));
            fputs ("\"></span>", f);
        }
        fputs ("</div>", f);
    }
}

static void page_node (FILE *f, json_t *n)
{
    const char *badge = node_badge (n);
    json_int_t ncpus = json_integer_value (json_object_get (n, "ncpus"));
    json_int_t used = json_integer_value (json_object_get (n, "ncpus_used"));
    json_t *jobs = json_object_get (n, "jobs"), *j;
    size_t i;

    fputs ("<div class=\"node\" data-name=\"", f);
    html_text (f, str_of (n, "name"));
    fputs ("\" data-state=\"", f);
    html_text (f, str_of (n, "state"));
    fputs ("\" data-badge=\"", f);
    html_text (f, badge);
    fprintf (f,
             "\" data-cpus=\"%lld\" data-cpus-used=\"%lld\" data-gpus=\"%lld\" "
             "data-gpus-used=\"%lld\"><div><span class=\"name\">",
             (long long)ncpus, (long long)used,
             (long long)json_integer_value (json_object_get (n, "ngpus")),
             (long long)json_integer_value (json_object_get (n, "ngpus_used")));
    html_text (f, str_of (n, "name"));
    fputs ("</span><span class=\"badge ", f);
    html_text (f, strcmp (badge, "partly busy") == 0 ? "partly" : badge);
    fputs ("\">", f);
    html_text (f, badge);
    fprintf (f, "</span></div><div class=\"label\">cores %lld/%lld</div>",
             (long long)used, (long long)ncpus);
    cells (f, (int)ncpus, (int)used, "cpu");
    node_gpus (f, json_object_get (n, "gpus"));
    if (json_array_size (jobs)) {
        fputs ("<div class=\"label\">jobs:", f);
        json_array_foreach (jobs, i, j)
        {
            fputs (" <a href=\"?job=", f);
            html_url (f, json_string_value (j));
            fputs ("\">", f);
            html_text (f, json_string_value (j));
            fputs ("</a>", f);
        }
        fputs ("</div>", f);
    }
    if (*str_of (n, "comment")) {
        fputs ("<div class=\"label\">", f);
        html_text (f, str_of (n, "comment"));
        fputs ("</div>", f);
    }
    fputs ("</div>", f);
}

static void page_nodes (struct page *p)
{
    json_t *map = node_admin_jobs_map (p->srv);
    int n, shown = 0;
    struct node **all = nodes_all (p->srv->nodes, &n);

    fputs ("<section id=\"nodes-section\"><h2>Nodes</h2><div id=\"nodes\" "
           "class=\"grid\">",
           p->f);
    for (int i = 0; map && i < n; i++) {
        json_t *o;
        if (all[i]->ncpus <= 0 || !(o = node_admin_json (all[i], map)))
            continue;
        page_node (p->f, o);
        json_decref (o);
        shown++;
    }
    if (!shown)
        fputs ("<span class=\"empty\">no nodes</span>", p->f);
    fputs ("</div></section>", p->f);
    json_decref (map);
}

/* ---- jobs --------------------------------------------------------------- */

/* The requested ncpus and walltime (Resource_List), and where it runs. */
static void job_resources (FILE *f, json_t *a, int hosts)
{
    json_t *rl = json_object_get (a, "Resource_List");
    json_t *ncpus = json_object_get (rl, "ncpus");

    if (json_is_integer (ncpus))
        fprintf (f, "<td>%lld</td>", (long long)json_integer_value (ncpus));
    else
        td_text (f, json_string_value (ncpus));
    if (hosts) {
        /* exec_host "node1/0*2+node2/0*2": the hosts, once each. */
        char *eh = xstrdup (str_of (a, "exec_host")), *save = NULL, *t;
        fputs ("<td>", f);
        for (t = strtok_r (eh, "+", &save); t; t = strtok_r (NULL, "+", &save)) {
            t[strcspn (t, "/")] = '\0';
            html_text (f, t);
            fputs (save && *save ? " " : "", f);
        }
        fputs ("</td>", f);
        free (eh);
    }
    td_text (f, str_of (rl, "walltime"));
}

/* One row; the attributes are the ones qstat shows the caller of it
 * (job_attr_public for another user's job unless they may see more). */
static void page_job_row (struct page *p, const struct job *job, int running)
{
    FILE *f = p->f;
    char st = job_state_display (job);
    json_t *a = job_attr_public (p->srv, job);

    if (!a)
        return;
    fputs ("<tr class=\"job\" data-id=\"", f);
    html_text (f, job->id);
    fprintf (f, "\" data-state=\"%c\">", st);
    td_job (f, job->id);
    td_text (f, str_of (a, "Job_Name"));
    fputs ("<td>", f);
    fwrite (job->rec.owner, 1, strcspn (job->rec.owner, "@"), f);
    fputs ("</td>", f);
    td_text (f, job->rec.queue);
    fprintf (f, "<td class=\"state\">%c</td>", st);
    job_resources (f, a, running);
    fputs ("<td>", f);
    if (running) {
        html_time (f, job->rec.stime);
        fputs ("</td><td class=\"elapsed\">", f);
        if (job->rec.stime > 0)
            html_duration (f, p->now - job->rec.stime);
    } else {
        if (job->est_start > 0)
            html_time (f, job->est_start);
        fputs ("</td><td class=\"wrap why\">", f);
        html_text (f, str_of (a, "comment"));
    }
    fputs ("</td></tr>", f);
    json_decref (a);
}

static void table_start (FILE *f, const char *id, const char *title,
                         const char *const *cols)
{
    fprintf (f,
             "<section id=\"%s-section\"><h2>%s</h2><div class=\"scroll\">"
             "<table id=\"%s\"><thead><tr>",
             id, title, id);
    for (int i = 0; cols[i]; i++)
        fprintf (f, "<th>%s</th>", cols[i]);
    fputs ("</tr></thead><tbody>", f);
}

static void table_end (FILE *f, int rows, int ncols, const char *empty)
{
    if (!rows)
        fprintf (f, "<tr><td class=\"empty\" colspan=\"%d\">%s</td></tr>", ncols,
                 empty);
    fputs ("</tbody></table></div></section>", f);
}

/* By job id: seq, then a subjob's index in its array. */
static int by_id (const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a,
                     *y = *(const struct job *const *)b;
    int64_t sx = x->parent ? x->parent->rec.seq : x->rec.seq,
            sy = y->parent ? y->parent->rec.seq : y->rec.seq;

    if (sx != sy)
        return sx < sy ? -1 : 1;
    return (x->array_index > y->array_index) - (x->array_index < y->array_index);
}

static void page_more (FILE *f, int shown, int span)
{
    fprintf (f,
             "<tr class=\"more\"><td>&#8230;</td><td colspan=\"%d\">the first %d "
             "shown; the queue table has the counts</td></tr>",
             span, shown);
}

struct job_vec {
    struct job **v;
    int n, cap;
};

static void vec_push (struct job_vec *jv, struct job *j)
{
    if (jv->n == jv->cap)
        jv->v = xrealloc (jv->v, (jv->cap = jv->cap ? 2 * jv->cap : 64) * sizeof (j));
    jv->v[jv->n++] = j;
}

/* Running, exiting and suspended jobs and subjobs (as many as the cluster
 * holds), by id. */
static void page_running (struct page *p)
{
    static const char *const cols[] = { "Job",     "Name",    "User",  "Queue",
                                        "State",   "Cores",   "Nodes", "Walltime",
                                        "Started", "Elapsed", NULL };
    struct job *j;
    struct job_vec jv = { 0 };

    LIST_FOREACH (j, jobs_running (p->srv->jobs), r_link)
    if (page_wants (p, j))
        vec_push (&jv, j);
    LIST_FOREACH (j, jobs_suspended (p->srv->jobs), s_link)
    if (page_wants (p, j))
        vec_push (&jv, j);
    if (jv.n)
        qsort (jv.v, jv.n, sizeof (*jv.v), by_id);
    table_start (p->f, "running", "Running jobs", cols);
    for (int i = 0; i < jv.n && i < PAGE_RUNNING; i++)
        page_job_row (p, jv.v[i], 1);
    if (jv.n > PAGE_RUNNING)
        page_more (p->f, PAGE_RUNNING, 9);
    table_end (p->f, jv.n, 10, "none running");
    free (jv.v);
}

/* Not started: Q, H, W (or in transit); or an array that has begun (B)
 * with subjobs still to start. */
static int page_waits (struct job *job)
{
    char st = job_state_display (job);

    if (strchr ("QHWT", st))
        return 1;
    return st == 'B' && job->arr && strchr ("QH", array_untouched_state (job))
           && array_next_untouched (job->arr, 0) >= 0;
}

static void page_waiting (struct page *p)
{
    static const char *const cols[] = { "Job",   "Name",  "User",     "Queue",
                                        "State", "Cores", "Walltime", "Est. start",
                                        "Why",   NULL };
    int n, rows = 0;
    struct job **all = jobs_all (p->srv->jobs, &n);

    table_start (p->f, "waiting", "Waiting jobs", cols);
    /* An array is one row (its subjobs are counted in the queue table). */
    for (int i = 0; i < n; i++) {
        if (!page_waits (all[i]) || !page_wants (p, all[i]))
            continue;
        if (rows == PAGE_WAITING) {
            fprintf (
                p->f,
                "<tr class=\"more\"><td>&#8230;</td><td colspan=\"8\">the first %d "
                "shown; the queue table has the counts</td></tr>",
                PAGE_WAITING);
            break;
        }
        page_job_row (p, all[i], 0);
        rows++;
    }
    table_end (p->f, rows, 9, "none waiting");
}

static void page_events (struct page *p)
{
    static const char *const cols[] = { "Time",  "Job",    "Event", "By",
                                        "State", "Detail", NULL };
    json_t *list = api_events_list (p->r, PAGE_EVENTS), *e;
    size_t i;
    FILE *f = p->f;

    table_start (f, "events", "Recent events", cols);
    json_array_foreach (list, i, e)
    {
        fputs ("<tr class=\"event\" data-job=\"", f);
        html_text (f, str_of (e, "job"));
        fputs ("\"><td>", f);
        html_time (f, json_integer_value (json_object_get (e, "time")));
        fputs ("</td>", f);
        td_job (f, str_of (e, "job"));
        td_text (f, str_of (e, "type"));
        td_text (f, str_of (e, "actor"));
        fputs ("<td>", f);
        html_text (f, *str_of (e, "old_state") ? str_of (e, "old_state") : "-");
        fputs (" &#8594; ", f);
        html_text (f, *str_of (e, "new_state") ? str_of (e, "new_state") : "-");
        fputs ("</td><td class=\"wrap\">", f);
        html_text (f, str_of (e, "detail"));
        fputs ("</td></tr>", f);
    }
    table_end (f, (int)json_array_size (list), 6, list ? "no events" : "cannot read");
    json_decref (list);
}

/* ---- one job ------------------------------------------------------------ */

/* The attributes holding a time, as the job's record has it: shown in the
 * page's one format, not ctime's. */
static int64_t attr_time (const struct job *job, const char *key)
{
    if (!strcmp (key, "ctime") || !strcmp (key, "qtime") || !strcmp (key, "etime"))
        return job->rec.ctime;
    if (!strcmp (key, "mtime"))
        return job->rec.mtime;
    if (!strcmp (key, "stime"))
        return job->rec.stime;
    if (!strcmp (key, "obittime"))
        return job->rec.etime;
    if (!strcmp (key, "estimated.start_time"))
        return job->est_start;
    return -1;
}

/* qstat -f's lines as a table: "Resource_List.ncpus" for a nested one. */
static void attr_rows (FILE *f, const struct job *job, const char *prefix, json_t *o)
{
    const char *key;
    json_t *v;

    json_object_foreach (o, key, v)
    {
        char name[256];
        int64_t t;
        snprintf (name, sizeof (name), "%s%s%s", prefix, *prefix ? "." : "", key);
        if (json_is_object (v)) {
            attr_rows (f, job, name, v);
            continue;
        }
        fputs ("<tr class=\"attr\" data-name=\"", f);
        html_text (f, name);
        fputs ("\"><th>", f);
        html_text (f, name);
        fputs ("</th><td class=\"wrap\">", f);
        if ((t = attr_time (job, name)) > 0)
            html_time (f, t);
        else if (json_is_string (v))
            html_text (f, json_string_value (v));
        else {
            char *text = json_dumps (v, JSON_ENCODE_ANY | JSON_COMPACT);
            html_text (f, text);
            free (text);
        }
        fputs ("</td></tr>", f);
    }
}

/* ?job=ID: what qstat -f shows the caller of it, and no more (the API's
 * and qstat's rule, http_job_view). 0, or 404 when there is no such job. */
static int page_job (struct page *p, const char *id)
{
    struct job scratch;
    int pos;
    struct job *job = jobs_find_pos (p->srv->jobs, id, &pos);
    const struct job *seen =
        job && pos >= 0 ? jobs_subjob_view (p->srv->jobs, job, pos, &scratch, 1) : job;
    int full;
    json_t *a;
    FILE *f = p->f;

    fputs ("<section id=\"job-section\"><h2>Job ", f);
    html_text (f, seen ? seen->id : id);
    fputs (" <a class=\"dim\" href=\"?\">all jobs</a></h2>", f);
    if (!seen) {
        fputs ("<p class=\"error\" id=\"job-error\">Unknown Job Id ", f);
        html_text (f, id);
        fputs ("</p></section>", f);
        return -1;
    }
    full = http_job_view (p->r, seen->rec.uid) == HTTP_VIEW_FULL;
    a = full ? job_attr_json (p->srv, seen) : job_attr_public (p->srv, seen);
    fprintf (f, "<p class=\"label\" id=\"job-view\" data-view=\"%s\">%s</p>",
             full ? "full" : "public",
             full ? "All of qstat -f."
                  : "Another user&#39;s job: what qstat -f shows of it to you "
                    "(its environment, arguments, paths, account and mail are "
                    "its owner&#39;s, operators&#39; and managers&#39;).");
    fputs ("<div class=\"scroll\"><table id=\"attrs\"><tbody>", f);
    if (a)
        attr_rows (f, seen, "", a);
    fputs ("</tbody></table></div></section>", f);
    json_decref (a);
    return 0;
}

/* ---- the page ----------------------------------------------------------- */

/* The filters: a plain GET form, so it works without script too. */
static void page_filters (struct page *p)
{
    static const struct {
        const char *value, *label;
    } states[] = {
        { "", "any state" },        { "R,E", "running" },
        { "Q", "queued" },          { "H", "held" },
        { "W", "waiting" },         { "S", "suspended" },
        { "Q,H,W", "not started" },
    };
    const char *state = http_arg (p->r, "state");
    int n;
    struct queue **all = queue_all (p->srv->queues, &n);
    FILE *f = p->f;

    fputs ("<form id=\"filters\" method=\"get\" action=\"\"><label>User <input "
           "name=\"user\" size=\"10\" value=\"",
           f);
    html_text (f, p->q.user);
    fputs ("\"></label> <label>Queue <select name=\"queue\"><option value=\"\">any "
           "queue</option>",
           f);
    for (int i = 0; i < n; i++) {
        fputs ("<option", f);
        if (p->queue && !strcmp (p->queue, all[i]->rec.name))
            fputs (" selected", f);
        fputs (">", f);
        html_text (f, all[i]->rec.name);
        fputs ("</option>", f);
    }
    fputs ("</select></label> <label>State <select name=\"state\">", f);
    for (size_t i = 0; i < ARRAY_SIZE (states); i++) {
        fputs ("<option value=\"", f);
        html_text (f, states[i].value);
        fprintf (f, "\"%s>%s</option>",
                 (state ? !strcmp (state, states[i].value) : !*states[i].value)
                     ? " selected"
                     : "",
                 states[i].label);
    }
    fputs ("</select></label> <button type=\"submit\">Show</button></form>", f);
}

static void page_body (struct page *p, const char *job_id, int *status)
{
    int totals[JOB_COUNTS_NSTATES] = { 0 };
    FILE *f = p->f;
    char *main_text = NULL;
    size_t main_len = 0;
    FILE *saved = f;

    /* The sections first (the header sums the queue rows they show). */
    if (!(p->f = open_memstream (&main_text, &main_len))) {
        p->f = saved;
        return;
    }
    if (job_id && *job_id)
        *status = page_job (p, job_id) < 0 ? MHD_HTTP_NOT_FOUND : MHD_HTTP_OK;
    else {
        page_queues (p, totals);
        page_nodes (p);
        page_running (p);
        page_waiting (p);
        page_events (p);
    }
    fclose (p->f);
    p->f = saved;
    fputs ("<header><h1 id=\"server\">hpcq &#8212; ", f);
    html_text (f, p->srv->name);
    fputs ("</h1>", f);
    if (!job_id || !*job_id)
        page_summary (p, totals);
    fputs ("<span id=\"viewer\" class=\"dim\">", f);
    if (p->r->who.user[0]) {
        fputs ("as ", f);
        html_text (f, p->r->who.user);
    }
    fputs ("</span><span id=\"error\" class=\"error\"></span></header>", f);
    page_filters (p);
    fputs ("<main id=\"content\">", f);
    if (main_text)
        fwrite (main_text, 1, main_len, f);
    fputs ("</main>", f);
    free (main_text);
}

static int statuspage_get (struct http_req *r, void *arg)
{
    const char *mark = strstr (statuspage_html, PAGE_MARK);
    const char *queue = http_arg (r, "queue");
    struct page p = { .r = r, .srv = r->srv, .now = util_wall_secs () };
    struct hpcq_error err;
    int status = MHD_HTTP_OK;
    char *text = NULL;
    size_t len = 0;

    if (api_query_jobs (&p.q, http_arg (r, "user"), http_arg (r, "state"), NULL, NULL,
                        NULL, &err)
        < 0)
        return http_reply_error (r, MHD_HTTP_BAD_REQUEST, "%s", err.text);
    p.queue = queue && *queue ? queue : NULL;
    if (!mark || !(p.f = open_memstream (&text, &len)))
        return http_reply_error (r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    fwrite (statuspage_html, 1, (size_t)(mark - statuspage_html), p.f);
    page_body (&p, http_arg (r, "job"), &status);
    fputs (mark + strlen (PAGE_MARK), p.f);
    if (fclose (p.f) != 0) {
        free (text);
        return http_reply_error (r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    return http_reply (r, status, "text/html; charset=utf-8", text, len);
}

int statuspage_register (struct http *h)
{
    if (!h)
        return 0;
    return http_route (h, "/", 0, statuspage_get, NULL) < 0
                   || http_route (h, "/index.html", 0, statuspage_get, NULL) < 0
               ? -1
               : 0;
}

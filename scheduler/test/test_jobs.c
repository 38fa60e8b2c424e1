/* test_jobs.c - the scheduler's jobs in memory (scheduler/jobs.c) on a real
 * server: ids and lookups, the queued and running lists, arrays and their
 * lazily written subjobs, reloading after a restart, and allocations as
 * JSON and as PBS's exec_host/exec_vnode strings.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test/tap.h"
#include "common/util.h"
#include "scheduler/jobs.h"
#include "scheduler/nodes.h"
#include "scheduler/test/fixture.h"

static void test_parse_id (void)
{
    static const struct {
        const char *s;
        int64_t want;
    } cases[] = {
        { "42", 42 },
        { "42.fx", 42 },
        { "42.fx.example.org", 42 },
        { "7[3].fx", 7 },
        { "7[]", 7 },
        { "0", -1 },
        { "-3", -1 },
        { "42x", -1 },
        { "x42", -1 },
        { "", -1 },
        { "99999999999999999999", -1 },
    };

    for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
        ok (jobs_parse_id (cases[i].s) == cases[i].want,
            "jobs_parse_id (\"%s\") = %lld", cases[i].s, (long long)cases[i].want);
    ok (jobs_parse_id (NULL) == -1, "jobs_parse_id (NULL) = -1");
}

/* The queued list, in submission order, as "seq seq ...". */
static const char *queued (struct fixture *f, char *buf, size_t len)
{
    struct job *j;
    size_t off = 0;

    buf[0] = '\0';
    TAILQ_FOREACH (j, jobs_queued (f->srv->jobs), q_link)
    off += snprintf (buf + off, off < len ? len - off : 0, "%s%lld", off ? " " : "",
                     (long long)j->rec.seq);
    return buf;
}

static void test_lookup (struct fixture *f, struct fx_peer *u, int64_t *first)
{
    const char *const none[] = { NULL }, *const held[] = { "-h", NULL };
    int64_t a = fixture_submit (f, u, none), b = fixture_submit (f, u, held);
    int64_t c = fixture_submit (f, u, none);
    char buf[256], want[64];
    struct job *ja = jobs_lookup (f->srv->jobs, a);

    *first = a;
    ok (a > 0 && b == a + 1 && c == a + 2,
        "sequence numbers follow each other (%lld..%lld)", (long long)a, (long long)c);
    ok (ja && ja->rec.seq == a, "jobs_lookup finds a job by number");
    snprintf (want, sizeof (want), "%lld.fx", (long long)a);
    is (ja ? ja->id : "", want, "its id is NUM.SERVER");
    ok (jobs_find (f->srv->jobs, want) == ja, "jobs_find (\"%s\")", want);
    snprintf (want, sizeof (want), "%lld", (long long)a);
    ok (jobs_find (f->srv->jobs, want) == ja, "jobs_find (\"%s\"): the bare number",
        want);
    snprintf (want, sizeof (want), "%lld.fx.example.org", (long long)a);
    ok (jobs_find (f->srv->jobs, want) == ja,
        "jobs_find with a domain after the server");
    snprintf (want, sizeof (want), "%lld.other", (long long)a);
    ok (!jobs_find (f->srv->jobs, want), "a job of another server is not ours");
    snprintf (want, sizeof (want), "%lld.fxx", (long long)a);
    ok (!jobs_find (f->srv->jobs, want),
        "a server name that only starts like ours is not");
    ok (!jobs_lookup (f->srv->jobs, c + 1000) && !jobs_find (f->srv->jobs, "junk"),
        "unknown and malformed ids find nothing");
    snprintf (want, sizeof (want), "%lld %lld", (long long)a, (long long)c);
    is (queued (f, buf, sizeof (buf)), want,
        "the queued list: Q jobs in submission order, "
        "not the held one");
    ok (jobs_queued_count (f->srv->jobs) == 2
            && jobs_count_state (f->srv->jobs, 'H') == 1,
        "two queued, one held");
    ok (fixture_db_int (f, "SELECT count(*) FROM jobs") == 3
            && fixture_db_int (f, "SELECT value FROM server WHERE key = 'next_seq'")
                   == c + 1,
        "three rows, and next_seq stored");
}

static void test_array (struct fixture *f, struct fx_peer *u, int64_t *arrayp)
{
    const char *const opts[] = { "-J", "1-5:2", "-h", NULL };
    int64_t seq = fixture_submit (f, u, opts);
    char id[64], uuid[40] = "";
    struct job *array, *sub, scratch;
    const struct job *view;
    struct job_array *a;

    *arrayp = seq;
    snprintf (id, sizeof (id), "%lld[].fx", (long long)seq);
    array = jobs_find (f->srv->jobs, id);
    a = array ? array->arr : NULL;
    ok (array && array->is_array && a && array_size (a) == 3 && a->untouched == 3
            && a->nsub == 0,
        "%s: an array of 3 subjobs, none of them a job yet", id);
    if (!a || array_size (a) != 3)
        return;
    ok (array_index_at (a, 0) == 1 && array_index_at (a, 1) == 3
            && array_index_at (a, 2) == 5 && array_pos_of (a, 5) == 2
            && array_pos_of (a, 4) == -1,
        "indices 1, 3 and 5 in order");
    view = jobs_subjob_view (f->srv->jobs, array, 1, &scratch, 1);
    snprintf (id, sizeof (id), "%lld[3].fx", (long long)seq);
    ok (view == &scratch && !strcmp (view->id, id) && view->rec.state == 'H'
            && view->parent == array && view->array_index == 3
            && strlen (view->rec.uuid) == 36 && a->nsub == 0,
        "a view describes an untouched subjob (%s, held with its array) "
        "without splitting it out",
        id);
    snprintf (uuid, sizeof (uuid), "%s", view->rec.uuid);
    sub = jobs_find (f->srv->jobs, id);
    ok (sub && sub->parent == array && a->nsub == 1 && a->untouched == 2
            && array_sub (a, 1) == sub,
        "naming %s splits it out", id);
    is (sub ? sub->id : "", id, "whose id is that");
    is (sub ? sub->rec.uuid : "", uuid, "and whose UUID is the one its view showed");
    ok (sub && sub->rec.state == 'H' && array->rec.state == 'H',
        "the subjobs are held with their array");
    ok (jobs_subjob_view (f->srv->jobs, array, 1, &scratch, 0) == sub,
        "the view of a split-out subjob is the job itself");
    ok (jobs_lookup (f->srv->jobs, JOB_SUBKEY (seq, 1)) == sub,
        "a subjob is found by its key as well");
    snprintf (id, sizeof (id), "%lld[4].fx", (long long)seq);
    ok (!jobs_find (f->srv->jobs, id), "an index not in the range finds nothing");
    snprintf (id, sizeof (id), "%lld[3", (long long)seq);
    ok (!jobs_find (f->srv->jobs, id), "an unclosed bracket finds nothing");
    ok (!jobs_lookup (f->srv->jobs, JOB_SUBKEY (seq, 3)) && a->nsub == 1,
        "a key past the array's end finds nothing and splits nothing");
    ok (fixture_db_int (f, "SELECT count(*) FROM jobs WHERE array_parent IS NOT NULL")
            == 0,
        "subjobs have no rows until they change");
}

/* A job that runs, then a restart: what comes back. */
static void test_reload (struct fixture *f, int64_t first, int64_t array)
{
    struct fx_peer *w = fixture_worker (f, "n1", 4, 8LL << 30);
    struct wire_msg *m = fixture_next (f, w, "job.launch");
    int64_t ran = m ? json_integer_value (json_object_get (m->body, "seq")) : -1;
    struct job *job;
    struct node *n;
    char buf[256], want[64];
    int64_t next;

    fixture_msg_free (m);
    fixture_msg_free (fixture_next (f, w, "job.launch")); /* the other queued one */
    ok (ran == first, "the first queued job was launched on n1");
    fixture_restart (f);
    job = jobs_lookup (f->srv->jobs, first);
    n = nodes_lookup (f->srv->nodes, "n1");
    ok (job && job->rec.state == 'R' && job->alloc && job->alloc->slot[0].node == n,
        "after a restart the running job is R with its allocation on n1");
    ok (n && n->ncpus_used == 2 && n->state == NODE_UNKNOWN && !n->reachable,
        "n1 is known, not yet heard from, and its usage is the two running jobs'");
    ok (job && LIST_FIRST (jobs_running (f->srv->jobs)) != NULL
            && job->r_link.le_prev != NULL,
        "the job is on the running list");
    is (queued (f, buf, sizeof (buf)), "",
        "nothing is queued: the held ones stay held");
    snprintf (want, sizeof (want), "%lld[5]", (long long)array);
    job = jobs_find (f->srv->jobs, want);
    ok (job && job->parent && job->rec.state == 'H',
        "the array's subjobs are back, held");
    next = fixture_submit (f, fixture_user (f), (const char *const[]){ NULL });
    ok (next == array + 1, "numbering goes on after the restart (%lld)",
        (long long)next);
}

static void test_alloc (struct fixture *f)
{
    struct alloc *a = alloc_new (2); /* slots are a flexible array */
    char *host = NULL, *vnode = NULL, *text;
    struct alloc *back;
    json_t *o;

    a->slot[0] = (struct alloc_slot){
        .node_name = "n1", .ncpus = 2, .mem = 1LL << 30, .mpiprocs = 2
    };
    a->slot[1] = (struct alloc_slot){ .node_name = "n2",
                                      .ncpus = 1,
                                      .ngpus = 2,
                                      .gpus = { 0, 3 },
                                      .mpiprocs = 1,
                                      .excl = 1 };
    alloc_format_exec (a, &host, &vnode);
    is (host, "n1/0*2+n2/0*1", "exec_host");
    is (vnode, "(n1:ncpus=2:mem=1gb)+(n2:ncpus=1:ngpus=2)", "exec_vnode");
    o = alloc_to_json (a);
    text = json_dumps (o, JSON_COMPACT);
    back = text ? alloc_from_json (f->srv->nodes, nodes_get, text) : NULL;
    ok (back && back->n == 2 && !strcmp (back->slot[1].node_name, "n2")
            && back->slot[1].ngpus == 2 && back->slot[1].gpus[1] == 3
            && back->slot[1].excl && back->slot[0].mem == 1LL << 30
            && back->slot[0].mpiprocs == 2,
        "an allocation survives its JSON form");
    ok (back && back->slot[0].node == nodes_lookup (f->srv->nodes, "n1"),
        "and points at the node records");
    ok (!alloc_from_json (f->srv->nodes, nodes_get, "[]")
            && !alloc_from_json (f->srv->nodes, nodes_get, "{}")
            && !alloc_from_json (f->srv->nodes, nodes_get, "not json")
            && !alloc_from_json (f->srv->nodes, nodes_get, "[{\"node\":\"n1\"}]"),
        "empty, wrong-shaped and partial allocation records are refused");
    json_decref (o);
    free (text);
    free (back);
    free (a);
    free (host);
    free (vnode);
}

int main (void)
{
    struct fixture f;
    struct fx_peer *u;
    int64_t first = 0, array = 0;

    plan (NO_PLAN);
    test_parse_id ();
    fixture_start (&f, (const char *const[]){ "sched_interval_ms", "50", NULL });
    u = fixture_user (&f);
    test_lookup (&f, u, &first);
    test_array (&f, u, &array);
    test_reload (&f, first, array);
    test_alloc (&f);
    fixture_stop (&f);
    done_testing ();
}

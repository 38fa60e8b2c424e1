/* test_array.c - job arrays as one record (scheduler/array.c) on a real
 * server: a subjob is a job of its own and a row only once something
 * happens to it; a pass splits out only what it could start, in index
 * order; holds, changes and deletion of subjobs and of whole arrays; the
 * record after a restart; arrays of a million subjobs and their keys.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/test/tap.h"
#include "common/util.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/jobs.h"
#include "scheduler/test/fixture.h"

static struct fixture f;
static struct fx_peer *u;

static struct job *array_of (int64_t seq)
{
    return jobs_lookup (f.srv->jobs, seq);
}

static int64_t rows (int64_t seq)
{
    char sql[128];

    snprintf (sql, sizeof (sql), "SELECT count(*) FROM jobs WHERE array_parent = %lld",
              (long long)seq);
    return fixture_db_int (&f, sql);
}

/* The state qstat shows for subjob index of array seq (not split out). */
static char sub_state (int64_t seq, int index)
{
    struct job *array = array_of (seq), scratch;
    int pos = array && array->arr ? array_pos_of (array->arr, index) : -1;

    return pos < 0 ? '?'
                   : jobs_subjob_view (f.srv->jobs, array, pos, &scratch, 0)->rec.state;
}

static int user_rpc (const char *type, const char *id, json_t *extra)
{
    json_t *body = extra ? extra : json_object ();

    json_object_set_new (body, "id", json_string (id));
    return fixture_rpc (&f, u, type, body, NULL, NULL, 0);
}

/* The launches waiting for w: how many, and their indices in order. */
static int launches (struct fx_peer *w, int *index, int max)
{
    struct wire_msg *m;
    int n = 0;

    while ((m = fixture_next_ms (&f, w, "job.launch", 300))) {
        if (n < max)
            index[n] =
                (int)json_integer_value (json_object_get (m->body, "array_index"));
        n++;
        fixture_msg_free (m);
    }
    return n;
}

static int finish (struct fx_peer *w, int64_t seq, int exit_status)
{
    return fixture_rpc (&f, w, "job.finished",
                        json_pack ("{s:I s:i s:i}", "seq", (json_int_t)seq, "attempt",
                                   1, "exit_status", exit_status),
                        NULL, NULL, 0);
}

/* A pass splits out what could start and one more; the rest stay
 * untouched, and what it did not start goes back to being untouched. */
static int64_t test_pass (struct fx_peer *w)
{
    int64_t seq = fixture_submit (&f, u, (const char *const[]){ "-J", "1-100", NULL });
    struct job *array = array_of (seq);
    struct job_array *a = array ? array->arr : NULL;
    int idx[8] = { 0 }, n = launches (w, idx, 8);

    ok (n == 4 && idx[0] == 1 && idx[1] == 2 && idx[2] == 3 && idx[3] == 4,
        "4 cores: subjobs 1-4 start, in index order (%d launched)", n);
    ok (a && a->nsub == 4 && a->untouched == 96 && a->nr == 4 && a->running == 4,
        "only the 4 that started are jobs; 96 are untouched (%d split)",
        a ? a->nsub : -1);
    ok (rows (seq) == 4, "and only they have rows");
    ok (jobs_queued_count (f.srv->jobs) == 0,
        "the pass left nothing split out in the queue");
    ok (array && array->rec.state == 'Q' && job_state_display (array) == 'B',
        "the array is B: some subjobs began");
    if (a) {
        char counts[128];
        array_state_count (array, counts, sizeof (counts));
        is (counts, "Queued:96 Running:4 Exiting:0 Expired:0", "array_state_count");
    }
    ok (a && finish (w, a->sub[0]->rec.seq, 0) == 0 && launches (w, idx, 8) == 1
            && idx[0] == 5,
        "when subjob 1 ends, subjob 5 starts");
    return seq;
}

/* Holding and changing single subjobs splits them out; a whole array is
 * held and released with its untouched subjobs. */
static void test_holds (int64_t seq, struct fx_peer *w)
{
    struct job *array = array_of (seq), *sj = NULL;
    struct job_array *a = array->arr;
    char id[64], name[64];
    int idx[8];
    int64_t before = rows (seq);

    snprintf (id, sizeof (id), "%lld[50]", (long long)seq);
    ok (user_rpc ("job.hold", id, NULL) == 0 && (sj = array_sub (a, 49))
            && sj->rec.state == 'H' && rows (seq) == before + 1,
        "qhold %s: split out, held, and its row written", id);
    snprintf (id, sizeof (id), "%lld[60]", (long long)seq);
    ok (user_rpc ("job.alter", id, json_pack ("{s:[[ss]]}", "options", "N", "renamed"))
                == 0
            && (sj = array_sub (a, 59)) && sj->own_spec
            && !strcmp (sj->spec.name, "renamed")
            && strcmp (array->spec.name, "renamed") && rows (seq) == before + 2,
        "qalter -N of %s: its own request, the array's unchanged", id);
    snprintf (name, sizeof (name), "SELECT spec != '' FROM jobs WHERE seq = %lld",
              (long long)(sj ? sj->rec.seq : 0));
    ok (fixture_db_int (&f, name) == 1, "the altered subjob's row keeps its request");
    snprintf (id, sizeof (id), "%lld[]", (long long)seq);
    ok (user_rpc ("job.alter", id, json_pack ("{s:[[ss]]}", "options", "N", "x")) != 0,
        "a whole array cannot be altered");
    ok (user_rpc ("job.hold", id, NULL) == 0 && array->rec.state == 'H'
            && sub_state (seq, 70) == 'H' && array_sub (a, 59)->rec.state == 'H'
            && a->nr == 4,
        "qhold %s: the array, its untouched and split queued subjobs are "
        "held; the running ones run on",
        id);
    ok (user_rpc ("job.release", id, NULL) == 0 && array->rec.state == 'Q'
            && sub_state (seq, 70) == 'Q' && array_sub (a, 49)->rec.state == 'Q',
        "qrls %s: all released, subjob 50's own hold too", id);
    (void)w;
    (void)idx;
}

/* After a restart the record is what the rows say: untouched subjobs are
 * untouched again, the split ones are back with their changes. */
static void test_restart (int64_t seq, int64_t held_seq)
{
    struct job *array, *sj;
    struct job_array *a;
    int64_t nrows = rows (seq);

    fixture_restart (&f);
    u = fixture_user (&f);
    array = array_of (seq);
    a = array ? array->arr : NULL;
    ok (a && a->nsub == nrows && a->untouched == 100 - nrows,
        "after a restart the subjobs with rows are split out (%lld), the others "
        "untouched",
        (long long)nrows);
    sj = a ? array_sub (a, 59) : NULL;
    ok (sj && sj->own_spec && !strcmp (sj->spec.name, "renamed")
            && sub_state (seq, 61) == 'Q'
            && !strcmp (jobs_subjob_view (f.srv->jobs, array, 60,
                                          &(struct job){ .is_array = 0 }, 0)
                            ->spec.name,
                        array->spec.name),
        "the altered subjob has its own request again; the others share the array's");
    array = array_of (held_seq);
    ok (array && array->arr && array->arr->nsub == 0 && array->rec.state == 'H'
            && sub_state (held_seq, 3) == 'H',
        "an untouched held array comes back untouched");
}

/* qdel of a whole array: untouched subjobs go with it at once, no row
 * each; it is E until its running subjobs end. */
static void test_delete (int64_t seq, struct fx_peer *w)
{
    struct job *array = array_of (seq);
    struct job_array *a = array->arr;
    char id[64];
    int64_t nrows = rows (seq);
    int running = a->nr;

    snprintf (id, sizeof (id), "%lld[]", (long long)seq);
    ok (user_rpc ("job.delete", id, NULL) == 0 && array->rec.state == 'E'
            && sub_state (seq, 99) == 'F' && rows (seq) == nrows,
        "qdel %s: E while %d subjobs run; untouched ones deleted, no rows written", id,
        running);
    for (int i = 0; i < a->nsub; i++)
        if (a->sub[i]->rec.state == 'E')
            finish (w, a->sub[i]->rec.seq, 271);
    ok (array->rec.state == 'F' && array->rec.has_exit && array->rec.exit_status == 1
            && a->nr == 0,
        "when they have ended the array finishes, not with exit 0");
    fixture_disconnect (w); /* nothing runs from here on */
}

/* A million subjobs: accepted at once, one row; keys above 2^17 subjobs. */
static void test_big (void)
{
    struct timespec t0, t1;
    int64_t seq;
    struct job *array, *sj;
    char id[64];
    double s;

    clock_gettime (CLOCK_MONOTONIC, &t0);
    seq = fixture_submit (&f, u, (const char *const[]){ "-h", "-J", "0-999999", NULL });
    clock_gettime (CLOCK_MONOTONIC, &t1);
    s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    array = seq > 0 ? array_of (seq) : NULL;
    ok (array && array->arr && array_size (array->arr) == 1000000
            && array->arr->nsub == 0 && rows (seq) == 0,
        "a 1,000,000-subjob array is accepted as one job (%.3f s)", s);
    snprintf (id, sizeof (id), "%lld[765432]", (long long)seq);
    sj = jobs_find (f.srv->jobs, id);
    ok (sj && sj->rec.seq == job_subkey (seq, 765432, 1000000)
            && sj->rec.seq >= JOB_SUBKEY_BIG
            && jobs_lookup (f.srv->jobs, sj->rec.seq) == sj,
        "a subjob past 2^17 has a key of the large kind, found again by it");
    ok (user_rpc ("job.release", id, NULL) == 0 && sj && sj->rec.state == 'Q',
        "released on its own (the array stays held)");
    fixture_restart (&f);
    u = fixture_user (&f);
    array = array_of (seq);
    sj = array ? array_sub (array->arr, 765432) : NULL;
    ok (sj && sj->rec.state == 'Q' && sj->array_index == 765432
            && array->rec.state == 'H' && array->arr->nsub == 1,
        "after a restart its row is that subjob again");
}

int main (void)
{
    struct fx_peer *w;
    int64_t seq, held;

    plan (NO_PLAN);
    fixture_start (&f, (const char *const[]){ "sched_interval_ms", "50",
                                              "max_array_size", "1000000", NULL });
    u = fixture_user (&f);
    w = fixture_worker (&f, "n1", 4, 8LL << 30);
    held = fixture_submit (&f, u, (const char *const[]){ "-h", "-J", "1-5", NULL });
    seq = test_pass (w);
    test_holds (seq, w);
    test_restart (seq, held);
    w = fixture_worker (&f, "n1", 4, 8LL << 30);
    test_delete (seq, w);
    test_big ();
    fixture_stop (&f);
    done_testing ();
}

/* test_queue.c - execution queues (scheduler/queue.c) on a real server:
 * qmgr's queue.manage (create, set, unset, delete) as a manager, what a
 * queue admits (enabled, resources_max, resources_default filled in), what
 * of it may run (started, max_run), and queues surviving a restart.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/test/tap.h"
#include "scheduler/jobs.h"
#include "scheduler/queue.h"
#include "scheduler/test/fixture.h"

/* queue.manage op on queue with attrs given as "name", "value", ...,
 * NULL.  The reply's errnum; its error line into err. */
static int manage (struct fixture *f, struct fx_peer *u, const char *op,
                   const char *queue, const char *const *attrs, char *err, size_t len)
{
    json_t *a = json_array ();

    for (int i = 0; attrs && attrs[i]; i += 2)
        json_array_append_new (a, attrs[i + 1]
                                      ? json_pack ("[ss]", attrs[i], attrs[i + 1])
                                      : json_pack ("[s]", attrs[i]));
    return fixture_rpc (f, u, "queue.manage",
                        json_pack ("{s:s s:s s:o}", "op", op, "queue", queue, "attrs",
                                   a),
                        NULL, err, len);
}

static int admit (struct fixture *f, const char *queue, const char *list,
                  struct hpcq_resources *res, struct hpcq_error *err)
{
    resource_init (res);
    if (resource_parse_list (res, list, err) < 0 || resource_finalize (res, err) < 0)
        return -2;
    return queue_admit (f->srv->queues, queue, res, err);
}

static void test_default (struct fixture *f)
{
    struct queue *q = queue_lookup (f->srv->queues, "workq");
    int n;

    ok (q && q->rec.enabled && q->rec.started && q->rec.max_run == 0,
        "the default queue workq exists, enabled and started, without limits");
    ok (queue_all (f->srv->queues, &n) && n == 1, "and is the only one");
    ok (!queue_lookup (f->srv->queues, "nosuch"), "an unknown queue is not found");
}

static void test_manage (struct fixture *f, struct fx_peer *u)
{
    static const char *const attrs[] = {
        "resources_max.walltime",
        "01:00:00",
        "resources_default.ncpus",
        "2",
        "max_run",
        "1",
        "priority",
        "50",
        "enabled",
        "true",
        "started",
        "true",
        NULL,
    };
    struct queue *q;
    char err[256], text[256];

    ok (manage (f, u, "create", "gpu", attrs, err, sizeof (err)) == 0,
        "create queue gpu: %s", err);
    q = queue_lookup (f->srv->queues, "gpu");
    ok (q && q->max.walltime == 3600 && q->dflt.ncpus == 2 && q->rec.max_run == 1
            && q->rec.priority == 50 && q->rec.enabled && q->rec.started,
        "its attributes are set in memory");
    is (fixture_db_text (f,
                         "SELECT resources_max || '|' || resources_default || '|' || "
                         "max_run || '|' || priority FROM queues WHERE name = 'gpu'",
                         text, sizeof (text)),
        "walltime=01:00:00|ncpus=2|1|50", "and written to the database");
    ok (manage (f, u, "create", "gpu", NULL, err, sizeof (err)) == EEXIST
            && strstr (err, "already exists"),
        "creating it again: %s", err);
    ok (manage (f, u, "create", "9bad", NULL, err, sizeof (err)) == EINVAL
            && !queue_lookup (f->srv->queues, "9bad"),
        "an illegal name is refused: %s", err);
    ok (manage (f, u, "set", "gpu", (const char *const[]){ "max_run", "x", NULL }, err,
                sizeof (err))
                == EINVAL
            && strstr (err, "Illegal attribute or resource value")
            && q->rec.max_run == 1,
        "max_run=x is refused and changes nothing: %s", err);
    ok (manage (f, u, "set", "gpu", (const char *const[]){ "enabled", "maybe", NULL },
                err, sizeof (err))
                == EINVAL
            && q->rec.enabled,
        "enabled=maybe is refused: %s", err);
    ok (manage (f, u, "set", "gpu", (const char *const[]){ "colour", "blue", NULL },
                err, sizeof (err))
            != 0,
        "an unknown attribute is refused: %s", err);
    ok (manage (f, u, "set", "nosuch", (const char *const[]){ "max_run", "2", NULL },
                err, sizeof (err))
            == ENOENT,
        "setting an unknown queue: %s", err);
    ok (manage (f, u, "create", "off", NULL, err, sizeof (err)) == 0
            && !queue_lookup (f->srv->queues, "off")->rec.enabled,
        "a new queue without attributes is not enabled (PBS)");
}

static void test_admit (struct fixture *f, struct fx_peer *u)
{
    struct hpcq_resources res;
    struct hpcq_error err;

    ok (admit (f, "gpu", "walltime=02:00:00", &res, &err) == -1
            && strstr (err.text, "walltime"),
        "2 h is over gpu's resources_max: %s", err.text);
    resource_release (&res);
    ok (admit (f, "gpu", "walltime=00:30:00", &res, &err) == 0
            && resource_total_ncpus (&res) == 2,
        "a job that does not ask for ncpus gets the queue's default 2");
    resource_release (&res);
    ok (admit (f, "gpu", "walltime=00:30:00,ncpus=3", &res, &err) == 0
            && resource_total_ncpus (&res) == 3,
        "one that asks keeps its own");
    resource_release (&res);
    ok (admit (f, "off", "ncpus=1", &res, &err) == -1,
        "a disabled queue admits nothing: %s", err.text);
    resource_release (&res);
    ok (admit (f, "nosuch", "ncpus=1", &res, &err) == -1, "nor does an unknown one: %s",
        err.text);
    resource_release (&res);
    ok (fixture_submit (f, u, (const char *const[]){ "-q", "off", NULL }) == -1
            && errno,
        "qsub -q off is refused by the server");
}

/* max_run 1: one job of the queue at a time, the other told why it waits. */
static void test_max_run (struct fixture *f, struct fx_peer *u)
{
    struct fx_peer *w = fixture_worker (f, "n1", 8, 8LL << 30);
    const char *const gpu[] = { "-q", "gpu", "-l", "walltime=00:10:00", NULL };
    int64_t a = fixture_submit (f, u, gpu), b = fixture_submit (f, u, gpu);
    struct wire_msg *m = fixture_next (f, w, "job.launch");
    struct job *jb = jobs_lookup (f->srv->jobs, b);
    char err[256];

    ok (m && json_integer_value (json_object_get (m->body, "seq")) == a,
        "the first job of gpu starts");
    fixture_msg_free (m);
    ok (!fixture_next_ms (f, w, "job.launch", 300) && jb->rec.state == 'Q'
            && jb->rec.comment
            && strstr (jb->rec.comment, "Queue gpu job limit has been reached."),
        "the second waits, saying why: %s",
        jb && jb->rec.comment ? jb->rec.comment : "");
    ok (manage (f, u, "unset", "gpu", (const char *const[]){ "max_run", NULL, NULL },
                err, sizeof (err))
            == 0,
        "unset max_run: %s", err);
    m = fixture_next (f, w, "job.launch");
    ok (m && json_integer_value (json_object_get (m->body, "seq")) == b,
        "then the second starts");
    fixture_msg_free (m);
    ok (manage (f, u, "delete", "gpu", NULL, err, sizeof (err)) != 0
            && queue_lookup (f->srv->queues, "gpu"),
        "a queue with jobs is not deleted: %s", err);
}

static void test_restart (struct fixture *f)
{
    struct fx_peer *u;
    struct queue *q;
    char err[256];
    int n;

    fixture_restart (f);
    q = queue_lookup (f->srv->queues, "gpu");
    ok (q && q->max.walltime == 3600 && q->dflt.ncpus == 2 && q->rec.max_run == 0
            && q->rec.priority == 50,
        "after a restart gpu is back as it was left");
    u = fixture_user (f);
    ok (manage (f, u, "delete", "off", NULL, err, sizeof (err)) == 0
            && !queue_lookup (f->srv->queues, "off") && queue_all (f->srv->queues, &n)
            && n == 2,
        "an empty queue is deleted: %s", err);
    ok (fixture_db_int (f, "SELECT count(*) FROM queues WHERE name = 'off'") == 0,
        "and gone from the database");
}

int main (void)
{
    struct fixture f;
    struct fx_peer *u;

    plan (NO_PLAN);
    fixture_start (&f, (const char *const[]){ "sched_interval_ms", "50", NULL });
    u = fixture_user (&f);
    test_default (&f);
    test_manage (&f, u);
    test_admit (&f, u);
    test_max_run (&f, u);
    test_restart (&f);
    fixture_stop (&f);
    done_testing ();
}

/* test_child - programs run beside an event loop: exit status, the last
 * line of output, the timeout (the whole process group killed), a program
 * that cannot start, extra environment. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "common/child.h"
#include "common/loop.h"
#include "common/test/tap.h"
#include "common/util.h"

struct result {
    int done, status, timed_out;
    char last[600];
};

static void on_done (struct child *c, int status, int timed_out, const char *last,
                     void *arg)
{
    struct result *r = arg;

    r->done = 1;
    r->status = status;
    r->timed_out = timed_out;
    snprintf (r->last, sizeof (r->last), "%s", last);
}

static void stop_when_done (struct loop *l, void *arg)
{
    if (((struct result *)arg)->done)
        loop_stop (l);
}

/* Run sh -c script until it ends (or 10 s). */
static struct child *run (struct loop *l, const char *script, char *const env[],
                          int64_t timeout_ms, struct result *r, struct hpcq_error *err)
{
    char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
    struct child *c;
    struct loop_timer *t;

    memset (r, 0, sizeof (*r));
    if (!(c = child_run (l, argv, env, timeout_ms, on_done, r, err)))
        return NULL;
    t = loop_timer_add (l, 10, 10, stop_when_done, r);
    loop_run (l);
    loop_timer_remove (t);
    return c;
}

int main (void)
{
    struct loop *l = loop_create ();
    struct hpcq_error err;
    struct result r;
    char buf[64];
    int64_t t0;

    plan (NO_PLAN);
    ok (run (l, "echo first; echo 'no capacity'; exit 3", NULL, 5000, &r, &err)
            && r.done && WIFEXITED (r.status) && WEXITSTATUS (r.status) == 3
            && !r.timed_out,
        "exit status 3");
    is (r.last, "no capacity", "the last line of its output");
    is (child_status_text (r.status, buf, sizeof (buf)), "exited with status 3",
        "in words");
    ok (run (l, "echo to stderr >&2", NULL, 5000, &r, &err)
            && WEXITSTATUS (r.status) == 0 && !strcmp (r.last, "to stderr"),
        "stderr is read too");
    t0 = util_now_ms ();
    ok (run (l, "sleep 30 & sleep 30; echo never", NULL, 300, &r, &err) && r.timed_out
            && WIFSIGNALED (r.status) && util_now_ms () - t0 < 5000,
        "killed at its timeout, though its background child holds the pipe");
    {
        char *env[] = { "HPCQ_TEST_CHILD=yes", NULL };
        ok (run (l, "echo $HPCQ_TEST_CHILD", env, 5000, &r, &err)
                && !strcmp (r.last, "yes"),
            "extra environment");
    }
    {
        char *argv[] = { "/nonexistent/program", NULL };
        ok (!child_run (l, argv, NULL, 1000, on_done, &r, &err)
                && strstr (err.text, "cannot run '/nonexistent/program': No such file"),
            "a missing program: %s", err.text);
    }
    {
        char *argv[] = { "/bin/sleep", "30", NULL };
        struct child *c = child_run (l, argv, NULL, 0, on_done, &r, &err);
        pid_t pid = c ? child_pid (c) : 0;
        child_destroy (c);
        ok (c && pid > 0 && kill (pid, 0) < 0, "child_destroy kills and reaps it");
    }
    loop_destroy (l);
    return done_testing ();
}

/* test_privsep.c - file operations as a job's owner: looked-up
 * credentials, a helper that has become the user (it cannot write root's
 * file, its files are the user's, it cannot come back to root), a helper
 * that hangs is killed by its timeout, and the worker's loop goes on
 * meanwhile.  Dropping needs root: those parts skip, saying why. */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/loop.h"
#include "common/test/tap.h"
#include "common/util.h"
#include "worker/privsep.h"

static char tmpdir[] = "/tmp/test_privsep.XXXXXX";
static struct loop *loop;
static struct privsep *ps;
static int last_status = -99, ndone;

static void skip_test (const char *what, const char *why)
{
    printf ("ok %d - %s # SKIP %s\n", ++tap_count, what, why);
}

static void on_signal (struct loop *l, int signo, void *arg)
{
    pid_t pid;
    int status;

    while ((pid = waitpid (-1, &status, WNOHANG)) > 0)
        (void)privsep_reaped (ps, pid, status);
}

static void on_done (int status, void *arg)
{
    last_status = status;
    ndone++;
    loop_stop (loop);
}

static void on_deadline (struct loop *l, void *arg)
{
    loop_stop (l);
}

/* Run fn as c and wait (in the loop) for it; its status, or -99. */
static int run_as (const struct privsep_cred *c, int64_t timeout_ms, privsep_fn fn,
                   void *arg)
{
    struct loop_timer *deadline = loop_timer_add (loop, 10000, 0, on_deadline, NULL);
    int before = ndone;

    last_status = -99;
    if (privsep_run (ps, c, timeout_ms, fn, arg, on_done, NULL) < 0)
        return -98;
    loop_run (loop);
    if (ndone > before)
        loop_timer_remove (deadline);
    return last_status;
}

static int append_to (void *arg)
{
    int fd = open (arg, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    return fd >= 0 && write (fd, "x\n", 2) == 2 ? 0 : (errno == EACCES ? 13 : 1);
}

static int try_root (void *arg)
{
    return setuid (0) == 0 || seteuid (0) == 0 ? 1 : 0;
}

static int hang (void *arg)
{
    pause ();
    return 0;
}

static int report_ids (void *arg)
{
    gid_t groups[64];
    int n = getgroups (64, groups);
    FILE *f = fopen (arg, "w");

    if (!f)
        return 1;
    fprintf (f, "%u %u %u %d\n", (unsigned)getuid (), (unsigned)geteuid (),
             (unsigned)getegid (), n);
    return fclose (f) == 0 ? 0 : 1;
}

static void test_as_user (const struct privsep_cred *nobody)
{
    char victim[4200], mine[4200], ids[4200], *text;
    struct stat st;
    unsigned uid, euid, egid;
    int fd, ngroups = -1;

    snprintf (victim, sizeof (victim), "%s/victim", tmpdir);
    snprintf (mine, sizeof (mine), "%s/pub/mine", tmpdir);
    snprintf (ids, sizeof (ids), "%s/pub/ids", tmpdir);
    fd = open (victim, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ok (fd >= 0 && write (fd, "precious\n", 9) == 9 && close (fd) == 0,
        "a root-owned 0644 file");
    ok (run_as (nobody, 5000, append_to, victim) == 13, "the user cannot append to it");
    text = util_read_file (victim, 100, NULL);
    is (text, "precious\n", "it is unchanged");
    free (text);
    ok (run_as (nobody, 5000, append_to, mine) == 0,
        "the user writes in a 1777 folder");
    if (stat (mine, &st) < 0)
        memset (&st, 0, sizeof (st));
    ok (st.st_uid == nobody->uid && st.st_gid == nobody->gid,
        "that file is the user's (%u:%u)", (unsigned)st.st_uid, (unsigned)st.st_gid);
    ok (run_as (nobody, 5000, try_root, NULL) == 0,
        "the helper cannot become root again");
    ok (run_as (nobody, 5000, report_ids, ids) == 0, "the helper reports its ids");
    text = util_read_file (ids, 100, NULL);
    ok (text && sscanf (text, "%u %u %u %d", &uid, &euid, &egid, &ngroups) == 4
            && uid == nobody->uid && euid == nobody->uid && egid == nobody->gid
            && ngroups == nobody->ngroups,
        "real and effective uid, gid and the user's own groups: %s", text ? text : "-");
    free (text);
}

static void test_timeout (const struct privsep_cred *c)
{
    int64_t t0 = util_now_ms ();

    ok (run_as (c, 200, hang, NULL) == -1,
        "a helper that hangs is killed: done gets -1");
    ok (util_now_ms () - t0 < 5000, "after its timeout, not later (%lld ms)",
        (long long)(util_now_ms () - t0));
    ok (privsep_count (ps) == 0, "no helper is left");
}

int main (void)
{
    static const int signals[] = { SIGCHLD };
    struct privsep_cred nobody, me, copy;
    struct hpcq_error err = { "" };
    struct passwd *pw;
    char pub[4200];

    plan (NO_PLAN);
    if (!mkdtemp (tmpdir)) {
        ok (0, "mkdtemp: %s", strerror (errno));
        return done_testing ();
    }
    snprintf (pub, sizeof (pub), "%s/pub", tmpdir);
    (void)chmod (tmpdir, 0755);
    ok (mkdir (pub, 0777) == 0 && chmod (pub, 01777) == 0, "a 1777 folder");
    loop = loop_create ();
    ok (loop && loop_signals (loop, signals, 1, on_signal, NULL) == 0,
        "a loop for SIGCHLD");
    ps = privsep_create (loop);

    if (privsep_cred_lookup (getuid (), &me, &err) < 0)
        memset (&me, 0, sizeof (me));
    ok (me.uid == getuid () && me.name[0] && me.ngroups >= 1,
        "my own credentials: %s, %d groups", me.name, me.ngroups);
    privsep_cred_copy (&copy, &me);
    ok (copy.ngroups == me.ngroups && copy.groups != me.groups
            && (me.ngroups == 0 || copy.groups[0] == me.groups[0]),
        "a copy has its own groups");
    privsep_cred_release (&copy);
    ok (privsep_cred_lookup (4000000000u, &nobody, &err) < 0 && errno == ENOENT
            && strstr (err.text, "unknown user"),
        "an unknown uid: %s", err.text);
    test_timeout (&me);

    pw = getpwnam ("nobody");
    if (geteuid () != 0)
        skip_test ("acting as another user", "not root");
    else if (!pw)
        skip_test ("acting as another user", "no user 'nobody' here");
    else if (privsep_cred_lookup (pw->pw_uid, &nobody, &err) < 0)
        ok (0, "nobody's credentials: %s", err.text);
    else {
        test_as_user (&nobody);
        privsep_cred_release (&nobody);
    }
    privsep_cred_release (&me);
    privsep_destroy (ps);
    loop_destroy (loop);
    {
        char cmd[4300];
        snprintf (cmd, sizeof (cmd), "rm -rf '%s'", tmpdir);
        (void)!system (cmd);
    }
    return done_testing ();
}

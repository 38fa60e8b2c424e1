/* test_cgroup.c - finding the hierarchies (from fixed /proc texts), and a
 * job cgroup's life on this host's real hierarchies: create with limits,
 * enter, escape attempts, freeze, kill, usage, sweep, remove.  The live
 * parts need root and a mounted hierarchy; they skip, saying why. */
#include <config.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/test/tap.h"
#include "common/util.h"
#include "worker/cgroup.h"

static void skip_test (const char *what, const char *why)
{
    printf ("ok %d - %s # SKIP %s\n", ++tap_count, what, why);
}

static const char *hybrid_cgroup = "9:name=systemd:/\n"
                                   "8:pids:/\n"
                                   "6:freezer:/\n"
                                   "4:memory:/process_api/abc\n"
                                   "3:cpuset:/\n"
                                   "1:cpu,cpuacct:/user.slice\n"
                                   "0::/\n";

static const char *hybrid_mountinfo =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup "
    "rw,cpu,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n";

/* A container: its own subtree of the memory hierarchy mounted as root. */
static const char *container_mountinfo =
    "35 31 0:32 /docker/c1 /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n"
    "36 31 0:33 /other /mnt/elsewhere rw - cgroup cgroup rw,memory\n";

static const char *v2_cgroup = "0::/system.slice/hpcq-worker.service\n";
static const char *v2_mountinfo =
    "25 1 0:22 / /proc rw - proc proc rw\n"
    "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";

static void check_dir (const char *cg, const char *mi, const char *ctrl,
                       const char *want)
{
    char own[4096], dir[4096];

    if (cgroup_own_path (cg, ctrl, own, sizeof (own)) < 0
        || cgroup_mount_dir (mi, ctrl, own, dir, sizeof (dir)) < 0)
        snprintf (dir, sizeof (dir), "(none: %s)", strerror (errno));
    is (dir, want, "%s hierarchy: %s", ctrl[0] ? ctrl : "v2", want);
}

static void test_parse (void)
{
    char own[4096], dir[4096];

    check_dir (hybrid_cgroup, hybrid_mountinfo, "memory",
               "/sys/fs/cgroup/memory/process_api/abc");
    check_dir (hybrid_cgroup, hybrid_mountinfo, "freezer", "/sys/fs/cgroup/freezer");
    check_dir (hybrid_cgroup, hybrid_mountinfo, "cpuacct",
               "/sys/fs/cgroup/cpu,cpuacct/user.slice");
    check_dir (hybrid_cgroup, hybrid_mountinfo, "", "/sys/fs/cgroup/unified");
    check_dir (hybrid_cgroup, hybrid_mountinfo, "pids",
               "(none: No such file or directory)");
    check_dir (v2_cgroup, v2_mountinfo, "",
               "/sys/fs/cgroup/system.slice/hpcq-worker.service");
    check_dir (v2_cgroup, v2_mountinfo, "memory", "(none: No such file or directory)");
    ok (cgroup_own_path ("4:memory:/docker/c1/job\n", "memory", own, sizeof (own)) == 0
            && cgroup_mount_dir (container_mountinfo, "memory", own, dir, sizeof (dir))
                   == 0,
        "a subtree mount is found");
    is (dir, "/sys/fs/cgroup/memory/job", "and the path is taken relative to its root");
    ok (cgroup_own_path ("4:memory:/docker/c2\n", "memory", own, sizeof (own)) == 0
            && cgroup_mount_dir (container_mountinfo, "memory", own, dir, sizeof (dir))
                   < 0,
        "a cgroup outside every mounted subtree is not found");
    ok (cgroup_own_path ("4:memoryx:/a\n", "memory", own, sizeof (own)) < 0,
        "controller names match whole");
}

static void pause_ms (int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep (&ts, NULL);
}

/* A child that enters j, starts an escapee in a new session (setsid) and
 * a second generation, then sleeps. */
static pid_t spawn_in (struct cgroup_job *j, int *escapee_fd)
{
    int p[2];
    pid_t pid;

    if (pipe (p) < 0 || (pid = fork ()) < 0)
        return -1;
    if (pid == 0) {
        close (p[0]);
        if (cgroup_job_enter (j) < 0)
            _exit (1);
        pid_t esc = fork ();
        if (esc == 0) {
            setsid ();
            if (fork () == 0) {
                pid_t me = getpid ();
                (void)!write (p[1], &me, sizeof (me));
                pause ();
            }
            pause ();
        }
        close (p[1]);
        pause ();
        _exit (0);
    }
    close (p[1]);
    *escapee_fd = p[0];
    return pid;
}

/* Not there, or a zombie nobody reaped yet. */
static int alive (pid_t pid)
{
    char p[64], *text;
    int up;

    snprintf (p, sizeof (p), "/proc/%d/stat", (int)pid);
    if (!(text = util_read_file (p, 4096, NULL)))
        return 0;
    up = !strstr (text, ") Z ") && !strstr (text, ") X ");
    free (text);
    return up;
}

static int count_until (struct cgroup_job *j, int want, int ms)
{
    int n;
    for (int t = 0; (n = cgroup_job_count (j)) != want && t < ms; t += 10)
        pause_ms (10);
    return n;
}

/* A task that touches more than the limit is OOM-killed, and counted. */
static void test_oom (struct cgroups *cg, const char *mode)
{
    struct cgroup_limits lim = { 32 << 20, NULL, 0, NULL };
    const char *desc = cgroups_describe (cg);
    struct hpcq_error err = { "" };
    struct cgroup_usage u;
    struct cgroup_job *j;
    int status;
    pid_t pid;

    if (!strstr (desc, "memory") || strstr (desc, "memory limits are not enforced")) {
        skip_test ("OOM kill inside the memory limit", "no memory controller here");
        return;
    }
    if (!(j = cgroup_job_create (cg, "job_9.1", &lim, &err))) {
        ok (0, "%s: job_9.1: %s", mode, err.text);
        return;
    }
    if ((pid = fork ()) == 0) {
        size_t n = 128 << 20;
        volatile char *p; /* else the compiler may drop the writes */
        if (cgroup_job_enter (j) < 0 || !(p = malloc (n)))
            _exit (1);
        for (size_t i = 0; i < n; i += 4096)
            p[i] = 1;
        _exit (0);
    }
    ok (pid > 0 && waitpid (pid, &status, 0) == pid && WIFSIGNALED (status)
            && WTERMSIG (status) == SIGKILL,
        "%s: 128 MB under a 32 MB limit is killed", mode);
    cgroup_job_usage (j, &u);
    ok (u.oom_kills >= 1, "%s: the OOM kill is counted (%lld)", mode,
        (long long)u.oom_kills);
    ok (u.mem_peak < 0 || u.mem_peak <= 32 << 20,
        "%s: the peak stays within the limit (%lld)", mode, (long long)u.mem_peak);
    ok (cgroup_job_destroy (j) == 0, "%s: removed", mode);
}

/* PREFIX as another worker of the cluster leaves it for a moment: made,
 * its cpuset not filled yet (no task can join below it then). */
static void make_unfilled_prefix (const char *prefix)
{
    char *cg = util_read_file ("/proc/self/cgroup", 1 << 16, NULL);
    char *mi = util_read_file ("/proc/self/mountinfo", 1 << 20, NULL);
    char own[4096], dir[4096], p[8300];

    if (cg && mi && cgroup_own_path (cg, "cpuset", own, sizeof (own)) == 0
        && cgroup_mount_dir (mi, "cpuset", own, dir, sizeof (dir)) == 0) {
        snprintf (p, sizeof (p), "%s/%s", dir, prefix);
        ok (mkdir (p, 0755) == 0 || errno == EEXIST, "an unfilled cpuset %s", p);
    }
    free (cg);
    free (mi);
}

static void test_live (const char *mode)
{
    struct cgroup_conf conf = { mode, "hpcq-unit", "" };
    struct cgroup_limits lim = { 64 << 20, NULL, 50, NULL };
    struct cgroup_usage u;
    struct hpcq_error err = { "" };
    struct cgroups *cg;
    struct cgroup_job *j;
    char node[64], dir[4200];
    pid_t pid, escapee = 0;
    int fd, status;
    struct stat st;

    snprintf (node, sizeof (node), "unit%d", (int)getpid ());
    conf.node = node;
    if (geteuid () != 0) {
        skip_test ("live cgroup tests", "not root");
        return;
    }
    if (strcmp (mode, "v1") == 0)
        make_unfilled_prefix (conf.prefix);
    if (!(cg = cgroups_open (&conf, &err))) {
        skip_test (mode, err.text);
        return;
    }
    diag ("%s", cgroups_describe (cg));
    ok (1, "%s: opened", mode);
    ok (!cgroups_open (&conf, &err)
            && strstr (err.text, "in use by another live worker"),
        "%s: a second worker with the same prefix and node is refused: %s", mode,
        err.text);
    j = cgroup_job_create (cg, "job_7.1", &lim, &err);
    ok (j != NULL, "%s: a job cgroup is created: %s", mode,
        j ? cgroup_job_path (j) : err.text);
    if (!j) {
        cgroups_close (cg);
        return;
    }
    snprintf (dir, sizeof (dir), "%s", cgroup_job_path (j));
    ok (stat (dir, &st) == 0 && S_ISDIR (st.st_mode) && strstr (dir, "/hpcq-unit/unit")
            && strstr (dir, "/job_7.1"),
        "%s: at PREFIX/NODE/job_7.1", mode);
    pid = spawn_in (j, &fd);
    ok (pid > 0 && read (fd, &escapee, sizeof (escapee)) == sizeof (escapee)
            && escapee > 0,
        "%s: a child and a setsid grandchild run", mode);
    close (fd);
    ok (count_until (j, 3, 2000) == 3, "%s: the cgroup lists all three", mode);
    ok (cgroup_job_freeze (j) == 0, "%s: freeze", mode);
    ok (cgroup_job_thaw (j) == 0, "%s: thaw", mode);
    ok (cgroup_job_destroy (j) < 0 && errno == EBUSY,
        "%s: not removed while it has tasks", mode);
    ok (cgroup_job_kill (j) == 3, "%s: kill sees three tasks", mode);
    ok (waitpid (pid, &status, 0) == pid && WIFSIGNALED (status)
            && WTERMSIG (status) == SIGKILL,
        "%s: the child got SIGKILL", mode);
    ok (count_until (j, 0, 2000) == 0, "%s: the setsid escapee is gone too", mode);
    ok (!alive (escapee), "%s: pid %d no longer runs", mode, (int)escapee);
    cgroup_job_usage (j, &u);
    ok (u.cpu_ns >= 0, "%s: CPU time read: %lld ns", mode, (long long)u.cpu_ns);
    ok (u.oom_kills == 0, "%s: no OOM kill", mode);
    ok (cgroup_job_destroy (j) == 0 && stat (dir, &st) < 0, "%s: removed once empty",
        mode);

    /* A leftover, as a killed worker leaves it, goes at the next sweep. */
    j = cgroup_job_create (cg, "job_8.1", &lim, &err);
    pid = j ? spawn_in (j, &fd) : -1;
    ok (j && pid > 0 && read (fd, &escapee, sizeof (escapee)) == sizeof (escapee)
            && count_until (j, 3, 2000) == 3,
        "%s: a job with three tasks", mode);
    if (pid > 0)
        close (fd);
    if (j) {
        snprintf (dir, sizeof (dir), "%s", cgroup_job_path (j));
        cgroup_job_free (j);
    }
    ok (cgroups_sweep (cg) == 1 && stat (dir, &st) < 0,
        "%s: the sweep kills and removes it", mode);
    ok (pid > 0 && waitpid (pid, &status, 0) == pid && WIFSIGNALED (status),
        "%s: its task was killed", mode);
    test_oom (cg, mode);
    *strrchr (dir, '/') = '\0';
    cgroups_close (cg);
    ok (stat (dir, &st) < 0, "%s: closing removes the worker's directory %s", mode,
        dir);
}

int main (void)
{
    plan (NO_PLAN);
    test_parse ();
    test_live ("v1");
    test_live ("v2");
    return done_testing ();
}

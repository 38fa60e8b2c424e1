/* pbs_tmrsh - an rsh replacement for launchers inside a job: runs CMD on
 * HOST, one of the job's hosts, through the workers' task manager
 * (common/tm.h), with no ssh.  Open MPI's mpirun uses it to start its
 * daemons (the job's OMPI_MCA_plm_rsh_agent).
 *
 * As OpenPBS's (src/cmds/pbs_tmrsh.c): "-n" is accepted and ignored, "-l
 * USER" must name the caller, the first other word is the host, the rest
 * the command.  As rsh, the command is run by the owner's shell, our
 * standard input goes to it, its output comes back, and our exit status is
 * its own (128 + N for signal N; 255 if it could not run or was lost). */
#include <config.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/tmclient.h"
#include "common/cliopt.h"
#include "common/loop.h"
#include "common/tm.h"

#define USAGE                                                      \
    "usage: pbs_tmrsh [-n] [-l username] host [-n] [-l username] " \
    "command [args...]\n"
static const char *usage = USAGE;

/* rsh's grammar (options on both sides of the host): parsed by hand. */
static const struct cliopt cli = {
    .prog = "pbs_tmrsh",
    .usage = USAGE "Runs command on host, one of the job's hosts, through the task "
                   "manager.\nSee pbs_tmrsh(8).\n",
    .kind = CLIOPT_PBS,
};

struct run {
    struct loop *loop;
    struct tmc *t;
    const char *host;
    int rc;
};

static void on_done (struct tmc *t, int status, const char *error, void *arg)
{
    struct run *r = arg;

    (void)t;
    if (status < 0) {
        fprintf (stderr, "pbs_tmrsh: %s: %s\n", r->host, error);
        r->rc = 255;
    } else
        r->rc = tm_status_to_exit (status);
    loop_stop (r->loop);
}

static void on_signal (struct loop *l, int signo, void *arg)
{
    struct run *r = arg;

    (void)l;
    tmc_signal (r->t, signo);
}

/* -l NAME / -lNAME: only the caller's own name (no other user's). */
static int check_user (const char *name)
{
    struct passwd *pw = getpwuid (getuid ());

    if (pw && strcmp (pw->pw_name, name) == 0)
        return 0;
    fprintf (stderr, "pbs_tmrsh: bad user \"%s\"\n", name);
    return -1;
}

int main (int argc, char **argv)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
    struct tmc_spawn s = { .shell = 1, .forward_stdin = 1 };
    struct run r = { .rc = 255 };
    struct hpcq_error err;
    int a;

    cliopt_only (&cli, argc, argv);
    for (a = 1; a < argc; a++) {
        if (strcmp (argv[a], "-n") == 0)
            continue;
        if (strncmp (argv[a], "-l", 2) == 0) {
            const char *name = argv[a][2] ? argv[a] + 2 : (++a < argc ? argv[a] : NULL);
            if (!name || check_user (name) < 0) {
                fputs (usage, stderr);
                return 255;
            }
            continue;
        }
        if (argv[a][0] == '-') {
            fprintf (stderr, "pbs_tmrsh: unknown option %s\n%s", argv[a], usage);
            return 255;
        }
        if (r.host)
            break;
        r.host = argv[a];
    }
    if (!r.host || a >= argc) {
        fputs (usage, stderr);
        return 255;
    }
    /* The worker may close first: its tm.exit says all. */
    signal (SIGPIPE, SIG_IGN);
    s.host = r.host;
    s.vnode = -1;
    s.argv = argv + a;
    if (!(r.loop = loop_create ())
        || loop_signals (r.loop, sigs, sizeof (sigs) / sizeof (sigs[0]), on_signal, &r)
               < 0) {
        perror ("pbs_tmrsh: loop");
        return 255;
    }
    if (!(r.t = tmc_spawn (r.loop, &s, NULL, on_done, &r, &err))) {
        fprintf (stderr, "pbs_tmrsh: %s: %s\n", r.host, err.text);
        return 255;
    }
    (void)loop_run (r.loop);
    tmc_destroy (r.t);
    loop_destroy (r.loop);
    return r.rc;
}

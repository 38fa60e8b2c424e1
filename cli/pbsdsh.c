/* pbsdsh - run a program on the vnodes of the job it runs in (PBS's
 * command, its options as in OpenPBS's src/cmds/pbsdsh.c):
 *   pbsdsh [-c copies] [-s] [-v] [-o] [--] program [args...]
 *   pbsdsh [-n node_index] [-s] [-v] [-o] [--] program [args...]
 * The vnodes are the lines of $PBS_NODEFILE; -c runs COPIES copies, on the
 * first vnodes and round the list again; -n one copy on vnode INDEX; -s one
 * after another; -o does not wait for the programs to end (and drops their
 * output); -v says what was spawned and how it ended, on standard error.
 * Each copy starts through the worker of this host, which asks the
 * worker of the copy's host (worker/tm.h): no ssh.  The program is run
 * directly, not by a shell, with this environment, PBS_VNODENUM set.
 * Exit status: 0 when every copy started (PBS's pbsdsh does not pass the
 * programs' status on), 1 when some could not start, 2 on bad usage. */
#include <config.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/tmclient.h"
#include "common/cliopt.h"
#include "common/loop.h"
#include "common/tm.h"
#include "common/util.h"

#define USAGE                                                           \
    "usage: pbsdsh [-c copies] [-s] [-v] [-o] [--] program [args...]\n" \
    "       pbsdsh [-n node_index] [-s] [-v] [-o] [--] program [args...]\n"
static const char *usage = USAGE;

static const struct cliopt cli = {
    .prog = "pbsdsh",
    .shortopts = "+c:n:svo",
    .usage = USAGE "Runs program on the job's vnodes (PBS_NODEFILE).  See pbsdsh(1).\n",
    .kind = CLIOPT_PBS,
};

struct copy {
    struct dsh *d;
    struct tmc *t;
    int vnode;
    int done;
};

struct dsh {
    struct loop *loop;
    char **vnodes;
    int nvnodes;
    char **argv;
    struct copy *copies;
    int ncopies;
    int next; /* the next copy to start */
    int running;
    int sync, verbose, detach;
    int failed;
};

static void dsh_start_next (struct dsh *d);

static void copy_over (struct dsh *d, struct copy *c)
{
    if (c->done)
        return;
    c->done = 1;
    d->running--;
    if (d->sync)
        dsh_start_next (d);
    if (d->running == 0 && d->next >= d->ncopies)
        loop_stop (d->loop);
}

static void on_started (struct tmc *t, void *arg)
{
    struct copy *c = arg;

    (void)t;
    if (c->d->verbose)
        fprintf (stderr, "pbsdsh: spawned task %d on logical node %d (%s)\n",
                 (int)(c - c->d->copies), c->vnode, c->d->vnodes[c->vnode]);
    /* -o: no obit is waited for; the process lives on without us. */
    if (c->d->detach)
        copy_over (c->d, c);
}

static void on_done (struct tmc *t, int status, const char *error, void *arg)
{
    struct copy *c = arg;
    struct dsh *d = c->d;

    (void)t;
    if (status < 0) {
        fprintf (stderr, "pbsdsh: spawn failed on node %d (%s): %s\n", c->vnode,
                 d->vnodes[c->vnode], error);
        d->failed = 1;
    } else if (d->verbose)
        fprintf (stderr,
                 "pbsdsh: task %d on logical node %d (%s) exited with status %d\n",
                 (int)(c - d->copies), c->vnode, d->vnodes[c->vnode],
                 tm_status_to_exit (status));
    copy_over (d, c);
}

static void dsh_start (struct dsh *d, struct copy *c)
{
    struct tmc_spawn s = { .host = d->vnodes[c->vnode],
                           .vnode = c->vnode,
                           .argv = d->argv,
                           .detach = d->detach };
    struct hpcq_error err;

    d->running++;
    if (!(c->t = tmc_spawn (d->loop, &s, on_started, on_done, c, &err)))
        on_done (NULL, -1, err.text, c);
}

static void dsh_start_next (struct dsh *d)
{
    while (d->next < d->ncopies) {
        dsh_start (d, &d->copies[d->next++]);
        if (d->sync)
            break;
    }
}

/* The node file's lines: the job's vnodes, in order. */
static int read_vnodes (struct dsh *d)
{
    const char *path = getenv ("PBS_NODEFILE");
    char line[1024];
    FILE *f;

    if (!path || !(f = fopen (path, "r"))) {
        fprintf (stderr, "pbsdsh: cannot read the node file %s\n",
                 path ? path : "(PBS_NODEFILE is not set)");
        return -1;
    }
    while (fgets (line, sizeof (line), f)) {
        line[strcspn (line, " \t\r\n")] = '\0';
        if (!line[0])
            continue;
        d->vnodes = realloc (d->vnodes, (d->nvnodes + 1) * sizeof (char *));
        if (!d->vnodes)
            abort ();
        d->vnodes[d->nvnodes++] = xstrdup (line);
    }
    fclose (f);
    if (d->nvnodes == 0) {
        fprintf (stderr, "pbsdsh: the node file %s is empty\n", path);
        return -1;
    }
    return 0;
}

int main (int argc, char **argv)
{
    struct dsh d = { 0 };
    int c, one = -1, copies = -1;

    while ((c = cliopt_next (&cli, argc, argv)) != -1) {
        if (c == 'c' && util_parse_int (optarg, 0, 1 << 20, &copies) == 0)
            continue;
        if (c == 'n' && util_parse_int (optarg, 0, 1 << 30, &one) == 0)
            continue;
        if (c == 's' || c == 'v' || c == 'o') {
            *(c == 's' ? &d.sync : c == 'v' ? &d.verbose : &d.detach) = 1;
            continue;
        }
        fputs (usage, stderr);
        return 2;
    }
    if (optind >= argc || (one >= 0 && copies >= 0)) {
        fputs (usage, stderr);
        return 2;
    }
    if (!getenv ("PBS_ENVIRONMENT") || !getenv ("PBS_JOBID")) {
        fprintf (stderr, "pbsdsh: not executing under PBS\n");
        return 1;
    }
    if (read_vnodes (&d) < 0)
        return 1;
    if (one >= d.nvnodes) {
        fprintf (stderr, "pbsdsh: node index %d: the job has %d vnodes (0 to %d)\n",
                 one, d.nvnodes, d.nvnodes - 1);
        return 1;
    }
    d.argv = argv + optind;
    d.ncopies = one >= 0 ? 1 : copies >= 0 ? copies : d.nvnodes;
    d.copies = xzalloc ((d.ncopies + 1) * sizeof (*d.copies));
    for (int i = 0; i < d.ncopies; i++) {
        d.copies[i].d = &d;
        d.copies[i].vnode = one >= 0 ? one : i % d.nvnodes;
    }
    if (!(d.loop = loop_create ())) {
        perror ("pbsdsh: loop");
        return 1;
    }
    signal (SIGPIPE, SIG_IGN);
    dsh_start_next (&d);
    if (d.running > 0 || d.next < d.ncopies)
        (void)loop_run (d.loop);
    for (int i = 0; i < d.ncopies; i++)
        tmc_destroy (d.copies[i].t);
    loop_destroy (d.loop);
    for (int i = 0; i < d.nvnodes; i++)
        free (d.vnodes[i]);
    free (d.vnodes);
    free (d.copies);
    return d.failed ? 1 : 0;
}

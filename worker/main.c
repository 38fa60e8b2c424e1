/* hpcq-worker - the daemon on each node: runs the jobs the scheduler sends.
 *
 * main reads options and the config file, creates the worker, runs the
 * loop and tears down.  Stopping the worker kills its running jobs (as
 * PBS MoM does): a job it could no longer watch might otherwise run on
 * while the scheduler requeues it elsewhere.  Jobs survive a restart of
 * the scheduler, not of the worker.
 */
#include <config.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/config.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/loop.h"
#include "worker/tasks.h"
#include "worker/worker.h"

static const char *usage_text =
    "Usage: hpcq-worker [--config FILE] [--server HOST:PORT] [--name NODE]\n"
    "                   [--ncpus N] [--mem SIZE] [--gpus N] [--spool DIR]\n"
    "                   [--log-file FILE] [--log-level LEVEL]\n"
    "Runs jobs for an hpcq scheduler on this node.  Options override the\n"
    "config file; see hpcq-worker(8) and docs/config.example.\n";

static const struct daemon_option options[] = {
    { "server", "server" },     { "name", "node_name" },      { "ncpus", "ncpus" },
    { "mem", "mem" },           { "gpus", "gpus" },           { "spool", "spool_dir" },
    { "log-file", "log_file" }, { "log-level", "log_level" }, { NULL, NULL },
};

static void on_signal (struct loop *l, int signo, void *arg)
{
    struct worker *w = arg;

    if (signo == SIGCHLD) {
        tasks_reap (w->tasks);
        return;
    }
    if (signo == SIGHUP) { /* logrotate: jobs run on */
        (void)daemon_reload (w->cfg, NULL);
        return;
    }
    log_msg (LOG_INFO, "signal %d: shutting down, killing %d jobs", signo,
             tasks_count (w->tasks));
    for (struct task *t = tasks_first (w->tasks); t; t = tasks_next (t))
        tasks_kill (w->tasks, t, KILL_DELETED, 1);
    loop_stop (l);
}

int main (int argc, char **argv)
{
    static const int signals[] = { SIGINT, SIGTERM, SIGCHLD, SIGHUP };
    struct config *cfg = daemon_config (argc, argv, "hpcq-worker", usage_text, options);
    int level = log_level_parse (config_get (cfg, "log_level", "info"));
    struct hpcq_error err;
    struct worker *w = NULL;
    struct loop *loop;
    int rc = 1;

    signal (SIGPIPE, SIG_IGN);
    if (level < 0
        || log_init ("hpcq-worker", level, config_get (cfg, "log_file", NULL)) < 0) {
        fprintf (stderr, "hpcq-worker: bad log_level or log_file\n");
        config_destroy (cfg);
        return 2;
    }
    if (!(loop = loop_create ())) {
        log_error ("event loop");
        goto out;
    }
    if (!(w = worker_create (loop, cfg, &err))) {
        fprintf (stderr, "hpcq-worker: %s\n", err.text);
        log_msg (LOG_ERR, "%s", err.text);
        goto out;
    }
    if (loop_signals (loop, signals, 4, on_signal, w) < 0) {
        log_error ("signals");
        goto out;
    }
    tasks_reap (w->tasks); /* children that ended before the signalfd */
    rc = loop_run (loop) < 0 ? 1 : 0;
    log_msg (LOG_INFO, "stopped");
out:
    worker_destroy (w);
    loop_destroy (loop);
    config_destroy (cfg);
    log_fini ();
    return rc;
}

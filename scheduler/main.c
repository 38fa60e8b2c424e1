/* hpcq-scheduler - the central daemon: queues, jobs and nodes in SQLite.
 *
 * main only reads options and the config file, creates the server (which
 * creates its subsystems), runs the loop and tears down in reverse.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/config.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/loop.h"
#include "scheduler/replica.h"
#include "scheduler/subsystems.h"

static const char *usage_text =
    "Usage: hpcq-scheduler [--config FILE] [--state-dir DIR] [--socket PATH]\n"
    "                      [--listen HOST:PORT] [--server-name NAME]\n"
    "                      [--log-file FILE] [--log-level LEVEL]\n"
    "                      [--replicas HOST:PORT,... --replica-id N\n"
    "                       --cluster-id NAME]\n"
    "Runs the hpcq scheduler.  Options override the config file; see\n"
    "hpcq-scheduler(8) and docs/config.example for every setting.\n";

static const struct daemon_option options[] = {
    { "state-dir", "state_dir" },   { "socket", "socket" },
    { "listen", "listen" },         { "server-name", "server_name" },
    { "log-file", "log_file" },     { "log-level", "log_level" },
    { "replicas", "replicas" },     { "replica-id", "replica_id" },
    { "cluster-id", "cluster_id" }, { NULL, NULL },
};

/* What a SIGHUP may change while running: keys the server reads where it
 * uses them (daemon.h; hpcq-scheduler(8)). */
static const char *const reloadable[] = { "managers", "operators", "acl_roots", NULL };

static void on_signal (struct loop *l, int signo, void *arg)
{
    if (signo == SIGHUP) {
        (void)daemon_reload (arg, reloadable);
        return;
    }
    log_msg (LOG_INFO, "signal %d: shutting down", signo);
    loop_stop (l);
}

struct daemon_ctx {
    struct loop *loop;
    struct config *cfg;
    struct replica *replica;
    struct server *srv;
};

/* With replicas: elected and caught up, so the server starts, loading
 * its state from the file the log kept current. */
static void on_elected (struct replica *rep, void *arg)
{
    struct daemon_ctx *d = arg;
    struct hpcq_error err;

    if (!(d->srv = subsystems_create (d->loop, d->cfg, rep, &err))) {
        log_msg (LOG_ERR, "%s", err.text);
        exit (1);
    }
}

int main (int argc, char **argv)
{
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
    struct config *cfg =
        daemon_config (argc, argv, "hpcq-scheduler", usage_text, options);
    int level = log_level_parse (config_get (cfg, "log_level", "info"));
    struct hpcq_error err;
    struct daemon_ctx d = { .cfg = cfg };
    struct loop *loop;
    int rc = 1;

    signal (SIGPIPE, SIG_IGN);
    if (level < 0
        || log_init ("hpcq-scheduler", level, config_get (cfg, "log_file", NULL)) < 0) {
        fprintf (stderr, "hpcq-scheduler: bad log_level or log_file\n");
        config_destroy (cfg);
        return 2;
    }
    if (!(loop = loop_create ())
        || loop_signals (loop, signals, 3, on_signal, cfg) < 0) {
        log_error ("event loop");
        goto out;
    }
    d.loop = loop;
    if (replica_configured (cfg)
            ? !(d.replica = replica_create (loop, cfg, argv, on_elected, &d, &err))
            : !(d.srv = subsystems_create (loop, cfg, NULL, &err))) {
        log_msg (LOG_ERR, "%s", err.text);
        fprintf (stderr, "hpcq-scheduler: %s\n", err.text);
        goto out;
    }
    rc = loop_run (loop) < 0 ? 1 : 0;
    subsystems_destroy (d.srv);
    replica_destroy (d.replica);
    log_msg (LOG_INFO, "stopped");
out:
    loop_destroy (loop);
    config_destroy (cfg);
    log_fini ();
    return rc;
}

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
#include "scheduler/subsystems.h"

static const char *usage_text =
    "Usage: hpcq-scheduler [--config FILE] [--state-dir DIR] [--socket PATH]\n"
    "                      [--listen HOST:PORT] [--server-name NAME]\n"
    "                      [--log-file FILE] [--log-level LEVEL]\n"
    "Runs the hpcq scheduler.  Options override the config file; see\n"
    "hpcq-scheduler(8) and docs/config.example for every setting.\n";

static const struct daemon_option options[] = {
    { "state-dir", "state_dir" },
    { "socket", "socket" },
    { "listen", "listen" },
    { "server-name", "server_name" },
    { "log-file", "log_file" },
    { "log-level", "log_level" },
    { NULL, NULL },
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

int main (int argc, char **argv)
{
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
    struct config *cfg =
        daemon_config (argc, argv, "hpcq-scheduler", usage_text, options);
    int level = log_level_parse (config_get (cfg, "log_level", "info"));
    struct hpcq_error err;
    struct server *srv;
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
    if (!(srv = subsystems_create (loop, cfg, &err))) {
        log_msg (LOG_ERR, "%s", err.text);
        fprintf (stderr, "hpcq-scheduler: %s\n", err.text);
        goto out;
    }
    rc = loop_run (loop) < 0 ? 1 : 0;
    subsystems_destroy (srv);
    log_msg (LOG_INFO, "stopped");
out:
    loop_destroy (loop);
    config_destroy (cfg);
    log_fini ();
    return rc;
}

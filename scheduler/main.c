/* hpcq-scheduler - the central daemon: queues, jobs and nodes in SQLite.
 *
 * main only reads options and the config file, creates the server (which
 * creates its subsystems), runs the loop and tears down in reverse.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/config.h"
#include "common/log.h"
#include "common/loop.h"
#include "scheduler/server.h"

static const char *usage_text =
    "Usage: hpcq-scheduler [--config FILE] [--state-dir DIR] [--socket PATH]\n"
    "                      [--listen HOST:PORT] [--server-name NAME]\n"
    "                      [--log-file FILE] [--log-level LEVEL]\n"
    "Runs the hpcq scheduler.  Options override the config file; see\n"
    "hpcq-scheduler(8) and docs/config.example for every setting.\n";

static const struct option longopts[] = {
    { "config", required_argument, NULL, 'c' },
    { "state-dir", required_argument, NULL, 'd' },
    { "socket", required_argument, NULL, 's' },
    { "listen", required_argument, NULL, 'l' },
    { "server-name", required_argument, NULL, 'n' },
    { "log-file", required_argument, NULL, 'L' },
    { "log-level", required_argument, NULL, 'v' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static const char *option_key (int opt)
{
    switch (opt) {
    case 'd': return "state_dir";
    case 's': return "socket";
    case 'l': return "listen";
    case 'n': return "server_name";
    case 'L': return "log_file";
    case 'v': return "log_level";
    default: return NULL;
    }
}

/* Config file first, then command-line options on top. */
static struct config *parse_args (int argc, char **argv)
{
    struct config *cfg = config_create (), *over = config_create ();
    struct hpcq_error err;
    const char *file = NULL;
    int opt;

    while ((opt = getopt_long (argc, argv, "c:d:s:l:n:L:v:h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            fputs (usage_text, stdout);
            exit (0);
        }
        if (opt == 'c')
            file = optarg;
        else if (option_key (opt))
            config_set (over, option_key (opt), optarg);
        else {
            fputs (usage_text, stderr);
            exit (2);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "hpcq-scheduler: unexpected argument '%s'\n", argv[optind]);
        exit (2);
    }
    if (file && config_load (cfg, file, &err) < 0) {
        fprintf (stderr, "hpcq-scheduler: %s\n", err.text);
        exit (2);
    }
    for (int i = 0; longopts[i].name; i++) {
        const char *key = option_key (longopts[i].val);
        if (key && config_get (over, key, NULL))
            config_set (cfg, key, config_get (over, key, NULL));
    }
    config_destroy (over);
    return cfg;
}

static void on_signal (struct loop *l, int signo, void *arg)
{
    log_msg (LOG_INFO, "signal %d: shutting down", signo);
    loop_stop (l);
}

int main (int argc, char **argv)
{
    static const int signals[] = { SIGINT, SIGTERM };
    struct config *cfg = parse_args (argc, argv);
    int level = log_level_parse (config_get (cfg, "log_level", "info"));
    struct hpcq_error err;
    struct server *srv;
    struct loop *loop;
    int rc = 1;

    signal (SIGPIPE, SIG_IGN);
    if (level < 0 || log_init ("hpcq-scheduler", level,
                               config_get (cfg, "log_file", NULL)) < 0) {
        fprintf (stderr, "hpcq-scheduler: bad log_level or log_file\n");
        config_destroy (cfg);
        return 2;
    }
    if (!(loop = loop_create ()) || loop_signals (loop, signals, 2, on_signal, NULL) < 0) {
        log_error ("event loop");
        goto out;
    }
    if (!(srv = server_create (loop, cfg, &err))) {
        log_msg (LOG_ERR, "%s", err.text);
        fprintf (stderr, "hpcq-scheduler: %s\n", err.text);
        goto out;
    }
    rc = loop_run (loop) < 0 ? 1 : 0;
    server_destroy (srv);
    log_msg (LOG_INFO, "stopped");
out:
    loop_destroy (loop);
    config_destroy (cfg);
    log_fini ();
    return rc;
}

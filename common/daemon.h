/* daemon.h - what both daemons' main() share: settings from a config file
 * with command-line options on top.
 *
 * Each long option (other than --config and --help) names a config key;
 * the option wins over the file.  Bad options, arguments or files print
 * one line (or the usage) and exit 2: this runs before the daemon starts.
 */
#ifndef HPCQ_COMMON_DAEMON_H
#define HPCQ_COMMON_DAEMON_H

#include <getopt.h>

#include "common/config.h"

struct daemon_option {
    const char *name; /* --name VALUE */
    const char *key;  /* config key it sets */
};

/* Returns the configuration (caller destroys).  options ends with {NULL}.
 * Also sets the process umask to 077: whatever a daemon creates (its
 * database, logs, spool) is its own alone unless it says otherwise. */
struct config *daemon_config (int argc, char **argv, const char *prog,
                              const char *usage, const struct daemon_option *options);

/* SIGHUP, as logrotate's postrotate sends it: reopen the log file, read
 * the config file again (with the command-line options on top, as at
 * start) and apply what can change while running: log_level always, and
 * the keys of reloadable (NULL-terminated), which are set in cfg for the
 * daemon to read.  Changed keys that need a restart are named in the log,
 * not applied.  Logs what was done; returns the number of keys applied,
 * or -1 (the log says why; nothing changed). */
int daemon_reload (struct config *cfg, const char *const *reloadable);

#endif

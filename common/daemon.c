/* daemon.c - see daemon.h */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cliopt.h"
#include "common/daemon.h"
#include "common/idcache.h"
#include "common/log.h"
#include "common/util.h"

#define DAEMON_MAX_OPTIONS 32

/* What daemon_config read, for daemon_reload: the file and the options
 * given on the command line (which win over the file, then as now). */
static char *daemon_file;
static struct config *daemon_over;
static struct config *daemon_loaded; /* the settings as read: what a reload
                                      * compares with (a daemon may set keys
                                      * of its own, such as the port it got) */

/* getopt_long's table: the daemon's options, then --config and --help.
 * An option's val is its index into options (plus 256, clear of letters). */
static struct option *daemon_longopts (const struct daemon_option *options)
{
    struct option *lo = xzalloc ((DAEMON_MAX_OPTIONS + 4) * sizeof (*lo));
    int n = 0;

    for (; options[n].name && n < DAEMON_MAX_OPTIONS; n++)
        lo[n] = (struct option){ options[n].name, required_argument, NULL, 256 + n };
    lo[n++] = (struct option){ "config", required_argument, NULL, 'c' };
    lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
    lo[n++] = (struct option){ "version", no_argument, NULL, 'V' };
    return lo;
}

static int config_set_cb (const char *key, const char *value, void *arg)
{
    return config_set (arg, key, value);
}

struct config *daemon_config (int argc, char **argv, const char *prog,
                              const char *usage, const struct daemon_option *options)
{
    struct config *cfg = config_create (), *over = config_create ();
    struct option *lo = daemon_longopts (options);
    struct hpcq_error err;
    const char *file = NULL;
    int opt;

    umask (077);
    if (!cfg || !over) {
        fprintf (stderr, "%s: out of memory\n", prog);
        exit (2);
    }
    opterr = 0; /* one line of our own instead of getopt's and the usage */
    while ((opt = getopt_long (argc, argv, "c:h", lo, NULL)) != -1) {
        if (opt == 'h' || opt == 'V') {
            if (opt == 'h')
                fputs (usage, stdout);
            else
                cliopt_print_version (prog, CLIOPT_HPCQ);
            exit (0);
        }
        if (opt == 'c')
            file = optarg;
        else if (opt >= 256)
            config_set (over, options[opt - 256].key, optarg);
        else {
            fprintf (stderr, "%s: bad or incomplete option '%s' (see %s --help)\n",
                     prog, argv[optind - 1], prog);
            exit (2);
        }
    }
    free (lo);
    if (optind < argc) {
        fprintf (stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
        exit (2);
    }
    if (file && config_load (cfg, file, &err) < 0) {
        fprintf (stderr, "%s: %s\n", prog, err.text);
        exit (2);
    }
    for (int i = 0; options[i].name; i++) {
        const char *v = config_get (over, options[i].key, NULL);
        if (v)
            config_set (cfg, options[i].key, v);
    }
    config_destroy (daemon_over);
    daemon_over = over;
    free (daemon_file);
    daemon_file = file ? xstrdup (file) : NULL;
    config_destroy (daemon_loaded);
    if (!(daemon_loaded = config_create ())
        || config_foreach (cfg, config_set_cb, daemon_loaded) < 0) {
        fprintf (stderr, "%s: out of memory\n", prog);
        exit (2);
    }
    return cfg;
}

struct reload {
    struct config *cfg;
    const char *const *reloadable;
    char done[1024], later[1024];
    int n;
};

static int listed (const char *const *keys, const char *key)
{
    for (int i = 0; keys && keys[i]; i++)
        if (strcmp (keys[i], key) == 0)
            return 1;
    return 0;
}

static void append (char *buf, size_t len, const char *key, const char *value)
{
    size_t used = strlen (buf);

    if (used < len)
        snprintf (buf + used, len - used, "%s%s%s%s", used ? ", " : "", key,
                  value ? "=" : "", value ? value : "");
}

/* One key of the fresh file against what the daemon runs with. */
static int reload_key (const char *key, const char *value, void *arg)
{
    struct reload *r = arg;
    const char *was = config_get (daemon_loaded, key, NULL);

    if (was && strcmp (was, value) == 0)
        return 0;
    if (strcmp (key, "log_level") == 0) {
        int level = log_level_parse (value);
        if (level < 0) {
            log_msg (LOG_WARNING, "SIGHUP: bad log_level '%s': kept %s", value,
                     log_level_name (log_get_level ()));
            return 0;
        }
        log_set_level (level);
    } else if (!listed (r->reloadable, key)) {
        append (r->later, sizeof (r->later), key, NULL);
        return 0;
    }
    if (config_set (r->cfg, key, value) < 0
        || config_set (daemon_loaded, key, value) < 0)
        return -1;
    append (r->done, sizeof (r->done), key, value);
    r->n++;
    return 0;
}

/* A reloadable key the file no longer sets goes back to its default: the
 * empty list for managers and the like, info for log_level. */
static int reload_removed (struct reload *r, const struct config *fresh)
{
    static const char *const level[] = { "log_level", NULL };
    const char *const *lists[] = { level, r->reloadable };

    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l] && lists[l][i]; i++) {
            const char *key = lists[l][i], *was = config_get (daemon_loaded, key, NULL);
            if (!was || config_get (fresh, key, NULL))
                continue;
            if (reload_key (key, l == 0 ? "info" : "", r) < 0)
                return -1;
        }
    return 0;
}

int daemon_reload (struct config *cfg, const char *const *reloadable)
{
    struct config *fresh = config_create ();
    struct reload r = { .cfg = cfg, .reloadable = reloadable };
    struct hpcq_error err;
    int rc = -1;

    /* A user or group an administrator just changed is read afresh. */
    idcache_flush ();
    if (log_reopen () < 0)
        log_error ("SIGHUP: cannot reopen %s, logging on to the old file", log_file ());
    else if (log_file ())
        log_msg (LOG_INFO, "SIGHUP: log file %s reopened", log_file ());
    if (!fresh)
        goto out;
    if (daemon_file && config_load (fresh, daemon_file, &err) < 0) {
        log_msg (LOG_ERR, "SIGHUP: %s: nothing reloaded", err.text);
        goto out;
    }
    config_foreach (daemon_over, config_set_cb, fresh);
    if (config_foreach (fresh, reload_key, &r) < 0 || reload_removed (&r, fresh) < 0) {
        log_msg (LOG_ERR, "SIGHUP: out of memory");
        goto out;
    }
    log_msg (LOG_INFO, "SIGHUP: %s%s", r.n ? "reloaded " : "no setting changed",
             r.done);
    if (r.later[0])
        log_msg (LOG_WARNING, "SIGHUP: changed but applied only at a restart: %s",
                 r.later);
    rc = r.n;
out:
    config_destroy (fresh);
    return rc;
}

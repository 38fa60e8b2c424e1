/* daemon.c - see daemon.h */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cliopt.h"
#include "common/daemon.h"
#include "common/util.h"

#define DAEMON_MAX_OPTIONS 32

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
    config_destroy (over);
    return cfg;
}

/* cliopt.c - see cliopt.h */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cliopt.h"
#include "common/util.h"

enum { OPT_HELP = 0x1000, OPT_VERSION };

/* The command's long options plus ours; rebuilt when the table changes
 * (one command parses one grammar, so that is once). */
#define MAX_LONGOPTS 64
static struct option merged[MAX_LONGOPTS + 3];
static const struct option *merged_from = merged;
static char shortbuf[256];

static void build (const struct cliopt *co)
{
    size_t n = 0;
    const char *s = co->shortopts ? co->shortopts : "";
    int plus = s[0] == '+';

    if (merged_from == co->longopts && shortbuf[0])
        return;
    for (const struct option *o = co->longopts; o && o->name && n < MAX_LONGOPTS; o++)
        merged[n++] = *o;
    merged[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
    merged[n++] = (struct option){ "version", no_argument, NULL, OPT_VERSION };
    merged[n] = (struct option){ 0 };
    /* ':' first (after '+'): a missing argument is ':' rather than '?'. */
    snprintf (shortbuf, sizeof (shortbuf), "%s:%s", plus ? "+" : "", s + plus);
    merged_from = co->longopts;
}

void cliopt_print_version (const char *prog, enum cliopt_kind kind)
{
    if (kind == CLIOPT_PBS)
        printf ("pbs_version = %s\n", PACKAGE_VERSION);
    else if (kind == CLIOPT_SLURM)
        printf ("slurm %s (hpcq)\n", PACKAGE_VERSION);
    else
        printf ("%s (hpcq) %s\n", prog, PACKAGE_VERSION);
}

static void answer (const struct cliopt *co, int which)
{
    if (which == OPT_HELP)
        fputs (co->usage, stdout);
    else
        cliopt_print_version (co->prog, co->kind);
    exit (fflush (stdout) == 0 ? 0 : 1);
}

static void usage_error (const struct cliopt *co, int c, char **argv)
{
    const char *arg = argv[optind - 1];

    if (c == ':' && optopt)
        fprintf (stderr, "%s: option -%c requires an argument", co->prog, optopt);
    else if (c == ':')
        fprintf (stderr, "%s: option '%s' requires an argument", co->prog, arg);
    else if (optopt)
        fprintf (stderr, "%s: invalid option -- '%c'", co->prog, optopt);
    else
        fprintf (stderr, "%s: unrecognized option '%s'", co->prog, arg);
    fprintf (stderr, " (%s --help lists them)\n", co->prog);
    exit (CLIOPT_USAGE_EXIT);
}

int cliopt_next (const struct cliopt *co, int argc, char **argv)
{
    int c;

    build (co);
    opterr = 0;
    c = getopt_long (argc, argv, shortbuf, merged, NULL);
    if (c == OPT_HELP || c == OPT_VERSION)
        answer (co, c);
    if (c == '?' || c == ':')
        usage_error (co, c, argv);
    return c;
}

void cliopt_only (const struct cliopt *co, int argc, char **argv)
{
    if (argc < 2)
        return;
    if (co->usage && strcmp (argv[1], "--help") == 0)
        answer (co, OPT_HELP);
    if (strcmp (argv[1], "--version") == 0)
        answer (co, OPT_VERSION);
}

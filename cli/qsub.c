/* qsub - submit a batch job (PBS Pro conventions).
 *
 * Reads the script (a file, or standard input), applies its #PBS
 * directives and then the command-line options (which win), and sends the
 * job to the scheduler.  Prints only the job id, as tools that drive PBS
 * expect.
 */
#include <config.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/interactive.h"
#include "cli/jobwait.h"
#include "cli/submit.h"
#include "common/cliopt.h"
#include "common/directive.h"
#include "common/jobspec.h"
#include "common/sbatch.h"
#include "common/util.h"

static const char usage_text[] =
    "Usage: qsub [-N name] [-q queue] [-l resource_list] [-o path] [-e path]\n"
    "            [-j oe|eo|n] [-v var[=value],...] [-V] [-h] [-p priority]\n"
    "            [-W depend=...|block=true|sandbox=PRIVATE|checkpoint_signal=SIG]\n"
    "            [-A account] [-r y|n] [-c n|s|c[=MIN]|w[=MIN]|auto] [-m abe|n] [-M "
    "users]\n"
    "            [-S shell] [-C prefix] [-a [[[[CC]YY]MM]DD]hhmm[.SS]] [-P project]\n"
    "            [-k o|e|oe|n|d] [-R o|e|oe] [-z] [-W group_list=group] [script]\n"
    "       qsub [options] -- program [argument...]  (runs the program)\n"
    "       qsub -I [options]  (an interactive job: a shell on its first host)\n"
    "Submits a batch job; the script is read from standard input if not given.\n"
    "#PBS lines at the top of the script give the same options; the command\n"
    "line wins.  Prints the new job's id.  See qsub(1).\n";

struct opt {
    int letter;
    const char *arg;
};

static const char *base_name (const char *path)
{
    const char *slash = strrchr (path, '/');
    return slash ? slash + 1 : path;
}

/* PBS ignores these lines too; a line on stderr says so, the exit status
 * stays what it would be. */
static void near_miss (int lineno, const char *line, int len, void *arg)
{
    fprintf (stderr,
             "qsub: warning: line %d is not a directive and is ignored: %.*s "
             "(a directive starts the line with %s and a blank)\n",
             lineno, len > 60 ? 60 : len, line, (const char *)arg);
}

/* qsub -- PROGRAM ARGS...: the job runs PROGRAM with ARGS, as PBS Pro
 * runs an executable; the script is the one line that does it. */
static char *command_script (int argc, char **argv)
{
    size_t len = 32;
    char *s, *o;

    for (int i = 0; i < argc; i++)
        len += 4 * strlen (argv[i]) + 3;
    o = s = xzalloc (len);
    o = stpcpy (o, "#!/bin/sh\nexec");
    for (int i = 0; i < argc; i++) {
        o = stpcpy (o, " '");
        for (const char *p = argv[i]; *p; p++)
            o = *p == '\'' ? stpcpy (o, "'\\''") : (*o = *p, o + 1);
        *o++ = '\'';
    }
    strcpy (o, "\n");
    return s;
}

/* Checks only this host can make before the job is sent: the shell of -S
 * exists, and the owner belongs to the group of -W group_list.  The
 * worker checks again where the job runs. */
static void check_local (const struct hpcq_jobspec *spec)
{
    if (spec->shell && access (spec->shell, X_OK) < 0)
        util_die (1, "-S %s: %s (the shell must be an executable on the hosts)",
                  spec->shell, strerror (errno));
    if (spec->group_list) {
        /* The group database, as the worker reads it (not this process's
         * groups, which a new membership reaches only at the next login). */
        struct group *g = getgrnam (spec->group_list);
        struct passwd *pw = getpwuid (getuid ());
        gid_t groups[1024];
        int n = ARRAY_SIZE (groups), in = 0;
        if (!g)
            util_die (1, "-W group_list=%s: no such group", spec->group_list);
        if (!pw || getgrouplist (pw->pw_name, pw->pw_gid, groups, &n) < 0)
            n = 0;
        for (int i = 0; i < n && !in; i++)
            in = groups[i] == g->gr_gid;
        if (!in)
            util_die (1, "-W group_list=%s: you are not a member of that group",
                      spec->group_list);
    }
    if (spec->execution_time > 0 && spec->array)
        util_die (2,
                  "-a with a job array (-J) is not supported: give one or the other");
}

static void build_spec (struct hpcq_jobspec *spec, const char *path, char **command,
                        int ncommand, struct opt *opts, int nopts, const char *prefix,
                        int interactive)
{
    struct hpcq_error err;

    /* -I reads no script (PBS's qsub -I ignores one): its job is a shell. */
    if (ncommand)
        spec->script = command_script (ncommand, command);
    else if (!interactive && !(spec->script = submit_read_script (path, &err)))
        util_die (1, "%s", err.text);
    if (!interactive && !ncommand)
        directive_near_misses (spec->script, prefix, near_miss,
                               (void *)(prefix ? prefix : "#PBS"));
    /* Slurm's directives first, so #PBS lines and the command line win. */
    if (!interactive && sbatch_parse_script (spec, spec->script, &err) < 0)
        util_die (1, "directive error: %s", err.text);
    if (!interactive && directive_parse_script (spec, spec->script, prefix, &err) < 0)
        util_die (1, "directive error: %s", err.text);
    for (int i = 0; i < nopts; i++)
        if (directive_apply (spec, opts[i].letter, opts[i].arg, &err) < 0)
            util_die (2, "%s", err.text);
    if (!spec->name) {
        const char *base = ncommand ? base_name (command[0])
                           : path   ? base_name (path)
                                    : "STDIN";
        if (jobspec_check_name (base, &err) < 0)
            util_die (1, "cannot name the job after '%s' (%s): use -N", base, err.text);
        spec->name = xstrdup (base);
    }
    if (resource_finalize (&spec->res, &err) < 0)
        util_die (2, "%s", err.text);
    if (submit_set_origin (spec, &err) < 0)
        util_die (1, "%s", err.text);
    check_local (spec);
}

/* -W block=true: PBS's qsub waits and exits with the job's exit status
 * (3 when the job ended without one, e.g. deleted before it ran). */
static int block (const char *jobid)
{
    char comment[512];
    int has_exit, status;

    fflush (stdout);
    if (jobwait ("qsub", jobid, &has_exit, &status, comment, sizeof (comment)) < 0)
        return 2;
    if (!has_exit) {
        fprintf (stderr, "qsub: %s %s\n", jobid,
                 comment[0] ? comment
                            : "Job ended without "
                              "an exit status");
        return 3;
    }
    return status & 0xff;
}

static int submit (struct hpcq_jobspec *spec)
{
    struct hpcq_error err;
    char id[256];

    if (submit_send (spec, id, sizeof (id), &err) < 0)
        util_die (1, "%s", err.text);
    if (!spec->quiet)
        printf ("%s\n", id);
    return spec->block ? block (id) : 0;
}

static struct opt *opts; /* global so it stays reachable when util_die() exits */

int main (int argc, char **argv)
{
    struct hpcq_jobspec spec;
    const char *prefix = NULL, *shell = NULL;
    char optstring[128];
    int nopts = 0, interactive = 0, ncommand = 0, c;
    struct cliopt cli = { .prog = "qsub", .usage = usage_text, .kind = CLIOPT_PBS };

    opts = xzalloc ((argc + 1) * sizeof (*opts));
    /* '+': stop at the script name; options after it belong to nobody. */
    snprintf (optstring, sizeof (optstring), "+IX%s", directive_optstring);
    cli.shortopts = optstring;
    while ((c = cliopt_next (&cli, argc, argv)) != -1) {
        if (c == 'X')
            util_die (2, "-X (X11 forwarding) is not supported");
        if (c == 'I') {
            interactive = 1;
            continue;
        }
        if (c == 'C')
            prefix = optarg;
        if (c == 'S')
            shell = optarg;
        opts[nopts].letter = c;
        opts[nopts++].arg = optarg;
    }
    /* "--": what follows is a program and its arguments, not a script. */
    if (optind > 1 && strcmp (argv[optind - 1], "--") == 0
        && !(nopts && opts[nopts - 1].arg == argv[optind - 1])) {
        if (optind == argc)
            util_die (2, "-- must be followed by a program (qsub -- /bin/sleep 60)");
        if (interactive)
            util_die (2, "-I takes no program: the job is a shell");
        ncommand = argc - optind;
    } else if (argc - optind > 1)
        util_die (2, "too many arguments: give one script (extra: '%s')",
                  argv[optind + 1]);
    if (interactive && optind < argc)
        util_die (2, "-I takes no script: the job is a shell ('%s' given)",
                  argv[optind]);
    jobspec_init (&spec);
    spec.submit_args = submit_join_args (argc, argv);
    build_spec (&spec, optind < argc && !ncommand ? argv[optind] : NULL, argv + optind,
                ncommand, opts, nopts, prefix, interactive);
    if (interactive) {
        struct hpcq_error err;
        if (interactive_prepare (&spec, shell, &err) < 0)
            util_die (1, "%s", err.text);
        c = interactive_run (&spec);
    } else
        c = submit (&spec);
    jobspec_release (&spec);
    free (opts);
    return c;
}

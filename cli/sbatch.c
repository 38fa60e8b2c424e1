/* sbatch - submit a batch script the way Slurm's sbatch does.
 *
 * A front-end over the same job.submit as qsub: the script's #SBATCH
 * lines, then the command line on top (sbatch.h maps them onto the PBS
 * request).  Prints "Submitted batch job N", or N alone with --parsable;
 * with --wait, waits and exits with the job's exit code.  Errors are
 * Slurm's "sbatch: error: ..." lines with exit status 1.
 */
#include <config.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cliopt.h"
#include "cli/jobwait.h"
#include "cli/slurm.h"
#include "cli/submit.h"
#include "common/sbatch.h"
#include "common/util.h"

static const char *usage_text =
    "Usage: sbatch [OPTIONS] [script]\n"
    "  -J, --job-name=NAME   -o, --output=PATH   -e, --error=PATH\n"
    "  -p, --partition=QUEUE -t, --time=TIME      -N, --nodes=N   -n, --ntasks=N\n"
    "  -c, --cpus-per-task=N --ntasks-per-node=N  --mem=SIZE  --mem-per-cpu=SIZE\n"
    "  --gres=gpu[:TYPE][:N] --gpus-per-node=N    -a, --array=RANGE\n"
    "  -d, --dependency=LIST -H, --hold           -D, --chdir=DIR  -A, --account=NAME\n"
    "  --export=ALL|NONE|VARS  --exclusive  --[no-]requeue  --signal=[B:]SIG[@T]\n"
    "  -C, --constraint=FEATURES  --mail-type=TYPES  --mail-user=USER\n"
    "  --container-image=PATH[:TAG]  --container-mounts=SRC:DST[:ro],...\n"
    "  --container-workdir=DIR  --gpu-bind=closest|none  --cpu-bind=cores|none\n"
    "  --wrap=COMMAND  --parsable  -W, --wait\n"
    "Submits a batch job to hpcq; #SBATCH lines in the script give the same\n"
    "options and the command line wins.  See sbatch(1) and docs/compat.md.\n";

/* The script: --wrap's command, the file named, or standard input. */
static char *script_text (const struct sbatch_cli *cli, int nargs, char **args,
                          const char **name)
{
    struct hpcq_error err;
    char *text;

    if (cli->wrap) {
        if (nargs > 0)
            util_die (1, "error: script arguments not permitted with --wrap option");
        if (asprintf (&text,
                      "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n",
                      cli->wrap)
            < 0)
            util_die (1, "error: out of memory");
        *name = "wrap";
        return text;
    }
    if (nargs > 1)
        util_die (1,
                  "error: script arguments are not supported ('%s'): put them in the "
                  "script",
                  args[1]);
    if (!(text = submit_read_script (nargs ? args[0] : NULL, &err)))
        util_die (1, "error: %s", err.text);
    *name = nargs ? args[0] : "sbatch";
    if (strncmp (text, "#!", 2) != 0)
        util_die (1,
                  "error: This does not look like a batch script.  The first line must "
                  "start with #! followed by the path to an interpreter.");
    return text;
}

static void set_workdir (struct hpcq_jobspec *spec, const char *dir)
{
    char cwd[PATH_MAX], *path;

    if (!dir)
        return;
    if (dir[0] == '/')
        path = xstrdup (dir);
    else if (!getcwd (cwd, sizeof (cwd)) || asprintf (&path, "%s/%s", cwd, dir) < 0)
        util_die (1, "error: cannot resolve --chdir %s", dir);
    spec->workdir = path;
}

/* --wait: Slurm's exit code is the job's. */
static int wait_for (const char *jobid)
{
    char comment[512];
    int has_exit, status;

    fflush (stdout);
    if (jobwait ("sbatch", jobid, &has_exit, &status, comment, sizeof (comment)) < 0)
        return 1;
    if (!has_exit)
        return 1;
    return status >= 0 && status <= 255 ? status : 1;
}

int main (int argc, char **argv)
{
    struct sbatch_cli cli = { 0 };
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    const char *name, *base;
    char id[256], num[64];

    cliopt_only (&(struct cliopt){ .prog = "sbatch", .kind = CLIOPT_SLURM }, argc,
                 argv);
    if (argc > 1 && (!strcmp (argv[1], "--help") || !strcmp (argv[1], "--usage"))) {
        fputs (usage_text, stdout);
        return 0;
    }
    if (sbatch_scan_command (argc - 1, argv + 1, &cli, &err) < 0)
        util_die (1, "error: %s", err.text);
    jobspec_init (&spec);
    spec.submit_args = submit_join_args (argc, argv);
    spec.script =
        script_text (&cli, argc - 1 - cli.first_arg, argv + 1 + cli.first_arg, &name);
    if (sbatch_parse_command (&spec, spec.script, argc - 1, argv + 1, &cli, &err) < 0)
        util_die (1, "error: %s", err.text);
    if (!spec.name) {
        base = strrchr (name, '/') ? strrchr (name, '/') + 1 : name;
        if (jobspec_check_name (base, &err) < 0)
            util_die (1, "error: cannot name the job after '%s' (%s): use -J", base,
                      err.text);
        spec.name = xstrdup (base);
    }
    set_workdir (&spec, cli.chdir);
    if (resource_finalize (&spec.res, &err) < 0 || submit_set_origin (&spec, &err) < 0)
        util_die (1, "error: %s", err.text);
    if (submit_send (&spec, id, sizeof (id), &err) < 0)
        util_die (1, "error: Batch job submission failed: %s", err.text);
    slurm_id (id, num, sizeof (num));
    if (cli.parsable)
        printf ("%s\n", num);
    else
        printf ("Submitted batch job %s\n", num);
    jobspec_release (&spec);
    return cli.wait ? wait_for (id) : 0;
}

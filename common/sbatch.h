/* sbatch.h - #SBATCH directives, so Slurm users can submit unchanged scripts.
 *
 * qsub reads "#SBATCH" lines from the script's leading comment block, like
 * "#PBS" lines, and maps them onto the same job request: nodes, tasks,
 * cpus per task, GPUs (--gres=gpu:N) and memory become a PBS select
 * statement; --time, --job-name, --output, --error, --partition,
 * --dependency, --account, --mail-*, --export, --exclusive and
 * --[no-]requeue map to their qsub counterparts; Pyxis's --container-image,
 * --container-mounts, --container-workdir and Slurm's --gpu-bind and
 * --cpu-bind to the -l resources of the same meaning.  As in Slurm, output
 * defaults to slurm-%j.out with stderr joined, and %j / %x in paths become
 * the job number and name.  #PBS lines and the command line still win.
 */
#ifndef HPCQ_COMMON_SBATCH_H
#define HPCQ_COMMON_SBATCH_H

#include "common/error.h"
#include "common/jobspec.h"

/* Apply the script's #SBATCH directives to spec.  Returns 1 if there were
 * any, 0 if none, -1 with err ("line N: ...") on a bad one. */
int sbatch_parse_script (struct hpcq_jobspec *spec, const char *script,
                         struct hpcq_error *err);

/* The sbatch command's own options, which a script cannot give. */
struct sbatch_cli {
    const char *wrap;  /* --wrap=COMMAND */
    const char *chdir; /* -D, --chdir=DIR */
    int parsable;      /* --parsable: print the job number alone */
    int wait;          /* -W, --wait: wait for the job, exit with its status */
    int first_arg;     /* argv index of the script (after the options) */
};

/* First pass over sbatch's arguments (argv without the program name):
 * checks the options, fills cli and finds the script.  0 or -1 with err. */
int sbatch_scan_command (int argc, char **argv, struct sbatch_cli *cli,
                         struct hpcq_error *err);

/* The script's #SBATCH lines, then the options before cli->first_arg on
 * top, applied to spec (which is then in Slurm's dialect, with its
 * defaults: output to slurm-%j.out).  0 or -1 with err. */
int sbatch_parse_command (struct hpcq_jobspec *spec, const char *script, int argc,
                          char **argv, struct sbatch_cli *cli, struct hpcq_error *err);

/* Slurm time: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS -> seconds. */
int sbatch_parse_time (const char *s, int64_t *secs, struct hpcq_error *err);

#endif

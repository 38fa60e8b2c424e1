/* srun - run one command inside a job, for scripts and tools that step
 * through srun (Snakemake 7's --slurm runs each rule as "srun -n1 ...").
 *
 * hpcq starts processes on other nodes only through the job's MPI
 * (mpirun with the job's nodefile), so this srun runs one task, here, on
 * the job's first node, and refuses with one line what it cannot do:
 * more than one task, a node count above one, or no job to run in.
 */
#include <config.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cliopt.h"
#include "common/util.h"

static const char *usage_text =
    "Usage: srun [-n 1] [-N 1] [-c N] [-J NAME] [--cpu-bind=...] [--mem=...]\n"
    "            [--jobid=ID] [--exclusive] [--export=...] COMMAND [ARGS...]\n"
    "Runs COMMAND as one task inside the current job (hpcq).  See docs/compat.md.\n";

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "ntasks", required_argument, NULL, 'n' },
        { "nodes", required_argument, NULL, 'N' },
        { "cpus-per-task", required_argument, NULL, 'c' },
        { "job-name", required_argument, NULL, 'J' },
        { "cpu-bind", required_argument, NULL, 'b' },
        { "cpu_bind", required_argument, NULL, 'b' },
        { "mem", required_argument, NULL, 'm' },
        { "mem-per-cpu", required_argument, NULL, 'm' },
        { "jobid", required_argument, NULL, 'j' },
        { "exclusive", no_argument, NULL, 'x' },
        { "export", required_argument, NULL, 'e' },
        { "kill-on-bad-exit", optional_argument, NULL, 'K' },
        { "ntasks-per-node", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    cliopt_only (&(struct cliopt){ .prog = "srun", .kind = CLIOPT_SLURM }, argc, argv);
    opterr = 0;
    /* '+': options end at the command. */
    while ((c = getopt_long (argc, argv, "+n:N:c:J:K", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
        case 'N':
        case 't':
            if (strcmp (optarg, "1") != 0) {
                fprintf (stderr,
                         "srun: error: -%c %s: hpcq's srun runs one task on the "
                         "job's first node; start more with mpirun and $PBS_NODEFILE\n",
                         c == 't' ? 't' : c, optarg);
                return 1;
            }
            break;
        case 'c':
        case 'J':
        case 'b':
        case 'm':
        case 'j':
        case 'x':
        case 'e':
        case 'K': break;
        case 'H': fputs (usage_text, stdout); return 0;
        default:
            fprintf (stderr,
                     "srun: unrecognized option '%s'\nTry \"srun --help\" for more "
                     "information\n",
                     argv[optind - 1]);
            return 1;
        }
    }
    if (optind >= argc)
        util_die (1, "error: No command given to execute.");
    if (!getenv ("PBS_JOBID"))
        util_die (1,
                  "error: srun runs a command inside a job here; submit with sbatch or "
                  "qsub");
    setenv ("SLURM_STEP_ID", "0", 1);
    setenv ("SLURM_STEP_NUM_TASKS", "1", 1);
    setenv ("SLURM_PROCID", "0", 1);
    execvp (argv[optind], argv + optind);
    fprintf (stderr, "srun: error: %s: %s\n", argv[optind], strerror (errno));
    return errno == ENOENT ? 127 : 126;
}

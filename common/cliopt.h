/* cliopt.h - what every command answers the same way: --help (its usage
 * on standard output, exit 0), --version (exit 0), and one error line
 * with exit 2 for an option it does not know.  Commands keep their own
 * short options exactly as PBS (or Slurm) spells them; this wraps
 * getopt_long so no command repeats the help/version code. */
#ifndef HPCQ_COMMON_CLIOPT_H
#define HPCQ_COMMON_CLIOPT_H

#include <getopt.h>

/* The exit status of a usage error, as PBS's commands use. */
#define CLIOPT_USAGE_EXIT 2

/* How a command's --version reads. */
enum cliopt_kind {
    CLIOPT_PBS,   /* "pbs_version = 0.1.0", what PBS Pro's commands print */
    CLIOPT_HPCQ,  /* "hpcq-report (hpcq) 0.1.0" */
    CLIOPT_SLURM, /* "slurm 0.1.0 (hpcq)", the shape of Slurm's "slurm 23.02.7" */
};

/* A command's option grammar; all fields are borrowed and must outlive
 * the parse (string literals, normally). */
struct cliopt {
    const char *prog;              /* "qstat": prefixes every message */
    const char *shortopts;         /* getopt's; a leading '+' stops at the
                                      first operand.  ':' is added. */
    const struct option *longopts; /* the command's own, {0}-terminated, or
                                      NULL; --help/--version are added */
    const char *usage;             /* printed by --help */
    enum cliopt_kind kind;
};

/* The next option of argv (getopt_long's return), or -1 at the end, with
 * optind at the first operand.  --help and --version are answered here
 * and the program exits 0; an unknown option, or one missing its
 * argument, prints "PROG: invalid option -- 'x' (PROG --help lists them)"
 * and exits CLIOPT_USAGE_EXIT.  Never returns '?' or ':'. */
int cliopt_next (const struct cliopt *co, int argc, char **argv);

/* For a command that parses its own arguments: answers --help (unless
 * co->usage is NULL) or --version in argv[1] (and exits), and returns for
 * anything else. */
void cliopt_only (const struct cliopt *co, int argc, char **argv);

/* Prints the --version line of prog, for a parser of its own. */
void cliopt_print_version (const char *prog, enum cliopt_kind kind);

#endif

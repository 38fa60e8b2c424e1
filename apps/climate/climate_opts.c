/* climate_opts.c - the command line (getopt_long, as the commands in cli/
 * parse theirs) and --help.
 *
 * Every value is checked here so the rest of the program can trust struct
 * climate_opts; a bad one is one line of error for main to print.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apps/climate/climate_cases.h"
#include "apps/climate/climate_opts.h"
#include "common/ckptfile.h"
#include "common/util.h"

enum {
    OPT_CASE = 256,
    OPT_NX,
    OPT_NZ,
    OPT_SIM_TIME,
    OPT_OUT_EVERY,
    OPT_OUTPUT,
    OPT_CKPT_EVERY,
    OPT_CKPT_DIR,
    OPT_CKPT_KEEP,
    OPT_RESTART,
    OPT_GPU,
    OPT_CPU,
    OPT_DUMP,
    OPT_STOP_AFTER,
    OPT_QUIET,
};

static const struct option longopts[] = {
    { "case", required_argument, NULL, OPT_CASE },
    { "nx", required_argument, NULL, OPT_NX },
    { "nz", required_argument, NULL, OPT_NZ },
    { "sim-time", required_argument, NULL, OPT_SIM_TIME },
    { "out-every", required_argument, NULL, OPT_OUT_EVERY },
    { "output", required_argument, NULL, OPT_OUTPUT },
    { "checkpoint-every", required_argument, NULL, OPT_CKPT_EVERY },
    { "checkpoint-dir", required_argument, NULL, OPT_CKPT_DIR },
    { "checkpoint-keep", required_argument, NULL, OPT_CKPT_KEEP },
    { "restart", no_argument, NULL, OPT_RESTART },
    { "gpu", no_argument, NULL, OPT_GPU },
    { "cpu", no_argument, NULL, OPT_CPU },
    { "dump", required_argument, NULL, OPT_DUMP },
    { "stop-after", required_argument, NULL, OPT_STOP_AFTER },
    { "quiet", no_argument, NULL, OPT_QUIET },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static int bad_int (const char *name, const char *a, const char *what,
                    struct hpcq_error *err)
{
    return errprintf_code (err, EINVAL, "invalid --%s '%s': need %s", name, a, what);
}

static int set_long (long *dst, const char *name, const char *a, long min, long max,
                     const char *what, struct hpcq_error *err)
{
    if (util_parse_long (a, min, max, dst) < 0)
        return bad_int (name, a, what, err);
    return 0;
}

static int set_int (int *dst, const char *name, const char *a, long min, long max,
                    const char *what, struct hpcq_error *err)
{
    long v;

    if (set_long (&v, name, a, min, max, what, err) < 0)
        return -1;
    *dst = (int)v;
    return 0;
}

static int set_seconds (double *dst, const char *name, const char *a,
                        struct hpcq_error *err)
{
    if (util_parse_double (a, 0.0, HUGE_VAL, dst) < 0 || *dst <= 0.0)
        return bad_int (name, a, "a positive number of seconds", err);
    return 0;
}

/* Store the value of option c; 0 or -1 with err. */
static int set_option (struct climate_opts *o, int c, const char *a,
                       struct hpcq_error *err)
{
    switch (c) {
    case OPT_CASE:
        if (!climate_case_find (a))
            return errprintf_code (err, EINVAL, "unknown case '%s' (try --help)", a);
        o->case_name = a;
        return 0;
    case OPT_NX:
        return set_int (&o->nx, "nx", a, 4, 1 << 20, "an integer from 4 to 1048576",
                        err);
    case OPT_NZ:
        return set_int (&o->nz, "nz", a, 4, 1 << 20, "an integer from 4 to 1048576",
                        err);
    case OPT_SIM_TIME: return set_seconds (&o->sim_time, "sim-time", a, err);
    case OPT_OUT_EVERY: return set_seconds (&o->out_every, "out-every", a, err);
    case OPT_OUTPUT: o->output = a; return 0;
    case OPT_CKPT_EVERY:
        return set_long (&o->checkpoint_every, "checkpoint-every", a, 1, 1L << 40,
                         "a positive number of steps", err);
    case OPT_CKPT_DIR: o->checkpoint_dir = a; return 0;
    case OPT_CKPT_KEEP:
        return set_int (&o->checkpoint_keep, "checkpoint-keep", a, 1, 1000,
                        "a number of checkpoints from 1 to 1000", err);
    case OPT_RESTART: o->restart = 1; return 0;
    case OPT_GPU:
    case OPT_CPU:
        o->device = c == OPT_GPU ? CLIMATE_DEV_GPU : CLIMATE_DEV_CPU;
        return 0;
    case OPT_DUMP: o->dump = a; return 0;
    case OPT_STOP_AFTER:
        return set_long (&o->stop_after, "stop-after", a, 1, 1L << 40,
                         "a positive number of steps", err);
    case OPT_QUIET: o->quiet = 1; return 0;
    case 'h': o->help = 1; return 0;
    }
    return errprintf_code (err, EINVAL, "internal error: option %d", c);
}

static int parse_env (struct climate_opts *o, struct hpcq_error *err)
{
    const char *s = getenv ("HPCQ_CHECKPOINT_DIR");

    if (s && *s)
        o->checkpoint_dir = s;
    s = getenv ("HPCQ_CHECKPOINT_INTERVAL");
    if (s && *s
        && (util_parse_double (s, 0.0, HUGE_VAL, &o->checkpoint_interval) < 0
            || o->checkpoint_interval <= 0.0))
        return errprintf_code (err, EINVAL,
                               "invalid HPCQ_CHECKPOINT_INTERVAL "
                               "'%s': need a positive number of seconds",
                               s);
    s = getenv ("HPCQ_CHECKPOINT_KEEP");
    if (s && *s
        && set_int (&o->checkpoint_keep, "checkpoint-keep", s, 1, 1000,
                    "a number of checkpoints from 1 to 1000", err)
               < 0)
        return errprintf_code (err, EINVAL,
                               "invalid HPCQ_CHECKPOINT_KEEP '%s': "
                               "need a number of checkpoints from 1 to 1000",
                               s);
    return 0;
}

int climate_opts_parse (struct climate_opts *o, int argc, char **argv,
                        struct hpcq_error *err)
{
    int c;

    memset (o, 0, sizeof (*o));
    o->case_name = "thermal";
    o->nx = 400;
    o->nz = 200;
    o->sim_time = 1000.0;
    o->checkpoint_dir = ".";
    o->checkpoint_keep = CKPTFILE_KEEP_DEFAULT;
    if (parse_env (o, err) < 0)
        return -1;
    opterr = 0; /* one error line, ours */
    optind = 1;
    while ((c = getopt_long (argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == '?')
            return errprintf_code (err, EINVAL, "unknown option '%s' (try --help)",
                                   argv[optind - 1]);
        if (c == ':')
            return errprintf_code (err, EINVAL, "option '%s' needs a value",
                                   argv[optind - 1]);
        if (set_option (o, c, optarg, err) < 0)
            return -1;
    }
    if (optind < argc)
        return errprintf_code (err, EINVAL, "unexpected argument '%s' (try --help)",
                               argv[optind]);
    if (o->out_every > 0 && !o->output)
        return errprintf_code (err, EINVAL, "--out-every needs --output FILE.nc");
    return 0;
}

void climate_opts_usage (FILE *f)
{
    fprintf (
        f,
        "Usage: hpcq-climate [--case NAME] [--nx N] [--nz N] [--sim-time SECONDS]\n"
        "                    [--output FILE.nc [--out-every SECONDS]]\n"
        "                    [--checkpoint-every STEPS] [--checkpoint-dir DIR]\n"
        "                    [--checkpoint-keep N] [--restart]\n"
        "                    [--gpu|--cpu] [--dump FILE] [--quiet]\n"
        "\n"
        "A 2D (x-z) dry atmosphere: compressible Euler equations in perturbation form\n"
        "about a hydrostatic background; finite volumes with 4th-order interpolation "
        "to\n"
        "cell edges, hyperviscosity, dimensionally split 3-stage Runge-Kutta, FP64.\n"
        "\n"
        "Options:\n"
        "  --case NAME            test case (default thermal), one of the list below\n"
        "  --nx N, --nz N         cells in x and z (default 400 x 200; at least 4,\n"
        "                         and at least 2 columns per MPI rank)\n"
        "  --sim-time SECONDS     simulated time (default 1000)\n"
        "  --output FILE.nc       NetCDF snapshots (CF-1.8): rho, u, w, theta,\n"
        "                         theta_prime, p_prime over (time, z, x)\n"
        "  --out-every SECONDS    snapshot interval (default: first and last only)\n"
        "  --checkpoint-every N   checkpoint every N steps\n"
        "  --checkpoint-dir DIR   where checkpoints go (default $HPCQ_CHECKPOINT_DIR, "
        "else .)\n"
        "  --checkpoint-keep N    keep the newest N checkpoints (default\n"
        "                         $HPCQ_CHECKPOINT_KEEP, else 2)\n"
        "  --restart              continue from the newest valid checkpoint (if any);\n"
        "                         the output file is extended, not replaced\n"
        "  --gpu                  run on the GPU, fail if none; --cpu: run on the "
        "CPU;\n"
        "                         default: the GPU when built with CUDA and one is\n"
        "                         usable, else the CPU\n"
        "  --dump FILE            write the final fields raw (doubles, [var][z][x])\n"
        "  --stop-after N         checkpoint and stop after N steps (for testing)\n"
        "  --quiet                print only the final diagnostics\n"
        "\n"
        "Environment: HPCQ_CHECKPOINT_DIR (checkpoint folder), "
        "HPCQ_CHECKPOINT_INTERVAL\n"
        "(also checkpoint every that many seconds of wall time), HPCQ_CHECKPOINT_KEEP\n"
        "(checkpoints kept), OMP_NUM_THREADS.\n"
        "SIGUSR1 writes a checkpoint and continues; SIGTERM writes one and exits 143.\n"
        "\n"
        "Domain: x in [0, %.0f] m periodic, z in [0, %.0f] m between rigid walls.\n"
        "Constants: g %.2f m/s2, cp %.0f, cv %.0f, Rd %.0f J/(kg K), p0 %.0f Pa,\n"
        "surface theta %.0f K; time step %.1f * min(dx, dz) / %.0f m/s; "
        "hyperviscosity\n"
        "damps the grid-scale mode by %.2f per step.\n"
        "\n"
        "Cases:\n",
        CLIMATE_XLEN, CLIMATE_ZLEN, CLIMATE_GRAV, CLIMATE_CP, CLIMATE_CV, CLIMATE_RD,
        CLIMATE_P0, CLIMATE_THETA0, CLIMATE_CFL, CLIMATE_MAXSPEED, CLIMATE_HV_BETA);
    for (const struct climate_case *c = climate_case_table (); c->name; c++)
        fprintf (f, "  %-16s %s\n", c->name, c->help);
    fprintf (
        f, "\n"
           "At the end it prints the total mass and energy at start and end and their\n"
           "relative changes; mass is conserved to round-off in every case.\n"
           "Exit status: 0 done, 2 bad input, 143 stopped by SIGTERM after a "
           "checkpoint.\n");
}

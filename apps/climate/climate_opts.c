/* climate_opts.c - option table, parsing and --help.
 *
 * Options are a table of {name, has-argument, setter}; every value is
 * checked here so the rest of the program can trust struct climate_opts.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apps/climate/climate_cases.h"
#include "apps/climate/climate_opts.h"

static int parse_long (const char *s, long min, long max, long *out)
{
    char *end;

    errno = 0;
    long v = strtol (s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_double (const char *s, double min, double *out)
{
    char *end;

    errno = 0;
    double v = strtod (s, &end);
    if (errno || end == s || *end || !isfinite (v) || v < min)
        return -1;
    *out = v;
    return 0;
}

typedef int (*setter_fn) (struct climate_opts *o, const char *arg,
                          struct hpcq_error *err);

static int set_case (struct climate_opts *o, const char *a, struct hpcq_error *err)
{
    if (!climate_case_find (a))
        return errprintf_code (err, EINVAL, "unknown case '%s' (try --help)", a);
    o->case_name = a;
    return 0;
}

static int set_grid (int *dst, const char *name, const char *a,
                     struct hpcq_error *err)
{
    long v;

    if (parse_long (a, 4, 1 << 20, &v) < 0)
        return errprintf_code (err, EINVAL, "invalid %s '%s': need an integer "
                               "from 4 to 1048576", name, a);
    *dst = (int)v;
    return 0;
}

static int set_nx (struct climate_opts *o, const char *a, struct hpcq_error *err)
{
    return set_grid (&o->nx, "--nx", a, err);
}

static int set_nz (struct climate_opts *o, const char *a, struct hpcq_error *err)
{
    return set_grid (&o->nz, "--nz", a, err);
}

static int set_positive (double *dst, const char *name, const char *a,
                         struct hpcq_error *err)
{
    if (parse_double (a, 0.0, dst) < 0 || *dst <= 0.0)
        return errprintf_code (err, EINVAL, "invalid %s '%s': need a positive "
                               "number of seconds", name, a);
    return 0;
}

static int set_time (struct climate_opts *o, const char *a, struct hpcq_error *err)
{
    return set_positive (&o->sim_time, "--sim-time", a, err);
}

static int set_out_every (struct climate_opts *o, const char *a,
                          struct hpcq_error *err)
{
    return set_positive (&o->out_every, "--out-every", a, err);
}

static int set_output (struct climate_opts *o, const char *a,
                       struct hpcq_error *err)
{
    o->output = a;
    return 0;
}

static int set_steps (long *dst, const char *name, const char *a,
                      struct hpcq_error *err)
{
    if (parse_long (a, 1, 1L << 40, dst) < 0)
        return errprintf_code (err, EINVAL, "invalid %s '%s': need a positive "
                               "number of steps", name, a);
    return 0;
}

static int set_ckpt_every (struct climate_opts *o, const char *a,
                           struct hpcq_error *err)
{
    return set_steps (&o->checkpoint_every, "--checkpoint-every", a, err);
}

static int set_stop_after (struct climate_opts *o, const char *a,
                           struct hpcq_error *err)
{
    return set_steps (&o->stop_after, "--stop-after", a, err);
}

static int set_ckpt_dir (struct climate_opts *o, const char *a,
                         struct hpcq_error *err)
{
    o->checkpoint_dir = a;
    return 0;
}

static int set_dump (struct climate_opts *o, const char *a, struct hpcq_error *err)
{
    o->dump = a;
    return 0;
}

static int set_restart (struct climate_opts *o, const char *a,
                        struct hpcq_error *err)
{
    o->restart = 1;
    return 0;
}

static int set_gpu (struct climate_opts *o, const char *a, struct hpcq_error *err)
{
    o->device = CLIMATE_DEV_GPU;
    return 0;
}

static int set_cpu (struct climate_opts *o, const char *a, struct hpcq_error *err)
{
    o->device = CLIMATE_DEV_CPU;
    return 0;
}

static int set_quiet (struct climate_opts *o, const char *a,
                      struct hpcq_error *err)
{
    o->quiet = 1;
    return 0;
}

static int set_help (struct climate_opts *o, const char *a, struct hpcq_error *err)
{
    o->help = 1;
    return 0;
}

static const struct {
    const char *name;
    int has_arg;
    setter_fn set;
} options[] = {
    { "--case", 1, set_case },
    { "--nx", 1, set_nx },
    { "--nz", 1, set_nz },
    { "--sim-time", 1, set_time },
    { "--out-every", 1, set_out_every },
    { "--output", 1, set_output },
    { "--checkpoint-every", 1, set_ckpt_every },
    { "--checkpoint-dir", 1, set_ckpt_dir },
    { "--restart", 0, set_restart },
    { "--gpu", 0, set_gpu },
    { "--cpu", 0, set_cpu },
    { "--dump", 1, set_dump },
    { "--stop-after", 1, set_stop_after },
    { "--quiet", 0, set_quiet },
    { "--help", 0, set_help },
    { "-h", 0, set_help },
};

static int parse_env (struct climate_opts *o, struct hpcq_error *err)
{
    const char *s = getenv ("HPCQ_CHECKPOINT_DIR");

    if (s && *s)
        o->checkpoint_dir = s;
    s = getenv ("HPCQ_CHECKPOINT_INTERVAL");
    if (s && *s && (parse_double (s, 0.0, &o->checkpoint_interval) < 0
                    || o->checkpoint_interval <= 0.0))
        return errprintf_code (err, EINVAL, "invalid HPCQ_CHECKPOINT_INTERVAL "
                               "'%s': need a positive number of seconds", s);
    return 0;
}

int climate_opts_parse (struct climate_opts *o, int argc, char **argv,
                        struct hpcq_error *err)
{
    size_t nopt = sizeof (options) / sizeof (options[0]);

    memset (o, 0, sizeof (*o));
    o->case_name = "thermal";
    o->nx = 400;
    o->nz = 200;
    o->sim_time = 1000.0;
    o->checkpoint_dir = ".";
    if (parse_env (o, err) < 0)
        return -1;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = NULL, *eq = strchr (arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen (arg);
        size_t j;
        for (j = 0; j < nopt; j++)
            if (strlen (options[j].name) == len
                && strncmp (options[j].name, arg, len) == 0)
                break;
        if (j == nopt)
            return errprintf_code (err, EINVAL, "unknown option '%s' (try --help)",
                                   arg);
        if (options[j].has_arg) {
            if (eq)
                val = eq + 1;
            else if (a + 1 < argc)
                val = argv[++a];
            else
                return errprintf_code (err, EINVAL, "option '%s' needs a value",
                                       options[j].name);
        } else if (eq)
            return errprintf_code (err, EINVAL, "option '%s' takes no value",
                                   options[j].name);
        if (options[j].set (o, val, err) < 0)
            return -1;
    }
    if (o->out_every > 0 && !o->output)
        return errprintf_code (err, EINVAL, "--out-every needs --output FILE.nc");
    return 0;
}

void climate_opts_usage (FILE *f)
{
    fprintf (f,
"Usage: hpcq-climate [--case NAME] [--nx N] [--nz N] [--sim-time SECONDS]\n"
"                    [--output FILE.nc [--out-every SECONDS]]\n"
"                    [--checkpoint-every STEPS] [--checkpoint-dir DIR] [--restart]\n"
"                    [--gpu|--cpu] [--dump FILE] [--quiet]\n"
"\n"
"A 2D (x-z) dry atmosphere: compressible Euler equations in perturbation form\n"
"about a hydrostatic background; finite volumes with 4th-order interpolation to\n"
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
"  --checkpoint-dir DIR   where checkpoints go (default $HPCQ_CHECKPOINT_DIR, else .)\n"
"  --restart              continue from the newest valid checkpoint (if any);\n"
"                         the output file is extended, not replaced\n"
"  --gpu                  run on the GPU, fail if none; --cpu: run on the CPU;\n"
"                         default: the GPU when built with CUDA and one is\n"
"                         usable, else the CPU\n"
"  --dump FILE            write the final fields raw (doubles, [var][z][x])\n"
"  --stop-after N         checkpoint and stop after N steps (for testing)\n"
"  --quiet                print only the final diagnostics\n"
"\n"
"Environment: HPCQ_CHECKPOINT_DIR (checkpoint folder), HPCQ_CHECKPOINT_INTERVAL\n"
"(also checkpoint every that many seconds of wall time), OMP_NUM_THREADS.\n"
"SIGUSR1 writes a checkpoint and continues; SIGTERM writes one and exits 143.\n"
"\n"
"Domain: x in [0, %.0f] m periodic, z in [0, %.0f] m between rigid walls.\n"
"Constants: g %.2f m/s2, cp %.0f, cv %.0f, Rd %.0f J/(kg K), p0 %.0f Pa,\n"
"surface theta %.0f K; time step %.1f * min(dx, dz) / %.0f m/s; hyperviscosity\n"
"damps the grid-scale mode by %.2f per step.\n"
"\n"
"Cases:\n",
             CLIMATE_XLEN, CLIMATE_ZLEN, CLIMATE_GRAV, CLIMATE_CP, CLIMATE_CV,
             CLIMATE_RD, CLIMATE_P0, CLIMATE_THETA0, CLIMATE_CFL,
             CLIMATE_MAXSPEED, CLIMATE_HV_BETA);
    for (const struct climate_case *c = climate_case_table (); c->name; c++)
        fprintf (f, "  %-16s %s\n", c->name, c->help);
    fprintf (f,
"\n"
"At the end it prints the total mass and energy at start and end and their\n"
"relative changes; mass is conserved to round-off in every case.\n"
"Exit status: 0 done, 2 bad input, 143 stopped by SIGTERM after a checkpoint.\n");
}

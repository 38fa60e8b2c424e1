/* params.c - command line and input file parsing for hpcq-md.
 *
 * One table lists every setting: its name, how its value is checked and
 * stored (a setter), where it goes, and its help line.  The command line
 * goes through getopt_long with a struct option array made from the
 * table; an input file's "key value" lines go through the same setters.
 * Input files are read first, so options override them wherever they
 * stand on the command line.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/params.h"
#include "common/ckptfile.h"
#include "common/util.h"

struct opt;
typedef int (*opt_set_fn) (struct md_params *p, const struct opt *o, const char *val,
                           struct hpcq_error *err);

struct opt {
    const char *name;
    opt_set_fn set;
    size_t off; /* where in struct md_params */
    int has_arg;
    const char *help;
};

static void params_defaults (struct md_params *p)
{
    memset (p, 0, sizeof (*p));
    p->density = 0.8442;
    p->cells[0] = p->cells[1] = p->cells[2] = 20;
    p->temp = 1.44;
    p->seed = 87287;
    p->cutoff = 2.5;
    p->skin = 0.3;
    p->dt = 0.005;
    p->steps = 100;
    p->thermo = 50;
    p->thermo_digits = 8;
    p->neigh_every = 1;
    p->neigh_check = 1;
    p->tdamp = 0.5;
    p->dump_every = 100;
    p->checkpoint_keep = CKPTFILE_KEEP_DEFAULT;
}

#define F(m) offsetof (struct md_params, m)

/* ---- setters: check val and store it at o->off ---- */

static void *field (struct md_params *p, const struct opt *o)
{
    return (char *)p + o->off;
}

static int bad (const struct opt *o, const char *v, const char *want,
                struct hpcq_error *err)
{
    return errprintf (err, "invalid --%s '%s': expected %s", o->name, v, want);
}

static int set_double (struct md_params *p, const struct opt *o, const char *v,
                       int positive, struct hpcq_error *err)
{
    double d;
    if (util_parse_double (v, 0.0, HUGE_VAL, &d) < 0 || (positive && d == 0))
        return bad (o, v, positive ? "a positive number" : "a non-negative number",
                    err);
    *(double *)field (p, o) = d;
    return 0;
}

static int set_pos (struct md_params *p, const struct opt *o, const char *v,
                    struct hpcq_error *err)
{
    return set_double (p, o, v, 1, err);
}

static int set_nonneg (struct md_params *p, const struct opt *o, const char *v,
                       struct hpcq_error *err)
{
    return set_double (p, o, v, 0, err);
}

static int set_poslong (struct md_params *p, const struct opt *o, const char *v,
                        struct hpcq_error *err)
{
    if (util_parse_long (v, 1, LONG_MAX, field (p, o)) < 0)
        return bad (o, v, "a positive integer", err);
    return 0;
}

static int set_nonneglong (struct md_params *p, const struct opt *o, const char *v,
                           struct hpcq_error *err)
{
    if (util_parse_long (v, 0, LONG_MAX, field (p, o)) < 0)
        return bad (o, v, "a non-negative integer", err);
    return 0;
}

/* thermo-digits (4 to 17) and checkpoint-keep (1 to 1000) */
static int set_int (struct md_params *p, const struct opt *o, const char *v,
                    struct hpcq_error *err)
{
    int digits = o->off == F (thermo_digits);
    long l;
    if (util_parse_long (v, digits ? 4 : 1, digits ? 17 : 1000, &l) < 0)
        return bad (o, v,
                    digits ? "an integer from 4 to 17" : "an integer from 1 to 1000",
                    err);
    *(int *)field (p, o) = (int)l;
    return 0;
}

static int set_seed (struct md_params *p, const struct opt *o, const char *v,
                     struct hpcq_error *err)
{
    long l;
    if (util_parse_long (v, 1, LONG_MAX, &l) < 0)
        return bad (o, v, "a positive integer", err);
    p->seed = (uint64_t)l;
    return 0;
}

static int set_cells (struct md_params *p, const struct opt *o, const char *v,
                      struct hpcq_error *err)
{
    char buf[64], *save = NULL, *tok;
    long c[3];
    int n = 0;
    if (strlen (v) >= sizeof (buf) || strstr (v, "xx") || v[0] == 'x'
        || v[strlen (v) - 1] == 'x')
        return bad (o, v, "NXxNYxNZ, each a positive integer", err);
    strcpy (buf, v);
    for (tok = strtok_r (buf, "x", &save); tok; tok = strtok_r (NULL, "x", &save))
        if (n == 3 || util_parse_long (tok, 1, 100000, &c[n++]) < 0)
            return bad (o, v, "NXxNYxNZ, each a positive integer", err);
    if (n != 3)
        return bad (o, v, "NXxNYxNZ, each a positive integer", err);
    for (int d = 0; d < 3; d++)
        p->cells[d] = (int)c[d];
    return 0;
}

static int set_path (struct md_params *p, const struct opt *o, const char *v,
                     struct hpcq_error *err)
{
    if (!*v || strlen (v) >= MD_PATH_MAX)
        return bad (o, v, "a path", err);
    strcpy (field (p, o), v);
    return 0;
}

static int set_yesno (struct md_params *p, const struct opt *o, const char *v,
                      struct hpcq_error *err)
{
    if (strcmp (v, "yes") && strcmp (v, "no"))
        return bad (o, v, "yes or no", err);
    *(int *)field (p, o) = strcmp (v, "yes") == 0;
    return 0;
}

static int set_flag (struct md_params *p, const struct opt *o, const char *v,
                     struct hpcq_error *err)
{
    (void)v;
    (void)err;
    *(int *)field (p, o) = 1;
    return 0;
}

static int set_lattice (struct md_params *p, const struct opt *o, const char *v,
                        struct hpcq_error *err)
{
    (void)p;
    (void)o;
    if (strcmp (v, "fcc") != 0)
        return errprintf (err, "unsupported --lattice '%s': only fcc", v);
    return 0;
}

static int set_thermostat (struct md_params *p, const struct opt *o, const char *v,
                           struct hpcq_error *err)
{
    static const char *names[] = { "nve", "berendsen", "langevin" };
    for (int k = 0; k < 3; k++)
        if (strcmp (v, names[k]) == 0) {
            p->thermostat = (enum md_thermostat)k;
            return 0;
        }
    return bad (o, v, "nve, berendsen or langevin", err);
}

static int set_backend (struct md_params *p, const struct opt *o, const char *v,
                        struct hpcq_error *err)
{
    (void)v;
    (void)err;
    p->backend = strcmp (o->name, "gpu") == 0 ? MD_BACKEND_GPU : MD_BACKEND_CPU;
    return 0;
}

static int set_restart (struct md_params *p, const struct opt *o, const char *v,
                        struct hpcq_error *err)
{
    (void)v;
    (void)err;
    p->restart = strcmp (o->name, "restart") == 0 ? MD_RESTART_YES : MD_RESTART_AUTO;
    return 0;
}

/* ---- the table ---- */

#define VAL required_argument
#define NOVAL no_argument

/* The option "input" has no setter: files are read before the rest. */
static const struct opt opts[] = {
    { "data", set_path, F (data), VAL,
      "start from this LAMMPS data file (atom_style atomic)" },
    { "lattice", set_lattice, 0, VAL, "fcc (the only lattice)" },
    { "density", set_pos, F (density), VAL, "reduced density (0.8442)" },
    { "cells", set_cells, F (cells), VAL, "unit cells NXxNYxNZ (20x20x20)" },
    { "temp", set_pos, F (temp), VAL, "initial (and thermostat) temperature (1.44)" },
    { "seed", set_seed, F (seed), VAL, "velocity seed, positive (87287)" },
    { "cutoff", set_pos, F (cutoff), VAL, "LJ cutoff (2.5)" },
    { "skin", set_nonneg, F (skin), VAL, "neighbour skin (0.3)" },
    { "dt", set_pos, F (dt), VAL, "timestep (0.005)" },
    { "steps", set_nonneglong, F (steps), VAL, "run until this step (100)" },
    { "thermo", set_nonneglong, F (thermo), VAL, "thermo output every N steps (50)" },
    { "thermo-digits", set_int, F (thermo_digits), VAL,
      "significant digits, 4 to 17 (8)" },
    { "neigh-delay", set_nonneglong, F (neigh_delay), VAL,
      "no list rebuild until N steps after the last (0)" },
    { "neigh-every", set_poslong, F (neigh_every), VAL,
      "consider a rebuild every N steps (1)" },
    { "neigh-check", set_yesno, F (neigh_check), VAL,
      "yes|no: rebuild only if an atom moved > skin/2 (yes)" },
    { "thermostat", set_thermostat, F (thermostat), VAL,
      "nve|berendsen|langevin (nve)" },
    { "tdamp", set_pos, F (tdamp), VAL, "thermostat time constant (0.5)" },
    { "cpu", set_backend, F (backend), NOVAL, "use the CPU back end" },
    { "gpu", set_backend, F (backend), NOVAL, "require the GPU back end" },
    { "checkpoint-every", set_nonneglong, F (checkpoint_every), VAL,
      "checkpoint every N steps (0: off)" },
    { "checkpoint-interval", set_nonneg, F (checkpoint_interval), VAL,
      "checkpoint every T seconds" },
    { "checkpoint-dir", set_path, F (checkpoint_dir), VAL,
      "checkpoint folder ($HPCQ_CHECKPOINT_DIR)" },
    { "checkpoint-keep", set_int, F (checkpoint_keep), VAL,
      "keep the newest N checkpoints ($HPCQ_CHECKPOINT_KEEP, else 2)" },
    { "restart", set_restart, F (restart), NOVAL,
      "continue from the newest valid checkpoint" },
    { "restart-auto", set_restart, F (restart), NOVAL,
      "restart if a checkpoint exists, else start" },
    { "dump", set_path, F (dump), VAL,
      "LAMMPS text dump (id type x y z vx vy vz fx fy fz)" },
    { "dump-xyz", set_path, F (dump_xyz), VAL, "extended XYZ trajectory file" },
    { "dump-every", set_poslong, F (dump_every), VAL,
      "trajectory frame every N steps (100)" },
    { "write-data", set_path, F (write_data), VAL,
      "write the final state as a LAMMPS data file" },
    { "dump-state", set_path, F (dump_state), VAL, "write the exact final state here" },
    { "quiet", set_flag, F (quiet), NOVAL, "no thermo output" },
    { "input", NULL, 0, VAL, "read settings from FILE (key value lines)" },
};

#define NOPTS ARRAY_SIZE (opts)

/* ---- input files ---- */

static const struct opt *opt_lookup (const char *name)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (strcmp (opts[i].name, name) == 0)
            return &opts[i];
    return NULL;
}

/* Input file: "key value" per line; flags alone; '#' to end of line. */
static int params_read_file (struct md_params *p, const char *path,
                             struct hpcq_error *err)
{
    char line[2048];
    int lineno = 0, rc = 0;
    FILE *f = fopen (path, "r");
    if (!f)
        return errprintf (err, "cannot open input file '%s': %s", path,
                          strerror (errno));
    while (rc == 0 && fgets (line, sizeof (line), f)) {
        char *key, *val, *extra, *save = NULL;
        lineno++;
        line[strcspn (line, "#\r\n")] = '\0';
        if (!(key = strtok_r (line, " \t", &save)))
            continue;
        val = strtok_r (NULL, " \t", &save);
        extra = strtok_r (NULL, " \t", &save);
        const struct opt *o = opt_lookup (key);
        if (!o || !o->set)
            rc = errprintf (err, "%s:%d: unknown key '%s'", path, lineno, key);
        else if (o->has_arg ? (!val || extra) : val != NULL)
            rc = errprintf (err, "%s:%d: key '%s' %s", path, lineno, key,
                            o->has_arg ? "needs one value" : "takes no value");
        else
            rc = o->set (p, o, val, err);
    }
    fclose (f);
    return rc;
}

static int params_from_env (struct md_params *p, struct hpcq_error *err)
{
    const char *dir = getenv ("HPCQ_CHECKPOINT_DIR");
    const char *ival = getenv ("HPCQ_CHECKPOINT_INTERVAL");
    if (dir && *dir) {
        if (strlen (dir) >= sizeof (p->checkpoint_dir))
            return errprintf (err, "HPCQ_CHECKPOINT_DIR is too long");
        strcpy (p->checkpoint_dir, dir);
    }
    const char *keep = getenv ("HPCQ_CHECKPOINT_KEEP");
    long k;
    if (ival && *ival
        && (util_parse_double (ival, 0, HUGE_VAL, &p->checkpoint_interval) < 0
            || p->checkpoint_interval <= 0))
        return errprintf (err,
                          "invalid HPCQ_CHECKPOINT_INTERVAL '%s': expected "
                          "a positive number of seconds",
                          ival);
    if (keep && *keep) {
        if (util_parse_long (keep, 1, 1000, &k) < 0)
            return errprintf (err,
                              "invalid HPCQ_CHECKPOINT_KEEP '%s': expected "
                              "an integer from 1 to 1000",
                              keep);
        p->checkpoint_keep = (int)k;
    }
    return 0;
}

void params_usage (FILE *f)
{
    fprintf (f, "Usage: hpcq-md [FILE] [--option value]...\n"
                "FP64 Lennard-Jones molecular dynamics (LAMMPS lj units).\n\n");
    for (size_t i = 0; i < NOPTS; i++)
        fprintf (f, "  --%-20s %s\n", opts[i].name, opts[i].help);
}

/* ---- the command line ---- */

enum { HELP = NOPTS };

/* getopt_long's table: opts[i] returns i. */
static void make_longopts (struct option *lo)
{
    for (size_t i = 0; i < NOPTS; i++)
        lo[i] = (struct option){ opts[i].name, opts[i].has_arg, NULL, (int)i };
    lo[NOPTS] = (struct option){ "help", no_argument, NULL, HELP };
    lo[NOPTS + 1] = (struct option){ NULL, 0, NULL, 0 };
}

/* getopt_long said '?' (unknown, or a value given to a flag) or ':'
 * (value missing) about argument arg. */
static void option_error (int c, const char *arg, struct hpcq_error *err)
{
    char name[64];
    const char *eq = strchr (arg, '=');
    const struct opt *o = NULL;
    if (c == ':') {
        errprintf (err, "option '%s' needs a value", arg);
        return;
    }
    if (strncmp (arg, "--", 2) == 0 && eq && (size_t)(eq - arg - 2) < sizeof (name)) {
        memcpy (name, arg + 2, eq - arg - 2);
        name[eq - arg - 2] = '\0';
        o = opt_lookup (name);
    }
    if (o && !o->has_arg)
        errprintf (err, "option '--%s' takes no value", o->name);
    else
        errprintf (err, "unknown option '%s' (see --help)", arg);
}

int params_parse (struct md_params *p, int argc, char **argv, struct hpcq_error *err)
{
    struct option lo[NOPTS + 2];
    int *code = calloc (argc, sizeof (int));
    char **val = calloc (argc, sizeof (char *));
    int n = 0, c, rc = -1;

    params_defaults (p);
    make_longopts (lo);
    if (!code || !val) {
        errprintf (err, "out of memory");
        goto out;
    }
    if (params_from_env (p, err) < 0)
        goto out;
    /* Collect the options, read the input files, then apply the options
     * in order: wherever they stand, they override the files. */
    opterr = 0;
    optind = 1;
    while ((c = getopt_long (argc, argv, ":h", lo, NULL)) != -1) {
        if (c == 'h' || c == HELP) {
            params_usage (stdout);
            rc = 1;
            goto out;
        }
        if (c == '?' || c == ':') {
            option_error (c, argv[optind - 1], err);
            goto out;
        }
        if (opts[c].set) {
            code[n] = c;
            val[n++] = optarg;
        } else if (params_read_file (p, optarg, err) < 0) {
            goto out;
        }
    }
    for (int i = optind; i < argc; i++)
        if (params_read_file (p, argv[i], err) < 0)
            goto out;
    for (int i = 0; i < n; i++)
        if (opts[code[i]].set (p, &opts[code[i]], val[i], err) < 0)
            goto out;
    rc = 0;
out:
    free (code);
    free (val);
    return rc;
}

double params_lattice_const (const struct md_params *p)
{
    return pow (4.0 / p->density, 1.0 / 3.0);
}

int params_validate (const struct md_params *p, struct hpcq_error *err)
{
    if ((p->checkpoint_every > 0 || p->restart != MD_RESTART_NO)
        && !p->checkpoint_dir[0])
        return errprintf (err, "checkpoints need --checkpoint-dir or "
                               "HPCQ_CHECKPOINT_DIR");
    return 0;
}

/* params.c - command line and input file parsing for hpcq-md.
 *
 * Options are rows of a table (name, kind, where the value goes), so the
 * command line and the input file share one parser and one set of checks.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/params.h"

enum opt_kind { OPT_POSDOUBLE, OPT_NONNEGDOUBLE, OPT_POSLONG, OPT_NONNEGLONG,
                OPT_SEED, OPT_CELLS, OPT_PATH, OPT_FLAG, OPT_YESNO,
                OPT_LATTICE, OPT_THERMOSTAT, OPT_CPU, OPT_GPU, OPT_RESTART,
                OPT_INPUT, OPT_DIGITS };

struct opt {
    const char *name;
    enum opt_kind kind;
    size_t off;
    const char *help;
};

#define F(m) offsetof (struct md_params, m)

static const struct opt opts[] = {
    { "lattice", OPT_LATTICE, 0, "fcc (the only lattice)" },
    { "density", OPT_POSDOUBLE, F (density), "reduced density (0.8442)" },
    { "cells", OPT_CELLS, F (cells), "unit cells NXxNYxNZ (20x20x20)" },
    { "temp", OPT_POSDOUBLE, F (temp), "initial temperature (1.44)" },
    { "seed", OPT_SEED, F (seed), "velocity seed, positive (87287)" },
    { "cutoff", OPT_POSDOUBLE, F (cutoff), "LJ cutoff (2.5)" },
    { "skin", OPT_NONNEGDOUBLE, F (skin), "neighbour skin (0.3)" },
    { "dt", OPT_POSDOUBLE, F (dt), "timestep (0.005)" },
    { "steps", OPT_NONNEGLONG, F (steps), "run until this step (100)" },
    { "thermo", OPT_NONNEGLONG, F (thermo), "thermo output every N steps (50)" },
    { "thermo-digits", OPT_DIGITS, F (thermo_digits), "significant digits (8)" },
    { "neigh-every", OPT_POSLONG, F (neigh_every), "rebuild lists every N steps (20)" },
    { "neigh-check", OPT_YESNO, F (neigh_check), "yes|no: rebuild when an atom moved > skin/2 (yes)" },
    { "thermostat", OPT_THERMOSTAT, F (thermostat), "nve|berendsen|langevin (nve)" },
    { "tdamp", OPT_POSDOUBLE, F (tdamp), "thermostat time constant (0.5)" },
    { "cpu", OPT_CPU, F (backend), "use the CPU back end" },
    { "gpu", OPT_GPU, F (backend), "require the GPU back end" },
    { "checkpoint-every", OPT_NONNEGLONG, F (checkpoint_every), "checkpoint every N steps (0: off)" },
    { "checkpoint-interval", OPT_NONNEGDOUBLE, F (checkpoint_interval), "checkpoint every T seconds" },
    { "checkpoint-dir", OPT_PATH, F (checkpoint_dir), "checkpoint folder ($HPCQ_CHECKPOINT_DIR)" },
    { "restart", OPT_RESTART, F (restart), "continue from the newest valid checkpoint" },
    { "restart-auto", OPT_RESTART, F (restart), "restart if a checkpoint exists, else start" },
    { "dump-xyz", OPT_PATH, F (dump_xyz), "extended XYZ trajectory file" },
    { "dump-every", OPT_POSLONG, F (dump_every), "trajectory frame every N steps (100)" },
    { "dump-state", OPT_PATH, F (dump_state), "write the exact final state here" },
    { "quiet", OPT_FLAG, F (quiet), "no thermo output" },
    { "input", OPT_INPUT, 0, "read settings from FILE (key value lines)" },
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
    p->neigh_every = 20;
    p->neigh_check = 1;
    p->tdamp = 0.5;
    p->dump_every = 100;
}

static const struct opt *opt_lookup (const char *name)
{
    for (size_t i = 0; i < sizeof (opts) / sizeof (opts[0]); i++)
        if (strcmp (opts[i].name, name) == 0)
            return &opts[i];
    return NULL;
}

static int takes_value (const struct opt *o)
{
    return o->kind != OPT_FLAG && o->kind != OPT_CPU && o->kind != OPT_GPU
        && o->kind != OPT_RESTART;
}

/* strtod that rejects trailing junk, NaN and infinity. */
static int parse_double (const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    if (errno || end == s || *end || !isfinite (v))
        return -1;
    *out = v;
    return 0;
}

static int parse_long (const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol (s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_cells (const char *s, int cells[3])
{
    long v[3];
    char *end;
    const char *q = s;
    for (int d = 0; d < 3; d++) {
        errno = 0;
        v[d] = strtol (q, &end, 10);
        if (errno || end == q || v[d] <= 0 || v[d] > 100000)
            return -1;
        if (d < 2 && *end != 'x')
            return -1;
        q = end + 1;
    }
    if (*end)
        return -1;
    for (int d = 0; d < 3; d++)
        cells[d] = (int)v[d];
    return 0;
}

static int set_path (char *dst, const char *val, const char *name,
                     struct hpcq_error *err)
{
    if (!*val || strlen (val) >= 1024)
        return errprintf (err, "invalid --%s '%s'", name, val);
    strcpy (dst, val);
    return 0;
}

static int params_read_file (struct md_params *p, const char *path,
                             struct hpcq_error *err);

/* Store val (NULL for flags) as option o of p. */
static int opt_apply (struct md_params *p, const struct opt *o,
                      const char *val, struct hpcq_error *err)
{
    void *dst = (char *)p + o->off;
    double d;
    long l;

    switch (o->kind) {
    case OPT_POSDOUBLE:
    case OPT_NONNEGDOUBLE:
        if (parse_double (val, &d) < 0 || d < 0
            || (o->kind == OPT_POSDOUBLE && d == 0))
            return errprintf (err, "invalid --%s '%s': expected a %s number",
                              o->name, val, o->kind == OPT_POSDOUBLE
                              ? "positive" : "non-negative");
        *(double *)dst = d;
        return 0;
    case OPT_POSLONG:
    case OPT_NONNEGLONG:
    case OPT_DIGITS:
        if (parse_long (val, &l) < 0 || l < 0
            || (o->kind == OPT_POSLONG && l == 0)
            || (o->kind == OPT_DIGITS && (l < 4 || l > 17)))
            return errprintf (err, "invalid --%s '%s': expected a %s integer",
                              o->name, val, o->kind == OPT_DIGITS
                              ? "4 to 17" : o->kind == OPT_POSLONG
                              ? "positive" : "non-negative");
        if (o->kind == OPT_DIGITS)
            *(int *)dst = (int)l;
        else
            *(long *)dst = l;
        return 0;
    case OPT_SEED:
        if (parse_long (val, &l) < 0 || l <= 0)
            return errprintf (err, "invalid --seed '%s': expected a positive integer", val);
        *(uint64_t *)dst = (uint64_t)l;
        return 0;
    case OPT_CELLS:
        if (parse_cells (val, (int *)dst) < 0)
            return errprintf (err, "invalid --cells '%s': expected NXxNYxNZ, "
                              "each a positive integer", val);
        return 0;
    case OPT_PATH:
        return set_path (dst, val, o->name, err);
    case OPT_FLAG:
        *(int *)dst = 1;
        return 0;
    case OPT_YESNO:
        if (strcmp (val, "yes") && strcmp (val, "no"))
            return errprintf (err, "invalid --%s '%s': expected yes or no", o->name, val);
        *(int *)dst = strcmp (val, "yes") == 0;
        return 0;
    case OPT_LATTICE:
        if (strcmp (val, "fcc") != 0)
            return errprintf (err, "unsupported --lattice '%s': only fcc", val);
        return 0;
    case OPT_THERMOSTAT:
        if (strcmp (val, "nve") == 0)
            *(enum md_thermostat *)dst = MD_THERMO_NVE;
        else if (strcmp (val, "berendsen") == 0)
            *(enum md_thermostat *)dst = MD_THERMO_BERENDSEN;
        else if (strcmp (val, "langevin") == 0)
            *(enum md_thermostat *)dst = MD_THERMO_LANGEVIN;
        else
            return errprintf (err, "invalid --thermostat '%s': expected nve, "
                              "berendsen or langevin", val);
        return 0;
    case OPT_CPU:
        *(enum md_backend *)dst = MD_BACKEND_CPU;
        return 0;
    case OPT_GPU:
        *(enum md_backend *)dst = MD_BACKEND_GPU;
        return 0;
    case OPT_RESTART:
        *(enum md_restart *)dst = strcmp (o->name, "restart") == 0
            ? MD_RESTART_YES : MD_RESTART_AUTO;
        return 0;
    case OPT_INPUT:
        return params_read_file (p, val, err);
    }
    return errprintf (err, "internal error: option kind");
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
        if (!o || o->kind == OPT_INPUT)
            rc = errprintf (err, "%s:%d: unknown key '%s'", path, lineno, key);
        else if (takes_value (o) ? (!val || extra) : val != NULL)
            rc = errprintf (err, "%s:%d: key '%s' %s", path, lineno, key,
                            takes_value (o) ? "needs one value" : "takes no value");
        else
            rc = opt_apply (p, o, val, err);
    }
    fclose (f);
    return rc;
}

static void params_from_env (struct md_params *p)
{
    const char *dir = getenv ("HPCQ_CHECKPOINT_DIR");
    const char *ival = getenv ("HPCQ_CHECKPOINT_INTERVAL");
    double d;
    if (dir && *dir && strlen (dir) < sizeof (p->checkpoint_dir))
        strcpy (p->checkpoint_dir, dir);
    if (ival && parse_double (ival, &d) == 0 && d > 0)
        p->checkpoint_interval = d;
}

void params_usage (FILE *f)
{
    fprintf (f, "Usage: hpcq-md [FILE] [--option value]...\n"
             "FP64 Lennard-Jones molecular dynamics (LAMMPS lj units).\n\n");
    for (size_t i = 0; i < sizeof (opts) / sizeof (opts[0]); i++)
        fprintf (f, "  --%-20s %s\n", opts[i].name, opts[i].help);
}

/* An input file named alone or with --input is read first, so that the
 * other options, wherever they stand, override it.
 */
static int params_parse_files (struct md_params *p, int argc, char **argv,
                               struct hpcq_error *err)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp (a, "--", 2) != 0) {
            const struct opt *prev = i > 1 && strncmp (argv[i - 1], "--", 2) == 0
                ? opt_lookup (argv[i - 1] + 2) : NULL;
            if (prev && takes_value (prev))
                continue;
            if (params_read_file (p, a, err) < 0)
                return -1;
        } else if (strcmp (a, "--input") == 0) {
            if (i + 1 >= argc)
                return errprintf (err, "option --input needs a value");
            if (params_read_file (p, argv[++i], err) < 0)
                return -1;
        }
    }
    return 0;
}

int params_parse (struct md_params *p, int argc, char **argv,
                  struct hpcq_error *err)
{
    params_defaults (p);
    params_from_env (p);
    if (params_parse_files (p, argc, argv, err) < 0)
        return -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp (a, "--help") == 0 || strcmp (a, "-h") == 0) {
            params_usage (stdout);
            return 1;
        }
        if (strncmp (a, "--", 2) != 0)
            continue;           /* an input file, read above */
        char name[64];
        const char *eq = strchr (a + 2, '=');
        size_t n = eq ? (size_t)(eq - a - 2) : strlen (a + 2);
        if (n >= sizeof (name))
            return errprintf (err, "unknown option '%s'", a);
        memcpy (name, a + 2, n);
        name[n] = '\0';
        const struct opt *o = opt_lookup (name);
        if (!o)
            return errprintf (err, "unknown option '%s' (see --help)", a);
        const char *val = eq ? eq + 1 : NULL;
        if (takes_value (o) && !val) {
            if (i + 1 >= argc)
                return errprintf (err, "option --%s needs a value", name);
            val = argv[++i];
        } else if (!takes_value (o) && val) {
            return errprintf (err, "option --%s takes no value", name);
        }
        if (o->kind == OPT_INPUT)
            continue;           /* read above */
        if (opt_apply (p, o, val, err) < 0)
            return -1;
    }
    return 0;
}

double params_lattice_const (const struct md_params *p)
{
    return pow (4.0 / p->density, 1.0 / 3.0);
}

int params_validate (const struct md_params *p, struct hpcq_error *err)
{
    double a = params_lattice_const (p);
    for (int d = 0; d < 3; d++) {
        double len = a * p->cells[d];
        if (p->cutoff > 0.5 * len)
            return errprintf (err, "cutoff %g is larger than half the box "
                              "(%g along %c)", p->cutoff, 0.5 * len, "xyz"[d]);
    }
    if ((p->checkpoint_every > 0 || p->restart != MD_RESTART_NO)
        && !p->checkpoint_dir[0])
        return errprintf (err, "checkpoints need --checkpoint-dir or "
                          "HPCQ_CHECKPOINT_DIR");
    return 0;
}

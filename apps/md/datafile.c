/* datafile.c - see datafile.h.
 *
 * The format, as LAMMPS's read_data documents it: a title line, a header
 * of "count keyword" and "lo hi xlo xhi" lines, then sections, each a
 * keyword line (an optional "# style" comment after it), a blank line
 * and one line per item.  One parser walks the file for both readers:
 * the system reader takes the header, Masses and the coefficients; the
 * atom reader takes Atoms and Velocities.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/comm.h"
#include "apps/md/datafile.h"
#include "apps/md/sim.h"
#include "common/util.h"

#define MAXTOK 12

struct reader {
    FILE *f;
    const char *path;
    long lineno;
    char line[4096];
    char style[64]; /* first word of the line's comment */
    char *tok[MAXTOK];
    int ntok;         /* tokens on the line (all of them) */
    char section[64]; /* the section being read, "" in the header */
};

/* Read the next line into tokens; 1, or 0 at the end of the file. */
static int next_line (struct reader *r)
{
    char *save = NULL, *t, *hash;
    if (!fgets (r->line, sizeof (r->line), r->f))
        return 0;
    r->lineno++;
    r->style[0] = '\0';
    if ((hash = strchr (r->line, '#'))) {
        *hash = '\0';
        if (sscanf (hash + 1, "%63s", r->style) != 1)
            r->style[0] = '\0';
    }
    r->ntok = 0;
    for (t = strtok_r (r->line, " \t\r\n", &save); t;
         t = strtok_r (NULL, " \t\r\n", &save)) {
        if (r->ntok < MAXTOK)
            r->tok[r->ntok] = t;
        r->ntok++;
    }
    return 1;
}

static int fail (struct reader *r, struct hpcq_error *err, const char *what)
{
    return errprintf (err, "data file '%s' line %ld: %s", r->path, r->lineno, what);
}

/* Section lines start with a capital letter ("Masses", "Pair Coeffs"). */
static int is_section (const struct reader *r)
{
    return r->ntok > 0 && r->ntok <= 3 && r->tok[0][0] >= 'A' && r->tok[0][0] <= 'Z';
}

static void section_name (struct reader *r)
{
    r->section[0] = '\0';
    for (int i = 0; i < r->ntok && i < 3; i++) {
        if (i)
            strncat (r->section, " ", sizeof (r->section) - strlen (r->section) - 1);
        strncat (r->section, r->tok[i], sizeof (r->section) - strlen (r->section) - 1);
    }
}

static int num (struct reader *r, int k, double *v)
{
    return k < r->ntok && k < MAXTOK
                   && util_parse_double (r->tok[k], -HUGE_VAL, HUGE_VAL, v) == 0
               ? 0
               : -1;
}

static int integer (struct reader *r, int k, long min, long max, long *v)
{
    return k < r->ntok && k < MAXTOK && util_parse_long (r->tok[k], min, max, v) == 0
               ? 0
               : -1;
}

/* ---- the header ---- */

static int header_line (struct reader *r, struct md_system *sys, int *box,
                        struct hpcq_error *err)
{
    static const char *dims[3][2] = { { "xlo", "xhi" },
                                      { "ylo", "yhi" },
                                      { "zlo", "zhi" } };
    char what[300];
    long n;

    if (r->ntok >= 5 && strcmp (r->tok[3], "xy") == 0)
        return fail (r, err, "triclinic boxes (xy xz yz) are not supported");
    for (int d = 0; d < 3; d++)
        if (r->ntok == 4 && strcmp (r->tok[2], dims[d][0]) == 0
            && strcmp (r->tok[3], dims[d][1]) == 0) {
            if (num (r, 0, &sys->lo[d]) < 0 || num (r, 1, &sys->hi[d]) < 0
                || !(sys->hi[d] > sys->lo[d]))
                return fail (r, err, "invalid box bounds");
            box[d] = 1;
            return 0;
        }
    if (integer (r, 0, 0, LONG_MAX, &n) < 0)
        return fail (r, err,
                     "expected a header line (count and keyword, or box bounds)");
    if (r->ntok == 2 && strcmp (r->tok[1], "atoms") == 0) {
        sys->natoms = n;
        return 0;
    }
    if (r->ntok == 3 && strcmp (r->tok[1], "atom") == 0
        && strcmp (r->tok[2], "types") == 0) {
        if (n < 1 || n > 1000)
            return fail (r, err, "atom types must be 1 to 1000");
        sys->ntypes = (int)n;
        return 0;
    }
    if (n == 0) /* "0 bonds" and the like: nothing there */
        return 0;
    snprintf (what, sizeof (what),
              "'%s %s' is not supported (atom_style atomic: "
              "atoms only)",
              r->tok[0], r->ntok > 1 ? r->tok[1] : "");
    return fail (r, err, what);
}

/* Read the header up to the first section (left in r->section, "" at the
 * end of the file), and room for the types in sys. */
static int read_header (struct reader *r, struct md_system *sys, struct hpcq_error *err)
{
    double lo[3], hi[3];
    int box[3] = { 0, 0, 0 };
    long natoms = 0;
    int ntypes = 0;

    memset (sys, 0, sizeof (*sys));
    if (!next_line (r))
        return errprintf (err, "data file '%s' is empty", r->path);
    while (next_line (r)) {
        if (r->ntok == 0)
            continue;
        if (is_section (r)) {
            section_name (r);
            break;
        }
        if (header_line (r, sys, box, err) < 0)
            return -1;
    }
    for (int d = 0; d < 3; d++)
        if (!box[d])
            return errprintf (err, "data file '%s': no '%s' line", r->path,
                              d == 0   ? "xlo xhi"
                              : d == 1 ? "ylo yhi"
                                       : "zlo zhi");
    if (sys->natoms < 1 || sys->ntypes < 1)
        return errprintf (err,
                          "data file '%s': the header needs 'N atoms' and "
                          "'N atom types'",
                          r->path);
    memcpy (lo, sys->lo, sizeof (lo));
    memcpy (hi, sys->hi, sizeof (hi));
    natoms = sys->natoms;
    ntypes = sys->ntypes;
    if (system_alloc (sys, ntypes) < 0)
        return errprintf (err, "out of memory");
    memcpy (sys->lo, lo, sizeof (lo));
    memcpy (sys->hi, hi, sizeof (hi));
    sys->natoms = natoms;
    return 0;
}

/* ---- sections ---- */

/* What one parser pass wants: the system (a NULL), or the atoms. */
struct pass {
    struct md_system *sys;
    const struct md_domain *dom;
    struct md_atoms *a;
    double cutoff;       /* what a per-pair cutoff must equal */
    long *where;         /* atom reader: local index of each id, -1 */
    unsigned char *seen; /* atom reader: ids met in Atoms */
    int atoms_done;
};

static int masses_line (struct reader *r, struct pass *ps, struct hpcq_error *err)
{
    long t;
    double m;
    if (r->ntok != 2 || integer (r, 0, 1, ps->sys->ntypes, &t) < 0 || num (r, 1, &m) < 0
        || !(m > 0))
        return fail (r, err,
                     "expected 'type mass', a type from the header and "
                     "a positive mass");
    ps->sys->mass[t] = m;
    return 0;
}

/* Pair Coeffs (ij 0: "i eps sigma [cut]") or PairIJ Coeffs (ij 1: "i j eps
 * sigma [cut]"). */
static int pair_line (struct reader *r, struct pass *ps, int ij, struct hpcq_error *err)
{
    struct md_system *sys = ps->sys;
    long i, j;
    double e, s, cut;
    int k = ij ? 2 : 1;
    if (r->ntok < k + 2 || r->ntok > k + 3 || integer (r, 0, 1, sys->ntypes, &i) < 0
        || (ij && integer (r, 1, i, sys->ntypes, &j) < 0) || num (r, k, &e) < 0
        || num (r, k + 1, &s) < 0 || !(e >= 0) || !(s > 0))
        return fail (r, err,
                     ij ? "expected 'i j epsilon sigma' with i <= j"
                        : "expected 'type epsilon sigma'");
    if (r->ntok == k + 3 && (num (r, k + 2, &cut) < 0 || cut != ps->cutoff))
        return fail (r, err,
                     "per-pair cutoffs are not supported: one --cutoff "
                     "for every pair");
    if (!ij)
        j = i;
    *system_eps (sys, (int)i, (int)j) = e;
    *system_sigma (sys, (int)i, (int)j) = s;
    return 0;
}

static int atoms_line (struct reader *r, struct pass *ps, struct hpcq_error *err)
{
    const struct md_system *sys = ps->sys;
    struct md_atoms *a = ps->a;
    long id, t, im[3] = { 0, 0, 0 };
    double x[3];
    int32_t img[3];

    if (r->ntok != 5 && r->ntok != 8)
        return fail (r, err,
                     "only atom_style atomic is supported: 'id type x y z' "
                     "and optionally image flags 'ix iy iz'");
    if (integer (r, 0, 1, LONG_MAX, &id) < 0 || integer (r, 1, 1, sys->ntypes, &t) < 0
        || num (r, 2, &x[0]) < 0 || num (r, 3, &x[1]) < 0 || num (r, 4, &x[2]) < 0
        || (r->ntok == 8
            && (integer (r, 5, -(1L << 20), 1L << 20, &im[0]) < 0
                || integer (r, 6, -(1L << 20), 1L << 20, &im[1]) < 0
                || integer (r, 7, -(1L << 20), 1L << 20, &im[2]) < 0)))
        return fail (r, err,
                     "expected 'id type x y z [ix iy iz]' with a type from "
                     "the header");
    if (id > sys->natoms)
        return fail (r, err,
                     "atom ids must be 1 to the number of atoms (renumber "
                     "them with LAMMPS's reset_atom_ids)");
    if (ps->seen[id >> 3] & (1u << (id & 7)))
        return fail (r, err, "duplicate atom id");
    ps->seen[id >> 3] |= 1u << (id & 7);
    for (int d = 0; d < 3; d++)
        img[d] = (int32_t)im[d];
    domain_remap (ps->dom, x, img);
    if (!domain_owns (ps->dom, x))
        return 0;
    if (atoms_reserve (a, a->nlocal + 1) < 0)
        return errprintf (err, "out of memory reading atoms");
    long k = a->nlocal++;
    a->id[k] = id;
    a->type[k] = (int32_t)t;
    for (int d = 0; d < 3; d++) {
        a->x[d][k] = a->xb[d][k] = x[d];
        a->v[d][k] = a->f[d][k] = 0;
        a->img[3 * k + d] = img[d];
    }
    ps->where[id] = k;
    return 0;
}

static int velocities_line (struct reader *r, struct pass *ps, struct hpcq_error *err)
{
    long id;
    double v[3];
    if (!ps->atoms_done)
        return fail (r, err, "Velocities must come after Atoms");
    if (r->ntok != 4 || integer (r, 0, 1, ps->sys->natoms, &id) < 0
        || num (r, 1, &v[0]) < 0 || num (r, 2, &v[1]) < 0 || num (r, 3, &v[2]) < 0)
        return fail (r, err, "expected 'id vx vy vz' with an id of an atom");
    if (ps->where[id] >= 0)
        for (int d = 0; d < 3; d++)
            ps->a->v[d][ps->where[id]] = v[d];
    return 0;
}

/* Read the body of the current section: count lines, each through fn
 * (NULL: skipped, the other reader's). */
static int read_section (struct reader *r, struct pass *ps, long count,
                         int (*fn) (struct reader *, struct pass *,
                                    struct hpcq_error *),
                         struct hpcq_error *err)
{
    long n = 0;
    while (n < count && next_line (r)) {
        if (r->ntok == 0)
            continue;
        n++;
        if (fn && fn (r, ps, err) < 0)
            return -1;
    }
    if (n < count) {
        char what[200];
        snprintf (what, sizeof (what), "section %s ends after %ld of its %ld lines",
                  r->section, n, count);
        return fail (r, err, what);
    }
    /* the next section, or the end */
    r->section[0] = '\0';
    while (next_line (r)) {
        if (r->ntok == 0)
            continue;
        if (!is_section (r))
            return fail (r, err, "more lines than the header's counts say");
        section_name (r);
        break;
    }
    return 0;
}

static int pair_coeffs (struct reader *r, struct pass *ps, struct hpcq_error *err)
{
    return pair_line (r, ps, 0, err);
}

static int pairij_coeffs (struct reader *r, struct pass *ps, struct hpcq_error *err)
{
    return pair_line (r, ps, 1, err);
}

/* Walk the sections; the system pass (ps->a NULL) reads Masses and the
 * coefficients, the atom pass Atoms and Velocities. */
static int read_sections (struct reader *r, struct pass *ps, struct hpcq_error *err)
{
    int atoms = ps->a != NULL, npair = 0;
    long nt = ps->sys->ntypes, natoms = ps->sys->natoms;
    char what[200];

    while (r->section[0]) {
        const char *sec = r->section;
        int rc;
        if (strcmp (sec, "Masses") == 0)
            rc = read_section (r, ps, nt, atoms ? NULL : masses_line, err);
        else if (strcmp (sec, "Pair Coeffs") == 0
                 || strcmp (sec, "PairIJ Coeffs") == 0) {
            int ij = sec[4] == 'I';
            if (r->style[0] && strcmp (r->style, "lj/cut") != 0) {
                snprintf (what, sizeof (what),
                          "pair style '%s' is not supported: "
                          "only lj/cut",
                          r->style);
                return fail (r, err, what);
            }
            ps->sys->pair_ij = ij;
            npair++;
            rc = read_section (r, ps, ij ? nt * (nt + 1) / 2 : nt,
                               atoms ? NULL
                               : ij  ? pairij_coeffs
                                     : pair_coeffs,
                               err);
        } else if (strcmp (sec, "Atoms") == 0) {
            if (r->style[0] && strcmp (r->style, "atomic") != 0) {
                snprintf (what, sizeof (what),
                          "atom style '%s' is not supported: "
                          "only atomic",
                          r->style);
                return fail (r, err, what);
            }
            rc = read_section (r, ps, natoms, atoms ? atoms_line : NULL, err);
            ps->atoms_done = 1;
        } else if (strcmp (sec, "Velocities") == 0) {
            rc = read_section (r, ps, natoms, atoms ? velocities_line : NULL, err);
        } else {
            snprintf (what, sizeof (what),
                      "section '%s' is not supported (atom_style "
                      "atomic with lj/cut: Masses, Pair Coeffs, PairIJ Coeffs, Atoms, "
                      "Velocities)",
                      sec);
            return fail (r, err, what);
        }
        if (rc < 0)
            return -1;
    }
    if (npair > 1)
        return errprintf (err, "data file '%s': pair coefficients given twice",
                          r->path);
    if (!atoms && npair == 0) {
        if (nt > 1)
            return errprintf (err,
                              "data file '%s' has %ld atom types but no Pair "
                              "Coeffs: more than one type needs them",
                              r->path, nt);
        *system_eps (ps->sys, 1, 1) = *system_sigma (ps->sys, 1, 1) = 1.0;
    }
    return 0;
}

static int open_reader (struct reader *r, const char *path, struct hpcq_error *err)
{
    memset (r, 0, sizeof (*r));
    r->path = path;
    if (!(r->f = fopen (path, "r")))
        return errprintf (err, "cannot open data file '%s': %s", path,
                          strerror (errno));
    return 0;
}

int datafile_read_system (const char *path, double cutoff, struct md_system *sys,
                          struct hpcq_error *err)
{
    struct reader r;
    struct pass ps = { .sys = sys, .cutoff = cutoff };
    struct hpcq_error why = { "" };
    int rc;

    memset (sys, 0, sizeof (*sys));
    if (open_reader (&r, path, err) < 0)
        return -1;
    rc = read_header (&r, sys, err);
    if (rc == 0)
        rc = read_sections (&r, &ps, err);
    if (rc == 0 && system_complete (sys, &why) < 0)
        rc = errprintf (err, "data file '%s': %s", path, why.text);
    fclose (r.f);
    return rc;
}

int datafile_read_atoms (const char *path, const struct md_system *sys,
                         const struct md_domain *dom, struct md_atoms *a,
                         struct hpcq_error *err)
{
    struct reader r;
    struct md_system hdr;
    struct pass ps = { .sys = &hdr, .dom = dom, .a = a, .cutoff = NAN };
    int rc = -1;

    if (open_reader (&r, path, err) < 0)
        return -1;
    a->nlocal = a->nghost = 0;
    ps.where = malloc ((sys->natoms + 1) * sizeof (long));
    ps.seen = calloc (sys->natoms / 8 + 1, 1);
    if (!ps.where || !ps.seen) {
        errprintf (err, "out of memory reading '%s'", path);
        goto out;
    }
    for (long i = 0; i <= sys->natoms; i++)
        ps.where[i] = -1;
    if (read_header (&r, &hdr, err) == 0) {
        rc = read_sections (&r, &ps, err);
        system_release (&hdr);
    }
    if (rc == 0 && !ps.atoms_done)
        rc = errprintf (err, "data file '%s' has no Atoms section", path);
out:
    free (ps.where);
    free (ps.seen);
    fclose (r.f);
    return rc;
}

/* ---- writing ---- */

static void write_coeffs (FILE *f, const struct md_system *sys)
{
    int n = sys->ntypes;
    if (!sys->pair_ij) {
        fprintf (f, "\nPair Coeffs # lj/cut\n\n");
        for (int i = 1; i <= n; i++)
            fprintf (f, "%d %.17g %.17g\n", i, *system_eps (sys, i, i),
                     *system_sigma (sys, i, i));
        return;
    }
    fprintf (f, "\nPairIJ Coeffs # lj/cut\n\n");
    for (int i = 1; i <= n; i++)
        for (int j = i; j <= n; j++)
            fprintf (f, "%d %d %.17g %.17g\n", i, j, *system_eps (sys, i, j),
                     *system_sigma (sys, i, j));
}

int datafile_write (struct md_sim *s, const char *path, struct hpcq_error *err)
{
    const struct md_system *sys = &s->sys;
    int nc, rc = 0;
    double *t = sim_gather (s, MD_COL_TYPE | MD_COL_X | MD_COL_IMG | MD_COL_V, &nc);
    FILE *f;

    if (!t)
        return errprintf (err, "out of memory gathering the atoms");
    if (comm_rank () != 0) {
        free (t);
        return 0;
    }
    if (!(f = fopen (path, "w"))) {
        free (t);
        return errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    }
    fprintf (f,
             "LAMMPS data file written by hpcq-md, timestep = %ld\n\n%ld atoms\n"
             "%d atom types\n\n",
             s->step, sys->natoms, sys->ntypes);
    for (int d = 0; d < 3; d++)
        fprintf (f, "%.17g %.17g %clo %chi\n", sys->lo[d], sys->hi[d], "xyz"[d],
                 "xyz"[d]);
    fprintf (f, "\nMasses\n\n");
    for (int i = 1; i <= sys->ntypes; i++)
        fprintf (f, "%d %.17g\n", i, sys->mass[i]);
    write_coeffs (f, sys);
    fprintf (f, "\nAtoms # atomic\n\n");
    for (long i = 0; i < sys->natoms; i++) {
        const double *row = t + i * nc;
        fprintf (f, "%ld %d %.17g %.17g %.17g %d %d %d\n", i + 1, (int)row[0], row[1],
                 row[2], row[3], (int)row[4], (int)row[5], (int)row[6]);
    }
    fprintf (f, "\nVelocities\n\n");
    for (long i = 0; i < sys->natoms; i++) {
        const double *row = t + i * nc;
        fprintf (f, "%ld %.17g %.17g %.17g\n", i + 1, row[7], row[8], row[9]);
    }
    if (fclose (f) != 0)
        rc = errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    free (t);
    return rc;
}

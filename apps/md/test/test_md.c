/* test_md.c - unit tests for hpcq-md's pieces: option parsing, the
 * checkpoint checksum, the lattice, and LJ forces against the energy's
 * finite differences.  TAP output.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdlib.h>

#include "apps/md/checkpoint.h"
#include "apps/md/domain.h"
#include "apps/md/force.h"
#include "apps/md/lattice.h"
#include "apps/md/neigh.h"
#include "apps/md/params.h"
#include "common/test/tap.h"

static int parse (struct md_params *p, const char *a1, const char *a2)
{
    char *argv[] = { "hpcq-md", (char *)a1, (char *)a2, NULL };
    struct hpcq_error err = { "" };
    int rc = params_parse (p, a2 ? 3 : 2, argv, &err);
    if (rc < 0)
        diag ("%s", err.text);
    return rc;
}

static void test_params (void)
{
    struct md_params p;
    unsetenv ("HPCQ_CHECKPOINT_DIR");
    ok (parse (&p, "--cells", "3x4x5") == 0 && p.cells[0] == 3 && p.cells[2] == 5,
        "--cells 3x4x5");
    ok (parse (&p, "--dt=0.002", NULL) == 0 && p.dt == 0.002, "--dt=0.002");
    ok (parse (&p, "--cells", "3x4") < 0, "--cells 3x4 refused");
    ok (parse (&p, "--cells", "3x-4x5") < 0, "negative cells refused");
    ok (parse (&p, "--density", "0") < 0, "zero density refused");
    ok (parse (&p, "--dt", "nan") < 0, "NaN timestep refused");
    ok (parse (&p, "--bogus", NULL) < 0, "unknown option refused");
    ok (parse (&p, "--gpu", NULL) == 0 && p.backend == MD_BACKEND_GPU, "--gpu");
    ok (parse (&p, "--cpu=1", NULL) < 0, "flag with a value refused");
    setenv ("HPCQ_CHECKPOINT_DIR", "/tmp/x", 1);
    setenv ("HPCQ_CHECKPOINT_INTERVAL", "30", 1);
    ok (parse (&p, "--steps", "5") == 0 && strcmp (p.checkpoint_dir, "/tmp/x") == 0
        && p.checkpoint_interval == 30, "HPCQ_CHECKPOINT_DIR and _INTERVAL");
    unsetenv ("HPCQ_CHECKPOINT_DIR");
    unsetenv ("HPCQ_CHECKPOINT_INTERVAL");
}

static void test_fnv (void)
{
    /* Published FNV-1a 64 test vectors. */
    ok (checkpoint_fnv1a ("", 0, CKPT_FNV_INIT) == 0xcbf29ce484222325ULL, "fnv1a ''");
    ok (checkpoint_fnv1a ("a", 1, CKPT_FNV_INIT) == 0xaf63dc4c8601ec8cULL, "fnv1a 'a'");
    ok (checkpoint_fnv1a ("foobar", 6, CKPT_FNV_INIT) == 0x85944171f73967e8ULL,
        "fnv1a 'foobar'");
}

/* Total energy of the configuration (pair sum through the lists). */
static double energy (struct md_force *fc, struct md_neigh *nl,
                      struct md_domain *dom, struct md_atoms *a)
{
    double pe, vir;
    domain_borders (dom, a);
    neigh_build (nl, dom, a);
    force_compute (fc, nl, a, 1, &pe, &vir);
    domain_reverse (dom, a);
    return pe;
}

static void test_forces (void)
{
    struct md_params p;
    struct hpcq_error err = { "" };
    parse (&p, "--cells", "3x3x3");
    p.cutoff = 2.0;
    double lc = params_lattice_const (&p), L[3] = { 3 * lc, 3 * lc, 3 * lc };
    struct md_domain *dom = domain_create (L, p.cutoff + p.skin, &err);
    struct md_atoms *a = atoms_create (NULL);
    struct md_neigh *nl = neigh_create (p.cutoff + p.skin, 0);
    struct md_force *fc = force_create (p.cutoff);
    ok (dom && lattice_create (&p, dom, a) == 0 && a->nlocal == 108,
        "3x3x3 fcc cells hold 108 atoms");
    lattice_velocities (&p, a, a->nlocal);
    double ke = 0;
    for (int d = 0; d < 3; d++)
        for (long i = 0; i < a->nlocal; i++)
            ke += a->v[d][i] * a->v[d][i];
    ok (fabs (ke / (3.0 * 108 - 3) - p.temp) < 1e-12, "velocities scaled to T exactly");
    /* displace the lattice so forces are not zero */
    for (int d = 0; d < 3; d++)
        for (long i = 0; i < a->nlocal; i++)
            a->x[d][i] += 0.05 * (lattice_uniform (7, i, d) - 0.5);
    energy (fc, nl, dom, a);
    double f = a->f[0][5], h = 1e-6, x0 = a->x[0][5];
    a->x[0][5] = x0 + h;
    double ep = energy (fc, nl, dom, a);
    a->x[0][5] = x0 - h;
    double em = energy (fc, nl, dom, a);
    double fd = -(ep - em) / (2 * h);
    ok (fabs (fd - f) < 1e-6 * (1 + fabs (f)), "force %g matches -dE/dx %g", f, fd);
    force_destroy (fc);
    neigh_destroy (nl);
    atoms_destroy (a);
    domain_destroy (dom);
}

int main (void)
{
    plan (NO_PLAN);
    test_params ();
    test_fnv ();
    test_forces ();
    done_testing ();
}

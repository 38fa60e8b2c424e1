/* test_torque.c - Torque's requests converted as PBS Pro converts them */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/resource.h"
#include "common/test/tap.h"

#define GB (1LL << 30)
#define MB (1LL << 20)

/* -l arguments, one per element, then finalize.  -1 if either fails.
 * res holds a request or is zeroed: what it held is freed first. */
static int request (struct hpcq_resources *res, struct hpcq_error *err,
                    const char **args)
{
    resource_release (res);
    for (; *args; args++)
        if (resource_parse_list (res, *args, err) < 0)
            return -1;
    return resource_finalize (res, err);
}

/* The request gives this select and place. */
static void check (const char *want_select, const char *want_place, const char *a1,
                   const char *a2)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };
    const char *args[] = { a1, a2, NULL };
    char sel[512] = "";

    if (request (&res, &err, args) < 0)
        diag ("%s %s: %s", a1, a2 ? a2 : "", err.text);
    resource_format_select (&res, sel, sizeof (sel));
    ok (strcmp (sel, want_select) == 0 && strcmp (res.place, want_place) == 0,
        "-l %s%s%s: select=%s place=%s (got %s, %s)", a1, a2 ? " -l " : "",
        a2 ? a2 : "", want_select, want_place, sel, res.place);
    resource_release (&res);
}

static void check_error (const char *want, const char *a1, const char *a2)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };
    const char *args[] = { a1, a2, NULL };

    errno = 0;
    ok (request (&res, &err, args) == -1 && errno == EINVAL && strstr (err.text, want),
        "-l %s%s%s is refused: %s", a1, a2 ? " -l " : "", a2 ? a2 : "", err.text);
    resource_release (&res);
}

/* The first example: Torque's most common header. */
static void test_nodes_mem (void)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };
    const char *args[] = { "nodes=2:ppn=8", "mem=8gb", NULL };

    ok (request (&res, &err, args) == 0, "nodes=2:ppn=8 with mem=8gb is accepted: %s",
        err.text);
    ok (res.nchunks == 1 && res.chunk[0].count == 2 && res.chunk[0].ncpus == 8
            && res.chunk[0].mpiprocs == 8 && res.chunk[0].mem == 4 * GB,
        "two chunks of 8 cores, 8 ranks and 4gb each");
    ok (resource_total_mem (&res) == 8 * GB && resource_total_ncpus (&res) == 16,
        "the job as a whole has 8gb and 16 cores");
    ok (strcmp (res.place, "scatter") == 0,
        "Torque's nodes are distinct hosts: scatter");
    ok (res.job_mem == -1 && res.torque == 0, "job-wide mem is spent on the chunks");
    ok (resource_finalize (&res, &err) == 0 && res.chunk[0].mem == 4 * GB,
        "finalizing again changes nothing");

    check ("1:ncpus=4:mem=8gb:ngpus=1:mpiprocs=4", "scatter", "nodes=1:ppn=4:gpus=1",
           "mem=8gb,walltime=01:00:00");
    check ("2:ncpus=8:mem=4gb:mpiprocs=8", "scatter", "nodes=2:ppn=8,mem=8gb", NULL);
    check ("3:ncpus=1:mem=1gb", "scatter", "mem=3gb", "nodes=3");
    /* 1gb over 3 nodes: rounded down to a kilobyte, as PBS Pro does. */
    check ("3:ncpus=1:mem=349525kb", "scatter", "nodes=3", "mem=1gb");
    resource_release (&res);
}

static void test_forms (void)
{
    check ("1:ncpus=1:host=n1+1:ncpus=1:host=n2", "scatter", "nodes=n1+n2", NULL);
    check ("1:ncpus=4:mpiprocs=4:host=n1+2:ncpus=2:mpiprocs=2", "scatter",
           "nodes=n1:ppn=4+2:ppn=2", NULL);
    check ("2:ncpus=8:mpiprocs=8:bigmem=True", "scatter", "nodes=2:ppn=8:bigmem", NULL);
    check ("2:ncpus=1:bigmem=True:ib=True", "scatter", "nodes=2:bigmem:ib", NULL);
    check ("2:ncpus=2:mpiprocs=2:fast=True+1:ncpus=1:fast=True", "scatter:excl",
           "nodes=2:ppn=2+1#excl#fast", NULL);
    check ("2:ncpus=1", "scatter:shared", "nodes=2#shared", NULL);
    /* cpp (or ncpus) is cores per process: threads of a hybrid job. */
    check ("2:ncpus=8:mpiprocs=2", "scatter", "nodes=2:ppn=2:cpp=4", NULL);
    check ("1:ncpus=6:mpiprocs=3", "scatter", "nodes=1:ppn=3:ncpus=2", NULL);
    /* A place the user gives wins, whatever its order. */
    check ("2:ncpus=1", "pack", "place=pack", "nodes=2");
    check ("2:ncpus=1", "free", "nodes=2", "place=free");
    /* select after nodes replaces it, and PBS's rules apply again. */
    check ("1:ncpus=2", "", "nodes=2:ppn=4", "select=1:ncpus=2");
    check ("4:ncpus=1", "", "procs=4", NULL);
    check ("4:ncpus=1:mem=512mb", "", "procs=4,mem=2gb", NULL);
}

static void test_job_wide (void)
{
    /* ncpus with nodes: a multiple of the processors, spread over them. */
    check ("2:ncpus=8:mpiprocs=2", "scatter", "nodes=2:ppn=2", "ncpus=16");
    check ("2:ncpus=2:mpiprocs=2", "scatter", "nodes=2:ppn=2", "ncpus=4");
    check_error ("not a multiple of the 4 processors", "nodes=2:ppn=2", "ncpus=6");
    /* pmem and pvmem are per process: times ppn. */
    check ("2:ncpus=4:mem=8gb:mpiprocs=4", "scatter", "nodes=2:ppn=4", "pmem=2gb");
    check ("2:ncpus=4:mem=8gb:mpiprocs=4", "scatter", "nodes=2:ppn=4,pvmem=2gb", NULL);
    /* vmem is for the whole job, like mem; the larger of the two wins. */
    check ("2:ncpus=1:mem=3gb", "scatter", "nodes=2,vmem=6gb", NULL);
    check ("2:ncpus=1:mem=3gb", "scatter", "nodes=2,vmem=6gb,mem=2gb", NULL);
    check ("2:ncpus=4:mem=2gb:mpiprocs=4", "scatter",
           "nodes=2:ppn=4,pmem=512mb,mem=1gb", NULL);
    /* Without nodes=: the one chunk, pmem per processor asked for. */
    check ("1:ncpus=4:mem=4gb", "", "ncpus=4,pmem=1gb", NULL);
    check ("1:ncpus=1:mem=2gb", "", "vmem=2gb", NULL);
    /* ngpus is still a restatement of the chunks' total. */
    check ("2:ncpus=1:ngpus=1", "scatter", "nodes=2:gpus=1", "ngpus=2");
    check_error ("job-wide ngpus=3 does not match", "nodes=2:gpus=1", "ngpus=3");
}

static void test_errors (void)
{
    check_error ("invalid ppn '0'", "nodes=2:ppn=0", NULL);
    check_error ("invalid ppn 'x'", "nodes=2:ppn=x", NULL);
    check_error ("invalid node count '0'", "nodes=0", NULL);
    check_error ("invalid node count '2x'", "nodes=2x:ppn=1", NULL);
    check_error ("empty term", "nodes=2+", NULL);
    check_error ("empty item", "nodes=2::ppn=1", NULL);
    check_error ("unknown resource 'mem' in nodes", "nodes=2:mem=1gb", NULL);
    check_error ("invalid node label 'big/mem'", "nodes=2:big/mem", NULL);
    check_error ("invalid host", "nodes=n/1", NULL);
    /* It would print as ncpus=True, a select no one reads back (fuzzing). */
    check_error ("node label 'ncpus' is the name of a resource", "nodes=2:ncpus", NULL);
    check_error ("node label 'MIG' is the name of a resource", "nodes=n1#MIG", NULL);
    check_error ("invalid procs '0'", "procs=0", NULL);
    {
        /* One term more than a request may have (each term has its own
         * count: any number of nodes is one term). */
        char *many = malloc (strlen ("nodes=") + 2 * (HPCQ_MAX_CHUNKS + 1) + 1),
             *p = many;
        p += sprintf (p, "nodes=");
        for (int i = 0; i <= HPCQ_MAX_CHUNKS; i++)
            p += sprintf (p, "%s1", i ? "+" : "");
        check_error ("too many chunks", many, NULL);
        free (many);
    }
    check_error ("ppn times cpp too large", "nodes=1:ppn=100000:cpp=100000", NULL);
}

int main (int argc, char *argv[])
{
    plan (NO_PLAN);
    test_nodes_mem ();
    test_forms ();
    test_job_wide ();
    test_errors ();
    return done_testing ();
}

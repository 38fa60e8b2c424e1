/* fuzz_sim_trace.c - workload traces as hpcq-sim reads them
 * (sim/sim_trace.c): the first byte picks the format (even: the
 * Parallel Workloads Archive's SWF, odd: hpcq's GPU format) and the node
 * size; the rest is the file.  Accepted traces are resolved into requests.
 * Properties: jobs come out in arrival order, and an SWF job of P
 * processors asks for exactly P cores.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "sim/sim_trace.h"
#include "tests/fuzz/fuzz.h"

static void check_trace (struct sim_trace *t, int cores)
{
    struct hpcq_error err;

    for (int i = 1; i < t->njobs; i++)
        if (t->job[i].submit < t->job[i - 1].submit)
            fuzz_fail ("job %d arrives before job %d", i, i - 1);
    for (int i = 0; i < t->njobs; i++)
        if (!t->gpu_format && (t->job[i].procs < 1 || t->job[i].procs > t->largest))
            fuzz_fail ("job %d: %d processors (largest %d)", i, t->job[i].procs,
                       t->largest);
    if (sim_trace_resolve (t, cores, &err) < 0)
        return;
    for (int i = 0; i < t->njobs && !t->gpu_format; i++)
        if (resource_total_ncpus (&t->job[i].res) != t->job[i].procs)
            fuzz_fail ("job %d: %d processors became %d cores", i, t->job[i].procs,
                       resource_total_ncpus (&t->job[i].res));
}

FUZZ_TARGET (sim_trace)
{
    struct sim_trace t;
    struct hpcq_error err;
    const char *path;
    int gpu, cores, rc;

    fuzz_setup ();
    if (size < 1)
        return 0;
    gpu = data[0] & 1;
    cores = 1 + (data[0] >> 1) % 128;
    path = fuzz_file (data + 1, size - 1);
    rc = gpu ? sim_trace_read_gpu (&t, path, 0, &err)
             : sim_trace_read_swf (&t, path, 0, &err);
    if (rc == 0) {
        check_trace (&t, cores);
        sim_trace_release (&t);
    }
    return 0;
}

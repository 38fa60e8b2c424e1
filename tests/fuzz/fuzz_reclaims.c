/* fuzz_reclaims.c - a trace of spot reclaims as hpcq-sim reads it
 * (--reclaim-trace, sim/sim_trace.c sim_trace_read_reclaims): lines
 * of TIME NODE, often written by hand or converted from a provider's
 * records.  Properties: a refusal leaves no array; an accepted trace is in
 * time order, with times >= 0 and node numbers 0..999999.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>

#include "sim/sim_trace.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET (reclaims)
{
    struct sim_reclaim *v;
    struct hpcq_error err;
    int n;

    fuzz_setup ();
    if (sim_trace_read_reclaims (fuzz_file (data, size), &v, &n, &err) < 0) {
        if (v || n)
            fuzz_fail ("a refused trace left %d reclaims", n);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (v[i].time < 0 || v[i].node < 0 || v[i].node > 999999)
            fuzz_fail ("reclaim %d: time %lld, node %d", i, (long long)v[i].time,
                       v[i].node);
        if (i && v[i].time < v[i - 1].time)
            fuzz_fail ("reclaim %d comes before reclaim %d", i, i - 1);
    }
    free (v);
    return 0;
}

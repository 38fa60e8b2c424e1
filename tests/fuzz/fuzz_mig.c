/* fuzz_mig.c - a simulated node's MIG layout (worker config mig_layout,
 * hpcq-sim --mig: common/gpu.c gpu_mig_layout): the first byte picks how
 * many simulated GPUs the node has, the rest is the layout.  Properties:
 * a refused layout changes nothing; an accepted one gives each GPU at
 * most GPU_MIG_MAX valid instances and at most 7 compute slices, and
 * what the worker sends in node.hello (gpu_to_json) reads back in the
 * scheduler (gpu_from_json) as the same GPUs.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "common/gpu.h"
#include "common/resource.h"
#include "worker/gpu.h"
#include "tests/fuzz/fuzz.h"

static void check_layout (const struct gpu *gpus, int n)
{
    static struct gpu back[GPU_MAX];
    int idx[GPU_MAX], mig[2] = { 0, 0 }, nback;
    char buf[GPU_MAX * (GPU_MIG_MAX + 1) * 100];
    json_t *o;

    for (int i = 0; i < n; i++) {
        int slices = 0;
        if (gpus[i].nmig < 0 || gpus[i].nmig > GPU_MIG_MAX)
            fuzz_fail ("GPU %d has %d MIG instances", i, gpus[i].nmig);
        for (int k = 0; k < gpus[i].nmig; k++) {
            if (resource_check_mig (gpus[i].mig[k].profile, NULL) < 0)
                fuzz_fail ("GPU %d has MIG profile '%s'", i, gpus[i].mig[k].profile);
            slices += atoi (gpus[i].mig[k].profile);
        }
        if (slices > 7)
            fuzz_fail ("GPU %d has %d compute slices", i, slices);
        idx[i] = i;
    }
    if (!(o = gpu_to_json (gpus, n)) || gpu_from_json (o, back, &nback) < 0)
        fuzz_fail ("the scheduler cannot read the GPUs the worker reports");
    json_decref (o);
    for (int i = 0; i < n; i++)
        if (nback != n || back[i].nmig != gpus[i].nmig
            || strcmp (back[i].model, gpus[i].model) != 0
            || (gpus[i].nmig
                && memcmp (back[i].mig, gpus[i].mig,
                           gpus[i].nmig * sizeof (gpus[i].mig[0]))
                       != 0))
            fuzz_fail ("GPU %d reads back otherwise in the scheduler", i);
    gpu_visible_devices (gpus, n, idx, n, mig, buf, sizeof (buf));
    gpu_visible_devices (gpus, n, idx, n, mig, buf, 8);
}

FUZZ_TARGET (mig)
{
    static struct gpu gpus[GPU_MAX], before[GPU_MAX];
    struct hpcq_error err;
    char *layout;
    int n;

    fuzz_setup ();
    if (size < 1)
        return 0;
    n = gpu_discover (gpus, 1 + data[0] % GPU_MAX, "NVIDIA A100-SXM4-40GB", 40LL << 30);
    memcpy (before, gpus, sizeof (gpus));
    layout = fuzz_string (data + 1, size - 1);
    if (gpu_mig_layout (gpus, n, layout, "node1", &err) < 0) {
        if (memcmp (before, gpus, sizeof (gpus)) != 0)
            fuzz_fail ("a refused layout changed the GPUs");
    } else
        check_layout (gpus, n);
    free (layout);
    return 0;
}

/* test_gpu.c - simulated MIG layouts (mig_layout) and what jobs see in
 * CUDA_VISIBLE_DEVICES. */
#include <config.h>
#include <string.h>

#include "common/test/tap.h"
#include "worker/gpu.h"

static struct gpu gpus[GPU_MAX];

static int layout (int n, const char *text, struct hpcq_error *err)
{
    gpu_discover (gpus, n, "NVIDIA A100-SXM4-40GB", 40LL << 30);
    return gpu_mig_layout (gpus, n, text, "node7", err);
}

/* On three GPUs, GPU 2 already split: a bad layout changes nothing. */
static void check_bad (const char *text, const char *want)
{
    struct hpcq_error err = { "" };
    int rc;

    (void)layout (3, "2:7g.40gb", &err);
    rc = gpu_mig_layout (gpus, 3, text, "node7", &err);
    ok (rc == -1 && strstr (err.text, want) && gpus[0].nmig == 0 && gpus[1].nmig == 0
            && gpus[2].nmig == 1,
        "mig_layout '%s' is refused, nothing changed: %s", text, err.text);
}

int main (void)
{
    struct hpcq_error err = { "" };
    char cvd[256];
    int idx[2] = { 2, 3 }, mig[2] = { 1, 1 };

    plan (NO_PLAN);
    ok (layout (4, "0:1g.5gb*7;1:3g.20gb+4g.20gb", &err) == 0,
        "a layout of two GPUs: %s", err.text);
    ok (gpus[0].nmig == 7 && !strcmp (gpus[0].mig[6].profile, "1g.5gb")
            && !strcmp (gpus[0].mig[6].uuid, "MIG-SIM-node7-0-6"),
        "GPU 0: seven 1g.5gb instances, MIG-SIM-node7-0-0 to -6");
    ok (gpus[1].nmig == 2 && !strcmp (gpus[1].mig[0].profile, "3g.20gb")
            && !strcmp (gpus[1].mig[1].profile, "4g.20gb"),
        "GPU 1: 3g.20gb and 4g.20gb");
    ok (gpus[2].nmig == 0 && gpus[3].nmig == 0, "GPUs 2 and 3 stay whole");
    gpu_visible_devices (gpus, 4, idx, 0, mig, cvd, sizeof (cvd));
    is (cvd, "MIG-SIM-node7-1-1", "a MIG job sees its instance's UUID");
    gpu_visible_devices (gpus, 4, idx, 2, NULL, cvd, sizeof (cvd));
    is (cvd, "2,3", "whole simulated GPUs by index");
    ok (layout (2, "1:7g.40gb;", &err) == 0 && gpus[1].nmig == 1 && gpus[0].nmig == 0,
        "a trailing ';' is fine; 7g.40gb fills a GPU");

    check_bad ("3:1g.5gb", "no simulated GPU '3'");
    check_bad ("x:1g.5gb", "no simulated GPU 'x'");
    check_bad ("0:1g.5gb*8", "more instances than its 7 compute slices");
    check_bad ("0:4g.20gb+4g.20gb", "more instances than its 7 compute slices");
    check_bad ("0:1g.5gb;0:1g.5gb", "GPU 0 given twice");
    check_bad ("2:1g.5gb", "GPU 2 given twice");
    check_bad ("0:2g", "invalid MIG profile '2g'");
    check_bad ("0:1g.5gb*0", "bad count '0'");
    check_bad ("0", "is not GPU:PROFILE");
    check_bad ("0:1g.5gb;1:", "invalid MIG profile ''");
    /* Numbers past int are refused, not wrapped into a small one. */
    check_bad ("4294967296:1g.5gb", "no simulated GPU '4294967296'");
    check_bad ("0:1g.5gb*4294967297", "bad count '4294967297'");

    /* Real GPUs report their own layout. */
    gpu_discover (gpus, 1, "X", 0);
    gpus[0].simulated = 0;
    ok (gpu_mig_layout (gpus, 1, "0:1g.5gb", "n", &err) == -1
            && strstr (err.text, "simulated GPUs"),
        "with real GPUs the key is refused: %s", err.text);
    return done_testing ();
}

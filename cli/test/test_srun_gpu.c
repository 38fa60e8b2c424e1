/* test_srun_gpu.c - each task's share of its node's GPUs (cli/srun_gpu.h). */
#include <config.h>
#include <stdio.h>
#include <string.h>

#include "cli/srun_gpu.h"
#include "common/test/tap.h"

static void share (const char *what, struct srun_gpu *g, const char *node, int l,
                   const char *want)
{
    char buf[128];
    struct hpcq_error err;
    int rc = srun_gpu_task (g, node, l, buf, sizeof (buf), &err);

    if (!want)
        ok (rc < 0 && strstr (err.text, "GPU"), "%s: refused (%s)", what,
            rc < 0 ? err.text : buf);
    else
        ok (rc == 0 && !strcmp (buf, want), "%s: %s (want %s)", what,
            rc ? err.text : buf, want);
}

static void test_gpu (void)
{
    struct srun_gpu g = { 0 };
    struct hpcq_error err;

    ok (srun_gpu_per_task (&g, "2", &err) == 0 && g.per_task == 2, "--gpus-per-task=2");
    ok (srun_gpu_splits (&g), "it splits");
    share ("task 0 of 2 per task", &g, "0,1,2,3", 0, "0,1");
    share ("task 1", &g, "0,1,2,3", 1, "2,3");
    share ("task 2 has none left", &g, "0,1,2,3", 2, NULL);
    share ("the job's own numbering", &g, "4,5,6,7", 1, "6,7");
    memset (&g, 0, sizeof (g));
    ok (srun_gpu_per_task (&g, "a100:1", &err) == 0 && g.per_task == 1, "type:N");
    ok (srun_gpu_per_task (&g, "0", &err) < 0
            && !strcmp (err.text, "Invalid --gpus-per-task specification: 0"),
        "0 refused in Slurm's words");
    memset (&g, 0, sizeof (g));
    ok (srun_gpu_bind (&g, "map_gpu:3,1", &err) == 0 && g.nmap == 2, "map_gpu:3,1");
    share ("map task 0", &g, "0,1,2,3", 0, "3");
    share ("map task 3 wraps", &g, "0,1,2,3", 3, "1");
    memset (&g, 0, sizeof (g));
    ok (srun_gpu_bind (&g, "verbose,per_task:1", &err) == 0 && g.per_task == 1,
        "verbose,per_task:1");
    ok (srun_gpu_bind (&g, "none", &err) == 0 && !srun_gpu_splits (&g),
        "none: every task sees all");
    ok (srun_gpu_bind (&g, "mask_gpu:0x3", &err) < 0 && strstr (err.text, "mask_gpu"),
        "mask_gpu refused, named");
}

int main (void)
{
    plan (NO_PLAN);
    test_gpu ();
    return done_testing ();
}

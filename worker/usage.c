/* usage.c - see usage.h */
#include <config.h>

#include "common/util.h"
#include "worker/cgroup.h"
#include "worker/checkpoint.h"
#include "worker/gpuuse.h"
#include "worker/tasks.h"
#include "worker/usage.h"

/* A running task's figures, or NULL if nothing is known of it. */
static json_t *task_usage (struct tasks *ts, struct task *t, int64_t now_ms)
{
    struct cgroup_usage u = { -1, -1, 0 };
    json_t *e, *gpu;

    /* The cgroup counts every process of the job; without one, the
     * processes of its session. */
    if (t->cg)
        cgroup_job_usage (t->cg, &u);
    if (u.cpu_ns < 0) {
        long cpu = checkpoint_session_cpu (t->pid);
        u.cpu_ns = cpu < 0 ? -1 : cpu * 1000000000LL;
    }
    /* The GPU figures are sums kept as NVML is read (tasks_gpu_read): no
     * device is asked here. */
    gpu =
        gpuuse_json (&t->gpu, (now_ms - t->start_ms) / 1000, tasks_gpu_figures (ts), 1);
    if (u.cpu_ns < 0 && !gpu)
        return NULL;
    e = json_pack ("{s:I s:i s:I}", "seq", (json_int_t)t->seq, "attempt", t->attempt,
                   "cput", (json_int_t)(u.cpu_ns < 0 ? -1 : u.cpu_ns / 1000000000));
    if (e && u.mem_peak >= 0)
        json_object_set_new (e, "mem", json_integer (u.mem_peak));
    if (e && gpu)
        json_object_update (e, gpu);
    json_decref (gpu);
    return e;
}

json_t *usage_json (struct tasks *ts)
{
    int64_t now = util_now_ms ();
    json_t *a = NULL, *e;

    for (struct task *t = tasks_first (ts); t; t = tasks_next (t)) {
        if (t->done || t->pid <= 0 || !(e = task_usage (ts, t, now)))
            continue;
        if (!a)
            a = json_array ();
        json_array_append_new (a, e);
    }
    return a;
}

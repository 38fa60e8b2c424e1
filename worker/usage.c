/* usage.c - see usage.h */
#include <config.h>

#include "worker/cgroup.h"
#include "worker/checkpoint.h"
#include "worker/tasks.h"
#include "worker/usage.h"

json_t *usage_json (struct tasks *ts)
{
    json_t *a = NULL;

    for (struct task *t = tasks_first (ts); t; t = tasks_next (t)) {
        struct cgroup_usage u = { -1, -1, 0 };
        json_t *e;
        if (t->done || t->pid <= 0)
            continue;
        /* The cgroup counts every process of the job; without one, the
         * processes of its session. */
        if (t->cg)
            cgroup_job_usage (t->cg, &u);
        if (u.cpu_ns < 0) {
            long cpu = checkpoint_session_cpu (t->pid);
            u.cpu_ns = cpu < 0 ? -1 : cpu * 1000000000LL;
        }
        if (u.cpu_ns < 0)
            continue;
        if (!a)
            a = json_array ();
        e = json_pack ("{s:I s:i s:I}", "seq", (json_int_t)t->seq, "attempt",
                       t->attempt, "cput", (json_int_t)(u.cpu_ns / 1000000000));
        if (e && u.mem_peak >= 0)
            json_object_set_new (e, "mem", json_integer (u.mem_peak));
        json_array_append_new (a, e);
    }
    return a;
}

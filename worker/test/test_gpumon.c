/* test_gpumon.c - from NVML's values to the telemetry report and the GPUs'
 * health verdict, without a GPU.
 *
 * gpumon_read is given a table of NVML entry points that answer as a
 * driver would (values in NVML's units: bytes, milliwatts; NOT_SUPPORTED
 * for what a GPU lacks), so the conversion, the fields left out and the
 * verdict are the code a worker with real GPUs runs.  With simulated GPUs
 * there is no monitor at all: nothing invented is ever reported.
 */
#include <config.h>
#include <string.h>

#include "common/test/tap.h"
#include "worker/gpumon.h"

static int fake_util (void *dev, struct nvml_utilization *u)
{
    u->gpu = 87;
    u->memory = 41;
    return NVML_OK;
}

static int fake_memory (void *dev, struct nvml_memory *m)
{
    m->total = 80ULL << 30;
    m->used = 3ULL << 30; /* 3072 MiB */
    m->free = m->total - m->used;
    return NVML_OK;
}

static int fake_temp (void *dev, int sensor, unsigned int *t)
{
    *t = sensor == 0 ? 64 : 0;
    return sensor == 0 ? NVML_OK : NVML_NOT_SUPPORTED;
}

static int fake_power (void *dev, unsigned int *mw)
{
    *mw = 312250;
    return NVML_OK;
}

static int fake_clock (void *dev, int type, unsigned int *mhz)
{
    *mhz = type == 1 ? 1980 : 0;
    return NVML_OK;
}

static unsigned long long dbe;

static int fake_ecc (void *dev, int error_type, int counter_type, unsigned long long *n)
{
    *n = error_type == 0 ? 12 : dbe;
    return counter_type == 0 ? NVML_OK : NVML_NOT_SUPPORTED;
}

static int fake_retired (void *dev, int cause, unsigned int *count,
                         unsigned long long *a)
{
    *count = cause == 0 ? 2 : 0;
    return *count ? NVML_INSUFFICIENT_SIZE : NVML_OK;
}

static int not_supported_pending (void *dev, int *pending)
{
    return NVML_NOT_SUPPORTED;
}

static int pending_now (void *dev, int *pending)
{
    *pending = 1;
    return NVML_OK;
}

int main (void)
{
    struct nvml_api api = { fake_util,    fake_memory,
                            fake_temp,    fake_power,
                            fake_clock,   fake_ecc,
                            fake_retired, not_supported_pending,
                            NULL };
    struct gpu_sample s = { .index = 1, .uuid = "GPU-abcd", .model = "NVIDIA H200" };
    struct gpu sim[GPU_MAX];
    char reason[256] = "";
    json_t *o, *g;
    char *text;

    plan (NO_PLAN);
    gpumon_read (&api, NULL, &s);
    ok (s.util == 87 && s.mem_util == 41 && s.temp == 64 && s.sm_clock == 1980,
        "utilisation, temperature and SM clock as NVML gives them");
    ok (s.fb_used == 3072.0 && s.fb_free == 80 * 1024.0 - 3072.0,
        "framebuffer in MiB, as DCGM reports it (NVML: bytes)");
    ok (s.power == 312.25, "power in W (NVML: milliwatts)");
    ok (s.ecc_sbe == 12 && s.ecc_dbe == 0 && s.retired_sbe == 2 && s.retired_dbe == 0,
        "volatile ECC counts and retired pages (INSUFFICIENT_SIZE still gives the "
        "count)");
    ok (!(s.have & GS_PENDING), "what NVML does not support is left out");

    o = gpumon_json (&s, 1);
    g = json_array_get (json_object_get (o, "gpus"), 0);
    ok (json_integer_value (json_object_get (g, "index")) == 1
            && !strcmp (json_string_value (json_object_get (g, "uuid")), "GPU-abcd")
            && json_real_value (json_object_get (g, "power")) == 312.25
            && json_integer_value (json_object_get (g, "util")) == 87
            && !json_object_get (g, "retired_pending"),
        "the node.telemetry report: the scheduler's index, the values, nothing "
        "invented");
    text = json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS);
    diag ("%s", text);
    free (text);
    json_decref (o);

    ok (gpumon_verdict (&s, 1, reason, sizeof (reason)) == 0,
        "healthy GPU: no verdict");
    s.xid = 13;
    ok (gpumon_verdict (&s, 1, reason, sizeof (reason)) == 0,
        "XID 13 (a job's own fault) is no node problem");
    s.xid = 79;
    ok (gpumon_verdict (&s, 1, reason, sizeof (reason)) < 0
            && !strcmp (reason, "GPU 1 (GPU-abcd): XID 79"),
        "XID 79 (fallen off the bus): '%s'", reason);
    s.xid = 0;
    dbe = 1;
    gpumon_read (&api, NULL, &s);
    ok (gpumon_verdict (&s, 1, reason, sizeof (reason)) < 0
            && strstr (reason, "1 uncorrectable ECC errors"),
        "an uncorrectable ECC error: '%s'", reason);
    dbe = 0;
    api.retired_pending = pending_now;
    gpumon_read (&api, NULL, &s);
    ok (gpumon_verdict (&s, 1, reason, sizeof (reason)) < 0
            && strstr (reason, "page retirement waits"),
        "a pending page retirement: '%s'", reason);
    ok (gpumon_xid_critical (48) && gpumon_xid_critical (74) && gpumon_xid_critical (95)
            && !gpumon_xid_critical (31) && !gpumon_xid_critical (0),
        "critical XIDs: 48, 74, 95 yes; 31 and none no");

    gpu_discover (sim, 2, "Simulated-GPU", 1LL << 30);
    ok (gpumon_create (sim, 2) == NULL,
        "simulated GPUs have no monitor: nothing reported");
    return done_testing ();
}

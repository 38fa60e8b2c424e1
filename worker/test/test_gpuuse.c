/* test_gpuuse.c - a job's GPU figures: real GPUs' NVML readings counted
 * for the time since the last ones, only for the job's own GPUs; fixed
 * figures for simulated GPUs; and the bounds the scheduler holds a
 * worker's report to (common/gpu.h gpu_usage_from_json). */
#include <config.h>
#include <string.h>

#include "common/gpu.h"
#include "common/test/tap.h"
#include "worker/gpumon.h"
#include "worker/gpuuse.h"

static struct gpu_sample sample (int index, unsigned util, double power, double fb_mib)
{
    struct gpu_sample s;

    memset (&s, 0, sizeof (s));
    s.index = index;
    s.have = GS_UTIL | GS_POWER | GS_FB;
    s.util = util;
    s.power = power;
    s.fb_used = fb_mib;
    return s;
}

static void test_real (void)
{
    struct gpuuse u;
    struct gpu_sample s[3];
    struct gpu_usage back;
    int gpus[2] = { 0, 2 };
    json_t *o;

    gpuuse_start (&u, gpus, 2, 0, 1000);
    s[0] = sample (0, 80, 300, 1024);
    s[1] = sample (1, 100, 700, 40000); /* not the job's */
    s[2] = sample (2, 20, 100, 2048);
    gpuuse_read (&u, s, 3, 11000); /* 10 s */
    s[0] = sample (0, 60, 200, 4096);
    s[2] = sample (2, 40, 100, 512);
    gpuuse_read (&u, s, 3, 21000); /* 10 s more */
    o = gpuuse_json (&u, 20, NULL, 0);
    ok (gpu_usage_from_json (o, &back) == 1, "the job's figures read back");
    ok (back.seconds == 40, "GPU-seconds: 2 GPUs x 20 s");
    ok (back.util_mean == 50.0, "utilisation: the mean of 80, 20, 60, 40 over time");
    ok (back.energy_j == 7000.0, "energy: (300 + 100 + 200 + 100) W x 10 s");
    ok (back.mem_peak == 4096LL << 20,
        "peak memory: 4 GiB on GPU 0, GPU 1 not counted");
    ok (!back.simulated, "not simulated");
    json_decref (o);
    gpuuse_read (&u, s, 3, 21000);
    o = gpuuse_json (&u, 20, NULL, 0);
    gpu_usage_from_json (o, &back);
    ok (back.energy_j == 7000.0, "a reading at the same instant adds nothing");
    json_decref (o);
}

static void test_simulated (void)
{
    struct gpuuse u;
    struct gpuuse_sim sim = { 40, 250, 2LL << 30 };
    struct gpu_sample s = sample (0, 99, 999, 99999);
    struct gpu_usage back;
    int gpus[1] = { 0 };
    json_t *o;

    gpuuse_start (&u, gpus, 1, 1, 0);
    gpuuse_read (&u, &s, 1, 5000);
    o = gpuuse_json (&u, 7, &sim, 0);
    gpu_usage_from_json (o, &back);
    ok (back.seconds == 7 && back.util_mean == 40 && back.energy_j == 1750
            && back.mem_peak == 2LL << 30 && back.simulated,
        "simulated: the configured figures, exactly, and labelled");
    json_decref (o);
    gpuuse_start (&u, gpus, 0, 0, 0);
    ok (gpuuse_json (&u, 7, &sim, 1) == NULL, "a job without GPUs has no figures");
}

/* Each GPU's latest reading and energy, as node.usage carries them and
 * the scheduler reads them back (gpu_live_from_json). */
static void test_per_gpu (void)
{
    struct gpuuse u;
    struct gpuuse_sim sim = { 40, 250, 2LL << 30 };
    struct gpu_sample s[2] = { sample (3, 70, 300, 1024), sample (5, 10, 100, 512) };
    struct gpu_live l;
    int gpus[2] = { 5, 3 };
    json_t *o;

    gpuuse_start (&u, gpus, 2, 0, 0);
    o = gpuuse_json (&u, 0, NULL, 1);
    ok (gpu_live_from_json (o, &l) == 1 && l.n == 2 && l.gpu[0].index == 5
            && l.gpu[0].util == -1 && l.gpu[0].mem == -1,
        "before a first reading: the GPUs, no utilisation or memory yet");
    json_decref (o);
    gpuuse_read (&u, s, 2, 10000);
    o = gpuuse_json (&u, 10, NULL, 1);
    ok (gpu_live_from_json (o, &l) == 1 && l.n == 2, "two GPUs read back");
    ok (l.gpu[0].index == 5 && l.gpu[0].util == 10 && l.gpu[0].mem == 512LL << 20
            && l.gpu[0].energy_j == 1000,
        "GPU 5: its own reading and 100 W x 10 s");
    ok (l.gpu[1].index == 3 && l.gpu[1].util == 70 && l.gpu[1].energy_j == 3000,
        "GPU 3: its own reading and 300 W x 10 s");
    ok (l.total.energy_j == 4000 && l.total.seconds == 20, "the totals beside them");
    json_decref (o);
    gpuuse_start (&u, gpus, 2, 1, 0);
    o = gpuuse_json (&u, 9, &sim, 1);
    ok (gpu_live_from_json (o, &l) == 1 && l.total.simulated && l.gpu[1].util == 40
            && l.gpu[1].mem == 2LL << 30 && l.gpu[1].energy_j == 2250,
        "simulated: each GPU the configured figures, 250 W x 9 s");
    json_decref (o);
    o = json_pack ("{s:I s:f s:I s:f s:[{s:i s:f s:f}]}", "gpu_seconds", (json_int_t)1,
                   "gpu_util_mean", 1.0, "gpu_mem_peak", (json_int_t)0, "gpu_energy_j",
                   1.0, "gpus", "index", 99, "energy_j", 1.0, "util", 1.0);
    ok (gpu_live_from_json (o, &l) == -1 && l.n == 0, "GPU index 99 is refused");
    json_decref (o);
    o = json_pack ("{s:I s:f s:I s:f s:[{s:i s:f s:f}]}", "gpu_seconds", (json_int_t)1,
                   "gpu_util_mean", 1.0, "gpu_mem_peak", (json_int_t)0, "gpu_energy_j",
                   1.0, "gpus", "index", 0, "energy_j", 1.0, "util", 101.0);
    ok (gpu_live_from_json (o, &l) == -1, "101%% utilisation of one GPU is refused");
    json_decref (o);
}

static void test_bounds (void)
{
    struct gpu_usage u;
    json_t *o;

    o = json_pack ("{s:i}", "exit_status", 0);
    ok (gpu_usage_from_json (o, &u) == 0, "a result without GPU figures: none");
    json_decref (o);
    o = json_pack ("{s:I s:f s:I s:f}", "gpu_seconds", (json_int_t)10, "gpu_util_mean",
                   50.0, "gpu_mem_peak", (json_int_t)1024, "gpu_energy_j", 1e308);
    ok (gpu_usage_from_json (o, &u) == -1 && u.energy_j == 0, "1e308 J is refused");
    json_decref (o);
    o = json_pack ("{s:I s:f s:I s:f}", "gpu_seconds", (json_int_t)INT64_MAX,
                   "gpu_util_mean", 50.0, "gpu_mem_peak", (json_int_t)1024,
                   "gpu_energy_j", 1.0);
    ok (gpu_usage_from_json (o, &u) == -1, "2^63-1 GPU-seconds are refused");
    json_decref (o);
    o = json_pack ("{s:I s:f s:I s:f}", "gpu_seconds", (json_int_t)10, "gpu_util_mean",
                   140.0, "gpu_mem_peak", (json_int_t)1024, "gpu_energy_j", 1.0);
    ok (gpu_usage_from_json (o, &u) == -1, "140%% utilisation is refused");
    json_decref (o);
    o = json_pack ("{s:I s:s}", "gpu_seconds", (json_int_t)10, "gpu_util_mean", "x");
    ok (gpu_usage_from_json (o, &u) == -1, "malformed figures are refused");
    json_decref (o);
}

int main (void)
{
    plan (NO_PLAN);
    test_real ();
    test_simulated ();
    test_per_gpu ();
    test_bounds ();
    return done_testing ();
}

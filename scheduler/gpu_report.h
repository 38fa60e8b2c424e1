/* gpu_report.h - one node.telemetry report, as a worker sends it, and its
 * samples in Prometheus's text format under DCGM exporter's names.
 *
 * Parsing is kept apart from the server (telemetry.h keeps the reports
 * and renders them when scraped) because the report comes off the network:
 * it has a fuzz target (tests/fuzz/fuzz_telemetry.c).  A report that is
 * accepted renders into well-formed, distinct series whatever its strings
 * hold; anything else is refused whole.
 *
 *   {"gpus": [{"index": 0, "uuid": "GPU-...", "model": "...",
 *              "util": 93, "fb_used": 40536, ...}, ...]}
 *
 * index is the node's GPU index (node.hello's order), distinct within a
 * report; every other key is optional, and a value NVML could not read is
 * absent (exported as nothing, never as 0).
 */
#ifndef HPCQ_SCHEDULER_GPU_REPORT_H
#define HPCQ_SCHEDULER_GPU_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "common/error.h"
#include "common/gpu.h"

#define GPU_REPORT_NFIELDS 13

/* A value a report may carry: its key in node.telemetry, the DCGM
 * exporter's field name, its help text. */
struct gpu_report_field {
    const char *key, *metric, *help;
};
extern const struct gpu_report_field gpu_report_fields[GPU_REPORT_NFIELDS];

struct gpu_report {
    int index; /* the node's GPU index */
    char uuid[96];
    char model[96];
    unsigned have; /* bit i: gpu_report_fields[i] present */
    double v[GPU_REPORT_NFIELDS];
};

/* body's GPUs into gpus (room for GPU_MAX).  How many, or -1 with err
 * (EPROTO) for a report that is not one: nothing of it is to be kept. */
int gpu_report_parse (const json_t *body, struct gpu_report *gpus,
                      struct hpcq_error *err);

/* One sample of field i of g, a line: METRIC{gpu=,UUID=,device=,modelName=,
 * Hostname=[,hpc_job=]} VALUE.  job may be NULL (no job holds the GPU). */
void gpu_report_put (FILE *f, int i, const struct gpu_report *g, const char *host,
                     const char *job);

/* A label value in the text format's quotes, with \, " and newlines
 * escaped as Prometheus reads them. */
void gpu_report_put_label (FILE *f, const char *value);

#endif

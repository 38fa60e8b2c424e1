/* ckptreport.h - a job tells its worker that a checkpoint is complete.
 *
 * What `hpcq-ckpt done` does, as a library call for apps: under hpcq a
 * job's environment names its worker's socket ($HPCQ_CKPT_SOCKET), its id
 * ($PBS_JOBID) and attempt ($HPCQ_ATTEMPT); the report goes there (never
 * to the scheduler), and the worker passes it on.  The scheduler records
 * the checkpoint (generation, size, cost), counts its cadence from it, and
 * a preemption or reclaim waiting for it goes ahead.
 *
 * common/ckptfile.c reports every generation it commits, so apps writing
 * their checkpoints through it report them all without a line of their
 * own.
 */
#ifndef HPCQ_COMMON_CKPTREPORT_H
#define HPCQ_COMMON_CKPTREPORT_H

#include <stdint.h>

#include "common/error.h"

/* The exit status of a job whose app found none of its checkpoints usable
 * (EX_DATAERR of sysexits.h): the scheduler marks them invalid and does
 * what ckpt_corrupt says (docs/checkpoint.md).  hpcq-md exits with it. */
#define CKPT_EXIT_INVALID 65

/* Report a completed checkpoint: its generation (0: the scheduler counts
 * one up), its size in bytes (-1: unknown) and the seconds it took (< 0:
 * unknown; the scheduler measures from its own signal when it asked).
 * Returns 1 once the worker has it, 0 when not running under hpcq (no
 * $HPCQ_CKPT_SOCKET), -1 with err (the worker refused or cannot be
 * reached). */
int ckptreport_done (int64_t generation, int64_t bytes, double seconds,
                     struct hpcq_error *err);

/* The largest figures a report may carry: past a pebibyte, a year or 2^40
 * generations it is no checkpoint's, and one such figure would make a
 * cluster's metrics and reports meaningless (issue 22, finding 4). */
#define CKPTREPORT_BYTES_MAX (INT64_C (1) << 50)
#define CKPTREPORT_SECONDS_MAX (366.0 * 86400)
#define CKPTREPORT_GENERATION_MAX (INT64_C (1) << 40)

/* A report's figures within those bounds (generation 0, bytes -1 and
 * seconds < 0 mean not given, as above; a given seconds must be finite):
 * 0, or -1 with err naming the figure.  hpcq-ckpt checks its options
 * with it, and so do the worker, where a report comes in, and the
 * scheduler, where it is recorded. */
int ckptreport_check (int64_t generation, int64_t bytes, double seconds,
                      struct hpcq_error *err);

#endif

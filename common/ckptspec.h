/* ckptspec.h - what a job asks of checkpointing: qsub -c and
 * -W checkpoint_signal.
 *
 * The -c value, in PBS Pro's spellings, Torque's and one of ours:
 *
 *   n            never
 *   s            only when asked: the node shuts down or is reclaimed, the
 *                job is preempted (C) or rerun (qrerun)
 *   c[=MIN]      every MIN minutes of the job's CPU time
 *   w[=MIN]      every MIN minutes of wall time
 *   u            unset (the default): as n, except on spot nodes, where a
 *                job checkpoints as with auto
 *   enabled      Torque: as s
 *   shutdown     Torque: as s
 *   periodic[,interval=MIN]
 *                Torque: as w=MIN (words may be joined with commas:
 *                "enabled,periodic,interval=10")
 *   auto         ours: the interval comes from Young/Daly (the job's
 *                measured checkpoint cost and its nodes' interruption rate)
 *
 * c, w and periodic without MIN take the scheduler's checkpoint_interval.
 * Every mode but n and u also receives a checkpoint signal when the
 * scheduler needs one (preemption, reclaim, qrerun).
 *
 * The checkpoint signal (default SIGUSR1) asks the job for a checkpoint
 * after which it carries on; SIGTERM always means "checkpoint, then stop"
 * (qdel, walltime, node shutdown), so it cannot be the checkpoint signal,
 * nor can signals a job cannot catch or that stop it (KILL, STOP, TSTP,
 * TTIN, TTOU, CONT).
 */
#ifndef HPCQ_COMMON_CKPTSPEC_H
#define HPCQ_COMMON_CKPTSPEC_H

#include <stddef.h>

#include "common/error.h"

enum ckpt_mode {
    CKPT_UNSET = 0, /* u */
    CKPT_NEVER,     /* n */
    CKPT_ASKED,     /* s, enabled, shutdown */
    CKPT_CPU,       /* c[=MIN] */
    CKPT_WALL,      /* w[=MIN], periodic */
    CKPT_AUTO,      /* auto */
};

struct ckptspec {
    enum ckpt_mode mode;
    int minutes; /* CKPT_CPU, CKPT_WALL: the interval; 0 = the
                         * scheduler's checkpoint_interval */
};

#define CKPTSPEC_MAX_MINUTES (366 * 24 * 60)
#define CKPTSPEC_DEFAULT_SIGNAL "USR1"

/* Parse a -c value into out.  0, or -1 with err (EINVAL):
 * "illegal -c value: x=3 (expected ...)". */
int ckptspec_parse (const char *s, struct ckptspec *out, struct hpcq_error *err);

/* The canonical text qstat -f shows as Checkpoint: "n", "s", "c", "c=30",
 * "w=10", "auto", "u".  buf of 16 bytes is enough. */
void ckptspec_format (const struct ckptspec *c, char *buf, size_t len);

/* A -W checkpoint_signal value: the signal's number, with its canonical
 * name ("USR1") in name (16 bytes) if not NULL.  -1 with err (EINVAL) for
 * an unknown signal or one that cannot be a checkpoint signal. */
int ckptspec_signal (const char *s, char *name, size_t len, struct hpcq_error *err);

/* 1 if a job with this mode takes checkpoint signals at all (every mode
 * but n and u). */
int ckptspec_takes_signal (enum ckpt_mode mode);

#endif

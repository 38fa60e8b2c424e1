/* stepframe.h - the frames srun and hpcq-stepd (worker/stepd.c) trade
 * over the step daemon's standard streams, which the task manager already
 * carries between hosts on the workers' authenticated links
 * (common/tm.h): one stepd per node of an `srun --mpi=pmix` step runs
 * that node's tasks, and its stdout multiplexes their output, their exit
 * statuses and its PMIx fence contributions; its stdin carries the fence
 * results and the input of task 0.
 *
 * A frame: a type byte, the task (global rank, big-endian uint32), the
 * payload's length (big-endian uint32), the payload.  Pure: no I/O.
 */
#ifndef HPCQ_COMMON_STEPFRAME_H
#define HPCQ_COMMON_STEPFRAME_H

#include <stddef.h>
#include <stdint.h>

#define STEPFRAME_HEADER 9
#define STEPFRAME_MAX (64u << 20) /* the largest payload (a fence's data) */

enum {
    /* stepd -> srun */
    STEPFRAME_STDOUT = 'o', /* task's output */
    STEPFRAME_STDERR = 'e',
    STEPFRAME_EXIT = 'x',  /* payload: 4 bytes, its TM status (common/tm.h) */
    STEPFRAME_FENCE = 'f', /* payload: this node's contribution */
    STEPFRAME_ABORT = 'a', /* payload: 4 bytes, the status PMIx_Abort gave */
    /* srun -> stepd */
    STEPFRAME_FENCE_DONE = 'F', /* payload: every node's contributions, in node order */
    STEPFRAME_STDIN = 'i',      /* input for task */
    STEPFRAME_STDIN_EOF = 'I',
    STEPFRAME_KILL = 'K', /* every rank ends now (-K, a lost node, MPI_Abort) */
};

/* The header of a frame into h[STEPFRAME_HEADER]. */
void stepframe_header (unsigned char *h, int type, uint32_t task, uint32_t len);

/* A 4-byte payload holding v. */
void stepframe_u32 (unsigned char *p, uint32_t v);
uint32_t stepframe_get_u32 (const unsigned char *p);

typedef void (*stepframe_f) (int type, uint32_t task, const unsigned char *data,
                             size_t len, void *arg);

/* Reassembles frames from a stream that arrives in pieces. */
struct stepframe_reader {
    unsigned char *buf;
    size_t len, cap;
    int bad; /* a frame over STEPFRAME_MAX: the stream is not ours */
};

/* Feed bytes; each whole frame goes to f.  0, or -1 with errno EPROTO
 * (once bad, always) or ENOMEM. */
int stepframe_feed (struct stepframe_reader *r, const void *data, size_t len,
                    stepframe_f f, void *arg);
void stepframe_reader_release (struct stepframe_reader *r);

#endif

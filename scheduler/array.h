/* array.h - a job array as one record, like Slurm's array record.
 *
 * An array is a job that never runs itself; its subjobs do.  A subjob
 * nobody has touched is no job in memory and no row in the database: it
 * is a position in the array's range, queued or held as the array is, or
 * deleted once the array is deleted (the array's own state says which:
 * array_untouched_state).  A subjob becomes a job of its own ("split out")
 * when something happens to it: it starts, is held, altered or deleted, or
 * someone names it.  Scheduling splits out the next few untouched subjobs
 * in index order, as many as could start (scheduler/sched.c), so an array
 * of a million tasks costs about one job until its tasks start.
 *
 * The record counts its split-out subjobs by state, so what PBS shows for
 * an array (B, array_state_count) and whether it has finished are answered
 * without walking its subjobs.  jobs.c owns the subjobs themselves: it
 * makes them (jobs_subjob), files them in the queued list and frees them.
 */
#ifndef HPCQ_SCHEDULER_ARRAY_H
#define HPCQ_SCHEDULER_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "common/arrayspec.h"
#include "common/error.h"

struct job;

struct job_array {
    struct job *job;        /* the array's own job */
    struct arrayspec range; /* its indices, as runs; range.limit: %LIMIT */
    int running;            /* subjobs holding an allocation */
    uint64_t *split;        /* bit pos: split out (a job of its own) */
    struct job **sub;       /* the split-out subjobs, by position */
    int nsub, sub_cap;
    int cursor;     /* every position below it is split out */
    int untouched;  /* positions not split out */
    int nq, nr, nf; /* split-out subjobs queued or held, running or
                                     * exiting, finished */
    int began;      /* split-out subjobs that ran (or ended) */
    int failed;     /* split-out subjobs that ended without exit 0 */
    TAILQ_ENTRY (job_array) pending_link; /* jobs.c: arrays with subjobs to take */
    int pending;                          /* on that list */
};

/* The record for array job, whose -J range is range.  NULL with err. */
struct job_array *array_create (struct job *job, const char *range,
                                struct hpcq_error *err);
/* Frees the record, not the subjobs (jobs.c frees those). */
void array_destroy (struct job_array *a);

static inline int array_size (const struct job_array *a)
{
    return a->range.n;
}

/* The index of the subjob at pos; the position of index, -1 if none. */
int array_index_at (const struct job_array *a, int pos);
int array_pos_of (const struct job_array *a, int index);

/* The split-out subjob at pos, or NULL if it is untouched. */
struct job *array_sub (const struct job_array *a, int pos);

/* The first untouched position at or after from, or -1. */
int array_next_untouched (struct job_array *a, int from);

/* sj (sj->array_pos set) is split out now / is gone again: the record
 * files it and counts it by its state.  0 or -1 (ENOMEM). */
int array_split_add (struct job_array *a, struct job *sj);
void array_split_remove (struct job_array *a, struct job *sj);

/* sj's state (or run count, or exit) changed: count it anew. */
void array_recount (struct job_array *a, struct job *sj);

/* The state untouched subjobs are in: the array's Q or H, or F once the
 * array is deleted (E) or finished. */
char array_untouched_state (const struct job *array);

/* Every subjob has finished (the untouched ones deleted). */
int array_done (const struct job_array *a);

/* Some subjob ended without exit status 0 (or never ran: deleted). */
int array_failed (const struct job_array *a);

/* PBS Pro's array_state_count: "Queued:Q Running:R Exiting:0 Expired:X". */
void array_state_count (const struct job *array, char *buf, size_t len);

/* Some subjob has begun (run, or finished): qstat shows the array as B. */
static inline int array_began (const struct job_array *a)
{
    return a->began > 0;
}

#endif

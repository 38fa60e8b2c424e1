/* strpool.h - one shared copy of each string many jobs repeat.
 *
 * A deep queue repeats the same texts thousands of times: the owner, the
 * queue, the script of a workflow's jobs, the working directory, the
 * PBS_O_* variables every qsub sends.  The scheduler keeps each distinct
 * text once, counted: strpool_get returns the pool's copy (made on first
 * use) with one more reference, strpool_put drops one, and the copy goes
 * when the last does.  Equal texts give the same pointer.
 *
 * One pool per process, for one thread at a time (the scheduler's loop;
 * its threaded restart parses first and pools the results afterwards).
 */
#ifndef HPCQ_COMMON_STRPOOL_H
#define HPCQ_COMMON_STRPOOL_H

#include <stddef.h>

/* A counted reference to the pool's copy of s (NULL for NULL).  Aborts if
 * out of memory, as xstrdup does. */
const char *strpool_get (const char *s);

/* Another reference to p, which strpool_get returned (NULL for NULL). */
const char *strpool_ref (const char *p);

/* Drop a reference (NULL is ignored). */
void strpool_put (const char *p);

/* Distinct texts in the pool (for tests and measurements). */
size_t strpool_count (void);

#endif

/* arrayspec.h - job array ranges: qsub -J (PBS Pro), -t (Torque),
 * #SBATCH --array (Slurm).
 *
 *   "1-100"      indices 1..100
 *   "0-98:2"     0, 2, ..., 98 (PBS Pro step)
 *   "1,3,5-7"    a list (Torque, Slurm)
 *   "1-1000%10"  at most 10 subjobs running at once
 *
 * A parsed range is kept as runs of evenly spaced indices, not as one
 * number per subjob: "0-999999" is one run, so an array of a million
 * subjobs costs a few bytes until its subjobs are asked for one by one.
 * A subjob's position is its rank among the indices (0 for the lowest).
 */
#ifndef HPCQ_COMMON_ARRAYSPEC_H
#define HPCQ_COMMON_ARRAYSPEC_H

#include "common/error.h"

#define ARRAYSPEC_MAX 4000000 /* subjobs in one array (Slurm's largest) */
#define ARRAYSPEC_INDEX_MAX 100000000

/* Indices first, first + step, ..., count of them, at positions pos,
 * pos + 1, ... of the array. */
struct arrayspec_run {
    int first, step, count;
    int pos;
};

struct arrayspec {
    struct arrayspec_run *run; /* ascending and disjoint (owned) */
    int nrun;
    int n;     /* indices in all */
    int limit; /* concurrent subjobs, 0 = no limit */
};

/* Parse s.  Returns 0, or -1 with err (EINVAL; ENOMEM). */
int arrayspec_parse (const char *s, struct arrayspec *a, struct hpcq_error *err);
void arrayspec_release (struct arrayspec *a);

/* The index at position pos (0 <= pos < a->n). */
int arrayspec_index (const struct arrayspec *a, int pos);

/* The position of index, or -1 if the range does not hold it. */
int arrayspec_pos (const struct arrayspec *a, int index);

#endif

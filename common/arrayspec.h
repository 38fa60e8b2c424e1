/* arrayspec.h - job array ranges: qsub -J (PBS Pro), -t (Torque),
 * #SBATCH --array (Slurm).
 *
 *   "1-100"      indices 1..100
 *   "0-98:2"     0, 2, ..., 98 (PBS Pro step)
 *   "1,3,5-7"    a list (Torque, Slurm)
 *   "1-1000%10"  at most 10 subjobs running at once
 */
#ifndef HPCQ_COMMON_ARRAYSPEC_H
#define HPCQ_COMMON_ARRAYSPEC_H

#include "common/error.h"

#define ARRAYSPEC_MAX 100000 /* subjobs in one array */

struct arrayspec {
    int *index; /* the indices, ascending, no duplicates (owned) */
    int n;
    int limit; /* concurrent subjobs, 0 = no limit */
};

/* Parse s.  Returns 0, or -1 with err (EINVAL). */
int arrayspec_parse (const char *s, struct arrayspec *a, struct hpcq_error *err);
void arrayspec_release (struct arrayspec *a);

#endif

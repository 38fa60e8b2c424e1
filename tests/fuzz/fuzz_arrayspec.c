/* fuzz_arrayspec.c - job array ranges (qsub -J / -t, #SBATCH --array, and
 * the scheduler's own check of what a client sends): arrayspec_parse.
 * Properties: an accepted range has 1..ARRAYSPEC_MAX distinct indices in
 * ascending order and a limit >= 0: its runs are ascending and disjoint,
 * their counts add up to n, and each run's first and last index and its
 * position map to each other both ways (arrayspec_index, arrayspec_pos).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>

#include "common/arrayspec.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET (arrayspec)
{
    char *s = fuzz_string (data, size);
    struct arrayspec a;
    struct hpcq_error err;

    fuzz_setup ();
    if (arrayspec_parse (s, &a, &err) == 0) {
        int pos = 0, last = -1;

        if (a.n < 1 || a.n > ARRAYSPEC_MAX || a.limit < 0 || !a.run || a.nrun < 1)
            fuzz_fail ("'%s': %d indices in %d runs, limit %d", s, a.n, a.nrun,
                       a.limit);
        for (int r = 0; r < a.nrun; r++) {
            const struct arrayspec_run *run = &a.run[r];
            int end = run->first + (run->count - 1) * run->step;
            if (run->count < 1 || run->step < 1 || run->first <= last
                || run->pos != pos)
                fuzz_fail ("'%s': run %d out of order or misnumbered", s, r);
            if (arrayspec_index (&a, pos) != run->first
                || arrayspec_pos (&a, run->first) != pos
                || arrayspec_index (&a, pos + run->count - 1) != end
                || arrayspec_pos (&a, end) != pos + run->count - 1)
                fuzz_fail ("'%s': run %d's ends do not map to their positions", s, r);
            pos += run->count;
            last = end;
        }
        if (pos != a.n)
            fuzz_fail ("'%s': runs hold %d indices, not %d", s, pos, a.n);
        arrayspec_release (&a);
    }
    free (s);
    return 0;
}

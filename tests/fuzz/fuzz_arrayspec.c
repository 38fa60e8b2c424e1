/* fuzz_arrayspec.c - job array ranges (qsub -J / -t, #SBATCH --array, and
 * the scheduler's own check of what a client sends): arrayspec_parse.
 * Properties: an accepted range has 1..ARRAYSPEC_MAX distinct indices in
 * ascending order and a limit >= 0.
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
        if (a.n < 1 || a.n > ARRAYSPEC_MAX || a.limit < 0 || !a.index)
            fuzz_fail ("'%s': %d indices, limit %d", s, a.n, a.limit);
        for (int i = 1; i < a.n; i++)
            if (a.index[i] <= a.index[i - 1])
                fuzz_fail ("'%s': indices out of order at %d", s, i);
        arrayspec_release (&a);
    }
    free (s);
    return 0;
}

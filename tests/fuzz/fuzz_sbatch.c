/* fuzz_sbatch.c - a job script's #SBATCH lines, as qsub reads them
 * (sbatch_parse_script: Slurm's options turned into a select statement
 * and qsub options), then its #PBS lines on top, as qsub does.  Whatever
 * is accepted must reach the scheduler unchanged (fuzz_check_spec).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>

#include "common/directive.h"
#include "common/jobspec.h"
#include "common/sbatch.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET (sbatch)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;

    fuzz_setup ();
    jobspec_init (&spec);
    spec.script = fuzz_string (data, size);
    if (sbatch_parse_script (&spec, spec.script, &err) >= 0
        && directive_parse_script (&spec, spec.script, NULL, &err) == 0)
        fuzz_check_spec (&spec);
    jobspec_release (&spec);
    return 0;
}

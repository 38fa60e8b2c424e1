/* fuzz_directive.c - a job script's #PBS lines, as qsub reads them
 * (directive_parse_script: word splitting, quotes, every option's
 * argument check, -l through the resource parser).  Whatever qsub accepts
 * must be accepted by the scheduler, unchanged (fuzz_check_spec).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>

#include "common/directive.h"
#include "common/jobspec.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET (directive)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;

    fuzz_setup ();
    jobspec_init (&spec);
    spec.script = fuzz_string (data, size);
    if (directive_parse_script (&spec, spec.script, NULL, &err) == 0)
        fuzz_check_spec (&spec);
    jobspec_release (&spec);
    return 0;
}

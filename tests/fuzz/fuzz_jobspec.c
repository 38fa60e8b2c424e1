/* fuzz_jobspec.c - a job request as a client sends it in job.submit's
 * "spec" (and the scheduler in job.launch): JSON into jobspec_from_json,
 * the trust boundary.  Then what the scheduler does with an accepted
 * request: the array range is parsed, the output paths are expanded, and
 * the request is stored as JSON and read back at restart, which must give
 * the same request.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <limits.h>
#include <string.h>

#include "common/arrayspec.h"
#include "common/jobspec.h"
#include "tests/fuzz/fuzz.h"

static void check_paths (const struct hpcq_jobspec *spec)
{
    const char *paths[] = { spec->output_path, spec->error_path };
    char buf[PATH_MAX];

    for (size_t i = 0; i < sizeof (paths) / sizeof (paths[0]); i++) {
        if (!paths[i])
            continue;
        jobspec_expand_path (paths[i], 1234567, 42, spec->name, buf, sizeof (buf));
        if (strlen (buf) >= sizeof (buf))
            fuzz_fail ("jobspec_expand_path overflowed");
        jobspec_expand_path (paths[i], 7, -1, spec->name, buf, 16);
        if (strlen (buf) >= 16)
            fuzz_fail ("jobspec_expand_path overflowed a short buffer");
    }
}

FUZZ_TARGET (jobspec)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    struct arrayspec a;
    json_t *o;

    fuzz_setup ();
    if (!(o = json_loadb ((const char *)data, size, 0, NULL)))
        return 0;
    if (jobspec_from_json (o, &spec, &err) < 0) {
        json_decref (o);
        return 0;
    }
    json_decref (o);
    if (spec.array && arrayspec_parse (spec.array, &a, &err) == 0)
        arrayspec_release (&a);
    check_paths (&spec);
    fuzz_check_spec (&spec); /* stored as JSON, read back at restart */
    jobspec_release (&spec);
    return 0;
}

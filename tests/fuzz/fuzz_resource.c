/* fuzz_resource.c - resource requests: each input line is one -l argument
 * (select=, nodes=, walltime=, mem=, place=...), applied in order through
 * resource_parse_list and finished with resource_finalize, as qsub does.
 * Each line is also given to the single-value parsers (walltime, size,
 * Slurm time, MIG profile).  Properties: a refused list leaves the request
 * as it was; a walltime or size reads back from what qstat prints; the
 * select statement qstat prints reads back into the same request.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "common/resource.h"
#include "common/sbatch.h"
#include "tests/fuzz/fuzz.h"

/* A walltime or size that parses must read back from what qstat prints. */
static void check_reads_back (const char *what, const char *s,
                              int (*parse) (const char *, int64_t *,
                                            struct hpcq_error *),
                              void (*format) (int64_t, char *, int))
{
    int64_t v, back;
    char buf[64];

    if (parse (s, &v, NULL) < 0)
        return;
    format (v, buf, sizeof (buf));
    if (v < 0 || parse (buf, &back, NULL) < 0 || back != v)
        fuzz_fail ("%s '%s' is %lld, printed '%s'", what, s, (long long)v, buf);
}

static void check_slurm_time (const char *s)
{
    int64_t secs;

    if (sbatch_parse_time (s, &secs, NULL) == 0 && secs <= 0)
        fuzz_fail ("Slurm time '%s' gave %lld s", s, (long long)secs);
}

/* The select statement qstat shows must mean the request it came from. */
static void check_select (const struct hpcq_resources *res)
{
    static char sel[1 << 16], again[1 << 16];
    struct hpcq_resources back;
    struct hpcq_error err;

    memcpy (sel, "select=", 7);
    resource_format_select (res, sel + 7, sizeof (sel) - 7);
    if (strlen (sel) >= sizeof (sel) - 1)
        return; /* cut short: nothing to compare */
    resource_init (&back);
    if (resource_parse_list (&back, sel, &err) < 0
        || resource_finalize (&back, &err) < 0)
        fuzz_fail ("printed select '%s' does not parse: %s", sel, err.text);
    resource_format_select (&back, again, sizeof (again));
    if (strcmp (sel + 7, again) != 0)
        fuzz_fail ("select '%s' reads back as '%s'", sel + 7, again);
    if (resource_total_ncpus (&back) != resource_total_ncpus (res)
        || resource_total_mem (&back) != resource_total_mem (res)
        || resource_total_ngpus (&back) != resource_total_ngpus (res)
        || resource_total_chunks (&back) != resource_total_chunks (res))
        fuzz_fail ("select '%s' reads back with other totals", sel + 7);
    resource_release (&back);
}

FUZZ_TARGET (resource)
{
    char *text = fuzz_string (data, size), *rest = text, *line;
    struct hpcq_resources res, before;
    struct hpcq_error err;

    fuzz_setup ();
    resource_init (&res);
    while ((line = strsep (&rest, "\n"))) {
        check_reads_back ("walltime", line, resource_parse_walltime,
                          resource_format_walltime);
        check_reads_back ("size", line, resource_parse_size, resource_format_size);
        check_slurm_time (line);
        (void)resource_check_mig (line, NULL);
        before = res;
        if (resource_parse_list (&res, line, &err) < 0
            && memcmp (&before, &res, sizeof (res)) != 0)
            fuzz_fail ("refused list '%s' changed the request", line);
    }
    if (resource_finalize (&res, &err) == 0) {
        if (resource_total_ncpus (&res) < 1 || resource_total_mem (&res) < 0
            || resource_total_ngpus (&res) < 0 || resource_total_chunks (&res) < 1)
            fuzz_fail ("a finalized request has negative totals");
        check_select (&res);
    }
    resource_release (&res);
    free (text);
    return 0;
}

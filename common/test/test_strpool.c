/* test_strpool.c - counted shared copies of strings */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <string.h>

#include "common/jobspec.h"
#include "common/strpool.h"
#include "common/test/tap.h"

int main (void)
{
    char buf[16];
    const char *a, *b, *c;
    struct hpcq_jobspec spec;

    plan (NO_PLAN);
    strcpy (buf, "workq");
    a = strpool_get (buf);
    strcpy (buf, "other");
    b = strpool_get ("workq");
    ok (a == b && !strcmp (a, "workq") && strpool_count () == 1,
        "equal texts share one copy, whatever buffer they came from");
    c = strpool_get ("");
    ok (c != a && !strcmp (c, "") && strpool_count () == 2,
        "the empty text is one too");
    ok (strpool_get (NULL) == NULL && strpool_ref (NULL) == NULL, "NULL stays NULL");
    ok (strpool_ref (a) == a, "strpool_ref gives the same copy");
    strpool_put (a);
    strpool_put (b);
    ok (strpool_count () == 2 && !strcmp (a, "workq"),
        "still there while one reference is");
    strpool_put (a);
    strpool_put (NULL);
    ok (strpool_count () == 1, "gone with the last reference");
    strpool_put (c);
    ok (strpool_count () == 0, "the pool is empty again");

    jobspec_init (&spec);
    spec.name = strdup ("job");
    spec.script = strdup ("true\n");
    ok (jobspec_setenv (&spec, "PBS_O_HOME", "/home/a") == 0, "a spec of its own");
    jobspec_pool (&spec);
    a = strpool_get ("true\n");
    ok (spec.pooled && spec.script == a && strpool_count () == 3,
        "jobspec_pool: the spec's texts are the pool's");
    strpool_put (a);
    ok (jobspec_setenv (&spec, "X", "1") < 0, "a pooled spec is not changed in place");
    jobspec_release (&spec);
    ok (strpool_count () == 0 && !spec.pooled, "jobspec_release returns them all");
    return done_testing ();
}

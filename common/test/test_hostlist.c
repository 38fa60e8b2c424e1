/* test_hostlist.c - Slurm's compressed host lists */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <string.h>

#include "common/hostlist.h"
#include "common/test/tap.h"

static void check (const char *want, int n, const char *const *hosts)
{
    char buf[256];

    hostlist_format (hosts, n, buf, sizeof (buf));
    is (buf, want, "hostlist %s", want);
}

int main (void)
{
    plan (NO_PLAN);
    check ("n1", 1, (const char *[]){ "n1" });
    check ("n[1-3]", 3, (const char *[]){ "n2", "n1", "n3" });
    check ("n[1-2]", 4, (const char *[]){ "n1", "n1", "n2", "n2" });
    check ("node[01-03,07]", 4, (const char *[]){ "node07", "node01", "node02", "node03" });
    check ("gpu1,n[1,3]", 3, (const char *[]){ "n3", "gpu1", "n1" });
    check ("head,login", 2, (const char *[]){ "login", "head" });
    check ("n[1,10]", 2, (const char *[]){ "n10", "n1" });
    check ("n1,n01", 2, (const char *[]){ "n01", "n1" });
    check ("a1b[2-3]", 2, (const char *[]){ "a1b2", "a1b3" });
    check ("", 0, (const char *[]){ NULL });
    {
        char small[8];
        size_t need = hostlist_format ((const char *[]){ "node01", "node03" }, 2, small,
                                       sizeof (small));
        ok (need == strlen ("node[01,03]") && strlen (small) == 7,
            "a short buffer is cut, the length needed returned");
    }
    return done_testing ();
}

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

static int collect (const char *name, void *arg)
{
    char *buf = arg;

    if (*buf)
        strcat (buf, " ");
    strcat (buf, name);
    return 0;
}

static void expands (const char *list, const char *want)
{
    char buf[512] = "";
    int n = hostlist_expand (list, 100, collect, buf);

    ok (n > 0 && strcmp (buf, want) == 0, "expand %s: %s (%d)", list, buf, n);
}

int main (void)
{
    plan (NO_PLAN);
    check ("n1", 1, (const char *[]){ "n1" });
    check ("n[1-3]", 3, (const char *[]){ "n2", "n1", "n3" });
    check ("n[1-2]", 4, (const char *[]){ "n1", "n1", "n2", "n2" });
    check ("node[01-03,07]", 4,
           (const char *[]){ "node07", "node01", "node02", "node03" });
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
    expands ("n1", "n1");
    expands ("node[01-03,07],gpu1", "node01 node02 node03 node07 gpu1");
    expands ("n[8-10]", "n8 n9 n10");
    expands ("n[08-10].ib", "n08.ib n09.ib n10.ib");
    expands ("a,b[1-2],c", "a b1 b2 c");
    {
        char buf[512] = "";
        ok (hostlist_expand ("n[1-", 100, collect, buf) < 0
                && hostlist_expand ("n[3-1]", 100, collect, buf) < 0
                && hostlist_expand ("n[a]", 100, collect, buf) < 0
                && hostlist_expand ("n1,,n2", 100, collect, buf) < 0
                && hostlist_expand ("", 100, collect, buf) < 0
                && hostlist_expand ("n[1]x[2]", 100, collect, buf) < 0,
            "malformed host lists are refused");
        ok (hostlist_expand ("n[1-101]", 100, collect, buf) < 0,
            "more than max refused");
    }
    return done_testing ();
}

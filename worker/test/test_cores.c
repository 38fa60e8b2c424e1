/* test_cores.c - which cores a job gets: lowest free slots, released at
 * the end, shown as a cpuset list, and more slots than CPUs mapped round
 * robin. */
#include <config.h>
#include <string.h>

#include "common/test/tap.h"
#include "worker/cores.h"

int main (void)
{
    static const int cpus[] = { 0, 1, 2, 3, 8, 9 };
    struct cores *c = cores_create (8);
    int a[8], b[8], d[8], n;
    char buf[64];

    plan (NO_PLAN);
    cores_set_cpus (c, cpus, 6);
    n = cores_take (c, 3, a);
    cores_format (c, a, n, buf, sizeof (buf));
    ok (n == 3, "three slots taken");
    is (buf, "0-2", "the lowest: CPUs 0-2");
    n = cores_take (c, 3, b);
    cores_format (c, b, n, buf, sizeof (buf));
    is (buf, "3,8-9", "the next three skip the gap in the CPU list");
    n = cores_take (c, 4, d);
    cores_format (c, d, n, buf, sizeof (buf));
    ok (n == 2, "only two slots left of eight");
    is (buf, "0-1", "slots beyond the CPUs wrap round (8 slots on 6 CPUs)");
    cores_release (c, a, 3);
    n = cores_take (c, 2, d);
    cores_format (c, d, n, buf, sizeof (buf));
    is (buf, "0-1", "released slots are taken again, lowest first");
    cores_format (c, d, 0, buf, sizeof (buf));
    is (buf, "", "no slots: an empty list");
    cores_destroy (c);

    c = cores_create (2);
    n = cores_take (c, 2, a);
    cores_format (c, a, n, buf, sizeof (buf));
    ok (n == 2 && buf[0] >= '0' && buf[0] <= '9', "this machine's affinity: %s", buf);
    cores_destroy (c);
    return done_testing ();
}

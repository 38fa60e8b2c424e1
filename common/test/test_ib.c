/* test_ib.c - InfiniBand ports from a sysfs tree (a fake one, in a
 * temporary folder, laid out as the kernel's ib_core lays out
 * /sys/class/infiniband), the usable list, and the node.hello form. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/ib.h"
#include "common/test/tap.h"

static char root[] = "/tmp/test_ib.XXXXXX";

#define BAIL_OUT(...)          \
    do {                       \
        printf ("Bail out! "); \
        printf (__VA_ARGS__);  \
        printf ("\n");         \
        exit (1);              \
    } while (0)

static void put (const char *hca, int port, const char *file, const char *text)
{
    char path[4096];
    FILE *f;

    snprintf (path, sizeof (path), "mkdir -p '%s/class/infiniband/%s/ports/%d'", root,
              hca, port);
    if (system (path) != 0)
        BAIL_OUT ("cannot make %s", path);
    snprintf (path, sizeof (path), "%s/class/infiniband/%s/ports/%d/%s", root, hca,
              port, file);
    if (!(f = fopen (path, "w")) || fputs (text, f) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", path);
}

static void port (const char *hca, int n, const char *state, const char *ll)
{
    put (hca, n, "state", state);
    if (ll)
        put (hca, n, "link_layer", ll);
    put (hca, n, "rate", "200 Gb/sec (4X HDR)\n");
}

static void test_scan (void)
{
    struct ib_port p[IB_PORT_MAX], back[IB_PORT_MAX];
    char list[256];
    json_t *j;
    int n, nb;

    ok (ib_scan (root, p, IB_PORT_MAX) == 0, "no class/infiniband: no ports");
    port ("mlx5_1", 1, "4: ACTIVE\n", "InfiniBand\n");
    port ("mlx5_0", 2, "1: DOWN\n", "InfiniBand\n");
    port ("mlx5_0", 1, "4: ACTIVE\n", "InfiniBand\n");
    port ("mlx5_2", 1, "4: ACTIVE\n", "Ethernet\n");
    port ("qib0", 1, "4: ACTIVE\n", NULL);
    port ("bad name", 1, "4: ACTIVE\n", "InfiniBand\n");
    n = ib_scan (root, p, IB_PORT_MAX);
    ok (n == 5, "five ports (the HCA with a blank in its name skipped): %d", n);
    ok (n == 5 && strcmp (p[0].hca, "mlx5_0") == 0 && p[0].port == 1
            && strcmp (p[1].hca, "mlx5_0") == 0 && p[1].port == 2
            && strcmp (p[2].hca, "mlx5_1") == 0 && strcmp (p[4].hca, "qib0") == 0,
        "sorted by HCA and port");
    is (p[1].state, "DOWN", "state without its number");
    is (p[0].rate, "200 Gb/sec (4X HDR)", "rate without its newline");
    is (p[4].link_layer, "InfiniBand", "no link_layer file: InfiniBand (old kernels)");
    ib_usable_list (p, n, list, sizeof (list));
    is (list, "mlx5_0:1,mlx5_1:1,qib0:1",
        "usable: active InfiniBand ports, not the down one nor RoCE");
    ib_usable_list (p, n, list, 12);
    is (list, "mlx5_0:1", "a list that does not fit stops at a whole entry");
    ok (ib_scan (root, p, 2) == 2, "at most max ports");

    n = ib_scan (root, p, IB_PORT_MAX);
    j = ib_to_json (p, n);
    {
        json_t *again = NULL;
        ok (ib_from_json (j, back, IB_PORT_MAX, &nb) == 0 && nb == n
                && (again = ib_to_json (back, nb)) && json_equal (again, j)
                && strcmp (back[0].rate, p[0].rate) == 0,
            "the node.hello form reads back the same");
        json_decref (again);
    }
    ok (ib_from_json (j, back, 2, &nb) == -1 && nb == 0, "more than max: refused");
    json_decref (j);
    j = json_pack ("[{s:s s:i s:s s:s s:s}]", "hca", "mlx5/0", "port", 1, "state",
                   "ACTIVE", "link_layer", "InfiniBand", "rate", "");
    ok (ib_from_json (j, back, IB_PORT_MAX, &nb) == -1,
        "an HCA name with '/': refused");
    json_decref (j);
    j = json_pack ("[{s:s s:i}]", "hca", "mlx5_0", "port", 1);
    ok (ib_from_json (j, back, IB_PORT_MAX, &nb) == -1, "fields missing: refused");
    json_decref (j);
    ok (ib_from_json (NULL, back, IB_PORT_MAX, &nb) == 0 && nb == 0,
        "no list (an older worker): none");
}

int main (void)
{
    char cmd[256];

    plan (NO_PLAN);
    if (!mkdtemp (root))
        BAIL_OUT ("mkdtemp");
    test_scan ();
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", root);
    if (system (cmd) != 0)
        diag ("cannot remove %s", root);
    return done_testing ();
}

/* ib.h - a node's InfiniBand HCAs and their ports: one description for the
 * worker that finds them in sysfs, the scheduler that keeps them in its
 * node record (pbsnodes: resources_available.ib_hcas) and the job
 * environment (UCX_NET_DEVICES).
 *
 * The worker reads /sys/class/infiniband/HCA/ports/N/{state,link_layer,
 * rate} (the kernel's ib_core; what ibstat and UCX's own device list
 * read), reports the ports in node.hello as ib_to_json writes them, and
 * the scheduler reads them back with ib_from_json.  A node without the
 * ib_core module, or without HCAs, has none: the list is empty.
 */
#ifndef HPCQ_COMMON_IB_H
#define HPCQ_COMMON_IB_H

#include <jansson.h>
#include <stddef.h>

#define IB_PORT_MAX 8 /* ports kept per node (a node has 1 to 8 in practice) */

struct ib_port {
    char hca[24];        /* "mlx5_0": the kernel's name of the HCA */
    int port;            /* 1-based port number */
    char state[16];      /* "ACTIVE", "DOWN", "INIT", "ARMED" ... */
    char link_layer[16]; /* "InfiniBand", or "Ethernet" for RoCE */
    char rate[40];       /* "200 Gb/sec (4X HDR)" */
};

/* The ports under ROOT/class/infiniband (ROOT is "/sys" but for tests),
 * sorted by HCA and port, at most max of them.  Entries whose names or
 * texts do not fit are skipped.  Returns how many; 0 when there is no
 * such directory. */
int ib_scan (const char *root, struct ib_port *out, int max);

/* An active InfiniBand port: what UCX's rc/dc transports can use. */
int ib_port_usable (const struct ib_port *p);

/* The usable ports as UCX names them, "mlx5_0:1,mlx5_1:1", into buf
 * ("" if none; a list that does not fit stops at the last whole entry). */
void ib_usable_list (const struct ib_port *p, int n, char *buf, size_t len);

/* [{"hca", "port", "state", "link_layer", "rate"}, ...]: a new reference. */
json_t *ib_to_json (const struct ib_port *p, int n);

/* Back from ib_to_json's form (NULL is an empty list).  -1 if malformed
 * or longer than max; *n is then 0. */
int ib_from_json (json_t *a, struct ib_port *out, int max, int *n);

#endif

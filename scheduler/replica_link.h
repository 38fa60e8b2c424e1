/* replica_link.h - the replicas' Raft links, authenticated.
 *
 * A raft_uv transport around libraft's own TCP one: when a replica opens
 * a link to another, before libraft may use it, the listener sends a
 * fresh nonce, the connecting side answers HMAC-SHA256(key, nonce, cluster,
 * its id and address) and the listener proves the key back; a link that
 * fails is closed before libraft sees a byte of it.  The key is the
 * cluster's secret, read from replica_key_file (the same file on every
 * replica, mode 0600).  Only the opening is checked: the frames after it
 * are not sealed (common/session.h is not woven into libraft's streams).
 */
#ifndef HPCQ_SCHEDULER_REPLICA_LINK_H
#define HPCQ_SCHEDULER_REPLICA_LINK_H

#include <raft.h>
#include <raft/uv.h>
#include <stdint.h>
#include <uv.h>

#include "common/error.h"

#define REPLICA_KEY_MIN 32

struct replica_link;

/* The transport to give raft_uv_init (owned by the link).  key: at least
 * REPLICA_KEY_MIN bytes.  NULL with err. */
struct replica_link *replica_link_create (uv_loop_t *uv, const char *bind_address,
                                          const uint8_t *key, size_t keylen,
                                          const char *cluster_id,
                                          struct hpcq_error *err);
struct raft_uv_transport *replica_link_transport (struct replica_link *rl);
/* After raft_uv_close and the uv loop has run the close down. */
void replica_link_destroy (struct replica_link *rl);

/* Read the cluster's key from path: private to its owner, at least
 * REPLICA_KEY_MIN bytes.  0 or -1 with err. */
int replica_link_read_key (const char *path, uint8_t *key, size_t size, size_t *len,
                           struct hpcq_error *err);

#endif

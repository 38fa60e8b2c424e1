/* replica.h - the scheduler as one of several replicas kept equal by Raft.
 *
 * With `replicas` set (a list of HOST:PORT, one per replica, the same on
 * every replica) and `replica_id` (this one's place in it, from 1), the
 * scheduler embeds libraft (raft_uv_tcp on libuv, driven from the
 * scheduler's own loop).  A follower runs no server: it applies the
 * leader's log entries to its own SQLite file and answers nobody, so
 * clients and workers, which are given the whole list, find the leader
 * by trying each address.  Elected, a replica runs a barrier (every
 * committed entry is in its file), then creates the server through the
 * ordinary start-up path, which loads its state from that file.
 *
 * The leader's group commit (db_commit) becomes one log entry: the
 * transaction's changeset (db/db_repl.h) with a header naming the cluster
 * and the entry's index and term, which the same transaction also writes
 * into replica_state.  Replies and launches wait until the entry is
 * committed on a majority (replica_wait_index).  A leader that loses its
 * leadership, or an entry whose outcome it cannot know, starts again as a
 * follower; if its file may hold a write the cluster never committed it
 * marks it dirty first, and the new process rebuilds it from the log.
 * A file that disagrees with the log is never served from.
 */
#ifndef HPCQ_SCHEDULER_REPLICA_H
#define HPCQ_SCHEDULER_REPLICA_H

#include <stdint.h>

#include "common/config.h"
#include "common/error.h"
#include "common/loop.h"
#include "db/db.h"

struct replica;

/* Elected and caught up: create the server now (from the loop). */
typedef void (*replica_leader_f) (struct replica *rep, void *arg);
/* Every entry up to index is committed on a majority. */
typedef void (*replica_commit_f) (void *arg, int64_t index);

/* 1 if cfg asks for replicas. */
int replica_configured (const struct config *cfg);

/* Check the settings, open this replica's file and Raft state under
 * state_dir, and start following.  argv is what a restart execs again
 * (borrowed for the process's life).  NULL with err (one line). */
struct replica *replica_create (struct loop *loop, struct config *cfg, char **argv,
                                replica_leader_f leader, void *arg,
                                struct hpcq_error *err);
void replica_destroy (struct replica *rep);

/* The server opened its database: every commit on db is proposed from
 * now on, and commit hears when entries are committed.  0 or -1. */
int replica_attach (struct replica *rep, struct db *db, replica_commit_f commit,
                    void *arg);
/* The server is closing db. */
void replica_detach (struct replica *rep);

/* The entry that what was committed so far waits for; 0 if every entry
 * proposed is committed already. */
int64_t replica_wait_index (const struct replica *rep);

#endif

/* db_repl.h - a replica's database: a group commit taken as a changeset,
 * and a changeset applied.
 *
 * The leader captures each transaction's row changes with SQLite's
 * session extension (db_capture_*): physical row changes, with every
 * value the leader computed, so applying them gives the same rows on any
 * replica whatever SQL made them.  Followers apply them in order
 * (db_repl_apply), each in one transaction that also moves
 * replica_state (migration 0015) to the entry's index and term: the file
 * always says which log entry it holds last.
 */
#ifndef HPCQ_DB_DB_REPL_H
#define HPCQ_DB_DB_REPL_H

#include <stdint.h>

#include "common/error.h"
#include "db/db.h"

struct db_capture;

/* Record every change on db from now on.  NULL with errno. */
struct db_capture *db_capture_create (struct db *db);
void db_capture_destroy (struct db_capture *cap);

/* 1 if nothing was changed since the last take or reset. */
int db_capture_empty (struct db_capture *cap);

/* The changes recorded since the last take or reset as a changeset
 * (*buf: sqlite3_free it; *len 0 if none), and start afresh.  0 or -1. */
int db_capture_take (struct db_capture *cap, void **buf, int *len);

/* Forget what was recorded (the transaction rolled back).  0 or -1. */
int db_capture_reset (struct db_capture *cap);

/* The log entry the file holds last.  0 or -1 with errno. */
int db_repl_state (struct db *db, int64_t *index, int64_t *term);

/* Record, in the open transaction, that it is log entry index of term. */
int db_repl_state_set (struct db *db, int64_t index, int64_t term);

/* Apply a changeset in a transaction of its own, and check that it moved
 * replica_state to (index, term).  Any conflict (the row to change is not
 * what the leader changed) fails it whole: the file is not the leader's.
 * 0 or -1 with err; nothing changes on failure. */
int db_repl_apply (struct db *db, const void *buf, int len, int64_t index, int64_t term,
                   struct hpcq_error *err);

/* A fresh file made the same on every replica: what a migration put in
 * from the clock (0001's workq created_at) is made 0.  0 or -1. */
int db_repl_normalize (struct db *db);

/* Make db what a fresh file is (migrations, normalized), in place: for a
 * replica's file that the log is to fill again.  0 or -1 with err. */
int db_repl_reset (struct db *db, struct hpcq_error *err);

#endif

/* checkpoint.h - durable checkpoints and restart for hpcq-md.
 *
 * A checkpoint of step S in folder DIR is one part per rank,
 * DIR/ckpt-<S>.r<rank>.part (versioned header, the rank's atoms, FNV-1a 64
 * checksum), and a text manifest DIR/ckpt-<S>.manifest listing every
 * part's size and checksum under a checksum of its own.  Each file is
 * written to a temporary name, fsynced, renamed and the folder fsynced;
 * the manifest is written only after every rank's part is durable, so a
 * manifest means a complete set.  The two newest sets are kept.
 *
 * A part holds each atom's id, position, velocity, force and position at
 * the last neighbour-list build: with those the engine rebuilds exactly
 * the lists the interrupted run had, which makes a restart on the same
 * number of ranks bitwise identical to a run that never stopped.  On a
 * different number of ranks every rank reads every part and keeps the
 * atoms of its brick.
 */
#ifndef HPCQ_APPS_MD_CHECKPOINT_H
#define HPCQ_APPS_MD_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct md_sim;

#define CKPT_VERSION 1

/* Write a checkpoint of s's current step.  Collective; returns 0 or -1
 * with err filled on every rank.
 */
int checkpoint_write (struct md_sim *s, struct hpcq_error *err);

/* Load the newest valid checkpoint of s->p.checkpoint_dir into s (atoms,
 * step).  Damaged sets are reported on stderr and skipped.  Collective;
 * returns 0 when loaded, 1 when the folder holds no checkpoint, -1 with
 * err filled when none is valid or it belongs to a different system.
 */
int checkpoint_load (struct md_sim *s, struct hpcq_error *err);

/* FNV-1a 64 of len bytes, continuing from h (start with CKPT_FNV_INIT). */
#define CKPT_FNV_INIT 0xcbf29ce484222325ULL
uint64_t checkpoint_fnv1a (const void *buf, size_t len, uint64_t h);

#endif

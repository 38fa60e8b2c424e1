/* checkpoint.h - hpcq-md's checkpoints and restart, in common/ckptfile's
 * generations.
 *
 * A checkpoint is one generation of the store "md" in the checkpoint
 * folder: one part per rank, DIR/md-GGGGGGGG.rRRRRR.part (a header, then
 * the rank's atoms), and the commit file DIR/md-GGGGGGGG.ckpt, a text
 * manifest listing every part's size and checksum, written by rank 0 only
 * after every part is durable; so a commit file means a complete set.
 * The layer keeps the newest --checkpoint-keep generations and falls back
 * to an older one when a newer one is damaged.
 *
 * A part holds each atom's id, type, image flags, position, velocity,
 * force and position at the last neighbour-list build: with those the
 * engine rebuilds exactly the lists the interrupted run had, which makes
 * a restart on the same number of ranks bitwise identical to a run that
 * never stopped.  On a different number of ranks every rank reads every
 * part and keeps the atoms of its brick.
 */
#ifndef HPCQ_APPS_MD_CHECKPOINT_H
#define HPCQ_APPS_MD_CHECKPOINT_H

#include "common/error.h"

struct md_sim;

#define CKPT_VERSION 3

/* Write a checkpoint of s's current step.  Collective; returns 0 or -1
 * with err filled on every rank.
 */
int checkpoint_write (struct md_sim *s, struct hpcq_error *err);

/* Load the newest valid checkpoint of s->p.checkpoint_dir into s (atoms,
 * step).  Damaged sets are reported on stderr and skipped.  Collective;
 * returns 0 when loaded, 1 when the folder holds no checkpoint, -1 with
 * err filled when only damaged sets exist or the newest intact one is for
 * another system (box, atom count, types).
 */
int checkpoint_load (struct md_sim *s, struct hpcq_error *err);

#endif

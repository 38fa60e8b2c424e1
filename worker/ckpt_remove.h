/* ckpt_remove.h - a finished job's checkpoint folder, removed as its owner.
 *
 * ckpt.remove from the scheduler names a folder, its job and its owner's
 * uid; the worker removes it in a privsep helper (privsep.h) running as
 * the owner, never following a symlink, and answers ckpt.removed with how
 * it went.  The requests of one loop turn are gathered, and each owner's
 * are removed by one helper: a burst of ended jobs costs a fork per owner,
 * not one per job.  Only when a gathered helper fails is each of its
 * folders tried again in a helper of its own, so that each answer says
 * what went wrong with that folder.
 */
#ifndef HPCQ_WORKER_CKPT_REMOVE_H
#define HPCQ_WORKER_CKPT_REMOVE_H

#include "common/conn.h"
#include "common/wire.h"

struct worker;
struct ckpt_remove;

struct ckpt_remove *ckpt_remove_create (struct worker *w);
/* Helpers still running go with the worker's privsep, unanswered (the
 * scheduler asks again later). */
void ckpt_remove_destroy (struct ckpt_remove *rm);

/* ckpt.remove {seq, path, uid} from the scheduler on c. */
void ckpt_remove_msg (struct ckpt_remove *rm, struct conn *c, struct wire_msg *msg);

#endif

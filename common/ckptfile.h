/* ckptfile.h - checkpoint files: atomic, checksummed, kept in generations.
 *
 * The apps (hpcq-md, hpcq-climate) write their checkpoints through this
 * layer into $HPCQ_CHECKPOINT_DIR.  A store is a folder and a name prefix;
 * its checkpoints are generations numbered 1, 2, 3, ... in the order they
 * are written (the app keeps its own step or time inside).  Generation G of
 * store PREFIX in DIR is
 *
 *     DIR/PREFIX-GGGGGGGG.NAME.part   parts, written first (say one per
 *                                     MPI rank); optional
 *     DIR/PREFIX-GGGGGGGG.ckpt        the commit file, written last: while
 *                                     it exists the generation is whole
 *
 * Every file is a 16-byte header ("HPCQCKPT", format version), the payload,
 * and a 16-byte trailer (payload length, XXH3-64 of header and payload),
 * in the machine's byte order.  It is written to NAME.tmp, fsynced, renamed
 * to NAME, and the folder fsynced, so a crash leaves either the old state
 * or the new file whole.  After a commit only the newest `keep` generations
 * remain; older ones (and the debris of interrupted writes older than them)
 * are deleted, commit file first.
 *
 * Reading checks the length and the checksum; ckptfile_find walks the
 * generations newest first, says on stderr which one is damaged and why,
 * and falls back to the previous one.
 *
 * The layer knows files, not what is in them: the app puts its own magic,
 * version and sizes in the payload and says, through ckptfile_find's
 * callback, whether a generation is one it can use.
 */
#ifndef HPCQ_COMMON_CKPTFILE_H
#define HPCQ_COMMON_CKPTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define CKPTFILE_KEEP_DEFAULT 2

/* Where checkpoints go.  The strings are borrowed, not copied. */
struct ckptfile_store {
    const char *dir;
    const char *prefix;   /* file names start "PREFIX-"; [A-Za-z0-9_] */
    int keep;             /* generations kept after a commit, >= 1 */
    const char *progname; /* starts the damage reports on stderr */
};

/* What a finished or verified file is: its size on disk and checksum. */
struct ckptfile_info {
    uint64_t bytes;
    uint64_t sum;
};

struct ckptfile_out;

/* The number the next generation of st takes: one past every generation
 * number in use in st->dir, whole or not.  Creates the folder (and its
 * parents, mode 0700) if missing.  Returns 0 with *gen set, or -1 with err
 * filled.  Call it once per checkpoint, on one process: every writer of
 * the generation's parts must use the same number. */
int ckptfile_next (const struct ckptfile_store *st, uint64_t *gen,
                   struct hpcq_error *err);

/* Start writing part `part` of generation gen ([A-Za-z0-9_]; NULL for the
 * commit file).  Returns the writer, or NULL with err filled.  Finish it
 * with ckptfile_close (a part) or ckptfile_commit (the commit file), or
 * drop it with ckptfile_abort; each frees it. */
struct ckptfile_out *ckptfile_create (const struct ckptfile_store *st, uint64_t gen,
                                      const char *part, struct hpcq_error *err);

/* Append len bytes of payload.  Returns 0, or -1 with errno; a failure is
 * also remembered and reported again by close or commit. */
int ckptfile_write (struct ckptfile_out *o, const void *buf, size_t len);

/* Finish a part: trailer, fsync, rename, fsync the folder.  Returns 0 with
 * *info filled (NULL: not wanted), or -1 with err filled and nothing left
 * behind.  Frees o either way. */
int ckptfile_close (struct ckptfile_out *o, struct ckptfile_info *info,
                    struct hpcq_error *err);

/* Finish the commit file of a generation as ckptfile_close does, which
 * makes the generation whole, then delete the generations beyond
 * st->keep.  part_bytes: the sizes of the generation's parts, so that
 * info->bytes is the whole generation's.  This is the one place a
 * generation becomes complete, and where it is reported: under hpcq, to
 * the job's worker (common/ckptreport.h: generation, bytes, and the
 * seconds since this process's ckptfile_next took the generation's
 * number); a report that fails is said on stderr and changes nothing
 * here.  Returns 0 or -1 with err filled.  Frees o. */
int ckptfile_commit (struct ckptfile_out *o, uint64_t part_bytes,
                     struct ckptfile_info *info, struct hpcq_error *err);

/* Drop an unfinished file (its .tmp is removed).  Accepts NULL; keeps
 * errno. */
void ckptfile_abort (struct ckptfile_out *o);

/* Read and check part `part` (NULL: the commit file) of generation gen.
 * Returns the payload, malloc'd (the caller frees it), with *len and *info
 * (NULL: not wanted) set, or NULL with errno ENOENT (no such file) or
 * EBADMSG (damaged: truncated, extended or changed) and err filled. */
void *ckptfile_read (const struct ckptfile_store *st, uint64_t gen, const char *part,
                     size_t *len, struct ckptfile_info *info, struct hpcq_error *err);

/* ckptfile_find's question to the app about generation gen, whose commit
 * file holds payload (len bytes; checked already).  Return 0 to take it,
 * CKPTFILE_DAMAGED with err saying why to fall back to the previous
 * generation (a bad part, say), or -1 with err filled to stop: a
 * checkpoint that is whole but not for this run (another system, a newer
 * format) must not be skipped silently. */
enum { CKPTFILE_DAMAGED = 1 };
typedef int (*ckptfile_accept_fn) (void *arg, uint64_t gen, const void *payload,
                                   size_t len, struct hpcq_error *err);

/* The newest generation of st that is whole and accepted (accept may be
 * NULL: every whole one is).  Damaged generations are reported on stderr,
 * one line each ("PROGNAME: checkpoint 'PATH' is damaged (WHY); trying
 * the previous one").  Returns 1 with *gen, *payload (the commit file's,
 * malloc'd, the caller frees it) and *len set; 0 when the folder holds no
 * generation (or does not exist); -1 with err filled when accept refused
 * one, or with errno EBADMSG when every generation is damaged. */
int ckptfile_find (const struct ckptfile_store *st, ckptfile_accept_fn accept,
                   void *arg, uint64_t *gen, void **payload, size_t *len,
                   struct hpcq_error *err);

/* The path of part `part` (NULL: the commit file) of generation gen, for
 * messages.  Returns buf. */
char *ckptfile_path (const struct ckptfile_store *st, uint64_t gen, const char *part,
                     char *buf, size_t size);

#endif

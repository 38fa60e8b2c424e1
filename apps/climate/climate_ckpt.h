/* climate_ckpt.h - checkpoint files: atomic, versioned, checksummed, two
 * generations.
 *
 * Rank 0 writes the whole global state (gathered) to one file, so a file is
 * by itself a complete set and a restart may use any rank count.  Files are
 * DIR/climate.ckpt.0 and DIR/climate.ckpt.1; each write goes to the slot
 * not holding the newest checkpoint, through a temporary file that is
 * fsynced and renamed, so a crash at any moment leaves at least one valid
 * generation.
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_CKPT_H
#define HPCQ_APPS_CLIMATE_CLIMATE_CKPT_H

#include <stdint.h>

#include "common/error.h"

#define CLIMATE_CKPT_VERSION 1

/* What besides the fields a restart needs to continue bitwise. */
struct climate_ckpt_meta {
    char case_name[32];
    int32_t nx, nz;
    int32_t nranks;             /* ranks that wrote it (informational) */
    int64_t step;
    double time, dt;
    double mass0_prime, mass_bg, energy0;   /* diagnostics at the start */
    double reserved;
};

/* Write meta and global fields (CL_NV * nz * nx doubles) into dir, slot
 * 1 - *last_slot; on success *last_slot is the slot written.  Returns 0, or
 * -1 with err filled. */
int climate_ckpt_write (const char *dir, int *last_slot,
                        const struct climate_ckpt_meta *meta,
                        const double *fields, struct hpcq_error *err);

/* Find the newest valid checkpoint in dir that matches want (case, nx, nz).
 * Returns 1 with *meta, fields (allocated, caller frees) and *slot set;
 * 0 when there is none (corrupt files are reported on stderr and skipped);
 * -1 with err filled for a foreign checkpoint (another case, grid or
 * version) or an I/O error. */
int climate_ckpt_read (const char *dir, const struct climate_ckpt_meta *want,
                       struct climate_ckpt_meta *meta, double **fields,
                       int *slot, struct hpcq_error *err);

/* 64-bit checksum of a buffer, continuing from h (start with 0). */
uint64_t climate_ckpt_checksum (uint64_t h, const void *buf, size_t n);

#endif

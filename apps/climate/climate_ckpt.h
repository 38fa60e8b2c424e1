/* climate_ckpt.h - hpcq-climate's checkpoints, in common/ckptfile's
 * generations (DIR/climate-GGGGGGGG.ckpt; --checkpoint-keep of them kept).
 *
 * Rank 0 writes the whole global state (gathered) as one commit file with
 * no parts, so a generation is by itself a complete set and a restart may
 * use any rank count.  The payload is a header (magic, version, the
 * metadata below) and the fields as raw doubles, [var][z][x].
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_CKPT_H
#define HPCQ_APPS_CLIMATE_CLIMATE_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "common/ckptfile.h"
#include "common/error.h"

#define CLIMATE_CKPT_VERSION 2

/* What besides the fields a restart needs to continue bitwise. */
struct climate_ckpt_meta {
    char case_name[32];
    int32_t nx, nz;
    int32_t nranks; /* ranks that wrote it (informational) */
    int64_t step;
    double time, dt;
    double mass0_prime, mass_bg, energy0; /* diagnostics at the start */
    double reserved;
};

/* Write meta and the global fields (CL_NV * nz * nx doubles) as the next
 * generation of st.  Returns 0 with the file's path in path (size bytes),
 * or -1 with err filled. */
int climate_ckpt_write (const struct ckptfile_store *st,
                        const struct climate_ckpt_meta *meta, const double *fields,
                        char *path, size_t size, struct hpcq_error *err);

/* Find the newest whole generation of st; it must be for want's case and
 * grid.  Returns 1 with *meta, *fields (inside *buf, which the caller
 * frees) and path set; 0 when there is none; -1 with err filled for a
 * checkpoint of another case, grid or version, or errno EBADMSG when
 * every generation is damaged (each reported on stderr). */
int climate_ckpt_read (const struct ckptfile_store *st,
                       const struct climate_ckpt_meta *want,
                       struct climate_ckpt_meta *meta, const double **fields,
                       void **buf, char *path, size_t size, struct hpcq_error *err);

#endif

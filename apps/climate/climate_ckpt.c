/* climate_ckpt.c - see climate_ckpt.h.  Atomic writes, checksums and
 * generations are common/ckptfile's; this file only lays out the payload
 * and checks that a checkpoint is for this run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/climate/climate_ckpt.h"
#include "apps/climate/climate_kernels.h"

#define CKPT_MAGIC "HPCQCLIM"

struct ckpt_header {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;
    struct climate_ckpt_meta meta;
};

static size_t fields_bytes (const struct climate_ckpt_meta *m)
{
    return (size_t)CL_NV * m->nz * m->nx * sizeof (double);
}

int climate_ckpt_write (const struct ckptfile_store *st,
                        const struct climate_ckpt_meta *meta, const double *fields,
                        char *path, size_t size, struct hpcq_error *err)
{
    struct ckpt_header h;
    struct ckptfile_out *o;
    uint64_t gen;

    memset (&h, 0, sizeof (h));
    memcpy (h.magic, CKPT_MAGIC, 8);
    h.version = CLIMATE_CKPT_VERSION;
    h.header_bytes = sizeof (h);
    h.meta = *meta;
    if (ckptfile_next (st, &gen, err) < 0
        || !(o = ckptfile_create (st, gen, NULL, err)))
        return -1;
    ckptfile_write (o, &h, sizeof (h));
    ckptfile_write (o, fields, fields_bytes (meta));
    if (ckptfile_commit (o, 0, NULL, err) < 0)
        return -1;
    ckptfile_path (st, gen, NULL, path, size);
    return 0;
}

struct wanted {
    const struct climate_ckpt_meta *meta;
    const char *dir;
};

/* ckptfile_find's callback: is this generation's payload ours? */
static int accept (void *arg, uint64_t gen, const void *payload, size_t len,
                   struct hpcq_error *err)
{
    const struct wanted *w = arg;
    const struct climate_ckpt_meta *want = w->meta;
    struct ckpt_header h;

    (void)gen;
    if (len < sizeof (h))
        return errprintf (err, "not an hpcq-climate checkpoint"), CKPTFILE_DAMAGED;
    memcpy (&h, payload, sizeof (h));
    if (memcmp (h.magic, CKPT_MAGIC, 8) != 0)
        return errprintf (err, "not an hpcq-climate checkpoint"), CKPTFILE_DAMAGED;
    if (h.version != CLIMATE_CKPT_VERSION || h.header_bytes != sizeof (h))
        return errprintf_code (err, EINVAL,
                               "checkpoint in '%s' has version %u, "
                               "this program reads version %d",
                               w->dir, (unsigned)h.version, CLIMATE_CKPT_VERSION);
    h.meta.case_name[sizeof (h.meta.case_name) - 1] = '\0';
    if (strcmp (h.meta.case_name, want->case_name) != 0 || h.meta.nx != want->nx
        || h.meta.nz != want->nz)
        return errprintf_code (err, EINVAL,
                               "checkpoint in '%s' is for case %s on "
                               "%d x %d, not %s on %d x %d",
                               w->dir, h.meta.case_name, h.meta.nx, h.meta.nz,
                               want->case_name, want->nx, want->nz);
    if (len != sizeof (h) + fields_bytes (&h.meta))
        return errprintf (err, "%zu bytes of fields for a %d x %d grid",
                          len - sizeof (h), h.meta.nx, h.meta.nz),
               CKPTFILE_DAMAGED;
    return 0;
}

int climate_ckpt_read (const struct ckptfile_store *st,
                       const struct climate_ckpt_meta *want,
                       struct climate_ckpt_meta *meta, const double **fields,
                       void **buf, char *path, size_t size, struct hpcq_error *err)
{
    struct ckpt_header h;
    uint64_t gen;
    size_t len;
    struct wanted w = { want, st->dir };
    int rc = ckptfile_find (st, accept, &w, &gen, buf, &len, err);

    if (rc <= 0)
        return rc;
    memcpy (&h, *buf, sizeof (h));
    *meta = h.meta;
    *fields = (const double *)((const char *)*buf + sizeof (h));
    ckptfile_path (st, gen, NULL, path, size);
    return 1;
}

/* climate_ckpt.c - see climate_ckpt.h.
 *
 * File layout: a fixed header (magic, version, sizes, meta, checksum) then
 * the fields as raw little-endian doubles.  The checksum covers the header
 * (with the checksum field zero) and the payload, so a torn or bit-flipped
 * file of either part is detected.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apps/climate/climate_ckpt.h"
#include "apps/climate/climate_kernels.h"
#include "common/util.h"

#define CKPT_MAGIC "HPCQCLIM"

struct ckpt_header {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;
    uint64_t payload_bytes;
    uint64_t checksum;
    struct climate_ckpt_meta meta;
};

uint64_t climate_ckpt_checksum (uint64_t h, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    const uint64_t prime = 0x100000001b3ULL;

    if (h == 0)
        h = 0xcbf29ce484222325ULL;
    /* FNV-1a over 8-byte words (fast enough for GB-sized states), then the
     * tail byte by byte */
    while (n >= 8) {
        uint64_t w;
        memcpy (&w, p, 8);
        h = (h ^ w) * prime;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    while (n--)
        h = (h ^ *p++) * prime;
    return h;
}

static size_t payload_bytes (const struct climate_ckpt_meta *m)
{
    return (size_t)CL_NV * m->nz * m->nx * sizeof (double);
}

static uint64_t header_checksum (struct ckpt_header h, const double *fields)
{
    h.checksum = 0;
    uint64_t c = climate_ckpt_checksum (0, &h, sizeof (h));
    return climate_ckpt_checksum (c, fields, h.payload_bytes);
}

int climate_ckpt_write (const char *dir, int *last_slot,
                        const struct climate_ckpt_meta *meta,
                        const double *fields, struct hpcq_error *err)
{
    struct ckpt_header h;
    char tmp[4096], path[4096];
    int slot = 1 - *last_slot;

    memset (&h, 0, sizeof (h));
    memcpy (h.magic, CKPT_MAGIC, 8);
    h.version = CLIMATE_CKPT_VERSION;
    h.header_bytes = sizeof (h);
    h.payload_bytes = payload_bytes (meta);
    h.meta = *meta;
    h.checksum = header_checksum (h, fields);
    snprintf (tmp, sizeof (tmp), "%s/.climate.ckpt.%d.tmp", dir, slot);
    snprintf (path, sizeof (path), "%s/climate.ckpt.%d", dir, slot);

    int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return errprintf (err, "cannot create '%s': %s", tmp, strerror (errno));
    if (util_write_all (fd, &h, sizeof (h)) < 0
        || util_write_all (fd, fields, h.payload_bytes) < 0 || fsync (fd) < 0) {
        int e = errno;
        close (fd);
        unlink (tmp);
        errno = e;
        return errprintf (err, "cannot write '%s': %s", tmp, strerror (e));
    }
    if (close (fd) < 0 || rename (tmp, path) < 0 || util_fsync_dir (dir) < 0) {
        int e = errno;
        unlink (tmp);
        errno = e;
        return errprintf (err, "cannot commit '%s': %s", path, strerror (e));
    }
    *last_slot = slot;
    return 0;
}

/* Read one slot.  Returns 1 valid, 0 missing or corrupt (reported), -1 on
 * a foreign file (err filled). */
static int read_slot (const char *dir, int slot,
                      const struct climate_ckpt_meta *want,
                      struct ckpt_header *h, double **fields,
                      struct hpcq_error *err)
{
    char path[4096];
    double *buf = NULL;
    int rc = 0;

    snprintf (path, sizeof (path), "%s/climate.ckpt.%d", dir, slot);
    FILE *f = fopen (path, "rb");
    if (!f)
        return 0;
    if (fread (h, sizeof (*h), 1, f) != 1
        || memcmp (h->magic, CKPT_MAGIC, 8) != 0) {
        fprintf (stderr, "hpcq-climate: ignoring corrupt checkpoint '%s' "
                 "(bad header)\n", path);
        goto out;
    }
    if (h->version != CLIMATE_CKPT_VERSION || h->header_bytes != sizeof (*h)) {
        rc = errprintf_code (err, EINVAL, "checkpoint '%s' has version %u, "
                             "this program reads version %d", path,
                             (unsigned)h->version, CLIMATE_CKPT_VERSION);
        goto out;
    }
    if (h->payload_bytes != payload_bytes (&h->meta)
        || !(buf = malloc (h->payload_bytes ? h->payload_bytes : 1))
        || fread (buf, 1, h->payload_bytes, f) != h->payload_bytes
        || fgetc (f) != EOF || header_checksum (*h, buf) != h->checksum) {
        fprintf (stderr, "hpcq-climate: ignoring corrupt checkpoint '%s' "
                 "(checksum mismatch or wrong size)\n", path);
        goto out;
    }
    h->meta.case_name[sizeof (h->meta.case_name) - 1] = '\0';
    if (strcmp (h->meta.case_name, want->case_name) != 0
        || h->meta.nx != want->nx || h->meta.nz != want->nz) {
        rc = errprintf_code (err, EINVAL, "checkpoint '%s' is for case %s on "
                             "%d x %d, not %s on %d x %d", path,
                             h->meta.case_name, h->meta.nx, h->meta.nz,
                             want->case_name, want->nx, want->nz);
        goto out;
    }
    *fields = buf;
    buf = NULL;
    rc = 1;
out:
    free (buf);
    fclose (f);
    return rc;
}

int climate_ckpt_read (const char *dir, const struct climate_ckpt_meta *want,
                       struct climate_ckpt_meta *meta, double **fields,
                       int *slot, struct hpcq_error *err)
{
    struct ckpt_header h[2];
    double *f[2] = { NULL, NULL };
    int ok[2];

    for (int s = 0; s < 2; s++) {
        ok[s] = read_slot (dir, s, want, &h[s], &f[s], err);
        if (ok[s] < 0) {
            free (f[0]);
            return -1;
        }
    }
    int best = -1;
    for (int s = 0; s < 2; s++)
        if (ok[s] && (best < 0 || h[s].meta.step > h[best].meta.step))
            best = s;
    if (best < 0)
        return 0;
    *meta = h[best].meta;
    *fields = f[best];
    free (f[1 - best]);
    *slot = best;
    return 1;
}

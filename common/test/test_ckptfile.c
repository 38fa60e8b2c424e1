/* test_ckptfile.c - checkpoint files: write and read back, parts and the
 * commit file, generation numbers, pruning to `keep`, damage (a flipped
 * byte, truncation, a missing part) detected and the previous generation
 * used, a refused generation stopping the search. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/ckptfile.h"
#include "common/test/tap.h"

static char root[] = "/tmp/test_ckptfile.XXXXXX";

static int exists (const struct ckptfile_store *st, uint64_t gen, const char *part)
{
    char path[4096];
    return access (ckptfile_path (st, gen, part, path, sizeof (path)), F_OK) == 0;
}

/* Write generation `gen` of st: payload "gen N" padded to len bytes, in
 * one part "p0" and the commit file.  Returns 0 or -1. */
static int write_gen (const struct ckptfile_store *st, uint64_t *gen, size_t len)
{
    struct hpcq_error err = { "" };
    struct ckptfile_info pi, ci;
    char *buf = calloc (1, len);
    int rc = -1;

    if (ckptfile_next (st, gen, &err) < 0)
        goto out;
    snprintf (buf, len, "gen %llu", (unsigned long long)*gen);
    struct ckptfile_out *o = ckptfile_create (st, *gen, "p0", &err);
    if (!o || ckptfile_write (o, buf, len) < 0 || ckptfile_close (o, &pi, &err) < 0)
        goto out;
    if (!(o = ckptfile_create (st, *gen, NULL, &err)))
        goto out;
    /* two writes: the payload is their concatenation */
    if (ckptfile_write (o, buf, len / 2) < 0
        || ckptfile_write (o, buf + len / 2, len - len / 2) < 0
        || ckptfile_commit (o, pi.bytes, &ci, &err) < 0)
        goto out;
    rc = ci.bytes == pi.bytes + len + 32 ? 0 : -1;
out:
    if (rc < 0)
        diag ("write_gen: %s", err.text);
    free (buf);
    return rc;
}

static void flip_byte (const struct ckptfile_store *st, uint64_t gen, const char *part,
                       off_t at)
{
    char path[4096];
    unsigned char c;
    int fd = open (ckptfile_path (st, gen, part, path, sizeof (path)), O_RDWR);
    if (fd < 0 || pread (fd, &c, 1, at) != 1)
        return;
    c ^= 0x10;
    if (pwrite (fd, &c, 1, at) != 1)
        diag ("pwrite failed");
    close (fd);
}

/* accept: the generation's part p0 must read back whole. */
static int accept_parts (void *arg, uint64_t gen, const void *payload, size_t len,
                         struct hpcq_error *err)
{
    const struct ckptfile_store *st = arg;
    size_t plen;
    void *p = ckptfile_read (st, gen, "p0", &plen, NULL, err);
    (void)payload;
    (void)len;
    if (!p)
        return CKPTFILE_DAMAGED;
    free (p);
    return 0;
}

static int refuse (void *arg, uint64_t gen, const void *payload, size_t len,
                   struct hpcq_error *err)
{
    (void)arg;
    (void)payload;
    (void)len;
    return errprintf (err, "generation %llu is for another system",
                      (unsigned long long)gen);
}

static void test_write_read (const char *dir)
{
    struct ckptfile_store st = { dir, "app", 2, "test_ckptfile" };
    struct hpcq_error err = { "" };
    struct ckptfile_info info;
    uint64_t gen = 0;
    size_t len = 0;

    ok (ckptfile_find (&st, NULL, NULL, &gen, NULL, &len, &err) == 0,
        "a folder that does not exist holds no generation");
    ok (write_gen (&st, &gen, 100000) == 0 && gen == 1, "first generation is 1");
    ok (exists (&st, 1, NULL) && exists (&st, 1, "p0"), "commit file and part exist");
    char *p = ckptfile_read (&st, 1, NULL, &len, &info, &err);
    ok (p && len == 100000 && strcmp (p, "gen 1") == 0 && info.bytes == 100032,
        "the commit file reads back: payload and size");
    free (p);
    struct stat sb;
    char path[4096];
    ok (stat (ckptfile_path (&st, 1, NULL, path, sizeof (path)), &sb) == 0
            && (sb.st_mode & 0777) == 0600,
        "files are private to their owner");
    p = ckptfile_read (&st, 7, NULL, &len, NULL, &err);
    ok (!p && errno == ENOENT, "a missing generation is ENOENT (%s)", err.text);

    /* an empty payload is a valid file */
    struct ckptfile_out *o = ckptfile_create (&st, 50, "empty", &err);
    ok (o && ckptfile_close (o, &info, &err) == 0 && info.bytes == 32,
        "an empty part is header and trailer");
    p = ckptfile_read (&st, 50, "empty", &len, NULL, &err);
    ok (p && len == 0, "and reads back empty");
    free (p);
    unlink (ckptfile_path (&st, 50, "empty", path, sizeof (path)));

    o = ckptfile_create (&st, 9, NULL, &err);
    ok (o && ckptfile_write (o, "x", 1) == 0, "a write started");
    ckptfile_abort (o);
    ok (!exists (&st, 9, NULL)
            && access (strcat (ckptfile_path (&st, 9, NULL, path, sizeof (path) - 8),
                               ".tmp"),
                       F_OK)
                   < 0,
        "abort leaves no file, no .tmp");
}

static void test_generations (const char *dir)
{
    struct ckptfile_store st = { dir, "app", 2, "test_ckptfile" };
    struct hpcq_error err = { "" };
    uint64_t gen = 0;
    void *p = NULL;
    size_t len;
    char path[4096];

    /* debris of an interrupted write: a part and a .tmp of generation 3 */
    ok (write_gen (&st, &gen, 64) == 0 && gen == 1, "generation 1");
    ok (write_gen (&st, &gen, 64) == 0 && gen == 2, "generation 2");
    struct ckptfile_out *o = ckptfile_create (&st, 3, "p0", &err);
    ok (o && ckptfile_close (o, NULL, &err) == 0, "a lone part of generation 3");
    ok (ckptfile_next (&st, &gen, &err) == 0 && gen == 4,
        "the next number skips an uncommitted generation's");
    ok (write_gen (&st, &gen, 64) == 0 && gen == 4, "generation 4");
    ok (!exists (&st, 1, NULL) && !exists (&st, 1, "p0"),
        "keep 2: generation 1 pruned, its part too");
    ok (exists (&st, 2, NULL) && exists (&st, 4, NULL) && exists (&st, 4, "p0"),
        "generations 2 and 4 kept");
    ok (write_gen (&st, &gen, 64) == 0 && gen == 5 && !exists (&st, 3, "p0")
            && !exists (&st, 2, NULL),
        "then the debris of 3 and generation 2 go");

    ok (ckptfile_find (&st, accept_parts, &st, &gen, &p, &len, &err) == 1 && gen == 5
            && strcmp (p, "gen 5") == 0,
        "find: the newest");
    free (p);

    /* damage in the newest commit file: the previous generation */
    flip_byte (&st, 5, NULL, 40);
    ok (ckptfile_find (&st, accept_parts, &st, &gen, &p, &len, &err) == 1 && gen == 4
            && strcmp (p, "gen 4") == 0,
        "a flipped byte: generation 4 used");
    free (p);
    p = ckptfile_read (&st, 5, NULL, &len, NULL, &err);
    ok (!p && errno == EBADMSG && strstr (err.text, "checksum mismatch"),
        "read says why: %s", err.text);

    /* a damaged part: accept falls back too */
    if (truncate (ckptfile_path (&st, 4, "p0", path, sizeof (path)), 40) < 0)
        diag ("truncate failed");
    p = ckptfile_read (&st, 4, "p0", &len, NULL, &err);
    ok (!p && errno == EBADMSG && strstr (err.text, "truncated"),
        "truncation detected: %s", err.text);
    ok (ckptfile_find (&st, accept_parts, &st, &gen, &p, &len, &err) == -1
            && errno == EBADMSG && strstr (err.text, "no valid checkpoint"),
        "every generation damaged: EBADMSG (%s)", err.text);

    /* a new generation after damage: the damaged ones age out */
    st.keep = 1;
    ok (write_gen (&st, &gen, 64) == 0 && gen == 6 && !exists (&st, 5, NULL)
            && !exists (&st, 4, NULL),
        "keep 1: only the newest remains");
    ok (ckptfile_find (&st, refuse, NULL, &gen, &p, &len, &err) == -1
            && strstr (err.text, "another system"),
        "a refusal stops the search: %s", err.text);
    ok (ckptfile_find (&st, NULL, NULL, &gen, &p, &len, &err) == 1 && gen == 6,
        "without a callback every whole generation is taken");
    free (p);

    /* another prefix in the same folder is another store */
    struct ckptfile_store other = { dir, "apple", 2, "test_ckptfile" };
    ok (ckptfile_next (&other, &gen, &err) == 0 && gen == 1,
        "stores with other prefixes do not share numbers");
}

int main (void)
{
    char a[4200], b[4200];

    plan (NO_PLAN);
    if (!mkdtemp (root)) {
        perror ("mkdtemp");
        return 1;
    }
    snprintf (a, sizeof (a), "%s/a/deeper", root);
    snprintf (b, sizeof (b), "%s/b", root);
    test_write_read (a);
    test_generations (b);
    char cmd[4300];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", root);
    if (system (cmd) != 0)
        diag ("could not remove %s", root);
    done_testing ();
}

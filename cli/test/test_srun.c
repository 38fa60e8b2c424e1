/* test_srun.c - srun's pure parts: where a step's tasks go
 * (cli/srun_layout.h) and how its output is written (cli/srun_io.h). */
#include <config.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/srun_io.h"
#include "cli/srun_layout.h"
#include "common/test/tap.h"

static char *names[] = { "node1", "node2", "node3" };

/* "k:tasks,..." of a layout, and each task's node. */
static void describe (const struct srun_layout *l, char *buf, size_t len)
{
    size_t o = 0;

    for (int k = 0; k < l->nnodes; k++)
        o += snprintf (buf + o, len - o, "%s%d:%d", k ? "," : "", l->node[k],
                       l->node_tasks[k]);
    o += snprintf (buf + o, len - o, " ");
    for (int t = 0; t < l->ntasks; t++)
        o += snprintf (buf + o, len - o, "%d", l->task_node[t]);
}

static void check (const char *what, struct srun_request r, int *slots,
                   const char *want)
{
    struct srun_hosts h = { names, slots, 3 };
    struct srun_layout l;
    struct hpcq_error err;
    char got[512];

    if (srun_layout_make (&h, &r, &l, &err) < 0)
        snprintf (got, sizeof (got), "error: %s", err.text);
    else
        describe (&l, got, sizeof (got));
    is (got, want, "%s", what);
    srun_layout_release (&l);
}

static void test_layout (void)
{
    int two[] = { 2, 2, 2 }, uneven[] = { 3, 1, 2 };
    char *w2[] = { "node2", NULL }, *w9[] = { "node9", NULL };

    check ("no options: every slot, block", (struct srun_request){ 0 }, two,
           "0:2,1:2,2:2 001122");
    check ("the job's SLURM_NTASKS", (struct srun_request){ .env_ntasks = 3 }, two,
           "0:1,1:1,2:1 012");
    check ("-n 4: one per node, then block", (struct srun_request){ .ntasks = 4 }, two,
           "0:2,1:1,2:1 0012");
    check ("-n 4 -m cyclic", (struct srun_request){ .ntasks = 4, .cyclic = 1 }, two,
           "0:2,1:1,2:1 0120");
    check ("-n 1: one node", (struct srun_request){ .ntasks = 1 }, two, "0:1 0");
    check ("-N 2: one task on each", (struct srun_request){ .nnodes = 2 }, two,
           "0:1,1:1 01");
    check ("--ntasks-per-node=1 (mpirun's orted)",
           (struct srun_request){ .per_node = 1 }, two, "0:1,1:1,2:1 012");
    check ("-n 3 --ntasks-per-node=2: two nodes",
           (struct srun_request){ .ntasks = 3, .per_node = 2 }, two, "0:2,1:1 001");
    check ("-w node2 -n 2", (struct srun_request){ .ntasks = 2, .nodelist = w2 }, two,
           "1:2 00");
    check ("-w node2 -N 2: the named node and the first other",
           (struct srun_request){ .nnodes = 2, .nodelist = w2 }, two, "0:1,1:1 01");
    check ("uneven slots, block fills each", (struct srun_request){ .ntasks = 6 },
           uneven, "0:3,1:1,2:2 000122");
    check ("more tasks than slots", (struct srun_request){ .ntasks = 7 }, two,
           "error: More processors requested than permitted");
    check ("-O: more tasks than slots",
           (struct srun_request){ .ntasks = 7, .overcommit = 1 }, two,
           "0:5,1:1,2:1 0000012");
    check ("-N 4 of 3 nodes", (struct srun_request){ .nnodes = 4 }, two,
           "error: Requested node configuration is not available");
    check (
        "a node not in the job", (struct srun_request){ .nodelist = w9 }, two,
        "error: Requested node configuration is not available (node9 is not a node of "
        "the job)");
}

/* What fd holds from its start. */
static void slurp (int fd, char *buf, size_t len)
{
    ssize_t n = pread (fd, buf, len - 1, 0);

    buf[n > 0 ? n : 0] = '\0';
}

static void test_io (void)
{
    char dir[] = "/tmp/test_srun.XXXXXX", pat[128], path[160], buf[8192];
    struct srun_io_names nm = {
        .job = "42", .step = 3, .user = "alice", .job_name = "jn"
    };
    struct srun_io_opts o = { .label = 1 };
    int node_of[12] = { 0 }, fd, saved;
    struct hpcq_error err;
    struct srun_io *io;

    srun_io_expand ("o-%j-%J-%s-%t-%3t-%n-%N-%u-%x-%A-%a-%%-%q", &nm, 7, 1, "node2",
                    buf, sizeof (buf));
    is (buf, "o-42-42.3-3-7-007-1-node2-alice-jn-42-4294967294-%-%q",
        "-o pattern letters, widths, unknown ones kept");
    if (!mkdtemp (dir))
        return;
    /* Labelled lines from pieces that split lines anywhere, over one file
     * (-o with the file of all tasks), stderr with it. */
    snprintf (pat, sizeof (pat), "%s/all-%%j.txt", dir);
    o.out = pat;
    io = srun_io_create (&o, &nm, 12, node_of, names, &err);
    ok (io != NULL, "one file for all 12 tasks: %s", io ? "" : err.text);
    for (int round = 0; io && round < 50; round++)
        for (int t = 0; t < 12; t++) {
            char piece[64];
            int n = snprintf (piece, sizeof (piece), "%d-%d%s", t, round,
                              round % 3 == 2 ? "\n" : "|");
            srun_io_write (io, t, 1 + (t % 2), piece, n);
        }
    for (int t = 0; io && t < 12; t++)
        srun_io_write (io, t, 1 + (t % 2), "tail", 4);
    srun_io_destroy (io);
    snprintf (path, sizeof (path), "%s/all-42.txt", dir);
    fd = open (path, O_RDONLY);
    slurp (fd, buf, sizeof (buf));
    close (fd);
    ok (strstr (buf, " 0: 0-0|0-1|0-2\n") && strstr (buf, "11: 11-0|11-1|11-2\n")
            && strstr (buf, " 3: 3-48|3-49|tail") && !strstr (buf, "\n\n"),
        "-l: whole lines with the task padded, partial lines at the end: %.60s", buf);
    /* Without -l and -u: whole lines too; a line past the limit goes out. */
    o = (struct srun_io_opts){ 0 };
    fd = open (dir, O_TMPFILE | O_RDWR, 0600);
    saved = dup (1);
    dup2 (fd, 1);
    io = srun_io_create (&o, &nm, 2, node_of, names, &err);
    /* A short line ended from the buffer, then a longer partial one: the
     * buffer must grow (it once kept a stale size here). */
    srun_io_write (io, 0, 1, "a", 1);
    srun_io_write (io, 0, 1, "\n", 1);
    {
        char part[201];
        memset (part, 'p', 200);
        srun_io_write (io, 0, 1, part, 200);
        srun_io_write (io, 0, 1, "\n", 1);
    }
    srun_io_write (io, 0, 1, "ab", 2);
    srun_io_write (io, 1, 1, "xy\n", 3);
    srun_io_write (io, 0, 1, "c\nd", 3);
    {
        char *big = malloc (70000);
        memset (big, 'z', 70000);
        srun_io_write (io, 1, 1, big, 70000);
        free (big);
    }
    srun_io_destroy (io);
    dup2 (saved, 1);
    close (saved);
    slurp (fd, buf, sizeof (buf));
    close (fd);
    ok (strncmp (buf, "a\npppp", 6) == 0 && strstr (buf, "p\nxy\nabc\nzzz"),
        "lines do not mix");
    snprintf (path, sizeof (path), "rm -rf %s", dir);
    ok (system (path) == 0, "cleaned up");
}

int main (void)
{
    plan (NO_PLAN);
    test_layout ();
    test_io ();
    return done_testing ();
}

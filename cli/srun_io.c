/* srun_io.c - see srun_io.h */
#include <config.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/srun_io.h"
#include "common/util.h"

#define SRUN_IO_LINE_MAX (64 * 1024)

/* One task's stream: where it goes and, with -l, its unfinished line. */
struct tstream {
    int fd; /* -1: dropped */
    char *line;
    size_t len, cap;
};

struct srun_io {
    int ntasks;
    int label, unbuffered, width;
    struct tstream *s; /* [ntasks * 2]: stdout, stderr */
    char **path;       /* the files opened, each once */
    int *fd;
    int nfiles;
};

void srun_io_expand (const char *pattern, const struct srun_io_names *n, int t,
                     int nodeid, const char *node, char *buf, size_t len)
{
    size_t o = 0;

    for (const char *p = pattern; *p && o + 1 < len; p++) {
        int width = 0;
        const char *q = p + 1;
        char tmp[256];

        if (*p != '%') {
            buf[o++] = *p;
            continue;
        }
        while (isdigit ((unsigned char)*q))
            width = width * 10 + (*q++ - '0');
        width = width > 10 ? 10 : width;
        switch (*q) {
        case 'j': snprintf (tmp, sizeof (tmp), "%0*lld", width, atoll (n->job)); break;
        case 'J': snprintf (tmp, sizeof (tmp), "%s.%d", n->job, n->step); break;
        case 's': snprintf (tmp, sizeof (tmp), "%0*d", width, n->step); break;
        case 't': snprintf (tmp, sizeof (tmp), "%0*d", width, t); break;
        case 'n': snprintf (tmp, sizeof (tmp), "%0*d", width, nodeid); break;
        case 'N': snprintf (tmp, sizeof (tmp), "%s", node); break;
        case 'u': snprintf (tmp, sizeof (tmp), "%s", n->user ? n->user : ""); break;
        case 'x':
            snprintf (tmp, sizeof (tmp), "%s", n->job_name ? n->job_name : "");
            break;
        case 'A':
            snprintf (tmp, sizeof (tmp), "%s", n->array_job ? n->array_job : n->job);
            break;
        case 'a':
            snprintf (tmp, sizeof (tmp), "%s",
                      n->array_task ? n->array_task : "4294967294");
            break;
        case '%': snprintf (tmp, sizeof (tmp), "%%"); break;
        default:
            snprintf (tmp, sizeof (tmp), "%.*s", (int)(q - p + (*q != 0)), p);
            break;
        }
        o += snprintf (buf + o, len - o, "%s", tmp);
        if (o >= len)
            o = len - 1;
        p = *q ? q : q - 1;
    }
    buf[o < len ? o : len - 1] = '\0';
}

static int io_open (struct srun_io *io, const char *path, int append,
                    struct hpcq_error *err)
{
    int fd;

    for (int i = 0; i < io->nfiles; i++)
        if (strcmp (io->path[i], path) == 0)
            return io->fd[i];
    fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
               0644);
    if (fd < 0)
        return errprintf (err, "Could not open stdout file %s: %s", path,
                          strerror (errno));
    io->path = realloc (io->path, (io->nfiles + 1) * sizeof (char *));
    io->fd = realloc (io->fd, (io->nfiles + 1) * sizeof (int));
    if (!io->path || !io->fd)
        abort ();
    io->path[io->nfiles] = xstrdup (path);
    io->fd[io->nfiles++] = fd;
    return fd;
}

/* Where task t's stream (own: srun's fd) goes under pattern. */
static int io_target (struct srun_io *io, const char *pattern, int own, int t,
                      const struct srun_io_names *n, int nodeid, const char *node,
                      int append, struct hpcq_error *err)
{
    char path[4096];
    int one;

    if (!pattern)
        return own;
    if (strcmp (pattern, "none") == 0)
        return -1;
    if (util_parse_int (pattern, 0, 1 << 30, &one) == 0)
        return one == t ? own : -1;
    srun_io_expand (pattern, n, t, nodeid, node, path, sizeof (path));
    return io_open (io, path, append, err);
}

struct srun_io *srun_io_create (const struct srun_io_opts *o,
                                const struct srun_io_names *n, int ntasks,
                                const int *task_node, char **node_name,
                                struct hpcq_error *err)
{
    struct srun_io *io = xzalloc (sizeof (*io));
    const char *errpat = o->err ? o->err : o->out;

    io->ntasks = ntasks;
    io->label = o->label;
    io->unbuffered = o->unbuffered && !o->label;
    for (int m = ntasks - 1; m > 0; m /= 10)
        io->width++;
    io->width = io->width ? io->width : 1;
    io->s = xzalloc (2 * ntasks * sizeof (*io->s));
    for (int t = 0; t < ntasks; t++) {
        int k = task_node[t];
        if ((io->s[2 * t].fd =
                 io_target (io, o->out, 1, t, n, k, node_name[k], o->append, err))
                < -1
            || (io->s[2 * t + 1].fd =
                    io_target (io, errpat, 2, t, n, k, node_name[k], o->append, err))
                   < -1) {
            srun_io_destroy (io);
            return NULL;
        }
    }
    return io;
}

static void put_line (struct srun_io *io, int t, int fd, const char *buf, size_t len)
{
    char label[32];
    int l = snprintf (label, sizeof (label), "%*d: ", io->width, t);

    if (io->label)
        (void)util_write_all (fd, label, l);
    (void)util_write_all (fd, buf, len);
}

void srun_io_write (struct srun_io *io, int t, int fd, const char *buf, size_t len)
{
    struct tstream *s;
    const char *nl;

    if (t < 0 || t >= io->ntasks || (fd != 1 && fd != 2))
        return;
    s = &io->s[2 * t + fd - 1];
    if (s->fd < 0)
        return;
    if (io->unbuffered) {
        (void)util_write_all (s->fd, buf, len);
        return;
    }
    while (len > 0 && (nl = memchr (buf, '\n', len))) {
        size_t k = nl - buf + 1;
        if (s->len) {
            if (s->len + k > s->cap) {
                s->cap = s->len + k;
                s->line = xrealloc (s->line, s->cap);
            }
            memcpy (s->line + s->len, buf, k);
            put_line (io, t, s->fd, s->line, s->len + k);
            s->len = 0;
        } else
            put_line (io, t, s->fd, buf, k);
        buf += k;
        len -= k;
    }
    if (len > 0) {
        if (s->len + len > s->cap) {
            s->cap = s->len + len + 256;
            s->line = xrealloc (s->line, s->cap);
        }
        memcpy (s->line + s->len, buf, len);
        s->len += len;
    }
    /* A line that long goes out as it is (memory stays bounded). */
    if (s->len >= SRUN_IO_LINE_MAX) {
        put_line (io, t, s->fd, s->line, s->len);
        s->len = 0;
    }
}

void srun_io_task_end (struct srun_io *io, int t)
{
    for (int k = 0; io && t >= 0 && t < io->ntasks && k < 2; k++) {
        struct tstream *s = &io->s[2 * t + k];
        if (s->len && s->fd >= 0)
            put_line (io, t, s->fd, s->line, s->len);
        s->len = 0;
    }
}

void srun_io_destroy (struct srun_io *io)
{
    if (!io)
        return;
    for (int t = 0; t < io->ntasks; t++) {
        srun_io_task_end (io, t);
        free (io->s[2 * t].line);
        free (io->s[2 * t + 1].line);
    }
    for (int i = 0; i < io->nfiles; i++) {
        close (io->fd[i]);
        free (io->path[i]);
    }
    free (io->path);
    free (io->fd);
    free (io->s);
    free (io);
}

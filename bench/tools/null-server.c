/* null-server.c - a stand-in scheduler that answers at once and keeps
 * nothing, to time a command's own cost apart from the scheduler's.
 *
 *   null-server SOCKET
 *
 * Listens on the Unix socket SOCKET; every request gets a success reply
 * right away, job.submit one with a made-up job id ("N.null").  Nothing is
 * stored or committed: bench/qsub-floor.sh runs qsub against it beside the
 * real scheduler, so the difference between the two is what the
 * scheduler's durable commit costs, and the difference between this and
 * /bin/true is what qsub itself costs.  Stops on SIGINT or SIGTERM.
 */
#include <config.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/loop.h"
#include "common/util.h"

static int64_t next_seq = 1;

static void on_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    char id[64];

    (void)arg;
    if (msg->is_reply)
        return;
    snprintf (id, sizeof (id), "%lld.null", (long long)next_seq++);
    (void)conn_reply (c, msg, 0, NULL,
                      strcmp (msg->type, "job.submit") == 0
                          ? json_pack ("{s:s}", "jobid", id)
                          : NULL);
}

static void on_close (struct conn *c, void *arg)
{
    (void)c;
    (void)arg;
}

static void on_accept (struct loop *l, int fd, int revents, void *arg)
{
    int cfd = accept4 (fd, NULL, NULL, SOCK_CLOEXEC);

    (void)revents;
    (void)arg;
    if (cfd >= 0)
        (void)conn_create (l, cfd, on_msg, on_close, NULL);
}

static void on_signal (struct loop *l, int signo, void *arg)
{
    (void)signo;
    (void)arg;
    loop_stop (l);
}

int main (int argc, char **argv)
{
    static const int signals[] = { SIGINT, SIGTERM };
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct loop *l;
    int fd;

    if (argc != 2 || strlen (argv[1]) >= sizeof (sa.sun_path)) {
        fprintf (stderr, "Usage: null-server SOCKET\n");
        return 2;
    }
    strcpy (sa.sun_path, argv[1]);
    (void)unlink (argv[1]);
    if ((fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0
        || bind (fd, (struct sockaddr *)&sa, sizeof (sa)) < 0 || listen (fd, 128) < 0
        || !(l = loop_create ()) || !loop_fd_add (l, fd, LOOP_READ, on_accept, NULL)
        || loop_signals (l, signals, ARRAY_SIZE (signals), on_signal, NULL) < 0) {
        fprintf (stderr, "null-server: %s: %s\n", argv[1], strerror (errno));
        return 1;
    }
    signal (SIGPIPE, SIG_IGN);
    (void)loop_run (l);
    /* Connections still open go with the process. */
    loop_destroy (l);
    close (fd);
    unlink (argv[1]);
    return 0;
}

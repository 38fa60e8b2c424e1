/* bench/tools/nodelay-preload.c - experiment, not part of hpcq: LD_PRELOAD
 * shim that sets TCP_NODELAY on every TCP socket a program connects or
 * accepts, to test whether Nagle's algorithm (with the peer's delayed ACK,
 * 40 ms on Linux) is what delays hpcq's scheduler <-> worker messages.
 *   cc -shared -fPIC -O2 -o nodelay.so nodelay-preload.c -ldl
 *   HPCQ_SCHEDULER_BIN=... or LD_PRELOAD=$PWD/nodelay.so hpcq-local start ... */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void nodelay (int fd)
{
    int one = 1, type = 0;
    struct sockaddr_storage ss;
    socklen_t len = sizeof (ss), tl = sizeof (type);
    if (fd < 0 || getsockname (fd, (struct sockaddr *)&ss, &len) < 0)
        return;
    if ((ss.ss_family == AF_INET || ss.ss_family == AF_INET6)
        && getsockopt (fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 && type == SOCK_STREAM)
        setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
}

int connect (int fd, const struct sockaddr *a, socklen_t l)
{
    static int (*real) (int, const struct sockaddr *, socklen_t);
    if (!real)
        real = dlsym (RTLD_NEXT, "connect");
    nodelay (fd);
    return real (fd, a, l);
}

int accept4 (int fd, struct sockaddr *a, socklen_t *l, int flags)
{
    static int (*real) (int, struct sockaddr *, socklen_t *, int);
    if (!real)
        real = dlsym (RTLD_NEXT, "accept4");
    int c = real (fd, a, l, flags);
    nodelay (c);
    return c;
}

int accept (int fd, struct sockaddr *a, socklen_t *l)
{
    static int (*real) (int, struct sockaddr *, socklen_t *);
    if (!real)
        real = dlsym (RTLD_NEXT, "accept");
    int c = real (fd, a, l);
    nodelay (c);
    return c;
}

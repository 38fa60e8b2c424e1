/* test_sockdiag.c - the kernel says who owns the other end of a loopback
 * connection (what the HTTP server relies on to know a local caller). */
#include <config.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/sockdiag.h"
#include "common/test/tap.h"

int main (void)
{
    struct sockaddr_in any = { .sin_family = AF_INET }, local, peer, other;
    socklen_t len = sizeof (any);
    int lfd, cfd, afd;
    uid_t uid = (uid_t)-1;

    plan (NO_PLAN);
    any.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    lfd = socket (AF_INET, SOCK_STREAM, 0);
    cfd = socket (AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || cfd < 0 || bind (lfd, (struct sockaddr *)&any, sizeof (any)) < 0
        || listen (lfd, 1) < 0 || getsockname (lfd, (struct sockaddr *)&any, &len) < 0
        || connect (cfd, (struct sockaddr *)&any, sizeof (any)) < 0
        || (afd = accept (lfd, NULL, NULL)) < 0) {
        ok (0, "a loopback connection: %s", strerror (errno));
        return done_testing ();
    }
    len = sizeof (local);
    getsockname (afd, (struct sockaddr *)&local, &len);
    len = sizeof (peer);
    getpeername (afd, (struct sockaddr *)&peer, &len);
    ok (sockdiag_is_loopback ((struct sockaddr *)&peer), "127.0.0.1 is loopback");
    if (sockdiag_peer_uid ((struct sockaddr *)&local, (struct sockaddr *)&peer, &uid)
            < 0
        && (errno == EPROTONOSUPPORT || errno == EACCES || errno == EPERM))
        ok (1, "# SKIP no sock_diag netlink here: %s", strerror (errno));
    else
        ok (uid == getuid (), "the peer's socket is ours: uid %u (we are %u)",
            (unsigned)uid, (unsigned)getuid ());
    other = peer;
    other.sin_port = htons (ntohs (peer.sin_port) ^ 1);
    ok (sockdiag_peer_uid ((struct sockaddr *)&local, (struct sockaddr *)&other, &uid)
            < 0,
        "no such connection: no owner (%s)", strerror (errno));
    other.sin_addr.s_addr = htonl (0x0a000001);
    ok (!sockdiag_is_loopback ((struct sockaddr *)&other), "10.0.0.1 is not loopback");
    close (afd);
    close (cfd);
    close (lfd);
    return done_testing ();
}

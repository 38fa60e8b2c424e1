/* sockdiag.c - see sockdiag.h
 *
 * One SOCK_DIAG_BY_FAMILY request for one socket (no dump): the kernel
 * looks the socket up by its four-tuple (inet_diag_find_one_icsk) and
 * answers with an inet_diag_msg carrying idiag_uid.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/sockdiag.h"

int sockdiag_is_loopback (const struct sockaddr *addr)
{
    if (addr->sa_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)addr;
        return (ntohl (s->sin_addr.s_addr) >> 24) == 127;
    }
    if (addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)addr;
        if (IN6_IS_ADDR_LOOPBACK (&s->sin6_addr))
            return 1;
        return IN6_IS_ADDR_V4MAPPED (&s->sin6_addr) && s->sin6_addr.s6_addr[12] == 127;
    }
    return 0;
}

/* An address and port into the diag request's (network order) fields. */
static void put_addr (const struct sockaddr *a, __be32 addr[4], __be16 *port)
{
    memset (addr, 0, 4 * sizeof (__be32));
    if (a->sa_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)a;
        addr[0] = s->sin_addr.s_addr;
        *port = s->sin_port;
    } else {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)a;
        memcpy (addr, &s->sin6_addr, 16);
        *port = s->sin6_port;
    }
}

int sockdiag_peer_uid (const struct sockaddr *local, const struct sockaddr *peer,
                       uid_t *uid)
{
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 r;
    } req;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    struct timeval tv = { .tv_sec = 1 };
    union {
        struct nlmsghdr nlh;
        char buf[8192];
    } ans;
    struct nlmsghdr *h;
    ssize_t n;
    int fd, rc = -1, err = ENOENT;

    if (local->sa_family != peer->sa_family
        || (local->sa_family != AF_INET && local->sa_family != AF_INET6)) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    memset (&req, 0, sizeof (req));
    req.nlh.nlmsg_len = sizeof (req);
    req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    req.nlh.nlmsg_flags = NLM_F_REQUEST;
    req.r.sdiag_family = local->sa_family;
    req.r.sdiag_protocol = IPPROTO_TCP;
    req.r.idiag_states = ~0u;
    /* The peer's socket: its own address is peer, its remote is us. */
    put_addr (peer, req.r.id.idiag_src, &req.r.id.idiag_sport);
    put_addr (local, req.r.id.idiag_dst, &req.r.id.idiag_dport);
    req.r.id.idiag_cookie[0] = req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    if ((fd = socket (AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0)
        return -1;
    (void)setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof (tv));
    if (sendto (fd, &req, sizeof (req), 0, (struct sockaddr *)&kernel, sizeof (kernel))
        < 0)
        goto out;
    if ((n = recv (fd, &ans, sizeof (ans), 0)) < 0)
        goto out;
    for (h = &ans.nlh; NLMSG_OK (h, (size_t)n); h = NLMSG_NEXT (h, n)) {
        if (h->nlmsg_type == NLMSG_ERROR) {
            const struct nlmsgerr *e = NLMSG_DATA (h);
            err = e->error ? -e->error : ENOENT;
            break;
        }
        if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY
            && h->nlmsg_len >= NLMSG_LENGTH (sizeof (struct inet_diag_msg))) {
            const struct inet_diag_msg *m = NLMSG_DATA (h);
            if (m->id.idiag_sport == req.r.id.idiag_sport
                && m->id.idiag_dport == req.r.id.idiag_dport) {
                *uid = m->idiag_uid;
                rc = 0;
            }
            break;
        }
    }
    if (rc < 0)
        errno = err;
out : {
    int saved = errno;
    close (fd);
    errno = saved;
}
    return rc;
}

/* test_ptylink.c - qsub -I's link: the cookie handshake both ways, and
 * the relay's bounds (common/ptylink.h) */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/ptylink.h"
#include "common/test/tap.h"

/* The server side with ks in a child, the client with kc here: the
 * client's result, and the server's in *srv (0, or the errno it failed
 * with). */
static int handshake (const uint8_t *ks, const uint8_t *kc, int *srv, int *cerr)
{
    int sv[2], st, rc;
    pid_t pid;

    if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return -2;
    if ((pid = fork ()) == 0) {
        close (sv[1]);
        _exit (ptylink_server_handshake (sv[0], ks) == 0 ? 0 : errno & 0x7f);
    }
    close (sv[0]);
    rc = ptylink_client_handshake (sv[1], kc);
    *cerr = rc < 0 ? errno : 0;
    close (sv[1]);
    waitpid (pid, &st, 0);
    *srv = WEXITSTATUS (st);
    return rc;
}

/* A listener that does not know the cookie: it sends a hello, reads the
 * client's nonce and proof, and reflects that proof back as its own.
 * The client's result (errno in *cerr). */
static int impostor (const uint8_t *kc, int *cerr)
{
    int sv[2], rc;
    pid_t pid;

    if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return -2;
    if ((pid = fork ()) == 0) {
        uint8_t hello[24] = "HPCQPTY1", in[48];
        close (sv[1]);
        if (write (sv[0], hello, 24) != 24 || read (sv[0], in, 48) != 48
            || write (sv[0], in + 16, 32) != 32)
            _exit (1);
        _exit (0);
    }
    close (sv[0]);
    rc = ptylink_client_handshake (sv[1], kc);
    *cerr = rc < 0 ? errno : 0;
    close (sv[1]);
    waitpid (pid, NULL, 0);
    return rc;
}

/* What a stranger reads from qsub's port before it must answer. */
static void hello (const uint8_t *k, uint8_t out[24])
{
    int sv[2];
    pid_t pid;

    memset (out, 0, 24);
    if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return;
    if ((pid = fork ()) == 0) {
        close (sv[1]);
        _exit (ptylink_server_handshake (sv[0], k) == 0);
    }
    close (sv[0]);
    if (read (sv[1], out, 24) != 24)
        memset (out, 0, 24);
    close (sv[1]);
    waitpid (pid, NULL, 0);
}

int main (void)
{
    uint8_t k[PTYLINK_COOKIE_LEN], k2[PTYLINK_COOKIE_LEN], back[PTYLINK_COOKIE_LEN];
    uint8_t h1[24], h2[24], big[PTYLINK_FRAME_MAX + 1] = { 0 };
    char hex[2 * PTYLINK_COOKIE_LEN + 1];
    struct ptylink_relay r;
    int srv, cerr, n = 0;

    plan (NO_PLAN);
    signal (SIGPIPE, SIG_IGN);
    ok (ptylink_cookie_new (k) == 0 && ptylink_cookie_new (k2) == 0
            && memcmp (k, k2, sizeof (k)) != 0,
        "cookies are random");
    ptylink_cookie_hex (k, hex);
    ok (strlen (hex) == 64 && ptylink_cookie_parse (hex, back) == 0
            && memcmp (k, back, sizeof (k)) == 0,
        "cookie hex round trip");
    ok (ptylink_cookie_parse ("abc", back) < 0 && errno == EINVAL, "short hex refused");
    hex[5] = 'G';
    ok (ptylink_cookie_parse (hex, back) < 0, "non-hex refused");
    ok (ptylink_cookie_parse (NULL, back) < 0, "no cookie refused");

    ok (handshake (k, k, &srv, &cerr) == 0 && srv == 0, "same cookie: both proven");
    ok (handshake (k, k2, &srv, &cerr) < 0 && srv == EACCES,
        "a stranger's connection to qsub is refused (wrong proof)");
    ok (impostor (k, &cerr) < 0 && cerr == EACCES,
        "hpcq-pty refuses a listener that reflects its own proof");
    ok (handshake (k2, k, &srv, &cerr) < 0 && srv == EACCES && cerr != 0,
        "nor does a listener with another cookie get a session");
    hello (k, h1);
    hello (k, h2);
    ok (memcmp (h1, "HPCQPTY1", 8) == 0 && memcmp (h1 + 8, h2 + 8, 16) != 0,
        "each connection gets a fresh nonce (a proof seen once is no use later)");

    ptylink_relay_init (&r, -1, -1, -1, -1);
    ok (ptylink_send (&r, 'D', big, sizeof (big)) < 0 && errno == ENOBUFS,
        "a frame over PTYLINK_FRAME_MAX is refused");
    while (ptylink_send (&r, 'D', big, PTYLINK_FRAME_MAX) == 0)
        n++;
    ok (errno == ENOBUFS && r.to_sock.len <= PTYLINK_BUF && n > 0,
        "the link's queue is bounded (%d frames, %zu bytes)", n, r.to_sock.len);
    done_testing ();
}

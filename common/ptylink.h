/* ptylink.h - the link between qsub -I and its job's shell (cli/hpcq-pty).
 *
 * qsub listens on a TCP port and puts its addresses and a random cookie
 * (PTYLINK_COOKIE_LEN bytes from getrandom) into the job's script, which
 * only the job's owner can read; the job's first process, hpcq-pty, runs
 * as the owner on the first allocated host and connects back.  Both sides
 * prove that they know the cookie without showing it (HMAC-SHA256 over
 * both sides' fresh nonces, each side with its own label), so that:
 *   - a stranger who connects to qsub's port gets no shell and no input
 *     (it cannot answer the challenge);
 *   - hpcq-pty gives the shell to nobody but the qsub that submitted the
 *     job (a stranger listening on that port after qsub died cannot prove
 *     the cookie either);
 *   - a proof seen once is worth nothing later (fresh nonces each time).
 *
 *   qsub -> pty:  "HPCQPTY1" Nq (16 bytes)
 *   pty -> qsub:  Nh (16) HMAC(K, "hpcq-pty client" Nq Nh)
 *   qsub -> pty:  HMAC(K, "hpcq-pty server" Nq Nh)
 *
 * Then frames, both ways: a type byte, a 16-bit big-endian length, at
 * most PTYLINK_FRAME_MAX bytes:
 *   'D' terminal bytes (qsub's input to the shell, the shell's output back)
 *   'W' window size: rows, columns (16 bits each)        qsub -> pty
 *   'E' qsub's input ended (a pipe, not a terminal)       qsub -> pty
 *   'X' the shell's wait status (32 bits), the last frame pty -> qsub
 *
 * ptylink_relay moves the bytes with fixed buffers: it reads from a side
 * only while the other has room, so a slow reader holds at most
 * PTYLINK_BUF bytes each way and never more.
 */
#ifndef HPCQ_COMMON_PTYLINK_H
#define HPCQ_COMMON_PTYLINK_H

#include <stddef.h>
#include <stdint.h>

#define PTYLINK_COOKIE_LEN 32
#define PTYLINK_COOKIE_ENV "HPCQ_PTY_COOKIE"
#define PTYLINK_FRAME_MAX 4096
#define PTYLINK_BUF (64 * 1024)
#define PTYLINK_HANDSHAKE_MS 5000

/* A new random cookie.  0, or -1 with errno. */
int ptylink_cookie_new (uint8_t k[PTYLINK_COOKIE_LEN]);

/* The cookie as hex (buf: 2 * PTYLINK_COOKIE_LEN + 1) and back (-1 with
 * errno EINVAL if hex is not one). */
void ptylink_cookie_hex (const uint8_t k[PTYLINK_COOKIE_LEN], char *buf);
int ptylink_cookie_parse (const char *hex, uint8_t k[PTYLINK_COOKIE_LEN]);

/* The handshake on a connected socket (blocking or not), within
 * PTYLINK_HANDSHAKE_MS.  0 when the peer proved the cookie, else -1 with
 * errno (EACCES: a wrong proof; ETIMEDOUT; EPROTO; ...). */
int ptylink_server_handshake (int fd, const uint8_t k[PTYLINK_COOKIE_LEN]);
int ptylink_client_handshake (int fd, const uint8_t k[PTYLINK_COOKIE_LEN]);

/* The server's side step by step, for a listener that must not wait on
 * one connection (a stranger's that never answers): start sends the
 * hello on a fresh socket; step reads what has come, and once the
 * client's proof is whole checks it and sends its own.  step returns 0
 * for more to come, 1 when proven, -1 with errno (EACCES: a wrong proof;
 * EPROTO: the peer closed).  The deadline is the caller's to keep. */
struct ptylink_hs {
    int fd;
    uint8_t nq[16];
    uint8_t in[48]; /* the client's nonce and proof */
    size_t got;
    int64_t deadline_ms; /* start's time + PTYLINK_HANDSHAKE_MS (monotonic) */
};
int ptylink_server_start (struct ptylink_hs *hs, int fd);
int ptylink_server_step (struct ptylink_hs *hs, const uint8_t k[PTYLINK_COOKIE_LEN]);

struct ptylink_buf {
    uint8_t data[PTYLINK_BUF];
    size_t len;
};

/* One side's relay.  sock: the link; in_fd/out_fd: the local terminal
 * (qsub's stdin and stdout, or hpcq-pty's pty master for both); sig_fd:
 * a signalfd (or -1).  The callbacks return 0 to go on, 1 to stop. */
struct ptylink_relay {
    int sock, in_fd, out_fd, sig_fd;
    int in_eof;   /* in_fd gave EOF or an error: no more reads */
    int sock_eof; /* the link is closed (or failed) */
    struct ptylink_buf to_sock, to_local;
    uint8_t rx[3 + PTYLINK_FRAME_MAX]; /* a frame coming in */
    size_t rx_len;
    int (*on_frame) (struct ptylink_relay *r, int type, const uint8_t *p, size_t len);
    int (*on_signal) (struct ptylink_relay *r);
    void (*on_in_eof) (struct ptylink_relay *r); /* once, when in_fd ends */
    void *arg;
};

void ptylink_relay_init (struct ptylink_relay *r, int sock, int in_fd, int out_fd,
                         int sig_fd);

/* Queue a frame for the link; -1 with errno ENOBUFS if there is no room
 * (callers send data frames only through the relay, which checks). */
int ptylink_send (struct ptylink_relay *r, int type, const void *p, size_t len);

/* Relay until a callback says stop, or the link ends (sock_eof).  Returns
 * 0, or -1 with errno if poll failed. */
int ptylink_relay_run (struct ptylink_relay *r);

/* Write what is queued for the link and for the local side, blocking up
 * to ms milliseconds each (the last bytes before closing). */
void ptylink_relay_flush (struct ptylink_relay *r, int ms);

#endif

/* hpcq-pty - the first process of an interactive job (qsub -I).
 *
 * The worker starts it like any job's script: on the first allocated host
 * (the mother superior), as the job's owner, in the job's cgroup and
 * session, with the job's environment.  It connects back to the qsub that
 * submitted the job (the addresses given as its argument, the cookie in
 * $HPCQ_PTY_COOKIE, both from the job's script, which only the owner can
 * read), proves the cookie and checks qsub's proof (common/ptylink.h),
 * runs the owner's login shell on a new pty and relays the terminal both
 * ways.  Its exit status is the shell's, so the job's Exit_status is too.
 *
 * The shell goes when this does: if qsub goes away (the link ends), the
 * shell's process group gets SIGHUP and then SIGKILL; if the worker ends
 * the job (qdel, walltime: SIGTERM to this session), the same; if this is
 * killed outright, the shell gets SIGHUP (PR_SET_PDEATHSIG, and the pty
 * hangs up), and a job's cgroup takes the rest.
 *
 * Usage (written by qsub, not by people): hpcq-pty ADDR:PORT[,...] [SHELL]
 * [-- COMMAND [ARGS...]]: with a command (srun --pty outside a job), it
 * runs that on the pty instead of a login shell, in the job's directory.
 * Exit codes besides the shell's: 250 no link to qsub, 251 qsub not
 * proven, 252 no pty or shell, 129 qsub went away.
 */
#include <config.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/cliopt.h"
#include "common/ptylink.h"
#include "common/util.h"

#define CONNECT_MS 3000

struct pty_state {
    pid_t shell;
    int reaped, wstatus;
    int signo; /* ended by this signal (SIGTERM from the worker...) */
};

static void say (const char *fmt, const char *arg)
{
    fprintf (stderr, "hpcq-pty: ");
    fprintf (stderr, fmt, arg);
    fputc ('\n', stderr);
}

/* A connected socket to host:port, within CONNECT_MS; -1 if not. */
static int dial_one (const char *hostport)
{
    char host[64];
    const char *colon = strrchr (hostport, ':');
    struct sockaddr_in sa = { .sin_family = AF_INET };
    int port, fd, err = 0;
    socklen_t elen = sizeof (err);
    struct pollfd p;

    if (!colon || (size_t)(colon - hostport) >= sizeof (host)
        || util_parse_int (colon + 1, 1, 65535, &port) < 0)
        return -1;
    memcpy (host, hostport, colon - hostport);
    host[colon - hostport] = '\0';
    if (inet_pton (AF_INET, host, &sa.sin_addr) != 1)
        return -1;
    sa.sin_port = htons ((uint16_t)port);
    if ((fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
        return -1;
    if (connect (fd, (struct sockaddr *)&sa, sizeof (sa)) < 0 && errno != EINPROGRESS)
        goto fail;
    p = (struct pollfd){ .fd = fd, .events = POLLOUT };
    if (poll (&p, 1, CONNECT_MS) != 1
        || getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 || err != 0)
        goto fail;
    return fd;
fail:
    close (fd);
    return -1;
}

/* qsub, at the first of its addresses that answers and proves the cookie. */
static int dial (char *addrs, const uint8_t *k)
{
    char *save = NULL;

    for (char *a = strtok_r (addrs, ",", &save); a; a = strtok_r (NULL, ",", &save)) {
        int fd = dial_one (a);
        if (fd < 0)
            continue;
        if (ptylink_client_handshake (fd, k) == 0)
            return fd;
        say ("%s did not prove the job's cookie: not the job's qsub", a);
        close (fd);
        exit (251);
    }
    return -1;
}

static const char *login_shell (const char *given)
{
    struct passwd *pw = getpwuid (getuid ());

    if (given && given[0])
        return given;
    return pw && pw->pw_shell && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh";
}

/* In the child: the shell, a login shell ("-bash") in the owner's home as
 * PBS starts it, with the job's environment. */
static void child_shell (const char *shell, const sigset_t *none)
{
    const char *base = strrchr (shell, '/'), *home = getenv ("HOME");
    char argv0[256];

    sigprocmask (SIG_SETMASK, none, NULL);
    (void)prctl (PR_SET_PDEATHSIG, SIGHUP);
    if (!home || chdir (home) < 0)
        (void)chdir ("/");
    snprintf (argv0, sizeof (argv0), "-%s", base ? base + 1 : shell);
    execl (shell, argv0, (char *)NULL);
    fprintf (stderr, "hpcq-pty: cannot run %s: %s\r\n", shell, strerror (errno));
    _exit (252);
}

/* srun --pty's command runs at once, unlike a login shell that reads its
 * files first: the terminal's size, qsub's first frame when it has a
 * terminal, is taken before the pty is made (a second at most).  1 if ws
 * was filled. */
static int first_winsize (int sock, struct winsize *ws)
{
    struct pollfd p = { .fd = sock, .events = POLLIN };
    uint8_t f[7];

    if (poll (&p, 1, 1000) != 1
        || recv (sock, f, sizeof (f), MSG_PEEK | MSG_WAITALL) != (ssize_t)sizeof (f)
        || f[0] != 'W' || f[1] != 0 || f[2] != 4
        || recv (sock, f, sizeof (f), MSG_WAITALL) != (ssize_t)sizeof (f))
        return 0;
    *ws = (struct winsize){ .ws_row = (unsigned short)(f[3] << 8 | f[4]),
                            .ws_col = (unsigned short)(f[5] << 8 | f[6]) };
    return 1;
}

/* In the child: srun --pty's command, in the job's working directory. */
static void child_command (char **cmd, const sigset_t *none)
{
    sigprocmask (SIG_SETMASK, none, NULL);
    (void)prctl (PR_SET_PDEATHSIG, SIGHUP);
    execvp (cmd[0], cmd);
    fprintf (stderr, "srun: error: %s: %s\r\n", cmd[0], strerror (errno));
    _exit (errno == ENOENT ? 127 : 126);
}

static void end_shell (struct pty_state *st)
{
    if (st->reaped)
        return;
    (void)kill (-st->shell, SIGHUP);
    (void)kill (-st->shell, SIGCONT);
    for (int i = 0; i < 20; i++) {
        if (waitpid (st->shell, &st->wstatus, WNOHANG) == st->shell) {
            st->reaped = 1;
            return;
        }
        usleep (50 * 1000);
    }
    (void)kill (-st->shell, SIGKILL);
    if (waitpid (st->shell, &st->wstatus, 0) == st->shell)
        st->reaped = 1;
}

static int on_frame (struct ptylink_relay *r, int type, const uint8_t *p, size_t len)
{
    if (type == 'W' && len == 4) {
        struct winsize ws = { .ws_row = (unsigned short)(p[0] << 8 | p[1]),
                              .ws_col = (unsigned short)(p[2] << 8 | p[3]) };
        (void)ioctl (r->in_fd, TIOCSWINSZ, &ws);
    } else if (type == 'E') {
        struct termios t;
        /* qsub's input was a pipe and it ended: end-of-file to the shell,
         * after the bytes before it (still queued for the pty). */
        if (tcgetattr (r->in_fd, &t) == 0
            && r->to_local.len < sizeof (r->to_local.data))
            r->to_local.data[r->to_local.len++] = t.c_cc[VEOF];
    }
    return 0;
}

/* The shell's last output, then its status: the link's last frame. */
static void finish (struct ptylink_relay *r, struct pty_state *st)
{
    uint8_t buf[PTYLINK_FRAME_MAX], x[4];
    ssize_t n;

    for (;;) {
        ptylink_relay_flush (r, 2000);
        if (r->to_sock.len || (n = read (r->in_fd, buf, sizeof (buf))) <= 0)
            break;
        (void)ptylink_send (r, 'D', buf, (size_t)n);
    }
    x[0] = (uint8_t)(st->wstatus >> 24);
    x[1] = (uint8_t)(st->wstatus >> 16);
    x[2] = (uint8_t)(st->wstatus >> 8);
    x[3] = (uint8_t)st->wstatus;
    (void)ptylink_send (r, 'X', x, sizeof (x));
    ptylink_relay_flush (r, 2000);
}

static int on_signal (struct ptylink_relay *r)
{
    struct pty_state *st = r->arg;
    struct signalfd_siginfo si;

    if (read (r->sig_fd, &si, sizeof (si)) != sizeof (si))
        return 0;
    if (si.ssi_signo != SIGCHLD) {
        st->signo = (int)si.ssi_signo;
        return 1;
    }
    if (waitpid (st->shell, &st->wstatus, WNOHANG) != st->shell)
        return 0;
    st->reaped = 1;
    return 1;
}

static int exit_like (int wstatus)
{
    if (WIFSIGNALED (wstatus)) {
        /* Die of the same signal, so the job's status says so. */
        sigset_t s;
        signal (WTERMSIG (wstatus), SIG_DFL);
        sigemptyset (&s);
        sigaddset (&s, WTERMSIG (wstatus));
        sigprocmask (SIG_UNBLOCK, &s, NULL);
        raise (WTERMSIG (wstatus));
        return 128 + WTERMSIG (wstatus);
    }
    return WEXITSTATUS (wstatus);
}

int main (int argc, char **argv)
{
    uint8_t k[PTYLINK_COOKIE_LEN];
    struct pty_state st = { 0 };
    struct ptylink_relay r;
    sigset_t sigs, none;
    int sock, master, sfd;
    char **cmd = NULL;
    struct winsize ws;

    cliopt_only (&(struct cliopt){ .prog = "hpcq-pty",
                                   .usage = "usage: hpcq-pty ADDR:PORT[,...] [SHELL] "
                                            "[-- COMMAND...]\n"
                                            "The shell of a qsub -I job, on a pty "
                                            "relayed to qsub; run by the job.\n",
                                   .kind = CLIOPT_HPCQ },
                 argc, argv);
    if (argc > 3 && strcmp (argv[3], "--") == 0 && argc > 4)
        cmd = argv + 4;
    if (argc < 2 || (argc > 3 && !cmd)
        || ptylink_cookie_parse (getenv (PTYLINK_COOKIE_ENV), k) < 0) {
        say ("%s", "usage: hpcq-pty ADDR:PORT[,...] [SHELL] (run by qsub -I's jobs)");
        return 2;
    }
    unsetenv (PTYLINK_COOKIE_ENV);
    if ((sock = dial (argv[1], k)) < 0) {
        say ("%s", "cannot reach the job's qsub (gone, or no route from this host)");
        return 250;
    }
    explicit_bzero (k, sizeof (k));
    setenv ("PBS_ENVIRONMENT", "PBS_INTERACTIVE", 1);
    sigemptyset (&none);
    sigemptyset (&sigs);
    sigaddset (&sigs, SIGCHLD);
    sigaddset (&sigs, SIGTERM);
    sigaddset (&sigs, SIGHUP);
    sigaddset (&sigs, SIGINT);
    sigprocmask (SIG_BLOCK, &sigs, NULL);
    if ((sfd = signalfd (-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
        return 252;
    if ((st.shell = forkpty (&master, NULL, NULL,
                             cmd && first_winsize (sock, &ws) ? &ws : NULL))
        < 0) {
        say ("cannot make a pty: %s", strerror (errno));
        return 252;
    }
    if (st.shell == 0) {
        close (sock);
        close (sfd);
        if (cmd)
            child_command (cmd, &none);
        child_shell (login_shell (argc > 2 ? argv[2] : NULL), &none);
    }
    (void)fcntl (master, F_SETFL, O_NONBLOCK);
    (void)fcntl (master, F_SETFD, FD_CLOEXEC);
    (void)fcntl (sock, F_SETFL, O_NONBLOCK);
    ptylink_relay_init (&r, sock, master, master, sfd);
    r.on_frame = on_frame;
    r.on_signal = on_signal;
    r.arg = &st;
    (void)ptylink_relay_run (&r);
    if (st.reaped) {
        finish (&r, &st);
        close (sock);
        return exit_like (st.wstatus);
    }
    /* qsub went away, or the worker is ending the job. */
    close (sock);
    end_shell (&st);
    close (master);
    if (st.signo) {
        signal (st.signo, SIG_DFL);
        sigprocmask (SIG_UNBLOCK, &sigs, NULL);
        raise (st.signo);
    }
    return 129;
}

/* interactive.c - see interactive.h
 *
 * As PBS Pro does it (openpbs src/cmds/qsub_sup.c, interactive(): qsub
 * listens on a port of its own on any address, the job carries the port
 * in its "interactive" attribute, the mother superior connects back and
 * authenticates, qsub sends TERM and the window size, prints "waiting for
 * job ID to start", "job ID ready" and at the end "job ID completed", and
 * notices a job deleted while it waits), but the connection back comes
 * from the job's own first process, run as the owner after the worker's
 * privilege drop, and both ends prove a cookie the owner alone can read
 * (common/ptylink.h).  No daemon carries the terminal's bytes: a slow
 * terminal holds no loop.  Unlike PBS, qsub exits with the shell's status
 * (PBS's exits 0).
 */
#include <config.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
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

#include "cli/interactive.h"
#include "cli/jobwait.h"
#include "cli/submit.h"
#include "common/admit.h"
#include "common/client.h"
#include "common/ptylink.h"
#include "common/sockdiag.h"
#include "common/util.h"

#define ADDRS_MAX 8

static struct {
    int lfd; /* the listening socket */
    uint8_t cookie[PTYLINK_COOKIE_LEN];
    char jobid[256];
    int salloc; /* interactive_salloc */
    int srun;   /* interactive_srun */
    int raw;    /* the terminal is in raw mode: saved holds how it was */
    struct termios saved;
    int wait_fd; /* the job's end, from the jobwait child */
    int sig_fd;
    int exit_seen, wstatus; /* the shell's status, from its 'X' frame */
    int stop_signo;         /* qsub was told to stop */
} ia = { .lfd = -1, .wait_fd = -1, .sig_fd = -1 };

static void term_restore (void)
{
    if (ia.raw) {
        (void)tcsetattr (0, TCSADRAIN, &ia.saved);
        ia.raw = 0;
    }
}

static int term_raw (void)
{
    struct termios t;

    if (!isatty (0) || tcgetattr (0, &ia.saved) < 0)
        return 0;
    t = ia.saved;
    cfmakeraw (&t);
    if (tcsetattr (0, TCSADRAIN, &t) < 0)
        return -1;
    ia.raw = 1;
    return 0;
}

/* "ADDR:PORT,..." for each IPv4 address of this host that is up, loopback
 * first: the job's host tries them in order (on this host the loopback
 * answers; a host of its own, e.g. hpcq-local --hosts, reaches the
 * address its network shares with this one). */
static int local_addresses (int port, char *buf, size_t len, struct hpcq_error *err)
{
    struct ifaddrs *ifs, *i;
    size_t o = 0;
    int n = 0;

    if (getifaddrs (&ifs) < 0)
        return errprintf (err, "cannot list this host's addresses: %s",
                          strerror (errno));
    buf[0] = '\0';
    for (int pass = 0; pass < 2; pass++)
        for (i = ifs; i && n < ADDRS_MAX; i = i->ifa_next) {
            char a[INET_ADDRSTRLEN];
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET
                || !(i->ifa_flags & IFF_UP) || (!(i->ifa_flags & IFF_LOOPBACK)) != pass)
                continue;
            inet_ntop (AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a,
                       sizeof (a));
            o += snprintf (buf + o, o < len ? len - o : 0, "%s%s:%d", n ? "," : "", a,
                           port);
            n++;
        }
    freeifaddrs (ifs);
    if (n == 0 || o >= len)
        return errprintf (err, "this host has no IPv4 address for the job to reach");
    return 0;
}

static int listen_any (struct hpcq_error *err)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = INADDR_ANY };
    socklen_t slen = sizeof (sa);

    if ((ia.lfd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0
        || bind (ia.lfd, (struct sockaddr *)&sa, sizeof (sa)) < 0
        || listen (ia.lfd, 8) < 0
        || getsockname (ia.lfd, (struct sockaddr *)&sa, &slen) < 0)
        return errprintf (err, "cannot listen for the job's shell: %s",
                          strerror (errno));
    return ntohs (sa.sin_port);
}

/* hpcq-pty beside this qsub (a build tree), else where it is installed. */
static int helper_path (char *buf, size_t len)
{
    return util_helper_path ("hpcq-pty", HPCQ_LIBEXECDIR "/hpcq-pty", buf, len);
}

/* The script's hpcq-pty line runs shell, or with cmd that command. */
static int prepare (struct hpcq_jobspec *spec, const char *shell, char *const *cmd,
                    struct hpcq_error *err)
{
    char addrs[1024], helper[PATH_MAX], hex[2 * PTYLINK_COOKIE_LEN + 1];
    const char *term = getenv ("TERM");
    char *quoted = NULL;
    size_t len, qlen = 0;
    int port;

    if (!shell)
        shell = "";
    if (spec->array)
        return errprintf (err, "an interactive job (-I) cannot be an array (-J)");
    if (helper_path (helper, sizeof (helper)) < 0)
        return errprintf (err, "cannot find hpcq-pty (looked in %s)", HPCQ_LIBEXECDIR);
    if (strchr (helper, '\'') || strchr (shell, '\''))
        return errprintf (err, "a path with a quote in it: %s", helper);
    if ((port = listen_any (err)) < 0
        || local_addresses (port, addrs, sizeof (addrs), err) < 0)
        return -1;
    if (ptylink_cookie_new (ia.cookie) < 0)
        return errprintf (err, "getrandom: %s", strerror (errno));
    ptylink_cookie_hex (ia.cookie, hex);
    /* The cookie is in the script, which its owner alone can read (qstat
     * -f shows no script), and in hpcq-pty's environment, not its argv
     * (anyone may read a process's command line). */
    if (cmd) {
        util_sh_quote (&quoted, &qlen, "--");
        for (int i = 0; cmd[i]; i++)
            util_sh_quote (&quoted, &qlen, cmd[i]);
    }
    len = strlen (helper) + strlen (addrs) + strlen (shell) + sizeof (hex) + qlen + 256;
    free (spec->script);
    spec->script = xzalloc (len);
    snprintf (spec->script, len,
              "#!/bin/sh\n"
              "# qsub -I: the shell comes from hpcq-pty, which connects back to qsub.\n"
              "%s=%s\nexport %s\nexec '%s' '%s' '%s'%s%s\n",
              PTYLINK_COOKIE_ENV, hex, PTYLINK_COOKIE_ENV, helper, addrs, shell,
              quoted ? " " : "", quoted ? quoted : "");
    free (quoted);
    explicit_bzero (hex, sizeof (hex));
    /* PBS makes no output files for an interactive job, and never reruns
     * one (there is nobody to give the new shell to). */
    free (spec->output_path);
    free (spec->error_path);
    spec->output_path = xstrdup ("/dev/null");
    spec->error_path = xstrdup ("/dev/null");
    spec->join = JOIN_NONE;
    spec->rerunnable = 0;
    spec->block = 0;
    if (term && jobspec_setenv (spec, "TERM", term) < 0)
        return errprintf (err, "out of memory");
    return 0;
}

int interactive_prepare (struct hpcq_jobspec *spec, const char *shell,
                         struct hpcq_error *err)
{
    return prepare (spec, shell, NULL, err);
}

int interactive_prepare_command (struct hpcq_jobspec *spec, char *const *cmd,
                                 struct hpcq_error *err)
{
    return prepare (spec, NULL, cmd, err);
}

/* A child that waits for the job's end (job.wait) and writes
 * "HAS_EXIT STATUS COMMENT" on a pipe: the loop here polls that pipe. */
static int start_waiter (void)
{
    int p[2];
    pid_t pid;

    if (pipe2 (p, O_CLOEXEC) < 0 || (pid = fork ()) < 0)
        return -1;
    if (pid == 0) {
        char comment[512], line[600];
        int has_exit = 0, status = 0, rc;
        close (p[0]);
        close (ia.lfd); /* or a connection would still find a listener */
        (void)prctl (PR_SET_PDEATHSIG, SIGKILL);
        if (getppid () == 1)
            _exit (0);
        rc = jobwait ("qsub", ia.jobid, &has_exit, &status, comment, sizeof (comment));
        snprintf (line, sizeof (line), "%d %d %s", rc == 0 && has_exit, status,
                  rc == 0 ? comment : "");
        (void)util_write_all (p[1], line, strlen (line) + 1);
        _exit (0);
    }
    close (p[1]);
    ia.wait_fd = p[0];
    return 0;
}

/* The job's end, as the waiter reports it. */
static int job_end (int *has_exit, int *status, char *comment, size_t len)
{
    char line[600];
    size_t got = 0;
    ssize_t n;
    int off = 0;

    while (got < sizeof (line) - 1
           && (n = read (ia.wait_fd, line + got, sizeof (line) - 1 - got)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        got += (size_t)n;
    }
    line[got] = '\0';
    if (sscanf (line, "%d %d %n", has_exit, status, &off) < 2)
        return -1;
    snprintf (comment, len, "%s", line + off);
    return 0;
}

static void delete_job (void)
{
    struct hpcq_error err;
    struct client *c = client_connect (NULL, &err);

    if (!c
        || client_rpc (c, "job.delete", json_pack ("{s:s}", "id", ia.jobid), NULL, &err)
               < 0)
        fprintf (stderr, "qsub: cannot delete job %s: %s\n", ia.jobid, err.text);
    client_destroy (c);
}

static int signals_block (void)
{
    sigset_t s;

    sigemptyset (&s);
    sigaddset (&s, SIGINT);
    sigaddset (&s, SIGTERM);
    sigaddset (&s, SIGHUP);
    sigaddset (&s, SIGQUIT);
    sigaddset (&s, SIGWINCH);
    if (sigprocmask (SIG_BLOCK, &s, NULL) < 0)
        return -1;
    ia.sig_fd = signalfd (-1, &s, SFD_CLOEXEC | SFD_NONBLOCK);
    return ia.sig_fd < 0 ? -1 : 0;
}

static int next_signal (void)
{
    struct signalfd_siginfo si;

    if (read (ia.sig_fd, &si, sizeof (si)) != sizeof (si))
        return 0;
    return (int)si.ssi_signo;
}

/* Connections still proving themselves: several at once, so that a
 * stranger's connection that never answers cannot make the job's shell
 * wait behind it (and give up); at most PENDING_PER_SOURCE of them from
 * one source (the uid behind a connection from this host, else the
 * address), so that one stranger's flood cannot displace the shell's. */
#define PENDING_MAX 8
#define PENDING_PER_SOURCE 2
/* Out of descriptors: the listening socket rests this long. */
#define ACCEPT_PAUSE_MS 100
#define SAY_PER_SECOND 5

struct pending {
    struct ptylink_hs hs[PENDING_MAX];
    char who[PENDING_MAX][INET_ADDRSTRLEN + 8];
    uint64_t key[PENDING_MAX];
    int n;
    int64_t said_ms, unsaid; /* refusals told, a few a second at most */
    int nsaid;
    int64_t paused_until_ms; /* accept rests until then (EMFILE) */
};

/* A few lines a second at most: a flood of strangers does not fill the
 * user's terminal. */
static void say_refused (struct pending *pd, const char *who, const char *why)
{
    int64_t now = util_now_ms ();

    if (now - pd->said_ms >= 1000)
        pd->nsaid = 0;
    if (pd->nsaid == SAY_PER_SECOND) {
        pd->unsaid++;
        return;
    }
    if (!pd->nsaid++)
        pd->said_ms = now;
    fprintf (stderr, "qsub: refused a connection from %s (%s)", who, why);
    if (pd->unsaid)
        fprintf (stderr, ", and %lld more", (long long)pd->unsaid);
    fputc ('\n', stderr);
    pd->unsaid = 0;
}

static void refuse (struct pending *pd, int i, const char *why)
{
    say_refused (pd, pd->who[i], why);
    close (pd->hs[i].fd);
    pd->n--;
    pd->hs[i] = pd->hs[pd->n];
    pd->key[i] = pd->key[pd->n];
    memcpy (pd->who[i], pd->who[pd->n], sizeof (pd->who[i]));
}

/* The source a connection counts against: the uid behind it on this
 * host (sockdiag), else its address. */
static uint64_t source_key (int fd, const struct sockaddr_in *peer)
{
    struct sockaddr_in local;
    socklen_t len = sizeof (local);
    uid_t uid;

    if (sockdiag_is_loopback ((const struct sockaddr *)peer)
        && getsockname (fd, (struct sockaddr *)&local, &len) == 0
        && sockdiag_peer_uid ((struct sockaddr *)&local, (const struct sockaddr *)peer,
                              &uid)
               == 0)
        return uid;
    return admit_addr_key ((const struct sockaddr *)peer);
}

/* Which pending one makes room: the oldest of the source holding most. */
static int room_for (struct pending *pd)
{
    int best = 0, most = 0;

    for (int i = 0; i < pd->n; i++) {
        int k = 0;
        for (int j = 0; j < pd->n; j++)
            k += pd->key[j] == pd->key[i];
        if (k > most) {
            most = k;
            best = i;
        }
    }
    return best;
}

static void accept_one (struct pending *pd)
{
    struct sockaddr_in sa;
    socklen_t slen = sizeof (sa);
    char a[INET_ADDRSTRLEN] = "?", who[sizeof (pd->who[0])];
    uint64_t key;
    int k = 0, fd = accept4 (ia.lfd, (struct sockaddr *)&sa, &slen,
                             SOCK_CLOEXEC | SOCK_NONBLOCK);

    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            pd->paused_until_ms = util_now_ms () + ACCEPT_PAUSE_MS;
        return;
    }
    key = source_key (fd, &sa);
    for (int i = 0; i < pd->n; i++)
        k += pd->key[i] == key;
    inet_ntop (AF_INET, &sa.sin_addr, a, sizeof (a));
    snprintf (who, sizeof (who), "%s:%d", a, ntohs (sa.sin_port));
    if (k >= PENDING_PER_SOURCE) {
        say_refused (pd, who, "too many at once from there");
        close (fd);
        return;
    }
    if (pd->n == PENDING_MAX)
        refuse (pd, room_for (pd), "too many connections at once");
    memcpy (pd->who[pd->n], who, sizeof (who));
    if (ptylink_server_start (&pd->hs[pd->n], fd) < 0) {
        close (fd);
        return;
    }
    pd->key[pd->n] = key;
    pd->n++;
}

/* Step the handshakes that have something; the one that proves the cookie
 * is the job's shell: its socket, else -1. */
static int step_pending (struct pending *pd, const struct pollfd *p)
{
    int64_t now = util_now_us () / 1000;

    for (int i = pd->n - 1; i >= 0; i--) {
        int rc = p[i].revents ? ptylink_server_step (&pd->hs[i], ia.cookie) : 0;
        if (rc > 0) {
            int fd = pd->hs[i].fd;
            pd->hs[i].fd = -1;
            while (pd->n > 0) /* nobody else may attach */
                if (pd->hs[pd->n - 1].fd >= 0)
                    refuse (pd, pd->n - 1, "the session has started");
                else
                    pd->n--;
            return fd;
        }
        if (rc < 0)
            refuse (pd, i, errno == EACCES ? "wrong cookie" : strerror (errno));
        else if (now >= pd->hs[i].deadline_ms)
            refuse (pd, i, "no answer in time");
    }
    return -1;
}

/* Until the job's shell calls: its socket, or -1 when the job ended
 * first (*ended) or qsub was told to stop. */
static int wait_start (int *ended)
{
    struct pending pd = { .n = 0 };

    *ended = 0;
    for (;;) {
        struct pollfd p[PENDING_MAX + 3];
        int fd, sig, n = pd.n, timeout = -1;

        for (int i = 0; i < pd.n; i++) {
            int64_t left = pd.hs[i].deadline_ms - util_now_us () / 1000;
            p[i] = (struct pollfd){ .fd = pd.hs[i].fd, .events = POLLIN };
            if (timeout < 0 || left < timeout)
                timeout = left > 0 ? (int)left : 0;
        }
        if (pd.paused_until_ms) {
            int64_t left = pd.paused_until_ms - util_now_ms ();
            if (left <= 0)
                pd.paused_until_ms = 0;
            else if (timeout < 0 || left < timeout)
                timeout = (int)left;
        }
        p[n] =
            (struct pollfd){ .fd = pd.paused_until_ms ? -1 : ia.lfd, .events = POLLIN };
        p[n + 1] = (struct pollfd){ .fd = ia.wait_fd, .events = POLLIN };
        p[n + 2] = (struct pollfd){ .fd = ia.sig_fd, .events = POLLIN };
        if (poll (p, (nfds_t)n + 3, timeout) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (p[n + 2].revents && (sig = next_signal ()) && sig != SIGWINCH) {
            ia.stop_signo = sig;
            break;
        }
        if (p[n + 1].revents) {
            *ended = 1;
            break;
        }
        if ((fd = step_pending (&pd, p)) >= 0)
            return fd;
        if (p[n].revents)
            accept_one (&pd);
    }
    while (pd.n > 0)
        refuse (&pd, pd.n - 1, "the job is over");
    return -1;
}

static void send_winsize (struct ptylink_relay *r)
{
    struct winsize ws;
    uint8_t b[4];

    if (ioctl (0, TIOCGWINSZ, &ws) < 0)
        return;
    b[0] = (uint8_t)(ws.ws_row >> 8);
    b[1] = (uint8_t)ws.ws_row;
    b[2] = (uint8_t)(ws.ws_col >> 8);
    b[3] = (uint8_t)ws.ws_col;
    (void)ptylink_send (r, 'W', b, sizeof (b));
}

static int on_frame (struct ptylink_relay *r, int type, const uint8_t *p, size_t len)
{
    (void)r;
    if (type != 'X' || len != 4)
        return 0;
    ia.exit_seen = 1;
    ia.wstatus =
        (int)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
    return 1;
}

static int on_signal (struct ptylink_relay *r)
{
    int sig = next_signal ();

    if (sig == SIGWINCH) {
        send_winsize (r);
        return 0;
    }
    if (sig == 0)
        return 0;
    ia.stop_signo = sig;
    return 1;
}

/* Standard input ended (a pipe, not a terminal): end-of-file to the shell. */
static void on_in_eof (struct ptylink_relay *r)
{
    (void)ptylink_send (r, 'E', NULL, 0);
}

/* The terminal to the shell and back, until it ends. */
static void session (int sock)
{
    struct ptylink_relay r;

    ptylink_relay_init (&r, sock, 0, 1, ia.sig_fd);
    r.on_frame = on_frame;
    r.on_signal = on_signal;
    r.on_in_eof = on_in_eof;
    (void)fcntl (sock, F_SETFL, O_NONBLOCK);
    if (isatty (0))
        send_winsize (&r);
    if (term_raw () < 0)
        fprintf (stderr, "qsub: cannot put the terminal in raw mode: %s\n",
                 strerror (errno));
    (void)ptylink_relay_run (&r);
    ptylink_relay_flush (&r, 1000);
    term_restore ();
}

/* qsub's exit code from the job's end: the shell's status when it sent
 * one, else the job's Exit_status (never 0: the session was cut). */
static int exit_code (int has_exit, int status)
{
    int code;

    if (ia.exit_seen)
        return WIFSIGNALED (ia.wstatus) ? 128 + WTERMSIG (ia.wstatus)
                                        : WEXITSTATUS (ia.wstatus);
    if (!has_exit || status < 0)
        return 1;
    code = status >= 256 ? 128 + (status - 256) : status & 0xff;
    return code ? code : 1;
}

void interactive_salloc (void)
{
    ia.salloc = 1;
}

void interactive_srun (void)
{
    ia.srun = 1;
}

/* The job's number alone, as Slurm's commands name it. */
static int jobnum_len (void)
{
    return (int)strcspn (ia.jobid, ".");
}

/* One of salloc's lines: what, and the job's number. */
static void salloc_says (const char *what)
{
    fprintf (stderr, "salloc: %s job allocation %.*s\n", what, jobnum_len (), ia.jobid);
}

int interactive_run (struct hpcq_jobspec *spec)
{
    struct hpcq_error err;
    char comment[512] = "";
    int sock, ended, has_exit = 0, status = 0;

    atexit (term_restore);
    if (signals_block () < 0)
        util_die (1, "cannot watch signals: %s", strerror (errno));
    if (submit_send (spec, ia.jobid, sizeof (ia.jobid), &err) < 0)
        util_die (1, "%s", err.text);
    if (ia.salloc)
        salloc_says ("Pending");
    else if (ia.srun)
        fprintf (stderr, "srun: job %.*s queued and waiting for resources\n",
                 jobnum_len (), ia.jobid);
    else
        printf ("qsub: waiting for job %s to start\n", ia.jobid);
    fflush (stdout);
    if (start_waiter () < 0)
        util_die (1, "cannot wait for job %s: %s", ia.jobid, strerror (errno));
    sock = wait_start (&ended);
    close (ia.lfd);
    ia.lfd = -1;
    if (sock < 0 && !ended) {
        /* Interrupted before the job started: it is of no use to anyone. */
        delete_job ();
        fprintf (stderr, "qsub: job %s deleted (qsub interrupted while waiting)\n",
                 ia.jobid);
        return 128 + (ia.stop_signo ? ia.stop_signo : 1);
    }
    if (sock >= 0) {
        if (ia.salloc)
            salloc_says ("Granted");
        else if (ia.srun)
            fprintf (stderr, "srun: job %.*s has been allocated resources\n",
                     jobnum_len (), ia.jobid);
        else
            printf ("qsub: job %s ready\n\n", ia.jobid);
        fflush (stdout);
        session (sock);
        close (sock); /* hpcq-pty ends the shell if it still runs */
        if (ia.stop_signo) {
            fprintf (stderr, "\nqsub: interrupted (signal %d): job %s ends\n",
                     ia.stop_signo, ia.jobid);
            return 128 + ia.stop_signo;
        }
    }
    if (job_end (&has_exit, &status, comment, sizeof (comment)) < 0)
        return 2;
    if (sock < 0 || !ia.exit_seen)
        fprintf (stderr, "qsub: job %s ended before its shell %s%s%s\n", ia.jobid,
                 sock < 0 ? "started" : "did", comment[0] ? ": " : "", comment);
    if (ia.salloc)
        salloc_says ("Relinquishing");
    else if (!ia.srun) /* srun says nothing at the end */
        printf ("qsub: job %s completed\n", ia.jobid);
    return exit_code (has_exit, status);
}

/* ckptreport.c - see ckptreport.h
 *
 * libc only, no jansson and no client library: the apps link it through
 * common/ckptfile.c, and so do builds of the apps made with nothing but a
 * compiler (tests/gpu).  The request is one wire message (common/wire.h:
 * a 4-byte big-endian length, then JSON) whose only text field, the job
 * id, is checked to need no escaping; of the reply only "errnum" and
 * "error" are read.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/ckptreport.h"
#include "common/util.h"

#define REPLY_MAX 4096
#define TIMEOUT_MS 10000

/* A job id as hpcq makes them: "42.server", "42[3].server". */
static int plain_id (const char *s)
{
    if (!*s || strlen (s) > 200)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
              || (*s >= '0' && *s <= '9') || strchr ("._-[]", *s)))
            return 0;
    return 1;
}

static int dial (const char *path, struct hpcq_error *err)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    int fd;

    if (strlen (path) >= sizeof (sun.sun_path))
        return errprintf_code (err, ENAMETOOLONG, "socket path too long: %s", path);
    strcpy (sun.sun_path, path);
    if ((fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return errprintf (err, "socket: %s", strerror (errno));
    if (connect (fd, (struct sockaddr *)&sun, sizeof (sun)) < 0) {
        int e = errno;
        close (fd);
        return errprintf_code (err, e, "cannot reach the worker at %s: %s", path,
                               strerror (e));
    }
    return fd;
}

static int read_all (int fd, char *buf, size_t len)
{
    while (len > 0) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t n;
        int rc = poll (&p, 1, TIMEOUT_MS);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if ((n = read (fd, buf, len)) < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ECONNRESET;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The reply's verdict: 0, or -1 with its error line in err. */
static int verdict (const char *json, struct hpcq_error *err)
{
    const char *e = strstr (json, "\"errnum\":"), *msg;
    char text[200];
    size_t k = 0;
    long errnum;

    if (!e)
        return errprintf_code (err, EPROTO, "the worker's answer is not a reply");
    if ((errnum = strtol (e + 9, NULL, 10)) == 0)
        return 0;
    if ((msg = strstr (json, "\"error\":\""))) {
        for (msg += 9; *msg && *msg != '"' && k + 1 < sizeof (text); msg++)
            text[k++] = *msg == '\\' && msg[1] ? *++msg : *msg;
    }
    text[k] = '\0';
    return errprintf_code (err, (int)errnum, "the worker refused the report: %s",
                           k ? text : strerror ((int)errnum));
}

static int exchange (int fd, const char *json, struct hpcq_error *err)
{
    uint32_t hdr = htonl ((uint32_t)strlen (json)), rlen;
    char reply[REPLY_MAX + 1];

    if (util_write_all (fd, &hdr, sizeof (hdr)) < 0
        || util_write_all (fd, json, strlen (json)) < 0
        || read_all (fd, (char *)&rlen, sizeof (rlen)) < 0)
        return errprintf (err, "talking to the worker: %s", strerror (errno));
    rlen = ntohl (rlen);
    if (rlen == 0 || rlen > REPLY_MAX)
        return errprintf_code (err, EPROTO, "the worker's reply is %u bytes", rlen);
    if (read_all (fd, reply, rlen) < 0)
        return errprintf (err, "talking to the worker: %s", strerror (errno));
    reply[rlen] = '\0';
    return verdict (reply, err);
}

int ckptreport_check (int64_t generation, int64_t bytes, double seconds,
                      struct hpcq_error *err)
{
    if (generation < 0 || generation > CKPTREPORT_GENERATION_MAX)
        return errprintf_code (err, EINVAL, "generation %lld out of range (1 to %lld)",
                               (long long)generation,
                               (long long)CKPTREPORT_GENERATION_MAX);
    if (bytes < -1 || bytes > CKPTREPORT_BYTES_MAX)
        return errprintf_code (err, EINVAL, "bytes %lld out of range (0 to %lld)",
                               (long long)bytes, (long long)CKPTREPORT_BYTES_MAX);
    if (isnan (seconds) || (seconds >= 0 && seconds > CKPTREPORT_SECONDS_MAX))
        return errprintf_code (err, EINVAL, "seconds %g out of range (0 to %.0f)",
                               seconds, CKPTREPORT_SECONDS_MAX);
    return 0;
}

int ckptreport_done (int64_t generation, int64_t bytes, double seconds,
                     struct hpcq_error *err)
{
    const char *sock = getenv ("HPCQ_CKPT_SOCKET");
    const char *jobid = getenv ("PBS_JOBID"), *att = getenv ("HPCQ_ATTEMPT");
    char json[512], extra[128] = "";
    size_t o = 0;
    long attempt;
    int fd, rc;

    if (!sock || !*sock)
        return 0;
    if (!jobid || !plain_id (jobid) || !att
        || util_parse_long (att, 1, 1L << 30, &attempt) < 0)
        return errprintf_code (err, EINVAL,
                               "HPCQ_CKPT_SOCKET is set but PBS_JOBID or "
                               "HPCQ_ATTEMPT is missing or bad");
    if (ckptreport_check (generation, bytes, seconds, err) < 0)
        return -1;
    if (generation > 0)
        o += snprintf (extra + o, sizeof (extra) - o, ",\"generation\":%lld",
                       (long long)generation);
    if (bytes >= 0)
        o += snprintf (extra + o, sizeof (extra) - o, ",\"bytes\":%lld",
                       (long long)bytes);
    if (seconds >= 0)
        snprintf (extra + o, sizeof (extra) - o, ",\"seconds\":%.6f", seconds);
    snprintf (json, sizeof (json),
              "{\"v\":1,\"type\":\"ckpt.done\",\"id\":1,\"cred\":null,"
              "\"body\":{\"jobid\":\"%s\",\"attempt\":%ld%s}}",
              jobid, attempt, extra);
    if ((fd = dial (sock, err)) < 0)
        return -1;
    rc = exchange (fd, json, err);
    close (fd);
    return rc < 0 ? -1 : 1;
}

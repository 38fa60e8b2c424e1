/* util.c - see util.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

void *xzalloc (size_t n)
{
    void *p = calloc (1, n ? n : 1);
    if (!p) {
        fprintf (stderr, "out of memory\n");
        abort ();
    }
    return p;
}

void *xrealloc (void *p, size_t n)
{
    void *r = realloc (p, n ? n : 1);
    if (!r) {
        fprintf (stderr, "out of memory\n");
        abort ();
    }
    return r;
}

void util_die (int code, const char *fmt, ...)
{
    va_list ap;

    fprintf (stderr, "%s: ", program_invocation_short_name);
    va_start (ap, fmt);
    vfprintf (stderr, fmt, ap);
    va_end (ap);
    fputc ('\n', stderr);
    exit (code);
}

int util_parse_i64 (const char *s, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    if (!s || !*s || isspace ((unsigned char)*s)) {
        errno = EINVAL;
        return -1;
    }
    v = strtoll (s, &end, 10);
    if (errno || *end || v < min || v > max) {
        errno = EINVAL;
        return -1;
    }
    *out = v;
    return 0;
}

int util_parse_int (const char *s, int min, int max, int *out)
{
    int64_t v;

    if (util_parse_i64 (s, min, max, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

char *xstrdup (const char *s)
{
    char *p = strdup (s ? s : "");
    if (!p) {
        fprintf (stderr, "out of memory\n");
        abort ();
    }
    return p;
}

int64_t util_now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t util_now_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t util_wall_secs (void)
{
    return (int64_t)time (NULL);
}

void util_format_ctime (int64_t secs, char *buf, int len)
{
    time_t t = (time_t)secs;
    struct tm tm;
    localtime_r (&t, &tm);
    strftime (buf, len, "%a %b %e %H:%M:%S %Y", &tm);
}

char *util_read_fd (int fd, size_t max, size_t *lenp)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc (cap + 1);

    if (!buf)
        return NULL;
    for (;;) {
        ssize_t n;
        if (len == cap) {
            char *nbuf;
            if (cap >= max) {
                free (buf);
                errno = EFBIG;
                return NULL;
            }
            cap *= 2;
            if (!(nbuf = realloc (buf, cap + 1))) {
                free (buf);
                return NULL;
            }
            buf = nbuf;
        }
        n = read (fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            free (buf);
            errno = saved;
            return NULL;
        }
        if (n == 0)
            break;
        len += n;
    }
    if (len > max) {
        free (buf);
        errno = EFBIG;
        return NULL;
    }
    buf[len] = '\0';
    if (lenp)
        *lenp = len;
    return buf;
}

char *util_read_file (const char *path, size_t max, size_t *lenp)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    char *buf;
    int saved;

    if (fd < 0)
        return NULL;
    buf = util_read_fd (fd, max, lenp);
    saved = errno;
    close (fd);
    errno = saved;
    return buf;
}

int util_write_all (int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write (fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= n;
    }
    return 0;
}

int util_fsync_dir (const char *dir)
{
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc, saved;

    if (fd < 0)
        return -1;
    rc = fsync (fd);
    saved = errno;
    close (fd);
    errno = saved;
    return rc;
}

int util_mkdir_p (const char *path)
{
    return util_mkdir_mode (path, 0700);
}

int util_mkdir_mode (const char *path, mode_t mode)
{
    char tmp[4096];
    size_t len = strlen (path);

    if (len == 0 || len >= sizeof (tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy (tmp, path, len + 1);
    for (char *p = tmp + 1;; p++) {
        char c = *p;
        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        /* chmod: a new folder gets mode whatever the umask (the daemons
         * run under 077, and a spool's parents must stay passable). */
        if (mkdir (tmp, mode) == 0) {
            if (chmod (tmp, mode) < 0)
                return -1;
        } else if (errno != EEXIST)
            return -1;
        *p = c;
        if (c == '\0')
            return 0;
    }
}

int util_user_listed (const char *list, const char *user)
{
    size_t len = strlen (user);

    for (const char *p = list ? list : ""; *p;) {
        size_t n;
        p += strspn (p, " ,");
        n = strcspn (p, ",@ ");
        if (n == len && strncmp (p, user, len) == 0)
            return 1;
        p += strcspn (p, ",");
    }
    return 0;
}

int util_proc_stat (int pid, long long *v, int last)
{
    char path[64], buf[1024], *p;
    int fd, n, field = 2;

    snprintf (path, sizeof (path), "/proc/%d/stat", pid);
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read (fd, buf, sizeof (buf) - 1);
    close (fd);
    /* The command name (field 2) may hold spaces and parentheses: the
     * fields after it start after its last ')'. */
    if (n <= 0 || !(p = strrchr ((buf[n] = '\0', buf), ')')))
        return -1;
    for (p++; *p && field < last; p++) {
        if (*p != ' ')
            continue;
        field++;
        v[field] =
            field == 3 ? (long long)(unsigned char)p[1] : strtoll (p + 1, NULL, 10);
    }
    return field == last ? 0 : -1;
}

void util_short_hostname (char *buf, int len)
{
    char *dot;
    if (gethostname (buf, len) < 0 || buf[0] == '\0')
        snprintf (buf, len, "localhost");
    buf[len - 1] = '\0';
    if ((dot = strchr (buf, '.')))
        *dot = '\0';
}

int util_parse_bool (const char *s, int *out)
{
    static const char *yes[] = { "true", "t", "1", "yes", "y", NULL };
    static const char *no[] = { "false", "f", "0", "no", "n", NULL };

    for (int i = 0; yes[i]; i++)
        if (strcasecmp (s, yes[i]) == 0)
            return *out = 1, 0;
    for (int i = 0; no[i]; i++)
        if (strcasecmp (s, no[i]) == 0)
            return *out = 0, 0;
    errno = EINVAL;
    return -1;
}

int util_parse_long (const char *s, long min, long max, long *v)
{
    char *end;
    long x;

    errno = 0;
    x = strtol (s, &end, 10);
    if (end == s || *end || (errno && errno != ERANGE)) {
        errno = EINVAL;
        return -1;
    }
    if (errno == ERANGE || x < min || x > max) {
        errno = ERANGE;
        return -1;
    }
    *v = x;
    return 0;
}

int util_parse_double (const char *s, double min, double max, double *v)
{
    char *end;
    double x;

    errno = 0;
    x = strtod (s, &end);
    if (end == s || *end || isnan (x)) {
        errno = EINVAL;
        return -1;
    }
    if (errno == ERANGE || !isfinite (x) || x < min || x > max) {
        errno = ERANGE;
        return -1;
    }
    *v = x;
    return 0;
}

/* The length of the control character at s (1, or 2 for a UTF-8 C1), or 0. */
static int ctl_len (const unsigned char *s)
{
    if (*s < 0x20 || *s == 0x7f)
        return 1;
    if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
        return 2;
    return 0;
}

int util_has_ctl (const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (ctl_len (p))
            return 1;
    return 0;
}

char *util_escape_ctl (const char *s)
{
    char *out = xzalloc (strlen (s) * 4 + 1), *o = out;
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        int k = ctl_len (p);
        if (!k)
            *o++ = (char)*p++;
        else if (*p == '\n' || *p == '\t' || *p == '\r') {
            *o++ = '\\';
            *o++ = *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r';
            p++;
        } else {
            /* a C1 shows as its second byte, \x9b for U+009B */
            o += sprintf (o, "\\x%02x", p[k - 1]);
            p += k;
        }
    }
    *o = '\0';
    return out;
}

/* The length of the UTF-8 sequence at p, or 0 if it is malformed. */
static int utf8_seq (const unsigned char *p)
{
    int n, i;
    unsigned cp;

    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2, cp = p[0] & 0x1f;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, cp = p[0] & 0x0f;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, cp = p[0] & 0x07;
    else
        return 0;
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
        || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

long util_utf8_invalid (const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    int n;

    while (*p) {
        if (!(n = utf8_seq (p)))
            return (long)(p - (const unsigned char *)s);
        p += n;
    }
    return -1;
}

void util_format_cpulist (const unsigned char *on, int n, char *buf, size_t len)
{
    size_t o = 0;

    if (len)
        buf[0] = '\0';
    for (int i = 0; i < n && o < len; i++) {
        int last = i;
        if (!on[i])
            continue;
        while (last + 1 < n && on[last + 1])
            last++;
        o += (size_t)(last == i ? snprintf (buf + o, len - o, "%s%d", o ? "," : "", i)
                                : snprintf (buf + o, len - o, "%s%d-%d", o ? "," : "",
                                            i, last));
        i = last;
    }
}

int util_helper_path (const char *beside, const char *installed, char *buf, size_t len)
{
    char self[4096];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);
    char *slash;

    if (n > 0) {
        self[n] = '\0';
        if ((slash = strrchr (self, '/'))) {
            *slash = '\0';
            if ((size_t)snprintf (buf, len, "%s/%s", self, beside) < len
                && access (buf, X_OK) == 0)
                return 0;
        }
    }
    snprintf (buf, len, "%s", installed);
    return access (buf, X_OK);
}

void util_sh_quote (char **buf, size_t *len, const char *s)
{
    size_t need = *len + 4 * strlen (s) + 4;

    *buf = xrealloc (*buf, need);
    (*buf)[(*len)++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy (*buf + *len, "'\\''", 4);
            *len += 4;
        } else
            (*buf)[(*len)++] = *s;
    }
    (*buf)[(*len)++] = '\'';
    (*buf)[(*len)++] = ' ';
    (*buf)[*len] = '\0';
}

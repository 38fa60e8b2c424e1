/* log.c - see log.h */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "common/log.h"
#include "common/util.h"

static int log_threshold = LOG_INFO;
static FILE *log_stream;
static char log_ident[32] = "hpcq";
static char *log_path; /* log_init's file, which log_reopen opens again */

static const char *level_names[] = {
    "emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
};

int log_init (const char *ident, int level, const char *path)
{
    snprintf (log_ident, sizeof (log_ident), "%s", ident);
    log_threshold = level;
    if (path) {
        FILE *f = fopen (path, "a");
        if (!f)
            return -1;
        setvbuf (f, NULL, _IOLBF, 0);
        log_stream = f;
        free (log_path);
        log_path = strdup (path);
    }
    return 0;
}

const char *log_file (void)
{
    return log_path;
}

int log_reopen (void)
{
    FILE *f;

    if (!log_path)
        return 0; /* stderr: whoever started us owns it */
    /* Open the new file before closing the old one: a failure keeps
     * logging where it was. */
    if (!(f = fopen (log_path, "a")))
        return -1;
    setvbuf (f, NULL, _IOLBF, 0);
    if (log_stream && log_stream != stderr)
        fclose (log_stream);
    log_stream = f;
    return 0;
}

int log_get_level (void)
{
    return log_threshold;
}

const char *log_level_name (int level)
{
    return level_names[level & 7];
}

void log_fini (void)
{
    if (log_stream && log_stream != stderr)
        fclose (log_stream);
    log_stream = NULL;
    free (log_path);
    log_path = NULL;
}

int log_fileno (void)
{
    return fileno (log_stream ? log_stream : stderr);
}

void log_set_level (int level)
{
    log_threshold = level;
}

int log_level_parse (const char *name)
{
    for (int i = 0; i < (int)ARRAY_SIZE (level_names); i++)
        if (strcmp (name, level_names[i]) == 0)
            return i;
    return -1;
}

static void log_vmsg (int level, const char *suffix, const char *fmt, va_list ap)
{
    FILE *f = log_stream ? log_stream : stderr;
    struct timeval tv;
    struct tm tm;
    char stamp[32];

    gettimeofday (&tv, NULL);
    localtime_r (&tv.tv_sec, &tm);
    strftime (stamp, sizeof (stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf (f, "%s.%03ld %s[%s]: ", stamp, (long)tv.tv_usec / 1000, log_ident,
             level_names[level & 7]);
    vfprintf (f, fmt, ap);
    if (suffix)
        fprintf (f, ": %s", suffix);
    fputc ('\n', f);
    fflush (f);
}

void log_msg (int level, const char *fmt, ...)
{
    va_list ap;

    if (level > log_threshold)
        return;
    va_start (ap, fmt);
    log_vmsg (level, NULL, fmt, ap);
    va_end (ap);
}

void log_error (const char *fmt, ...)
{
    int saved = errno;
    va_list ap;

    if (LOG_ERR <= log_threshold) {
        va_start (ap, fmt);
        log_vmsg (LOG_ERR, strerror (saved), fmt, ap);
        va_end (ap);
    }
    errno = saved;
}

/* html.c - see html.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scheduler/web/html.h"

void html_text (FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '&': fputs ("&amp;", f); break;
        case '<': fputs ("&lt;", f); break;
        case '>': fputs ("&gt;", f); break;
        case '"': fputs ("&quot;", f); break;
        case '\'': fputs ("&#39;", f); break;
        default: putc (*s, f);
        }
}

void html_url (FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
            || strchr ("-._~", c))
            putc (c, f);
        else
            fprintf (f, "%%%02X", c);
    }
}

char *html_iso_time (int64_t secs, char *buf, size_t len)
{
    time_t t = (time_t)secs;
    struct tm tm;
    long off;
    size_t n;

    buf[0] = '\0';
    if (secs <= 0 || !localtime_r (&t, &tm))
        return buf;
    n = strftime (buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    off = tm.tm_gmtoff / 60;
    snprintf (buf + n, len - n, "%c%02ld:%02ld", off < 0 ? '-' : '+', labs (off) / 60,
              labs (off) % 60);
    return buf;
}

void html_time (FILE *f, int64_t secs)
{
    char iso[48];

    if (secs <= 0)
        return;
    html_iso_time (secs, iso, sizeof (iso));
    fprintf (f, "<time datetime=\"%s\">%s</time>", iso, iso);
}

void html_duration (FILE *f, int64_t secs)
{
    if (secs < 0)
        return;
    if (secs >= 86400)
        fprintf (f, "%lld+", (long long)(secs / 86400));
    fprintf (f, "%02lld:%02lld:%02lld", (long long)(secs % 86400 / 3600),
             (long long)(secs % 3600 / 60), (long long)(secs % 60));
}

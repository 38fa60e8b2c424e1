/* error.c - see error.h */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/error.h"

int errprintf_code (struct hpcq_error *err, int errnum, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (err->text, sizeof (err->text), fmt, ap);
        va_end (ap);
    }
    errno = errnum;
    return -1;
}

int errprintf (struct hpcq_error *err, const char *fmt, ...)
{
    int saved = errno ? errno : EINVAL;

    if (err) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (err->text, sizeof (err->text), fmt, ap);
        va_end (ap);
    }
    errno = saved;
    return -1;
}

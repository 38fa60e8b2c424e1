/* error.h - error reports that carry a message for a person.
 *
 * Functions that can fail return -1 (or NULL) with errno set; where the
 * caller needs to tell a person what went wrong they also take an optional
 * struct hpcq_error and fill it with one lowercase line, git-style:
 *
 *     return errprintf (err, "invalid walltime '%s'", s);
 */
#ifndef HPCQ_COMMON_ERROR_H
#define HPCQ_COMMON_ERROR_H

#define HPCQ_ERRMSG_MAX 256

struct hpcq_error {
    char text[HPCQ_ERRMSG_MAX];
};

/* Format a message into err (if not NULL).  Returns -1 and leaves errno
 * as it was, or EINVAL where errno was 0, so it can end a failing function.
 */
int errprintf (struct hpcq_error *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Like errprintf, but always sets errno to errnum: for parsers, whose
 * failures have one meaning (EINVAL, EPROTO) whatever errno held before. */
int errprintf_code (struct hpcq_error *err, int errnum, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

#endif

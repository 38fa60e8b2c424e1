/* util.h - small helpers every program uses: checked allocation, time. */
#ifndef HPCQ_COMMON_UTIL_H
#define HPCQ_COMMON_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The number of elements of an array (not a pointer). */
#define ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))

/* Allocation that aborts on failure, where running out of memory leaves
 * nothing sensible to do: the CLI, start-up, and the daemons' small
 * bookkeeping (a record, a few pointers).  Large or client-sized buffers
 * use malloc and handle failure. */
void *xzalloc (size_t n);
void *xrealloc (void *p, size_t n);
char *xstrdup (const char *s);

/* For the command-line programs: "PROGRAM: message" on stderr, then exit
 * with code. */
void util_die (int code, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3), noreturn));

/* s, all of it, as a base-10 integer in [min, max]: no blanks, no text
 * after it.  0, or -1 with errno EINVAL (and *out untouched).  The
 * callers say what was wrong in their own words. */
int util_parse_i64 (const char *s, int64_t min, int64_t max, int64_t *out);
int util_parse_int (const char *s, int min, int max, int *out);

/* The offset of the first byte of s (NUL-terminated) that is not part of
 * well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code
 * points past U+10FFFF), or -1 when there is none. */
long util_utf8_invalid (const char *s);

/* Monotonic and wall clocks in milliseconds / seconds. */
int64_t util_now_ms (void);
int64_t util_now_us (void); /* monotonic, for durations */
int64_t util_wall_secs (void);

/* "Sun Nov 29 15:43:31 2026", as PBS prints times; buf >= 32. */
void util_format_ctime (int64_t secs, char *buf, int len);

/* Read a whole file (or fd) into a NUL-terminated buffer the caller frees.
 * Returns NULL with errno; EFBIG past max bytes. */
char *util_read_file (const char *path, size_t max, size_t *lenp);
char *util_read_fd (int fd, size_t max, size_t *lenp);

/* A helper program's path into buf: beside (relative to this program's
 * own folder: a build tree, "../worker/hpcq-stepd") if it is there and
 * executable, else installed.  0 if the one chosen is executable, else -1
 * with errno. */
int util_helper_path (const char *beside, const char *installed, char *buf, size_t len);

/* Write all of buf to fd, retrying on EINTR.  Returns 0 or -1. */
int util_write_all (int fd, const void *buf, size_t len);

/* fsync a directory, so a rename into it is durable.  Returns 0 or -1. */
int util_fsync_dir (const char *dir);

/* Make a directory and its parents (mode 0700 for new ones).  0 or -1. */
int util_mkdir_p (const char *path);

/* Fields 3..last (numbered as in proc(5): 3 state, 6 session, 14 utime,
 * 22 starttime; last <= 52) of /proc/PID/stat as numbers into v[3..last]
 * (the state letter as its character code).  0, or -1 if the process is
 * gone or its line unreadable. */
int util_proc_stat (int pid, long long *v, int last);

/* The same with mode for new ones (exactly: the umask does not apply).
 * Folders that exist are left as they are.  0 or -1. */
int util_mkdir_mode (const char *path, mode_t mode);

/* 1 if user is in the comma-separated list of user names (an entry
 * "user@host" counts by its user part), else 0.  list may be NULL. */
int util_user_listed (const char *list, const char *user);

/* Short host name (up to the first dot) into buf. */
void util_short_hostname (char *buf, int len);

/* PBS's boolean words: true/t/1/yes/y and false/f/0/no/n, any case.
 * 0 with *out set, or -1 (EINVAL) for anything else. */
int util_parse_bool (const char *s, int *out);

/* Whole-string numbers, for option parsers: s must be a decimal number
 * and nothing else, within [min, max] (a double also finite).  Return 0
 * with *v set, or -1 with errno EINVAL (not a number) or ERANGE. */
int util_parse_long (const char *s, long min, long max, long *v);
int util_parse_double (const char *s, double min, double max, double *v);

/* s as a terminal or a report may show it: control characters (C0, DEL
 * and, in UTF-8, C1) written as \n, \t, \r or \xHH, so no user's text
 * can move the cursor, retitle a window or begin a row of its own.  A new
 * string, the caller's to free. */
char *util_escape_ctl (const char *s);
/* 1 if s holds such a character. */
int util_has_ctl (const char *s);

/* The indices i < n with on[i] set, as a cpuset list ("0-3,8,10-11") in
 * buf ("" for none; a list that does not fit is cut). */
void util_format_cpulist (const unsigned char *on, int n, char *buf, size_t len);

/* s quoted for sh and a space, appended to *buf (malloc'ed, of length
 * *len; both start as NULL and 0). */
void util_sh_quote (char **buf, size_t *len, const char *s);

#endif

/* log.h - daemon logging: one line per event, timestamped, to stderr or a file.
 *
 * Levels are syslog's (LOG_ERR .. LOG_DEBUG); the level is checked before
 * anything is formatted so debug calls cost nothing when off.
 */
#ifndef HPCQ_COMMON_LOG_H
#define HPCQ_COMMON_LOG_H

#include <syslog.h>

/* ident prefixes each line; path NULL means stderr.  Returns 0 or -1. */
int log_init (const char *ident, int level, const char *path);
void log_fini (void);
void log_set_level (int level);
int log_get_level (void);
const char *log_level_name (int level); /* LOG_DEBUG -> "debug" */

/* Open log_init's file again (after logrotate renamed it: SIGHUP).  0,
 * or -1 with errno, logging on where it did.  0 when logging to stderr. */
int log_reopen (void);
/* log_init's file, or NULL for stderr (borrowed). */
const char *log_file (void);
/* The descriptor the log writes to (a child that closes the others keeps it). */
int log_fileno (void);
int log_level_parse (const char *name); /* "debug" -> LOG_DEBUG, -1 if unknown */

void log_msg (int level, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Like log_msg (LOG_ERR, ...) with ": strerror(errno)" appended; keeps errno. */
void log_error (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

#endif

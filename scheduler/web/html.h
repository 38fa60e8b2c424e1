/* html.h - writing HTML text safely, for the pages the scheduler renders
 * (statuspage.h): every value from a job, a node or a request goes out
 * through html_text or html_url, so nothing a user typed (a job name, a
 * comment) is ever read by a browser as markup.  Times go out one way
 * everywhere: ISO 8601 in the scheduler's local time with its offset
 * ("2026-12-01T18:15:27+01:00"), durations as PBS writes them (HH:MM:SS).
 */
#ifndef HPCQ_SCHEDULER_WEB_HTML_H
#define HPCQ_SCHEDULER_WEB_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* s (NULL: nothing) with & < > " ' as character references: safe both
 * as text and inside a quoted attribute. */
void html_text (FILE *f, const char *s);

/* s percent-encoded for a query value (all but A-Z a-z 0-9 - . _ ~). */
void html_url (FILE *f, const char *s);

/* secs since the epoch as ISO 8601, local time with its offset, into buf
 * ("" for secs <= 0).  Returns buf. */
char *html_iso_time (int64_t secs, char *buf, size_t len);

/* <time datetime="ISO">ISO</time>, nothing for secs <= 0. */
void html_time (FILE *f, int64_t secs);

/* secs as [D+]HH:MM:SS, as PBS shows walltime; nothing for secs < 0. */
void html_duration (FILE *f, int64_t secs);

#endif

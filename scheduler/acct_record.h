/* acct_record.h - one line of the accounting log, as PBS Pro writes it.
 *
 *   MM/DD/YYYY HH:MM:SS;TYPE;ID;key=value key=value ...
 *
 * (local time; OpenPBS src/server/accounting.c, write_account_record).  The
 * keys and their order are PBS Pro's: user group [account] jobname queue
 * ctime qtime etime [start] [array_indices | exec_host exec_vnode]
 * Resource_List.* and, for E and R records, session end Exit_status
 * resources_used.* run_count.  Times are seconds since the epoch,
 * durations HH:MM:SS, sizes with lowercase units (resources_used.mem in
 * kb, as PBS reports it).  A value with a space is quoted ("..." or '...'
 * when it holds a double quote), as PBS's cpy_quote_value does; account
 * is always quoted, as PBS writes it.  docs/accounting.md lists every
 * field and which tools read which.
 *
 * Pure formatting: no database, no files (scheduler/accounting.h writes).
 */
#ifndef HPCQ_SCHEDULER_ACCT_RECORD_H
#define HPCQ_SCHEDULER_ACCT_RECORD_H

#include <stdint.h>

#include "common/resource.h"

/* PBS Pro's record types (its acct.h) that hpcq writes. */
enum {
    ACCT_QUEUED = 'Q',  /* submitted */
    ACCT_STARTED = 'S', /* an attempt started */
    ACCT_ENDED = 'E',   /* the job ended (usage) */
    ACCT_DELETED = 'D', /* deleted by request (requestor=) */
    ACCT_RERUN = 'R',   /* an attempt ended and the job was queued again */
    ACCT_ABORTED = 'A', /* aborted by the server (its node was lost) */
};

/* What a record says.  Strings may be NULL (left out); times 0 are left
 * out only where PBS leaves them out (start before S, end before E). */
struct acct_fields {
    char type;
    int64_t time;     /* when it happened: the line's stamp */
    const char *id;   /* "42.server", "7[3].server", "7[].server" */
    const char *text; /* D and A: the whole message instead */
    const char *user, *group, *account, *jobname, *queue;
    const char *project; /* qsub -P, NULL if not given */
    int64_t ctime, qtime, etime, start, end;
    const char *array_indices; /* an array: its range (instead of hosts) */
    const char *exec_host, *exec_vnode;
    const struct hpcq_resources *res; /* Resource_List.*, NULL: none */
    /* E and R: */
    int64_t session;
    int exit_status;
    int64_t cput, walltime; /* seconds */
    int64_t mem;            /* bytes */
    /* GPU usage of the attempt (gpu_seconds 0: none reported). */
    int64_t gpu_seconds, gpu_mem_peak;
    double gpu_util, gpu_energy_j;
    int ncpus;
    int run_count;
};

/* The line for f, without its newline, in a new buffer (caller frees);
 * NULL with errno on ENOMEM.  Newlines and semicolons inside values would
 * break the line's framing: they become spaces. */
char *acct_record_format (const struct acct_fields *f);

/* "YYYYMMDD" of t in local time: the name of its day's file (buf >= 9). */
void acct_record_day (int64_t t, char *buf, int len);

#endif

/* stage.h - PBS Pro's file staging lists (qsub -W stagein=, stageout=).
 *
 * A list is "local@host:remote[,local@host:remote...]": stagein copies
 * each remote file to local before the job runs, stageout each local file
 * to remote after it (PBS Pro's qsub(1B)).  hpcq's hosts share their file
 * systems (as -o host:path assumes), so the host names the submit host and
 * the copy is a local one, made by the worker as the job's owner; a
 * relative local path is the job's working directory's, a relative remote
 * path the submission directory's.  This is the pure part: parsing.
 */
#ifndef HPCQ_COMMON_STAGE_H
#define HPCQ_COMMON_STAGE_H

#include <stddef.h>

#include "common/error.h"

#define STAGE_MAX 64 /* files in one list */

struct stage_file {
    char local[1024];
    char host[256];
    char remote[1024];
};

/* Split list into at most max entries of out.  The count, or -1 with err
 * (EINVAL) naming what is wrong: a missing '@' or ':', an empty path, too
 * many files. */
int stage_parse (const char *list, struct stage_file *out, int max,
                 struct hpcq_error *err);

#endif

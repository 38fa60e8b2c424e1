/* qstat_alt.h - qstat's alternate job views (-a, -i, -r, -n, -s, -T, -J),
 * in PBS Pro's layout (OpenPBS src/cmds/qstat.c, altdsp_statjob; the
 * PBS Professional Reference Guide, qstat, "Alternate Display").
 *
 * The jobs come as their full attribute sets (job.stat), chunk by chunk,
 * and each chunk is printed as it arrives.
 */
#ifndef HPCQ_CLI_QSTAT_ALT_H
#define HPCQ_CLI_QSTAT_ALT_H

#include <jansson.h>

struct qstat_view {
    int alt;           /* -a, -i, -r, -n, -s or -T: the alternate table */
    int nodes;         /* -n: exec hosts under each job (on its line with -1) */
    int oneline;       /* -1 */
    int comment;       /* -s: the comment under each job */
    int est;           /* -T: estimated start instead of elapsed time */
    int wide;          /* -w */
    int running;       /* -r: running and suspended jobs only */
    int idle;          /* -i: queued, held and waiting jobs only */
    int arrays;        /* -J: job arrays (and with -t their subjobs) only */
    int only_finished; /* -H */
};

/* 1 if the options ask for a view of this module. */
int qstat_view_wanted (const struct qstat_view *v);

/* Ask job.stat with body (taken) and print the jobs in view v; the
 * unknown and finished ids of the first reply go to missing (a new
 * reference, or NULL).  Exits with a message on a failed request. */
void qstat_view_show (const struct qstat_view *v, json_t *body, json_t **missing);

#endif

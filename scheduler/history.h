/* history.h - how long finished jobs stay in the scheduler's memory.
 *
 * PBS Pro's server attributes job_history_enable and job_history_duration
 * (config keys here): qstat -x shows finished jobs for that long (default
 * 336:00:00, PBS's two weeks); after it they leave memory and are found in
 * the database (tracejob, hpcq-report) and the accounting log only.  So
 * the scheduler's memory is bounded by its active jobs and the window, not
 * by every job it ever ran.  With job_history_enable = false a finished
 * job leaves memory at once (unlike PBS Pro, whose default is false, hpcq
 * keeps history by default: workflow tools read qstat -x).  A restarted
 * scheduler loads only the window.
 */
#ifndef HPCQ_SCHEDULER_HISTORY_H
#define HPCQ_SCHEDULER_HISTORY_H

#include <stdint.h>

#include "common/error.h"
#include "scheduler/server.h"

struct history;

/* Read the settings and start the purge timer.  NULL with err. */
struct history *history_create (struct server *srv, struct hpcq_error *err);
void history_destroy (struct history *h);

/* Jobs that finished before this (seconds) are no longer kept. */
int64_t history_cutoff (const struct history *h);

/* Purge now (the timer does it every so often).  Returns how many left. */
int history_purge (struct history *h);

#endif

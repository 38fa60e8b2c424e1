/* queue_limits.h - a queue's resource lists: resources_max and
 * resources_default, as qmgr writes them ("walltime=24:00:00,ncpus=8,
 * mem=4gb,ngpus=1") and the database stores them.
 */
#ifndef HPCQ_SCHEDULER_QUEUE_LIMITS_H
#define HPCQ_SCHEDULER_QUEUE_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* A resource list a queue limits or defaults; -1 = not set. */
struct queue_limits {
    int64_t walltime;
    int64_t mem;
    int ncpus;
    int ngpus;
};

/* Nothing set. */
extern const struct queue_limits queue_limits_none;

/* The resources a list may name, in the order of their index: walltime,
 * mem, ncpus, ngpus; NULL after the last. */
extern const char *const queue_limits_names[];

/* name's index (any case), or -1. */
int queue_limits_index (const char *name);

/* Set (from value, PBS's forms) or unset resource which of l.  0, or -1
 * with err. */
int queue_limits_set (struct queue_limits *l, int which, const char *value,
                      struct hpcq_error *err);
void queue_limits_unset (struct queue_limits *l, int which);

/* One limit as text into buf; 0 if it is not set, else 1. */
int queue_limits_format (const struct queue_limits *l, int which, char *buf, int len);

/* The whole list as text into buf (0, or -1 with ENOSPC), and back: l set
 * from text (0, or -1 with err on a malformed list or resource). */
int queue_limits_to_text (const struct queue_limits *l, char *buf, size_t len);
int queue_limits_from_text (const char *text, struct queue_limits *l,
                            struct hpcq_error *err);

#endif

/* job_state.h - the job state machine: PBS's states and the legal moves
 * between them.
 *
 * A job's state (job->rec.state) is one of PBS's letters: Q queued, H held,
 * W waiting for its start time, R running, E exiting, F finished, and S
 * suspended (preemption's S, qsig -s suspend: stopped, its resources lent
 * to others, to resume where it was).  An
 * array shows B once a subjob has begun; B is a display state, never
 * stored.  Each change is caused by an event (submitted, started, ...) and
 * is legal only if the table in job_state.c lists it for that event: the
 * same event may lead to different states (a release ends in Q, or in H
 * while other holds remain), and an array, which never runs itself, has
 * moves of its own.
 *
 * The daemon changes states only through scheduler/lifecycle.h, which
 * writes each change through with its event; hpcq-sim, which has no
 * database, uses job_state_set directly.  Nothing else writes the state.
 */
#ifndef HPCQ_SCHEDULER_POLICY_JOB_STATE_H
#define HPCQ_SCHEDULER_POLICY_JOB_STATE_H

struct job;

/* The state of a job being created, before its submission is recorded. */
#define JOB_STATE_NEW '\0'

/* What caused a change; job_event_name() is how the events table and
 * tracejob-style views spell it. */
enum job_event {
    JOB_EV_SUBMITTED,
    JOB_EV_HELD,
    JOB_EV_RELEASED,
    JOB_EV_DEPENDENCY_FAILED,
    JOB_EV_ALTERED,
    JOB_EV_ELIGIBLE, /* W: its -a time came */
    JOB_EV_STARTED,
    JOB_EV_DELETED,
    JOB_EV_FINISHED,
    JOB_EV_REQUEUED,
    JOB_EV_SUSPENDED,
    JOB_EV_RESUMED,
    /* Checkpoints (ckpt.h): events of a running job that leave its state
     * as it is, so a job's history shows them in order with the rest. */
    JOB_EV_CHECKPOINT_REQUESTED, /* the checkpoint signal went */
    JOB_EV_CHECKPOINTED,         /* its worker reported one complete */
    JOB_EV_CHECKPOINT_MISSED,    /* none came within checkpoint_grace */
    JOB_EV_COUNT
};

/* Which kind of job a row of the table applies to. */
enum {
    JOB_KIND_JOB = 1,   /* a job or an array's subjob: it runs */
    JOB_KIND_ARRAY = 2, /* an array: it never runs itself */
};

struct job_transition {
    char from, to; /* JOB_STATE_NEW as from: the submission */
    enum job_event event;
    int kinds; /* JOB_KIND_* bits */
};

/* The event's name ("started"); "?" if out of range. */
const char *job_event_name (enum job_event ev);

/* The whole table (tests walk it); *n rows. */
const struct job_transition *job_state_table (int *n);

/* 1 if ev may take a job of kind (JOB_KIND_JOB or JOB_KIND_ARRAY) from
 * state from to state to, else 0. */
int job_state_legal (char from, char to, enum job_event ev, int kind);

/* Change job's state to `to` because of ev, caused by actor (a user, a
 * node, "scheduler"), if the table allows it.  An illegal change is a bug:
 * it is logged at LOG_ERR with the job, both states, the event, the actor
 * and caller (the C function that asked), the state stays as it was, and
 * -1 is returned with errno EINVAL.  0 on success.  Memory only: the daemon
 * calls this through lifecycle.h, which writes the change through. */
int job_state_set (struct job *job, char to, enum job_event ev, const char *actor,
                   const char *caller);

/* job_state_set's check alone: 0 if legal, else the same log line and -1
 * with EINVAL.  For changes that must be refused before their side effects
 * (an allocation, an attempt record) are made. */
int job_state_check (const struct job *job, char to, enum job_event ev,
                     const char *actor, const char *caller);

/* The state qstat shows: 'B' for an array some of whose subjobs have begun
 * (run or finished), else the state itself. */
char job_state_display (const struct job *job);

#endif

/* spotcost.h - spot or on-demand, by expected cost.  Pure functions of
 * numbers, shared by the scheduler (scheduler/spot_choice.c) and the
 * simulator, and checked against hand-worked cases.
 *
 * A job of W seconds of work on a node class whose interruptions come at
 * rate 1/M (exponential, the model Young/Daly assume) takes, expected:
 *
 *   without checkpoints (every interruption loses all it did, and a
 *   restart costs R):        E = (M + R) (e^(W/M) - 1)
 *   with checkpoints of cost C every T seconds of work (T from Young/Daly,
 *   policy/cadence.h), Daly's expected wall time (Daly 2006, eq. 12):
 *                            E = M e^(R/M) (e^((T + C)/M) - 1) W / T
 *
 * Its expected cost on a class is price x E; on-demand nodes are taken as
 * not interrupted (E = W).  The job goes where the expected cost is lower.
 * Recent reclaims of a class weigh on top of its long-run M: each counts
 * e^(-age ln2 / halflife) and M is divided by 1 + that sum, so a class
 * that was just reclaimed looks as flaky as it is now, and its record
 * fades back to the long-run M.
 */
#ifndef HPCQ_SCHEDULER_POLICY_SPOTCOST_H
#define HPCQ_SCHEDULER_POLICY_SPOTCOST_H

#include "common/resource.h" /* enum res_spot_want: what -l spot= asks */

struct spotcost_in {
    double work;           /* W: seconds of work (its walltime), > 0 */
    double mtbi;           /* M of the spot class, seconds */
    double ckpt_cost;      /* C, seconds; < 0: the job does not checkpoint */
    double restart_cost;   /* R, seconds */
    double spot_price;     /* per hour */
    double ondemand_price; /* per hour */
    double recent;         /* decayed count of the class's recent reclaims */
    int reclaims;          /* of this job so far */
    int max_reclaims;      /* spot_max_reclaims (0: no limit) */
    enum res_spot_want want;
};

struct spotcost_out {
    int spot;             /* 1: spot nodes first, 0: on-demand first */
    int hard;             /* 1: only that kind (require, never, max reclaims) */
    double spot_time;     /* E on spot, seconds */
    double spot_cost;     /* price x E on spot */
    double ondemand_cost; /* price x W */
    double interval;      /* T with checkpoints, 0 without */
    double mtbi;          /* the M used (recent reclaims included) */
    char why[200];        /* the decision and its numbers, for people */
};

/* E without checkpoints, (M + R) (e^(W/M) - 1); W if M <= 0 (never
 * interrupted).  Seconds. */
double spotcost_time_restart (double work, double mtbi, double restart);

/* E with checkpoints of cost C every T (Daly); W + (W / T) C if M <= 0. */
double spotcost_time_checkpoint (double work, double mtbi, double cost, double interval,
                                 double restart);

/* The decayed count of reclaims age[0..n) seconds ago. */
double spotcost_recent (const double *age, int n, double halflife);

/* The decision for one job (out filled, why included). */
void spotcost_decide (const struct spotcost_in *in, struct spotcost_out *out);

#endif

/* cadence.h - how often to checkpoint: Young/Daly, and the mean time
 * between interruptions it needs.  Pure functions of numbers, so the
 * scheduler (ckpt.c), the simulator and the unit tests use the same code.
 *
 * Young (1974): with checkpoint cost C and mean time between
 * interruptions M, the compute time between checkpoints that loses the
 * least work is about sqrt(2 C M).  Daly (2006, "A higher order estimate of
 * the optimum checkpoint interval for restart dumps", Future Generation
 * Computer Systems 22) corrects it for costs that are not small next to M:
 *
 *     T = sqrt(2 C M) [1 + 1/3 sqrt(C / 2M) + 1/9 (C / 2M)] - C    C < 2M
 *     T = M                                                         C >= 2M
 *
 * M comes from the history of a node class: a prior of mtbi_prior seconds
 * counted as one interruption's worth of evidence, plus the node-seconds
 * the class's nodes were up and the interruptions they had,
 *
 *     M = (prior + exposure) / (1 + interruptions)
 *
 * so a class with no history has M = prior, and M follows the data as it
 * grows (the mean of a gamma posterior on the interruption rate, Young's
 * M being that rate's inverse).  A job on several nodes is interrupted when
 * any of them is: its M is 1 / sum (1 / M_node).
 */
#ifndef HPCQ_SCHEDULER_POLICY_CADENCE_H
#define HPCQ_SCHEDULER_POLICY_CADENCE_H

/* Young's first-order interval sqrt(2 C M), seconds.  0 if C or M <= 0. */
double cadence_young (double cost, double mtbi);

/* Daly's higher-order interval (above), seconds.  0 if C or M <= 0. */
double cadence_young_daly (double cost, double mtbi);

/* A node class's mean time between interruptions, seconds: prior, up
 * node-seconds and interruptions as above. */
double cadence_mtbi (double prior, double exposure, long interruptions);

/* The M of a job on n nodes of these M's: 1 / sum (1 / m[i]).  0 if n is 0
 * or an m[i] is not positive. */
double cadence_mtbi_combined (const double *m, int n);

/* t within [lo, hi] (hi <= 0: no upper bound). */
double cadence_bound (double t, double lo, double hi);

/* The median of v[0..n) (n > 0; v is reordered), the mean of the middle
 * two for even n.  0 for n = 0. */
double cadence_median (double *v, int n);

#endif

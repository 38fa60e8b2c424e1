/* spotcost.c - see spotcost.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scheduler/policy/cadence.h"
#include "scheduler/policy/spotcost.h"

/* Beyond this e^(W/M) the expected time is "for ever" (no double
 * overflow, and no spot node is worth it). */
#define EXP_MAX 700.0

double spotcost_time_restart (double work, double mtbi, double restart)
{
    if (mtbi <= 0)
        return work;
    if (work / mtbi > EXP_MAX)
        return HUGE_VAL;
    return (mtbi + restart) * expm1 (work / mtbi);
}

double spotcost_time_checkpoint (double work, double mtbi, double cost, double interval,
                                 double restart)
{
    if (interval <= 0)
        return spotcost_time_restart (work, mtbi, restart);
    if (mtbi <= 0)
        return work + work / interval * cost;
    if ((interval + cost) / mtbi > EXP_MAX)
        return HUGE_VAL;
    return mtbi * exp (restart / mtbi) * expm1 ((interval + cost) / mtbi) * work
           / interval;
}

double spotcost_recent (const double *age, int n, double halflife)
{
    double sum = 0;

    for (int i = 0; i < n && halflife > 0; i++)
        if (age[i] >= 0)
            sum += exp (-age[i] * M_LN2 / halflife);
    return sum;
}

static void hard (struct spotcost_out *out, int spot, const char *why)
{
    out->spot = spot;
    out->hard = 1;
    snprintf (out->why, sizeof (out->why), "%s", why);
}

void spotcost_decide (const struct spotcost_in *in, struct spotcost_out *out)
{
    double m = in->mtbi > 0 ? in->mtbi / (1 + (in->recent > 0 ? in->recent : 0)) : 0;
    int ck = in->ckpt_cost >= 0;

    memset (out, 0, sizeof (*out));
    out->mtbi = m;
    out->interval = ck && m > 0 ? cadence_young_daly (in->ckpt_cost, m) : 0;
    out->spot_time = ck ? spotcost_time_checkpoint (in->work, m, in->ckpt_cost,
                                                    out->interval, in->restart_cost)
                        : spotcost_time_restart (in->work, m, in->restart_cost);
    out->spot_cost = in->spot_price * out->spot_time / 3600;
    out->ondemand_cost = in->ondemand_price * in->work / 3600;
    switch (in->want) {
    case RES_SPOT_REQUIRE: hard (out, 1, "spot: -l spot=require"); return;
    case RES_SPOT_NEVER: hard (out, 0, "on-demand: -l spot=never"); return;
    default: break;
    }
    if (in->max_reclaims > 0 && in->reclaims >= in->max_reclaims) {
        hard (out, 0, "");
        snprintf (out->why, sizeof (out->why),
                  "on-demand: reclaimed %d times (spot_max_reclaims %d)", in->reclaims,
                  in->max_reclaims);
        return;
    }
    if (in->want == RES_SPOT_PREFER || in->want == RES_SPOT_AVOID) {
        out->spot = in->want == RES_SPOT_PREFER;
        snprintf (out->why, sizeof (out->why), "%s first: -l spot=%s",
                  out->spot ? "spot" : "on-demand", out->spot ? "prefer" : "avoid");
        return;
    }
    out->spot = out->spot_cost < out->ondemand_cost;
    snprintf (out->why, sizeof (out->why),
              "%s: expected cost on spot %.4g (%.4g h at %.4g/h: M %.0f s%s, %s) %s "
              "on-demand %.4g (%.4g h at %.4g/h)",
              out->spot ? "spot" : "on-demand", out->spot_cost, out->spot_time / 3600,
              in->spot_price, m, in->recent > 0.01 ? " after recent reclaims" : "",
              ck ? "checkpoints" : "no checkpoints",
              out->spot ? "<" : ">=", out->ondemand_cost, in->work / 3600,
              in->ondemand_price);
}

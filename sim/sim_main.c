/* sim_main.c - hpcq-sim: replay a workload through the scheduler's own
 * policies in virtual time (see docs/man1/hpcq-sim.1).
 *
 * Only wiring: options, the cluster's size, then for each policy named a
 * replay (sim_engine), and the reports (sim_report).  With interruptions
 * (spot reclaims, failures: sim_interrupt.h) each policy is replayed
 * once with nothing interrupted on on-demand nodes (the baseline the
 * cost is compared with), then once per scenario and checkpoint policy.
 */
#include <config.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cliopt.h"
#include "common/resource.h"
#include "common/util.h"
#include "scheduler/node.h"
#include "scheduler/policy/place.h"
#include "scheduler/policy/policy.h"
#include "sim/sim_engine.h"
#include "sim/sim_interrupt.h"
#include "sim/sim_report.h"
#include "sim/sim_trace.h"

#define MAX_POLICIES 8
#define MAX_CKPTS 8
/* Nodes the largest job of an SWF trace spans when the node size is left
 * to hpcq-sim: few enough that a replay stays quick (a job may hold any
 * number of nodes; this only picks the nodes' size). */
#define SIM_JOB_NODES 64

struct options {
    const char *trace;
    int gpu_format;
    struct sim_cluster cluster;
    const char *policies;
    int json_stdout;
    const char *json_path, *png_path, *jobs_path;
    int limit;
    /* Interruptions: the scenario the options describe (or the AWS
     * buckets' with --scenarios aws), under each checkpoint policy. */
    int interrupts;
    struct sim_scenario sc;
    struct sim_scenario scen[8]; /* the runs' scenarios (their names too) */
    const char *spot;            /* --spot N or P%, NULL: every node */
    const char *reclaim_trace;
    int aws;
    const char *ckpts;
};

static const struct option longopts[] = {
    { "nodes", required_argument, NULL, 'n' },
    { "cores", required_argument, NULL, 'c' },
    { "gpus", required_argument, NULL, 'g' },
    { "policy", required_argument, NULL, 'p' },
    { "format", required_argument, NULL, 'F' },
    { "json", required_argument, NULL, 'J' },
    { "png", required_argument, NULL, 'P' },
    { "jobs", required_argument, NULL, 'j' },
    { "limit", required_argument, NULL, 'l' },
    { "gpu-workload", no_argument, NULL, 'G' },
    { "mig-layout", required_argument, NULL, 'M' },
    { "spot", required_argument, NULL, 's' },
    { "reclaim-rate", required_argument, NULL, 'R' },
    { "reclaim-trace", required_argument, NULL, 'T' },
    { "failure-rate", required_argument, NULL, 'f' },
    { "notice", required_argument, NULL, 'N' },
    { "replace", required_argument, NULL, 'r' },
    { "ckpt", required_argument, NULL, 'k' },
    { "ckpt-cost", required_argument, NULL, 'C' },
    { "price-ondemand", required_argument, NULL, 'o' },
    { "price-spot", required_argument, NULL, 'S' },
    { "seed", required_argument, NULL, 'e' },
    { "scenarios", required_argument, NULL, 'a' },
    { "spot-policy", required_argument, NULL, 'Y' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

static void usage (FILE *f)
{
    fprintf (
        f,
        "usage: hpcq-sim [options] TRACE.swf[.gz]\n"
        "       hpcq-sim [options] --gpu-workload --nodes N --cores C FILE\n"
        "  -n, --nodes N        nodes in the cluster (SWF default: from MaxProcs)\n"
        "  -c, --cores C        cores per node\n"
        "  -g, --gpus G         GPUs per node (default 0)\n"
        "  -p, --policy LIST    comma-separated policies (default fifo,easy)\n"
        "  -F, --format FMT     table (default) or json, on stdout\n"
        "      --json FILE      also write the JSON report to FILE\n"
        "      --png FILE       chart of queue length and utilization\n"
        "      --jobs FILE      per-job CSV (policy,id,submit,start,end,cores,gpus)\n"
        "  -l, --limit N        read only the first N jobs\n"
        "  -G, --gpu-workload   FILE is in hpcq's GPU workload format\n"
        "      --mig-layout L   MIG instances of each node's GPUs, as the worker's\n"
        "                       mig_layout (e.g. 0:1g.5gb*7;1:3g.20gb+4g.20gb)\n"
        "interruptions (spot reclaims, failures) and checkpoints:\n"
        "      --spot N|P%%      the first N (or P%%) nodes are spot nodes (default "
        "all)\n"
        "      --reclaim-rate R spot nodes reclaimed per month (0.05 or 5%%)\n"
        "      --reclaim-trace F reclaims at given times: lines TIME NODE\n"
        "      --scenarios aws  one scenario per AWS Spot Instance Advisor bucket\n"
        "                       (<5%%, 5-10%%, 10-15%%, 15-20%%, >20%% a month)\n"
        "      --failure-rate R any node fails, with no notice, R a month\n"
        "      --notice SEC     a reclaim's notice (default 120, AWS's two minutes)\n"
        "      --replace SEC    a node taken away is back after SEC (default 300)\n"
        "      --ckpt LIST      checkpoint policies: none, notice, fixed=SEC,\n"
        "                       young-daly (default none)\n"
        "      --ckpt-cost SEC  what a checkpoint (and a restart) costs a job (60)\n"
        "      --spot-policy P  where jobs go: none (the placement's order), "
        "always-spot,\n"
        "                       always-ondemand, max-reclaims=N, expected-cost\n"
        "      --price-ondemand P, --price-spot P  per node-hour (1, 0.3)\n"
        "      --seed N         of the reclaim and failure times (default 1)\n");
}

static int fail (const char *msg)
{
    fprintf (stderr, "hpcq-sim: %s\n", msg);
    return 1;
}

/* A number of seconds for option name: 0, or -1 with err. */
static int parse_secs (const char *name, const char *v, int64_t min, int64_t *out,
                       struct hpcq_error *err)
{
    if (util_parse_i64 (v, min, INT64_C (1) << 40, out) < 0)
        return errprintf (err, "invalid --%s '%s' (whole seconds from %lld)", name, v,
                          (long long)min);
    return 0;
}

static int parse_price (const char *name, const char *v, double *out,
                        struct hpcq_error *err)
{
    if (util_parse_double (v, 0, 1e9, out) < 0)
        return errprintf (err, "invalid --%s '%s' (a price from 0)", name, v);
    return 0;
}

/* The options of interruptions and checkpoints: 0, or -1 with err. */
static int interrupt_option (struct options *o, int c, struct hpcq_error *err)
{
    struct sim_scenario *sc = &o->sc;
    int64_t v;

    o->interrupts = 1;
    switch (c) {
    case 's': o->spot = optarg; return 0;
    case 'R': return sim_rate_parse (optarg, "--reclaim-rate", &sc->reclaim_rate, err);
    case 'T': o->reclaim_trace = optarg; return 0;
    case 'f': return sim_rate_parse (optarg, "--failure-rate", &sc->failure_rate, err);
    case 'N': return parse_secs ("notice", optarg, 0, &sc->notice, err);
    case 'r': return parse_secs ("replace", optarg, 1, &sc->replace, err);
    case 'k': o->ckpts = optarg; return 0;
    case 'C':
        if (parse_secs ("ckpt-cost", optarg, 0, &v, err) < 0)
            return -1;
        sc->ckpt_cost = (double)v;
        return 0;
    case 'o': return parse_price ("price-ondemand", optarg, &sc->price_ondemand, err);
    case 'S': return parse_price ("price-spot", optarg, &sc->price_spot, err);
    case 'Y':
        return sim_spot_policy_parse (optarg, &sc->spot_policy, &sc->spot_max_reclaims,
                                      err);
    case 'e':
        if (util_parse_i64 (optarg, 0, INT64_MAX, &v) < 0)
            return errprintf (err, "invalid --seed '%s'", optarg);
        sc->seed = (uint64_t)v;
        return 0;
    default: /* 'a' */
        if (strcmp (optarg, "aws") != 0)
            return errprintf (err, "unknown --scenarios '%s' (aws)", optarg);
        o->aws = 1;
        return 0;
    }
}

/* 0, or -1 with err. */
static int parse_options (int argc, char **argv, struct options *o,
                          struct hpcq_error *err)
{
    int c;

    memset (o, 0, sizeof (*o));
    o->policies = "fifo,easy";
    o->ckpts = "none";
    o->sc.notice = 120;
    o->sc.replace = 300;
    o->sc.ckpt_cost = 60;
    o->sc.price_ondemand = 1;
    o->sc.price_spot = 0.3;
    o->sc.seed = 1;
    while ((c = getopt_long (argc, argv, "n:c:g:p:F:l:Gh", longopts, NULL)) != -1) {
        if (c > 0 && strchr ("sRTfNrkCoSeaY", c) && interrupt_option (o, c, err) < 0)
            return -1;
        switch (c) {
        case 'n':
            if (util_parse_int (optarg, 1, 1000000, &o->cluster.nodes) < 0)
                return errprintf (err, "invalid --nodes '%s'", optarg);
            break;
        case 'c':
            if (util_parse_int (optarg, 1, 1000000, &o->cluster.cores) < 0)
                return errprintf (err, "invalid --cores '%s'", optarg);
            break;
        case 'g':
            if (util_parse_int (optarg, 0, GPU_MAX, &o->cluster.gpus) < 0)
                return errprintf (err, "invalid --gpus '%s' (0 to %d)", optarg,
                                  GPU_MAX);
            break;
        case 'p': o->policies = optarg; break;
        case 'F':
            if (strcmp (optarg, "json") != 0 && strcmp (optarg, "table") != 0)
                return errprintf (err, "invalid --format '%s' (table or json)", optarg);
            o->json_stdout = strcmp (optarg, "json") == 0;
            break;
        case 'J': o->json_path = optarg; break;
        case 'P': o->png_path = optarg; break;
        case 'j': o->jobs_path = optarg; break;
        case 'l':
            if (util_parse_int (optarg, 1, 1 << 30, &o->limit) < 0)
                return errprintf (err, "invalid --limit '%s'", optarg);
            break;
        case 'G': o->gpu_format = 1; break;
        case 'M': o->cluster.mig_layout = optarg; break;
        case 'h': usage (stdout); exit (0);
        case 'V': cliopt_print_version ("hpcq-sim", CLIOPT_HPCQ); exit (0);
        case 's':
        case 'R':
        case 'T':
        case 'f':
        case 'N':
        case 'r':
        case 'k':
        case 'C':
        case 'o':
        case 'S':
        case 'e':
        case 'a':
        case 'Y': break; /* interrupt_option's */
        default: return errprintf (err, "unknown option (see hpcq-sim --help)");
        }
    }
    if (optind != argc - 1)
        return errprintf (err, "expected one trace file (see hpcq-sim --help)");
    o->trace = argv[optind];
    return 0;
}

static int ceil_div (int a, int b)
{
    return (a + b - 1) / b;
}

/* Fill in the cluster's size where not given.  An SWF trace's machine has
 * MaxProcs processors; we keep that many cores, on nodes as small as keep
 * the largest job within SIM_JOB_NODES nodes: a power of two, so
 * 1-processor nodes of the traced machines become 2 or 4-core nodes. */
static int cluster_size (struct options *o, const struct sim_trace *t,
                         struct hpcq_error *err)
{
    struct sim_cluster *c = &o->cluster;
    int total = t->max_procs > 0 ? t->max_procs : t->largest;

    if (t->gpu_format) {
        if (!c->nodes || !c->cores)
            return errprintf (err, "a GPU workload needs --nodes and --cores");
        return 0;
    }
    if (total <= 0)
        return errprintf (err,
                          "%s: no jobs and no MaxProcs header: give --nodes "
                          "and --cores",
                          o->trace);
    if (!c->cores && c->nodes)
        c->cores = ceil_div (total, c->nodes);
    if (!c->cores)
        for (c->cores = 1; ceil_div (total, c->cores) > SIM_JOB_NODES; c->cores *= 2)
            ;
    if (!c->nodes)
        c->nodes = ceil_div (total, c->cores);
    return 0;
}

/* The policies named in list, in order: their count, or -1 with err. */
static int policies_lookup (const char *list, const struct policy_ops **ops,
                            struct hpcq_error *err)
{
    char buf[256], *save = NULL;
    int n = 0;

    if (snprintf (buf, sizeof (buf), "%s", list) >= (int)sizeof (buf))
        return errprintf (err, "policy list too long");
    for (char *p = strtok_r (buf, ",", &save); p; p = strtok_r (NULL, ",", &save)) {
        if (n == MAX_POLICIES)
            return errprintf (err, "at most %d policies", MAX_POLICIES);
        if (!(ops[n++] = policy_lookup (p)))
            return errprintf (err, "unknown policy '%s'", p);
    }
    if (n == 0)
        return errprintf (err, "no policy given");
    return n;
}

static int report (const struct options *o, const struct sim_report *rep,
                   struct hpcq_error *err)
{
    if (o->json_stdout) {
        if (sim_report_json (rep, "-", err) < 0)
            return -1;
    } else {
        const struct sim_cluster *c = rep->cluster;
        printf ("trace %s: %d jobs, %d skipped (run time or processors <= 0)\n"
                "cluster: %d nodes x %d cores, %d GPUs per node\n",
                o->trace, rep->trace->njobs, rep->trace->invalid, c->nodes, c->cores,
                c->gpus);
        if (o->interrupts)
            printf ("spot nodes: %d at %g per node-hour, on-demand %g; notice %lld s, "
                    "replaced after %lld s, checkpoint cost %g s\n",
                    o->sc.spot_nodes, o->sc.price_spot, o->sc.price_ondemand,
                    (long long)o->sc.notice, (long long)o->sc.replace, o->sc.ckpt_cost);
        sim_report_table (rep, stdout);
    }
    if (o->json_path && sim_report_json (rep, o->json_path, err) < 0)
        return -1;
    if (o->jobs_path && sim_report_jobs (rep, o->jobs_path, err) < 0)
        return -1;
    if (o->png_path && sim_report_png (rep, o->png_path, err) < 0)
        return -1;
    return 0;
}

/* --spot N or P% against the cluster's size (default: every node). */
static int spot_nodes (const struct options *o, struct hpcq_error *err)
{
    size_t n = o->spot ? strlen (o->spot) : 0;
    double pct;
    int v;

    if (!o->spot)
        return o->cluster.nodes;
    if (n > 1 && o->spot[n - 1] == '%') {
        char buf[32];
        snprintf (buf, sizeof (buf), "%.*s", (int)(n - 1), o->spot);
        if (n < sizeof (buf) && util_parse_double (buf, 0, 100, &pct) == 0)
            return (int)(pct / 100 * o->cluster.nodes + 0.5);
    } else if (util_parse_int (o->spot, 0, o->cluster.nodes, &v) == 0)
        return v;
    return errprintf (err, "invalid --spot '%s' (0 to %d nodes, or a percentage)",
                      o->spot, o->cluster.nodes);
}

/* The scenarios the options describe into sc[] (at most 7): the AWS
 * buckets, or the one of --reclaim-rate / --reclaim-trace.  Their number,
 * or -1 with err. */
static int scenarios (struct options *o, struct sim_scenario *sc,
                      struct hpcq_error *err)
{
    int spot = spot_nodes (o, err), n = 0;

    if (spot < 0)
        return -1;
    o->sc.spot_nodes = spot;
    o->sc.interrupts = 1;
    if (o->aws && (o->reclaim_trace || o->sc.reclaim_rate > 0))
        return errprintf (err, "--scenarios aws sets the reclaim rates: leave out "
                               "--reclaim-rate and --reclaim-trace");
    if (o->reclaim_trace && o->sc.reclaim_rate > 0)
        return errprintf (err, "give --reclaim-rate or --reclaim-trace, not both");
    if (o->aws) {
        for (n = 0; n < sim_aws_buckets (); n++) {
            sc[n] = o->sc;
            sc[n].reclaim_rate = sim_aws_bucket_rate (n);
            snprintf (sc[n].name, sizeof (sc[n].name), "aws %s",
                      sim_aws_bucket_name (n));
        }
        return n;
    }
    sc[0] = o->sc;
    if (o->sc.trace) {
        /* For Young/Daly: the trace's reclaims as a rate per spot node. */
        double span = (double)o->sc.trace[o->sc.ntrace - 1].time;
        sc[0].trace_rate = spot > 0 && span > 0 ? o->sc.ntrace / (spot * span) : 0;
        snprintf (sc[0].name, sizeof (sc[0].name), "trace");
    } else
        snprintf (sc[0].name, sizeof (sc[0].name), "rate %g%%",
                  100 * o->sc.reclaim_rate);
    return 1;
}

/* The checkpoint policies named in list: their number, or -1 with err. */
static int ckpts_parse (const char *list, struct sim_ckpt *ck, struct hpcq_error *err)
{
    char buf[256], *save = NULL;
    int n = 0;

    if (snprintf (buf, sizeof (buf), "%s", list) >= (int)sizeof (buf))
        return errprintf (err, "checkpoint policy list too long");
    for (char *p = strtok_r (buf, ",", &save); p; p = strtok_r (NULL, ",", &save)) {
        if (n == MAX_CKPTS)
            return errprintf (err, "at most %d checkpoint policies", MAX_CKPTS);
        if (sim_ckpt_parse (p, &ck[n++], err) < 0)
            return -1;
    }
    if (n == 0)
        return errprintf (err, "no checkpoint policy given");
    return n;
}

/* Every replay: per policy, the plain one, or the on-demand baseline and
 * then one per scenario and checkpoint policy.  Their number in *nruns;
 * 0, or -1 with err. */
static int replays (struct options *o, const struct sim_trace *t,
                    const struct policy_ops **ops, int nops, struct sim_run **runs,
                    int *nruns, struct hpcq_error *err)
{
    struct sim_scenario *sc = o->scen, *base = &o->scen[7];
    static struct sim_ckpt ck[MAX_CKPTS], none; /* the runs name them */
    int nsc = 0, nck = 0, per;

    if (o->interrupts
        && ((nsc = scenarios (o, sc, err)) < 0
            || (nck = ckpts_parse (o->ckpts, ck, err)) < 0))
        return -1;
    *base = o->sc;
    base->interrupts = 0;
    snprintf (base->name, sizeof (base->name), "on-demand");
    (void)sim_ckpt_parse ("none", &none, NULL);
    per = o->interrupts ? 1 + nsc * nck : 1;
    if (!(*runs = calloc ((size_t)nops * per, sizeof (**runs))))
        return errprintf (err, "out of memory");
    for (int p = 0; p < nops; p++)
        for (int k = 0; k < per; k++) {
            const struct sim_scenario *s = !o->interrupts ? NULL
                                           : k == 0       ? base
                                                          : &sc[(k - 1) / nck];
            const struct sim_ckpt *c = !o->interrupts ? NULL
                                       : k == 0       ? &none
                                                      : &ck[(k - 1) % nck];
            if (sim_engine_run (t, &o->cluster, ops[p], s, c, &(*runs)[*nruns], err)
                < 0)
                return -1;
            (*nruns)++;
        }
    return 0;
}

int main (int argc, char **argv)
{
    struct options o;
    struct hpcq_error err = { "" };
    struct sim_trace t = { 0 };
    const struct policy_ops *ops[MAX_POLICIES];
    struct sim_run *runs = NULL;
    struct sim_reclaim *reclaims = NULL;
    int nops, nruns = 0, rc = 1;

    if (parse_options (argc, argv, &o, &err) < 0
        || (nops = policies_lookup (o.policies, ops, &err)) < 0)
        return fail (err.text);
    if ((o.gpu_format ? sim_trace_read_gpu (&t, o.trace, o.limit, &err)
                      : sim_trace_read_swf (&t, o.trace, o.limit, &err))
        < 0)
        return fail (err.text);
    if (o.reclaim_trace) {
        if (sim_trace_read_reclaims (o.reclaim_trace, &reclaims, &o.sc.ntrace, &err)
            < 0)
            goto out;
        if (o.sc.ntrace == 0) {
            errprintf (&err, "%s: no reclaims", o.reclaim_trace);
            goto out;
        }
        o.sc.trace = reclaims;
    }
    if (cluster_size (&o, &t, &err) < 0 || sim_cluster_check (&o.cluster, &err) < 0
        || sim_trace_resolve (&t, o.cluster.cores, &err) < 0
        || replays (&o, &t, ops, nops, &runs, &nruns, &err) < 0)
        goto out;
    rc = report (&o,
                 &(struct sim_report){ o.trace, &t, &o.cluster, runs, nruns,
                                       o.interrupts },
                 &err)
         < 0;
out:
    if (rc)
        fail (err.text);
    for (int i = 0; i < nruns; i++)
        sim_run_release (&runs[i]);
    free (runs);
    free (reclaims);
    sim_trace_release (&t);
    return rc;
}

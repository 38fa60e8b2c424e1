/* sim_main.c - hpcq-sim: replay a workload through the scheduler's own
 * policies in virtual time (see docs/man1/hpcq-sim.1).
 *
 * Only wiring: options, the cluster's size, then for each policy named a
 * replay (sim_engine), and the reports (sim_report).
 */
#include <config.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/resource.h"
#include "common/util.h"
#include "scheduler/nodes.h"
#include "scheduler/place.h"
#include "scheduler/policy.h"
#include "scheduler/sim_engine.h"
#include "scheduler/sim_report.h"
#include "scheduler/sim_trace.h"

#define MAX_POLICIES 8
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
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void usage (FILE *f)
{
    fprintf (f,
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
             "                       mig_layout (e.g. 0:1g.5gb*7;1:3g.20gb+4g.20gb)\n");
}

static int fail (const char *msg)
{
    fprintf (stderr, "hpcq-sim: %s\n", msg);
    return 1;
}


/* 0, or -1 with err. */
static int parse_options (int argc, char **argv, struct options *o,
                          struct hpcq_error *err)
{
    int c;

    memset (o, 0, sizeof (*o));
    o->policies = "fifo,easy";
    while ((c = getopt_long (argc, argv, "n:c:g:p:F:l:Gh", longopts, NULL)) != -1) {
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
        return errprintf (err, "%s: no jobs and no MaxProcs header: give --nodes "
                          "and --cores", o->trace);
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
                "cluster: %d nodes x %d cores, %d GPUs per node\n", o->trace,
                rep->trace->njobs, rep->trace->invalid, c->nodes, c->cores, c->gpus);
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

int main (int argc, char **argv)
{
    struct options o;
    struct hpcq_error err = { "" };
    struct sim_trace t = { 0 };
    const struct policy_ops *ops[MAX_POLICIES];
    struct sim_run runs[MAX_POLICIES];
    int nops, nruns = 0, rc = 1;

    if (parse_options (argc, argv, &o, &err) < 0
        || (nops = policies_lookup (o.policies, ops, &err)) < 0)
        return fail (err.text);
    if ((o.gpu_format ? sim_trace_read_gpu (&t, o.trace, o.limit, &err)
                      : sim_trace_read_swf (&t, o.trace, o.limit, &err)) < 0)
        return fail (err.text);
    if (cluster_size (&o, &t, &err) < 0 || sim_cluster_check (&o.cluster, &err) < 0
        || sim_trace_resolve (&t, o.cluster.cores, &err) < 0)
        goto out;
    for (nruns = 0; nruns < nops; nruns++)
        if (sim_engine_run (&t, &o.cluster, ops[nruns], &runs[nruns], &err) < 0)
            goto out;
    rc = report (&o, &(struct sim_report){ o.trace, &t, &o.cluster, runs, nruns }, &err)
         < 0;
out:
    if (rc)
        fail (err.text);
    for (int i = 0; i < nruns; i++)
        sim_run_release (&runs[i]);
    sim_trace_release (&t);
    return rc;
}

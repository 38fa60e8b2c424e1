/* hpcq-ckpt - what a job says about its checkpoints.
 *
 *   hpcq-ckpt done [--generation G] [--bytes N] [--seconds S]
 *
 * A job script (or an app that does not write through common/ckptfile)
 * runs it after each checkpoint it completes; the job's worker passes the
 * report on to the scheduler (common/ckptreport.h).  Outside hpcq it says
 * so and exits 0, so a script runs the same anywhere. */
#include <config.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cliopt.h"
#include "common/ckptreport.h"
#include "common/util.h"

static const char *usage_text =
    "usage: hpcq-ckpt done [--generation G] [--bytes N] [--seconds S]\n"
    "Tells the scheduler, through this job's worker, that the job has completed a\n"
    "checkpoint: its generation (default: one more than the last), its size in\n"
    "bytes and the seconds it took.  See hpcq-ckpt(1).\n";

static int usage (void)
{
    fputs (usage_text, stderr);
    return 2;
}

static int bad (const char *what, const char *v)
{
    fprintf (stderr, "hpcq-ckpt: invalid %s '%s'\n", what, v);
    return 2;
}

int main (int argc, char **argv)
{
    static const struct option opts[] = {
        { "generation", required_argument, NULL, 'g' },
        { "bytes", required_argument, NULL, 'b' },
        { "seconds", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct hpcq_error err;
    long gen = 0, bytes = -1;
    double secs = -1;
    int c, rc;

    cliopt_only (&(struct cliopt){ .prog = "hpcq-ckpt", .kind = CLIOPT_HPCQ }, argc,
                 argv);
    if (argc > 1 && (!strcmp (argv[1], "--help") || !strcmp (argv[1], "-h"))) {
        fputs (usage_text, stdout);
        return 0;
    }
    if (argc < 2 || strcmp (argv[1], "done") != 0)
        return usage ();
    optind = 2;
    opterr = 0;
    while ((c = getopt_long (argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'g':
            if (util_parse_long (optarg, 1, CKPTREPORT_GENERATION_MAX, &gen) < 0)
                return bad ("generation", optarg);
            break;
        case 'b':
            if (util_parse_long (optarg, 0, CKPTREPORT_BYTES_MAX, &bytes) < 0)
                return bad ("byte count", optarg);
            break;
        case 's':
            if (util_parse_double (optarg, 0, CKPTREPORT_SECONDS_MAX, &secs) < 0)
                return bad ("seconds", optarg);
            break;
        default: return usage ();
        }
    }
    if (optind < argc)
        return usage ();
    if ((rc = ckptreport_done (gen, bytes, secs, &err)) < 0) {
        fprintf (stderr, "hpcq-ckpt: %s\n", err.text);
        return 1;
    }
    if (rc == 0)
        fprintf (stderr,
                 "hpcq-ckpt: not in an hpcq job ($HPCQ_CKPT_SOCKET is not set): "
                 "nothing reported\n");
    return 0;
}

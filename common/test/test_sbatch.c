/* test_sbatch.c - #SBATCH directives mapped onto the PBS job request. */
#include <config.h>
#include <signal.h>
#include <string.h>

#include "common/resource.h"
#include "common/sbatch.h"
#include "common/test/tap.h"

static int64_t t (const char *s)
{
    int64_t v = -1;
    return sbatch_parse_time (s, &v, NULL) == 0 ? v : -1;
}

static void test_time (void)
{
    ok (t ("30") == 1800, "plain minutes");
    ok (t ("5:30") == 330, "MM:SS");
    ok (t ("1:02:03") == 3723, "HH:MM:SS");
    ok (t ("2-0") == 172800, "D-H");
    ok (t ("1-2:30") == 95400, "D-H:M");
    ok (t ("1-00:00:10") == 86410, "D-H:M:S");
    ok (t ("abc") == -1 && t ("") == -1 && t ("1:2:3:4") == -1 && t ("0") == -1
            && t ("-5") == -1 && t ("1-x") == -1,
        "malformed times are refused");
    ok (t ("24856-0") == -1 && t ("9999999999999999999-0") == -1
            && t ("99999999999999999") == -1 && t ("1-99999999999999:0:0") == -1,
        "times past 2^31 - 1 seconds are refused, without overflow");
    ok (t ("24855-3:14:08") == -1 && t ("24855-3:14:07") == 2147483647,
        "the longest time is 2^31 - 1 seconds");
    /* 2^64 / 86400 days and 2^64 / 60 minutes, rounded up: wrapped, they
     * were 61184 s and 44 s. */
    ok (t ("213503982334602-0") == -1 && t ("307445734561825861") == -1
            && t ("106751991167301-0") == -1 && t ("0:0:99999999999999999999") == -1,
        "times past int64 are refused, not wrapped");
}

/* Parse script into a fresh spec; returns sbatch_parse_script's result. */
static int parse (const char *script, struct hpcq_jobspec *spec, struct hpcq_error *err)
{
    jobspec_init (spec);
    err->text[0] = '\0';
    return sbatch_parse_script (spec, script, err);
}

static const char *select_of (struct hpcq_jobspec *spec)
{
    static char buf[256];
    if (resource_finalize (&spec->res, NULL) < 0)
        return "(bad)";
    resource_format_select (&spec->res, buf, sizeof (buf));
    return buf;
}

static void test_mapping (void)
{
    struct hpcq_jobspec s;
    struct hpcq_error err;
    const char *sel;

    ok (parse ("#!/bin/sh\necho hi\n#SBATCH -N 2\n", &s, &err) == 0,
        "a script without #SBATCH lines: nothing to do");
    jobspec_release (&s);

    /* Slurm's rules (src/sbatch/opt.c, _opt_batch_script): #SBATCH at the
     * start of the line, comments and blank lines between, a '#' ends the
     * options of a line. */
    ok (parse ("#!/bin/sh\n  #SBATCH -J indented\n#SBATCHES follow\n\n# note\n"
               "#SBATCH-J tight # a comment -N 9\n   \n#SBATCH --time=5\nhostname\n"
               "#SBATCH -J late\n",
               &s, &err)
                == 1
            && s.name && !strcmp (s.name, "tight") && s.res.walltime == 300,
        "indented #SBATCH is a comment, #SBATCH-J works, # ends a line, the first "
        "command ends them: %s",
        s.name ? s.name : err.text);
    jobspec_release (&s);

    ok (parse ("#!/bin/bash\n#SBATCH --nodes=2 --ntasks-per-node=4\n"
               "#SBATCH --cpus-per-task=2\n#SBATCH --time=1:00:00\n"
               "#SBATCH -J sim\n#SBATCH --gres=gpu:a100:2\n#SBATCH --mem=4G\n"
               "srun ./sim\n#SBATCH --nodes=9\n",
               &s, &err)
            == 1,
        "directives parsed: %s", err.text);
    sel = select_of (&s);
    is (sel, "2:ncpus=8:mem=4gb:ngpus=2:mpiprocs=4:gpu_model=a100",
        "nodes x tasks x cpus, gpus of the gres type and memory per node");
    ok (s.res.walltime == 3600, "time becomes walltime");
    is (s.name, "sim", "job name");
    ok (strcmp (s.res.place, "scatter") == 0, "tasks per node spread nodes");
    is (s.output_path, "slurm-%j.out", "Slurm's default output file");
    ok (s.join == JOIN_OE, "stderr joined, as Slurm does");
    jobspec_release (&s);

    ok (parse ("#SBATCH -n 3 -c 2\n#SBATCH --mem-per-cpu=512\n#SBATCH -o o.%j -e e.%j\n"
               "#SBATCH --exclusive --no-requeue\n#SBATCH --dependency=afterok:12:13\n"
               "#SBATCH --mail-type=END,FAIL --mail-user=a@b\n#SBATCH -A proj -p gpu\n",
               &s, &err)
            == 1,
        "more directives: %s", err.text);
    sel = select_of (&s);
    is (sel, "3:ncpus=2:mem=1gb", "tasks anywhere: one chunk each, memory per cpu");
    ok (strcmp (s.res.place, "scatter:excl") == 0, "--exclusive");
    ok (s.join == JOIN_NONE && !strcmp (s.error_path, "e.%j"),
        "--error keeps stderr apart");
    ok (s.rerunnable == 0, "--no-requeue");
    is (s.depend, "afterok:12:13", "dependency kept in PBS form");
    is (s.mail_points, "ae", "mail on end and failure");
    is (s.account, "proj", "account");
    is (s.queue, "gpu", "partition becomes queue");
    jobspec_release (&s);
}

static void test_errors (void)
{
    struct hpcq_jobspec s;
    struct hpcq_error err;

    ok (parse ("#!/bin/sh\n#SBATCH --array=1-4%2\n", &s, &err) == 1 && s.array
            && !strcmp (s.array, "1-4%2") && !strcmp (s.output_path, "slurm-%A_%a.out"),
        "--array becomes the job array, output slurm-%%A_%%a.out: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#!/bin/sh\n#SBATCH --array=4-1\n", &s, &err) < 0
            && strstr (err.text, "line 2"),
        "a bad --array is refused with the line: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --frobnicate\n", &s, &err) < 0
            && strstr (err.text, "unknown #SBATCH option '--frobnicate'"),
        "unknown option: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --nodes=zero\n", &s, &err) < 0 && strstr (err.text, "--nodes"),
        "bad count: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --time\n", &s, &err) < 0 && strstr (err.text, "needs a value"),
        "missing value: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --gres=fpga:1\n", &s, &err) < 0 && strstr (err.text, "gres"),
        "only GPU gres: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --gres=gpu:a:b:2\n", &s, &err) < 0 && strstr (err.text, "gres"),
        "a gres type holds no colon: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH -N 2\n#SBATCH --gres=gpu:1g.5gb:2\n", &s, &err) < 0
            && strstr (err.text, "MIG"),
        "several MIG instances on several nodes: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --mem=12XB\n", &s, &err) < 0, "bad memory");
    jobspec_release (&s);
    /* Products of counts that fit, each, must not wrap (found by fuzzing). */
    ok (parse ("#SBATCH --ntasks-per-node=1000000 -c 1000000\n", &s, &err) < 0
            && strstr (err.text, "too many cpus"),
        "tasks x cpus past int: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --mem-per-cpu=1000000T -c 1000000\n", &s, &err) < 0
            && strstr (err.text, "too large"),
        "memory per cpu x cpus past int64: %s", err.text);
    jobspec_release (&s);
}

/* --gres=gpu[:TYPE][:N]: a model, or a MIG profile as Slurm names them. */
static void test_gres_types (void)
{
    struct hpcq_jobspec s;
    struct hpcq_error err;
    const char *sel;

    jobspec_init (&s);
    ok (parse ("#SBATCH --gres=gpu:1g.5gb:2\n", &s, &err) == 1, "MIG gres: %s",
        err.text);
    sel = select_of (&s);
    is (sel, "2:ncpus=1:mig=1g.5gb", "N MIG instances are N chunks of one each");
    jobspec_release (&s);
    ok (parse ("#SBATCH --gres=gpu:h100\n", &s, &err) == 1, "typed gres: %s", err.text);
    sel = select_of (&s);
    is (sel, "1:ncpus=1:ngpus=1:gpu_model=h100", "a type without a count is one GPU");
    jobspec_release (&s);
    ok (parse ("#SBATCH --gres=gpu\n", &s, &err) == 1, "bare gpu gres: %s", err.text);
    sel = select_of (&s);
    is (sel, "1:ncpus=1:ngpus=1", "gpu alone is one GPU of any model");
    jobspec_release (&s);
}

/* Pyxis's container options and Slurm's --gpu-bind / --cpu-bind, as the
 * resources qsub's -l gives. */
static void test_container_bind (void)
{
    struct hpcq_jobspec s;
    struct hpcq_error err;

    ok (parse ("#SBATCH --container-image=/img/md:v2\n"
               "#SBATCH --container-mounts=/data:/data:ro,/scratch:/s\n"
               "#SBATCH --container-workdir=/s\n",
               &s, &err)
            == 1,
        "container options: %s", err.text);
    ok (s.res.container_image && !strcmp (s.res.container_image, "/img/md:v2"),
        "--container-image is container_image");
    ok (s.res.container_mounts
            && !strcmp (s.res.container_mounts, "/data:/data:ro+/scratch:/s"),
        "--container-mounts' ',' list is container_mounts' '+' list: %s",
        s.res.container_mounts ? s.res.container_mounts : "(none)");
    ok (s.res.container_workdir && !strcmp (s.res.container_workdir, "/s"),
        "--container-workdir is container_workdir");
    jobspec_release (&s);
    ok (parse ("#SBATCH --gpu-bind=closest --cpu-bind=verbose,cores\n", &s, &err) == 1
            && !strcmp (s.res.gpu_bind, "closest") && !strcmp (s.res.cpu_bind, "cores"),
        "--gpu-bind=closest, --cpu-bind=verbose,cores: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --gpu-bind=none --cpu_bind=no\n", &s, &err) == 1
            && !strcmp (s.res.gpu_bind, "none") && !strcmp (s.res.cpu_bind, "none"),
        "--gpu-bind=none, --cpu_bind=no: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --gpu-bind=map_gpu:0,1\n", &s, &err) < 0
            && strstr (err.text,
                       "unsupported --gpu-bind 'map_gpu:0,1' (closest or none)"),
        "--gpu-bind=map_gpu refused: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --cpu-bind=cores,threads\n", &s, &err) < 0
            && strstr (err.text,
                       "unsupported --cpu-bind 'cores,threads' (cores or none)"),
        "--cpu-bind=threads refused, also after cores: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --cpu-bind=verbose\n", &s, &err) < 0
            && strstr (err.text, "unsupported --cpu-bind"),
        "--cpu-bind=verbose alone names no binding: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --container-mounts=/a:/b:ro+rprivate\n", &s, &err) < 0
            && strstr (err.text,
                       "unsupported --container-mounts flags in '/a:/b:ro+rprivate'"),
        "Pyxis mount flags other than ro/rw refused: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --container-mounts=/a:b\n", &s, &err) < 0
            && strstr (err.text, "invalid container_mounts '/a:b'"),
        "a relative mount target refused as qsub refuses it: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --container-image=ubuntu:22.04\n", &s, &err) < 0
            && strstr (err.text, "invalid container_image 'ubuntu:22.04'"),
        "a registry name is refused (local OCI layouts only): %s", err.text);
    jobspec_release (&s);
}

static void test_expand (void)
{
    char buf[64];

    jobspec_expand_path ("slurm-%j.out", 42, -1, "x", buf, sizeof (buf));
    is (buf, "slurm-42.out", "%%j is the job number");
    jobspec_expand_path ("%x-%j-%%-%u", 7, -1, "sim", buf, sizeof (buf));
    is (buf, "sim-7-%-%u", "%%x the name, %%%% a percent, others kept");
    jobspec_expand_path ("o_%A_%a.%j", 9, 3, "x", buf, sizeof (buf));
    is (buf, "o_9_3.9.3", "subjob: %%A the array, %%a the index, %%j N.I");
    jobspec_expand_path ("w-%J.err", 5, -1, "x", buf, sizeof (buf));
    is (buf, "w-5.err", "%%J (job.step) is the job number for the batch step");
    jobspec_expand_path ("%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j%j", 123456789, -1, "x",
                         buf, 16);
    ok (strlen (buf) == 15, "output is cut at the buffer");
}

/* What the workflow tools write (see docs/compat.md for the versions). */
static void test_tools (void)
{
    struct hpcq_jobspec s;
    struct hpcq_error err;
    int signo = 0, secs = 0, b = 0;

    /* Nextflow's slurm executor: .command.run's header. */
    ok (parse ("#!/bin/bash\n#SBATCH -J nf-hello_(1)\n#SBATCH -o /w/.command.log\n"
               "#SBATCH --no-requeue\n#SBATCH --signal B:USR2@30\n#SBATCH -c 2\n"
               "#SBATCH -t 01:00:00\n#SBATCH --mem 2048M\n#SBATCH -p workq\n"
               "# NEXTFLOW TASK: hello (1)\nset -e\n",
               &s, &err)
            == 1,
        "Nextflow's header parses: %s", err.text);
    is (select_of (&s), "1:ncpus=2:mem=2gb", "Nextflow: -c 2 --mem 2048M");
    ok (s.rerunnable == 0 && s.slurm == 1 && s.res.walltime == 3600
            && !strcmp (s.name, "nf-hello_(1)") && !strcmp (s.queue, "workq"),
        "Nextflow: --no-requeue, name, -t, -p");
    ok (s.signal && jobspec_parse_signal (s.signal, &signo, &secs, &b, NULL) == 0
            && signo == SIGUSR2 && secs == 30 && b == 1,
        "Nextflow: --signal B:USR2@30");
    jobspec_release (&s);

    /* dask-jobqueue's SLURMCluster. */
    ok (parse (
            "#!/usr/bin/env bash\n\n#SBATCH -J dask-worker\n"
            "#SBATCH -e logs/dask-worker-%J.err\n#SBATCH -o logs/dask-worker-%J.out\n"
            "#SBATCH -n 1\n#SBATCH -N 1\n#SBATCH --cpus-per-task=2\n#SBATCH --mem=2G\n"
            "#SBATCH -t 00:30:00\n\npython -m distributed.cli.dask_worker\n",
            &s, &err)
            == 1,
        "dask-jobqueue's header parses: %s", err.text);
    is (select_of (&s), "1:ncpus=2:mem=2gb",
        "dask: -n 1 -N 1 --cpus-per-task=2 --mem=2G");
    ok (s.join == JOIN_NONE && !strcmp (s.error_path, "logs/dask-worker-%J.err"),
        "dask: -e and -o apart");
    jobspec_release (&s);

    /* Parsl's SlurmProvider template. */
    ok (parse ("#!/bin/bash\n\n#SBATCH --job-name=parsl.slurm.1700000000.1\n"
               "#SBATCH --output=/r/parsl.slurm.1.stdout\n#SBATCH "
               "--error=/r/parsl.slurm.1.stderr\n"
               "#SBATCH --nodes=1\n#SBATCH --time=10\n#SBATCH --ntasks-per-node=1\n\n"
               "#SBATCH --exclusive\n#SBATCH --partition=workq\n#SBATCH --mem=1g\n"
               "#SBATCH --cpus-per-task=2\n\nexport JOBNAME=x\n",
               &s, &err)
            == 1,
        "Parsl's template parses: %s", err.text);
    is (select_of (&s), "1:ncpus=2:mem=1gb",
        "Parsl: --nodes=1 --cpus-per-task=2 --mem=1g");
    ok (s.res.walltime == 600 && !strcmp (s.res.place, "scatter:excl"),
        "Parsl: --time=10 is minutes, --exclusive");
    jobspec_release (&s);

    ok (parse ("#SBATCH --constraint=bigmem&ib\n", &s, &err) == 1
            && !strcmp (select_of (&s), "1:ncpus=1:bigmem=True:ib=True"),
        "--constraint features are node labels: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --constraint=a|b\n", &s, &err) == -1
            && strstr (err.text, "unsupported --constraint 'a|b'"),
        "--constraint with | refused: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --signal=R:USR1\n", &s, &err) == -1
            && strstr (err.text, "R flag"),
        "--signal R: refused: %s", err.text);
    jobspec_release (&s);
    ok (parse ("#SBATCH --qos=high\n", &s, &err) == -1
            && strstr (err.text, "unknown #SBATCH option '--qos=high'"),
        "--qos refused: %s", err.text);
    jobspec_release (&s);
}

/* sbatch's own command line: options before the script, which win. */
static void test_command (void)
{
    struct hpcq_jobspec s;
    struct hpcq_error err = { "" }; /* printed on success too */
    struct sbatch_cli cli = { 0 };
    char *argv[] = { "-J", "cli", "--parsable", "-W", "--wrap=echo hi",
                     "-D", "/w",  "-t",         "5",  "script.sh",
                     "-N", "9",   NULL };

    ok (sbatch_scan_command (12, argv, &cli, &err) == 0 && cli.first_arg == 9
            && cli.parsable && cli.wait && !strcmp (cli.wrap, "echo hi")
            && !strcmp (cli.chdir, "/w"),
        "sbatch's options scanned up to the script");
    jobspec_init (&s);
    ok (sbatch_parse_command (&s, "#!/bin/sh\n#SBATCH -J script -t 10\n#SBATCH -N 2\n",
                              12, argv, &cli, &err)
            == 0,
        "sbatch applies: %s", err.text);
    ok (!strcmp (s.name, "cli") && s.res.walltime == 300 && s.slurm,
        "the command line wins over #SBATCH lines");
    is (select_of (&s), "2:ncpus=1", "-N 2 from the script stays");
    jobspec_release (&s);
    {
        char *bad[] = { "--qos=x", "s.sh", NULL };
        ok (sbatch_scan_command (2, bad, &cli, &err) == -1
                && strstr (err.text, "unrecognized option '--qos=x'"),
            "unknown option: %s", err.text);
    }
}

int main (void)
{
    plan (NO_PLAN);
    test_time ();
    test_mapping ();
    test_errors ();
    test_gres_types ();
    test_container_bind ();
    test_expand ();
    test_tools ();
    test_command ();
    return done_testing ();
}

/* test_launch.c - the parts of a launch: decoding job.launch, the job's
 * environment, PBS_NODEFILE, PBS's rules for output paths, and what the
 * job's child reports on its status pipe. */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/test/tap.h"
#include "worker/launch.h"

static char tmpdir[] = "/tmp/test_launch.XXXXXX";

/* A job.launch body as the scheduler sends it; extra is merged in. */
static json_t *launch_body (const char *spec_extra, const char *body_extra)
{
    char text[4096];
    json_t *o;

    snprintf (
        text, sizeof (text),
        "{\"seq\":42,\"attempt\":2,\"jobid\":\"42.srv\",\"uuid\":\"u-1\","
        "\"owner\":\"alice\",\"uid\":1000,\"queue\":\"workq\",\"server\":\"srv\","
        "\"spec\":{\"name\":\"myjob\",\"script\":\"#!/bin/sh\\ntrue\\n\","
        "\"workdir\":\"%s\",\"submit_host\":\"login1\",\"env\":["
        "\"PBS_O_PATH=/opt/bin:/usr/bin\",\"FOO=bar\",\"PBS_JOBID=forged\","
        "\"HOME=/forged\"],\"resources\":{\"chunks\":[{\"count\":1,\"ncpus\":2}]}%s},"
        "\"ncpus\":2,\"mem\":1048576,\"gpus\":[],\"nodefile\":[\"n1\",\"n1\",\"n2\"],"
        "\"walltime\":60%s}",
        tmpdir, spec_extra, body_extra);
    o = json_loads (text, 0, NULL);
    if (!o)
        diag ("bad test JSON: %s", text);
    return o;
}

static int decode (struct launch_req *req, const char *spec_extra,
                   const char *body_extra)
{
    struct hpcq_error err = { "" };
    json_t *o = launch_body (spec_extra, body_extra);
    int rc = launch_msg_decode (o, req, &err);

    if (rc < 0)
        diag ("decode: %s", err.text);
    json_decref (o);
    return rc;
}

static const char *env_get (char **envp, const char *key)
{
    size_t n = strlen (key);

    for (int i = 0; envp[i]; i++)
        if (strncmp (envp[i], key, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

static int env_count (char **envp, const char *key)
{
    size_t n = strlen (key);
    int c = 0;

    for (int i = 0; envp[i]; i++)
        c += strncmp (envp[i], key, n) == 0 && envp[i][n] == '=';
    return c;
}

static void test_decode (void)
{
    struct launch_req req;
    struct hpcq_error err = { "" };
    json_t *o;

    ok (decode (&req, ",\"umask\":18", "") == 0, "a job.launch decodes");
    ok (req.seq == 42 && req.attempt == 2 && req.uid == 1000 && req.ncpus == 2
            && req.mem == 1048576 && req.walltime == 60 && req.nnodefile == 3,
        "its numbers are kept");
    ok (req.number == 42 && req.array_index == -1, "not a subjob: number is seq");
    ok (req.spec.umask == 022, "the job's umask comes with its spec");
    launch_msg_release (&req);

    ok (decode (&req, "", "") == 0 && req.spec.umask == -1,
        "no umask in the spec: -1 (the child uses %03o)", LAUNCH_DEFAULT_UMASK);
    launch_msg_release (&req);

    ok (decode (&req, "",
                ",\"checkpoint\":{\"dir\":\"/ck/j1\",\"keep\":3,"
                "\"signal\":\"TERM\",\"cpu\":true}")
                == 0
            && strcmp (req.ckpt_dir, "/ck/j1") == 0 && req.ckpt_keep == 3
            && strcmp (req.ckpt_signal, "TERM") == 0 && req.ckpt_cpu == 1,
        "the checkpoint object: folder, generations kept, signal, CPU time wanted");
    launch_msg_release (&req);
    ok (decode (&req, "", ",\"checkpoint\":{\"dir\":\"rel/dir\"}") < 0
            && errno == EPROTO,
        "a relative checkpoint folder is EPROTO");
    launch_msg_release (&req);
    ok (decode (&req, "", ",\"checkpoint\":{\"keep\":-1}") < 0 && errno == EPROTO,
        "a negative checkpoint keep is EPROTO");
    launch_msg_release (&req);

    o = json_pack ("{s:I}", "seq", (json_int_t)1);
    ok (launch_msg_decode (o, &req, &err) < 0 && errno == EPROTO
            && strstr (err.text, "malformed"),
        "a partial job.launch is EPROTO: %s", err.text);
    launch_msg_release (&req);
    json_decref (o);
}

static void test_nodefile (void)
{
    struct launch_req req;
    char *text;

    (void)decode (&req, "", "");
    text = launch_nodefile (&req);
    is (text, "n1\nn1\nn2\n", "PBS_NODEFILE: one line per MPI slot, in order");
    free (text);
    launch_msg_release (&req);
}

static void test_environ (void)
{
    struct privsep_cred cred = { .uid = 1000,
                                 .gid = 1000,
                                 .name = "alice",
                                 .home = "/home/alice",
                                 .shell = "/bin/bash" };
    struct gpu gpus[GPU_MAX];
    struct launch_env e = { NULL, "node7", gpus, 0,
                            NULL, &cred,   NULL, "/spool/ckpt.sock",
                            NULL, NULL,    NULL, NULL };
    struct launch_req req;
    char **envp;

    (void)decode (&req, "", "");
    envp = launch_environ (&req, &e, "/spool/42.2.nodes");
    is (env_get (envp, "PBS_JOBID"), "42.srv", "PBS_JOBID is the batch system's");
    ok (env_count (envp, "PBS_JOBID") == 1,
        "... and appears once (-v cannot forge it)");
    is (env_get (envp, "HOME"), "/forged", "HOME from -v wins over the password entry");
    is (env_get (envp, "SHELL"), "/bin/bash", "SHELL from the owner's password entry");
    is (env_get (envp, "USER"), "alice", "USER is the owner");
    is (env_get (envp, "LOGNAME"), "alice", "LOGNAME is the owner");
    is (env_get (envp, "PATH"), "/opt/bin:/usr/bin",
        "PATH is qsub's PATH (PBS_O_PATH)");
    is (env_get (envp, "FOO"), "bar", "the Variable_List is passed on");
    is (env_get (envp, "PBS_NODEFILE"), "/spool/42.2.nodes", "PBS_NODEFILE");
    is (env_get (envp, "PBS_O_WORKDIR"), tmpdir, "PBS_O_WORKDIR is the workdir");
    is (env_get (envp, "PBS_JOBNAME"), "myjob", "PBS_JOBNAME");
    is (env_get (envp, "PBS_QUEUE"), "workq", "PBS_QUEUE");
    is (env_get (envp, "PBS_ENVIRONMENT"), "PBS_BATCH", "PBS_ENVIRONMENT");
    is (env_get (envp, "NCPUS"), "2", "NCPUS");
    is (env_get (envp, "OMP_NUM_THREADS"), "2", "OMP_NUM_THREADS");
    ok (env_get (envp, "UCX_NET_DEVICES") == NULL,
        "no active IB port: no UCX_NET_DEVICES (UCX picks TCP)");
    is (env_get (envp, "HPCQ_ATTEMPT"), "2", "HPCQ_ATTEMPT");
    is (env_get (envp, "HPCQ_RESTART_COUNT"), "1", "HPCQ_RESTART_COUNT is attempt - 1");
    is (env_get (envp, "HPCQ_NODE"), "node7", "HPCQ_NODE");
    is (env_get (envp, "HPCQ_CKPT_SOCKET"), "/spool/ckpt.sock",
        "HPCQ_CKPT_SOCKET: where the job reports its checkpoints");
    is (env_get (envp, "HPCQ_CHECKPOINT_SIGNAL"), "USR1",
        "the checkpoint signal: USR1 unless set");
    ok (env_get (envp, "HPCQ_CHECKPOINT_KEEP") == NULL, "no keep asked for: none set");
    ok (env_get (envp, "PBS_ARRAY_INDEX") == NULL, "no array variables outside arrays");
    ok (env_get (envp, "CUDA_VISIBLE_DEVICES") == NULL,
        "no GPUs: no CUDA_VISIBLE_DEVICES");
    launch_environ_free (envp);
    launch_msg_release (&req);

    /* select=2:ncpus=4:mpiprocs=2:ompthreads=2, with IB: PBS Pro's
     * OMP_NUM_THREADS and NCPUS, UCX on the active port. */
    (void)decode (&req,
                  ",\"resources\":{\"chunks\":[{\"count\":2,\"ncpus\":4,"
                  "\"mpiprocs\":2,\"ompthreads\":2}]}",
                  "");
    e.ucx_devices = "mlx5_0:1";
    envp = launch_environ (&req, &e, "/n");
    is (env_get (envp, "OMP_NUM_THREADS"), "2", "ompthreads=2: OMP_NUM_THREADS=2");
    is (env_get (envp, "NCPUS"), "2", "... and NCPUS=2, as PBS Pro sets it");
    is (env_get (envp, "UCX_NET_DEVICES"), "mlx5_0:1",
        "an active IB port: UCX_NET_DEVICES names it");
    launch_environ_free (envp);
    launch_msg_release (&req);
    /* A later "env" key replaces the body's (jansson keeps the last). */
    (void)decode (&req, ",\"env\":[\"UCX_NET_DEVICES=mlx5_1:1\"]", "");
    envp = launch_environ (&req, &e, "/n");
    is (env_get (envp, "UCX_NET_DEVICES"), "mlx5_1:1", "the job's -v setting wins");
    launch_environ_free (envp);
    launch_msg_release (&req);
    e.ucx_devices = NULL;

    (void)decode (&req, "", ",\"number\":40,\"array_index\":3,\"gpus\":[1]");
    gpu_discover (gpus, 2, "Simulated-GPU", 1LL << 30);
    e.ngpus = 2;
    e.cred = NULL;
    envp = launch_environ (&req, &e, "/n");
    is (env_get (envp, "PBS_ARRAY_INDEX"), "3", "a subjob has PBS_ARRAY_INDEX");
    is (env_get (envp, "PBS_ARRAY_ID"), "40[].srv", "and PBS_ARRAY_ID (the array's)");
    is (env_get (envp, "SLURM_ARRAY_TASK_ID"), "3", "and Slurm's name for it");
    is (env_get (envp, "CUDA_VISIBLE_DEVICES"), "1", "GPU 1 only is visible");
    is (env_get (envp, "HOME"), "/forged", "without a password entry HOME is -v's");
    launch_environ_free (envp);
    launch_msg_release (&req);
}

static void check_resolve (const char *spec_extra, const char *body_extra,
                           const char *given, char kind, const char *want_rel,
                           const char *what)
{
    struct launch_req req;
    char buf[4096], want[4096];

    (void)decode (&req, spec_extra, body_extra);
    launch_resolve_output (&req, given, kind, buf, sizeof (buf));
    if (want_rel[0] == '/')
        snprintf (want, sizeof (want), "%s", want_rel);
    else
        snprintf (want, sizeof (want), "%s/%s", tmpdir, want_rel);
    is (buf, want, "%s", what);
    launch_msg_release (&req);
}

static void test_resolve (void)
{
    char dir[4200];

    snprintf (dir, sizeof (dir), "%s/logs", tmpdir);
    ok (mkdir (dir, 0755) == 0, "made %s", dir);
    check_resolve ("", "", NULL, 'o', "myjob.o42", "default: WORKDIR/NAME.oSEQ");
    check_resolve ("", "", NULL, 'e', "myjob.e42", "default error file: NAME.eSEQ");
    check_resolve ("", ",\"number\":40,\"array_index\":3", NULL, 'o', "myjob.o40.3",
                   "a subjob: NAME.oARRAY.INDEX");
    check_resolve ("", "", "out.txt", 'o', "out.txt", "relative: under WORKDIR");
    check_resolve ("", "", "/abs/out.txt", 'o', "/abs/out.txt", "absolute: as given");
    check_resolve ("", "", "logs", 'o', "logs/myjob.o42",
                   "an existing directory gets NAME.oSEQ inside");
    check_resolve ("", "", "later/", 'e', "later/myjob.e42",
                   "a trailing / names a directory before it exists");
    check_resolve ("", "", "run-%j-%x.log", 'o', "run-42-myjob.log",
                   "%j and %x expand");
    check_resolve ("", ",\"number\":40,\"array_index\":3", "r-%A-%a.%j", 'o',
                   "r-40-3.40.3", "%A, %a and %j of a subjob");
    check_resolve ("", "", "notadir", 'o', "notadir",
                   "a path that is not a directory (or cannot be seen) is the file");
    rmdir (dir);
}

/* What a child would write before exec, then EOF. */
static void test_status (void)
{
    static const char recs[] =
        "O/w/out\0E/w/err\0Xcannot open output file /w/out: denied";
    struct launch_status st;
    int p[2], rc;

    memset (&st, 0, sizeof (st));
    ok (pipe (p) == 0 && fcntl (p[0], F_SETFL, O_NONBLOCK) == 0, "a status pipe");
    ok (write (p[1], recs, 8) == 8, "the first record, in part");
    ok (launch_status_read (p[0], &st) == 0, "not at EOF: more to come");
    ok (write (p[1], recs + 8, sizeof (recs) - 8) == (ssize_t)(sizeof (recs) - 8),
        "the rest");
    close (p[1]);
    rc = launch_status_read (p[0], &st);
    close (p[0]);
    ok (rc == 1, "EOF: complete");
    is (st.stdout_path, "/w/out", "where stdout goes");
    is (st.stderr_path, "/w/err", "where stderr goes");
    is (st.error, "cannot open output file /w/out: denied", "why it did not exec");

    memset (&st, 0, sizeof (st));
    ok (pipe (p) == 0 && fcntl (p[0], F_SETFL, O_NONBLOCK) == 0
            && write (p[1], "O/a\0E/b\0", 8) == 8,
        "a child that exec'd");
    close (p[1]);
    ok (launch_status_read (p[0], &st) == 1 && st.error[0] == '\0'
            && strcmp (st.stderr_path, "/b") == 0,
        "EOF without an error: it runs");
    close (p[0]);
}

int main (void)
{
    plan (NO_PLAN);
    if (!mkdtemp (tmpdir)) {
        ok (0, "mkdtemp: %s", strerror (errno));
        return done_testing ();
    }
    test_decode ();
    test_nodefile ();
    test_environ ();
    test_resolve ();
    test_status ();
    rmdir (tmpdir);
    return done_testing ();
}

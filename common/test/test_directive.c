/* test_directive.c - qsub options and #PBS directive scanning */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/directive.h"
#include "common/test/tap.h"

static void test_optstring (void)
{
    const char *letters = "NqlojevpWArmMSCPkRa";
    const char *p;

    for (p = letters; *p; p++) {
        const char *at = strchr (directive_optstring, *p);
        ok (at && at[1] == ':', "-%c takes an argument", *p);
    }
    p = strchr (directive_optstring, 'V');
    ok (p && p[1] != ':', "-V is a flag");
    p = strchr (directive_optstring, 'h');
    ok (p && p[1] != ':', "-h is a flag");
    ok (strchr (directive_optstring, 'I') == NULL, "-I is not offered");
    p = strchr (directive_optstring, 'z');
    ok (p && p[1] != ':', "-z is a flag");
}

static void near_miss_count (int lineno, const char *line, int len, void *arg)
{
    int *lines = arg;
    lines[lines[0]++ + 1] = lineno;
}

/* What looks like a directive and is not (PBS ignores it): named. */
static void test_near_misses (void)
{
    int lines[8] = { 0 };

    directive_near_misses ("#!/bin/sh\n#PBS-N x\n# PBS -N y\n#pbs -N z\n#PBS -N ok\n"
                           "# a comment\n#PBSfoo\n#\tPbs\necho\n#pbs -N after\n",
                           NULL, near_miss_count, lines);
    ok (lines[0] == 5 && lines[1] == 2 && lines[2] == 3 && lines[3] == 4
            && lines[4] == 7 && lines[5] == 8,
        "near misses: lines 2, 3, 4, 7, 8 (not the directive, the comment or after "
        "the first command): %d found",
        lines[0]);
}

/* apply one option to spec; on failure the message must contain want
 * (want NULL: must succeed). */
static void check_apply (struct hpcq_jobspec *spec, int opt, const char *arg,
                         const char *want)
{
    struct hpcq_error err = { "" };
    int rc;

    errno = 0;
    rc = directive_apply (spec, opt, arg, &err);
    if (!want)
        ok (rc == 0, "-%c %s accepted%s%s", opt, arg ? arg : "", rc ? ": " : "",
            rc ? err.text : "");
    else
        ok (rc == -1 && errno == EINVAL && strstr (err.text, want) != NULL,
            "-%c %s rejected: %s", opt, arg ? arg : "", err.text);
}

static void test_apply_simple (void)
{
    struct hpcq_jobspec spec;
    char longname[300];

    jobspec_init (&spec);
    check_apply (&spec, 'N', "my_job.1", NULL);
    is (spec.name, "my_job.1", "-N sets name");
    check_apply (&spec, 'N', "a b", "job name 'a b' contains whitespace");
    check_apply (&spec, 'N', "a/b", "job name 'a/b' contains");
    check_apply (&spec, 'N', "", "job name is empty");
    memset (longname, 'x', 237);
    longname[237] = '\0';
    check_apply (&spec, 'N', longname, "longer than 236");
    longname[236] = '\0';
    check_apply (&spec, 'N', longname, NULL);
    ok (spec.name && strlen (spec.name) == 236, "236-character name kept");
    check_apply (&spec, 'N', NULL, "option -N requires an argument");

    check_apply (&spec, 'q', "gpu", NULL);
    is (spec.queue, "gpu", "-q sets queue");
    check_apply (&spec, 'q', "", "-q needs a non-empty value");

    check_apply (&spec, 'j', "oe", NULL);
    ok (spec.join == JOIN_OE, "-j oe");
    check_apply (&spec, 'j', "eo", NULL);
    ok (spec.join == JOIN_EO, "-j eo");
    check_apply (&spec, 'j', "n", NULL);
    ok (spec.join == JOIN_NONE, "-j n");
    check_apply (&spec, 'j', "x", "invalid -j value 'x'");
    check_apply (&spec, 'j', "oee", "invalid -j value 'oee'");
    check_apply (&spec, 'j', "", "invalid -j value ''");
    ok (spec.join == JOIN_NONE, "bad -j leaves join alone");

    check_apply (&spec, 'h', NULL, NULL);
    ok (spec.hold == 1, "-h holds");

    check_apply (&spec, 'A', "proj7", NULL);
    is (spec.account, "proj7", "-A sets account");
    check_apply (&spec, 'A', "", "-A needs a non-empty value");

    check_apply (&spec, 'r', "n", NULL);
    ok (spec.rerunnable == 0, "-r n");
    check_apply (&spec, 'r', "y", NULL);
    ok (spec.rerunnable == 1, "-r y");
    check_apply (&spec, 'r', "yes", "invalid -r value 'yes'");

    check_apply (&spec, 'M', "alice@example.org,bob", NULL);
    is (spec.mail_users, "alice@example.org,bob", "-M sets users");
    check_apply (&spec, 'M', "", "-M needs a non-empty value");

    check_apply (&spec, 'S', "/bin/bash", NULL);
    check_apply (&spec, 'S', "bash", "must be an absolute path");
    check_apply (&spec, 'C', "#HPCQ", NULL);

    check_apply (&spec, 'x', "1", "unknown option -x");
    check_apply (&spec, 'a', "1200", NULL);
    check_apply (&spec, ':', "1", "unknown option -:");
    check_apply (&spec, 'I', NULL,
                 "-I (interactive) is only a qsub command-line option");
    jobspec_release (&spec);
}

static void test_apply_values (void)
{
    struct hpcq_jobspec spec;

    jobspec_init (&spec);
    check_apply (&spec, 'p', "10", NULL);
    ok (spec.priority == 10, "-p 10");
    check_apply (&spec, 'p', "-1024", NULL);
    ok (spec.priority == -1024, "-p -1024");
    check_apply (&spec, 'p', "1023", NULL);
    ok (spec.priority == 1023, "-p 1023");
    check_apply (&spec, 'p', "1024", "invalid priority '1024'");
    check_apply (&spec, 'p', "-1025", "invalid priority '-1025'");
    check_apply (&spec, 'p', "abc", "invalid priority 'abc'");
    check_apply (&spec, 'p', "", "invalid priority ''");
    check_apply (&spec, 'p', "5x", "invalid priority '5x'");
    check_apply (&spec, 'p', " 5", "invalid priority ' 5'");
    check_apply (&spec, 'p', "99999999999999999999", "invalid priority");
    ok (spec.priority == 1023, "bad -p leaves priority alone");

    check_apply (&spec, 'm', "abe", NULL);
    is (spec.mail_points, "abe", "-m abe");
    check_apply (&spec, 'm', "ea", NULL);
    is (spec.mail_points, "ea", "-m ea");
    check_apply (&spec, 'm', "n", NULL);
    is (spec.mail_points, "n", "-m n");
    check_apply (&spec, 'm', "x", "invalid -m value 'x'");
    check_apply (&spec, 'm', "aa", "invalid -m value 'aa'");
    check_apply (&spec, 'm', "an", "invalid -m value 'an'");
    check_apply (&spec, 'm', "", "invalid -m value ''");

    check_apply (&spec, 'W', "depend=afterok:12.head,before:3", NULL);
    is (spec.depend, "afterok:12.head,before:3", "-W depend kept verbatim");
    check_apply (&spec, 'W', "group_list=staff", NULL);
    is (spec.group_list, "staff", "-W group_list=staff");
    check_apply (&spec, 'W', "group_list=a@h1,b@h2",
                 "the group@host form is not supported");
    check_apply (&spec, 'P', "proj1", NULL);
    is (spec.project, "proj1", "-P proj1");
    check_apply (&spec, 'P', "a b", "invalid -P project 'a b'");
    check_apply (&spec, 'k', "oe", NULL);
    is (spec.keep_files, "oe", "-k oe");
    check_apply (&spec, 'k', "doe", NULL);
    check_apply (&spec, 'k', "n", NULL);
    check_apply (&spec, 'k', "on", "invalid -k value 'on'");
    check_apply (&spec, 'k', "oo", "invalid -k value 'oo'");
    check_apply (&spec, 'R', "eo", NULL);
    is (spec.remove_files, "eo", "-R eo");
    check_apply (&spec, 'R', "d", "invalid -R value 'd'");
    check_apply (&spec, 'S', "/bin/bash", NULL);
    is (spec.shell, "/bin/bash", "-S /bin/bash is kept");
    check_apply (&spec, 'S', "/bin/sh@h1", "one path");
    check_apply (&spec, 'a', "2359.60", "no such time");
    check_apply (&spec, 'a', "12", "invalid -a value '12'");
    check_apply (&spec, 'a', "202001010000", NULL);
    ok (spec.execution_time == 0, "-a in the past: eligible now");
    check_apply (&spec, 'a', "209901010000", NULL);
    ok (spec.execution_time > 4000000000LL, "-a 209901010000 is in 2099");
    check_apply (&spec, 'W', "stagein=a@h:/x/a,b@h:rel/b", NULL);
    is (spec.stagein, "a@h:/x/a,b@h:rel/b", "-W stagein kept");
    check_apply (&spec, 'W', "stageout=out@h:/x/out", NULL);
    check_apply (&spec, 'W', "stagein=a@h", "want local_file@host:remote_file");
    check_apply (&spec, 'W', "stagein=@h:/x", "a path or the host is empty");
    check_apply (&spec, 'W', "stageout=a@h:", "a path or the host is empty");
    check_apply (&spec, 'z', NULL, NULL);
    ok (spec.quiet == 1, "-z: quiet");
    check_apply (&spec, 'J', "1-4", NULL);
    check_apply (&spec, 't', "1-3", "-J and -t both ask for a job array");
    check_apply (&spec, 'W', "dependx=1", "unknown -W attribute 'dependx'");
    ok (spec.umask == -1, "no -W umask: -1 (the worker uses 077)");
    check_apply (&spec, 'W', "umask=022", NULL);
    ok (spec.umask == 022, "-W umask=022 is octal");
    check_apply (&spec, 'W', "umask=0077", NULL);
    ok (spec.umask == 077, "-W umask=0077: four digits");
    check_apply (&spec, 'W', "umask=7", NULL);
    ok (spec.umask == 07, "-W umask=7");
    check_apply (&spec, 'W', "umask=0", NULL);
    ok (spec.umask == 0, "-W umask=0");
    check_apply (&spec, 'W', "umask=8", "invalid -W umask value '8'");
    check_apply (&spec, 'W', "umask=999", "invalid -W umask value '999'");
    check_apply (&spec, 'W', "umask=1000", "invalid -W umask value '1000'");
    check_apply (&spec, 'W', "umask=00777", "invalid -W umask value '00777'");
    check_apply (&spec, 'W', "umask=-1", "invalid -W umask value '-1'");
    check_apply (&spec, 'W', "umask= 22", "invalid -W umask value ' 22'");
    check_apply (&spec, 'W', "umask=22x", "invalid -W umask value '22x'");
    check_apply (&spec, 'W', "umask=", "invalid -W umask value ''");
    ok (spec.umask == 0, "a bad -W umask leaves the umask alone");
    check_apply (&spec, 'W', "depend=", "empty dependency list");
    check_apply (&spec, 'W', "depend", "invalid -W value 'depend'");
    check_apply (&spec, 'W', "block=true", NULL);
    ok (spec.block == 1, "-W block=true");
    check_apply (&spec, 'W', "block=FALSE", NULL);
    ok (spec.block == 0, "-W block=FALSE");
    check_apply (&spec, 'W', "block=yes", "illegal -W value: block=yes");
    check_apply (&spec, 'W', "sandbox=private", NULL);
    is (spec.sandbox, "PRIVATE", "-W sandbox=private is PRIVATE");
    check_apply (&spec, 'W', "sandbox=HOME", NULL);
    is (spec.sandbox, "HOME", "-W sandbox=HOME");
    check_apply (&spec, 'W', "sandbox=/tmp", "illegal -W value: sandbox=/tmp");

    check_apply (&spec, 'o', "login1:/scratch/out.txt", NULL);
    is (spec.output_path, "/scratch/out.txt", "-o host:path drops the host");
    check_apply (&spec, 'o', "out.txt", NULL);
    is (spec.output_path, "out.txt", "-o relative path kept as given");
    check_apply (&spec, 'o', "/data/a:b", NULL);
    is (spec.output_path, "/data/a:b", "-o colon after '/' is the path");
    check_apply (&spec, 'o', "login1:", "-o needs a path");
    check_apply (&spec, 'o', "", "-o needs a path");
    check_apply (&spec, 'e', "host.dom:logs/err", NULL);
    is (spec.error_path, "logs/err", "-e host:relative");
    check_apply (&spec, 'e', "/abs/err", NULL);
    is (spec.error_path, "/abs/err", "-e absolute");

    check_apply (&spec, 'l', "walltime=1:00,mem=2gb", NULL);
    ok (spec.res.walltime == 60 && spec.res.job_mem == 2LL << 30,
        "-l goes into the resources");
    check_apply (&spec, 'l', "walltime=abc", "invalid walltime 'abc'");
    check_apply (&spec, 'l', "ncpus=-1", "invalid ncpus '-1'");
    check_apply (&spec, 'l', "mem=12XB", "invalid size '12XB'");
    check_apply (&spec, 'l', "foo=1", "unknown resource 'foo'");
    ok (spec.res.walltime == 60, "bad -l leaves resources alone");
    jobspec_release (&spec);
}

static void test_apply_env (void)
{
    struct hpcq_jobspec spec;

    jobspec_init (&spec);
    setenv ("HPCQ_TEST_B", "from caller", 1);
    unsetenv ("HPCQ_TEST_UNSET");
    check_apply (&spec, 'v', "A=1,HPCQ_TEST_B,C=x=y,D=", NULL);
    is (jobspec_getenv (&spec, "A"), "1", "-v A=1");
    is (jobspec_getenv (&spec, "HPCQ_TEST_B"), "from caller",
        "-v NAME takes the caller's value");
    is (jobspec_getenv (&spec, "C"), "x=y", "-v value may contain '='");
    is (jobspec_getenv (&spec, "D"), "", "-v empty value");
    ok (spec.nenv == 4, "four variables");
    check_apply (&spec, 'v', "A=2", NULL);
    is (jobspec_getenv (&spec, "A"), "2", "-v later value replaces");
    ok (spec.nenv == 4, "replacing adds nothing");
    check_apply (&spec, 'v', "HPCQ_TEST_UNSET", "variable 'HPCQ_TEST_UNSET' not set");
    check_apply (&spec, 'v', "1X=3", "invalid variable name '1X'");
    check_apply (&spec, 'v', "A B=3", "invalid variable name 'A B'");
    check_apply (&spec, 'v', "=3", "invalid variable name ''");
    check_apply (&spec, 'v', "A=1,,B=2", "invalid variable name ''");
    jobspec_release (&spec);

    jobspec_init (&spec);
    setenv ("HPCQ_TEST_V", "v value", 1);
    check_apply (&spec, 'V', NULL, NULL);
    is (jobspec_getenv (&spec, "HPCQ_TEST_V"), "v value",
        "-V copies the caller's environment");
    is (jobspec_getenv (&spec, "HPCQ_TEST_B"), "from caller",
        "-V copies every variable");
    ok (spec.nenv > 2 && spec.env[spec.nenv] == NULL, "-V env is NULL-terminated");
    jobspec_release (&spec);
}

/* Scan script into a fresh spec; returns the rc, message in err. */
static int scan (struct hpcq_jobspec *spec, const char *script, const char *prefix,
                 struct hpcq_error *err)
{
    jobspec_init (spec);
    err->text[0] = '\0';
    return directive_parse_script (spec, script, prefix, err);
}

static void test_script (void)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    const char *script = "#!/bin/bash\n"
                         "# a comment\n"
                         "\n"
                         "#PBS -N first -j oe\n"
                         "   \t\n"
                         "#PBS -l walltime=01:00:00\n"
                         "#PBS -l select=2:ncpus=4 -q batch\n"
                         "  # an indented comment\n"
                         "#PBSX -N notme\n"
                         "  #PBS -N notme2\n"
                         "#PBS -Nsecond\n"
                         "#PBS -v 'MSG=hello world',Q=\"it's\" -M \"a b\"\n"
                         "#PBS -A acct # trailing comment -N notme3\n"
                         "#PBS\n"
                         "#PBS -hp 5\n"
                         "echo start\n"
                         "#PBS -q late\n"
                         "#PBS -l walltime=abc\n";

    ok (scan (&spec, script, NULL, &err) == 0, "script scans: %s", err.text);
    is (spec.name, "second", "-Nname form, later directive wins");
    ok (spec.join == JOIN_OE, "several options on one line");
    ok (spec.res.walltime == 3600, "-l walltime");
    ok (spec.res.nchunks == 1 && spec.res.chunk[0].count == 2
            && spec.res.chunk[0].ncpus == 4,
        "-l select");
    is (spec.queue, "batch", "directives after the first command ignored");
    is (jobspec_getenv (&spec, "MSG"), "hello world", "single quotes group");
    is (jobspec_getenv (&spec, "Q"), "it's", "double quotes group");
    is (spec.mail_users, "a b", "quoted argument as its own word");
    is (spec.account, "acct", "unquoted '#' word starts a comment");
    ok (spec.hold == 1 && spec.priority == 5, "-hp 5: flag then option");
    jobspec_release (&spec);

    ok (scan (&spec, "#PBS -N crlf\r\n#PBS -j eo\r\necho\r\n", NULL, &err) == 0,
        "CRLF script scans");
    is (spec.name, "crlf", "CR is not part of the argument");
    ok (spec.join == JOIN_EO, "second CRLF line read");
    jobspec_release (&spec);

    ok (scan (&spec, "#PBS -N last", NULL, &err) == 0, "no trailing newline");
    is (spec.name, "last", "last line without newline is read");
    jobspec_release (&spec);

    ok (scan (&spec, "", NULL, &err) == 0 && spec.name == NULL,
        "empty script has no directives");
    jobspec_release (&spec);

    ok (scan (&spec, "echo hi\n#PBS -N x\n", NULL, &err) == 0 && spec.name == NULL,
        "command on line 1 stops the scan");
    jobspec_release (&spec);

    ok (scan (&spec, "#!/bin/sh -N\n#PBS -N x\n", NULL, &err) == 0,
        "shebang line skipped");
    is (spec.name, "x", "directive after the shebang read");
    jobspec_release (&spec);

    ok (scan (&spec, "#PBS -N 'a\\b' -M \"x\\\"y\" -A p\\ q\n", NULL, &err) == 0,
        "backslashes: %s", err.text);
    is (spec.name, "a\\b", "backslash literal inside single quotes");
    is (spec.mail_users, "x\"y", "escaped double quote inside double quotes");
    is (spec.account, "p q", "escaped blank outside quotes");
    jobspec_release (&spec);
}

static void test_prefix (void)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    const char *script = "#!/bin/sh\n#PBS -N pbs\n#HPCQ -N hpcq\n#HPCQ -j oe\n";

    ok (scan (&spec, script, "#HPCQ", &err) == 0, "custom prefix scans");
    is (spec.name, "hpcq", "custom prefix lines applied, #PBS ignored");
    ok (spec.join == JOIN_OE, "every custom-prefix line applied");
    jobspec_release (&spec);

    ok (scan (&spec, script, "#PBS", &err) == 0, "explicit #PBS scans");
    is (spec.name, "pbs", "only #PBS lines applied");
    ok (spec.join == JOIN_NONE, "#HPCQ lines ignored with #PBS prefix");
    jobspec_release (&spec);

    ok (scan (&spec, script, "", &err) == 0 && spec.name == NULL,
        "empty prefix disables directives");
    jobspec_release (&spec);
}

static void check_script_error (const char *script, const char *want)
{
    struct hpcq_jobspec spec;
    int rc;
    struct hpcq_error err;

    errno = 0;
    rc = scan (&spec, script, NULL, &err);
    ok (rc == -1 && errno == EINVAL && strcmp (err.text, want) == 0,
        "error '%s' (got '%s')", want, err.text);
    jobspec_release (&spec);
}

static void test_script_errors (void)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;

    check_script_error ("#!/bin/sh\n\n#PBS -l walltime=abc\n",
                        "line 3: invalid walltime 'abc'");
    check_script_error ("#PBS -N ok\n#PBS -l ncpus=-1\n",
                        "line 2: invalid ncpus '-1' (must be an integer"
                        " >= 1)");
    check_script_error ("#PBS -l mem=12XB\n", "line 1: invalid size '12XB'");
    check_script_error ("#!/bin/sh\n#PBS -l foo=2\n", "line 2: unknown resource 'foo'");
    check_script_error ("#\n#\n#\n#PBS -j x\n",
                        "line 4: invalid -j value 'x' (expected oe, eo or n)");
    check_script_error ("#PBS -p 5000\n",
                        "line 1: invalid priority '5000' (must be -1024 to"
                        " 1023)");
    check_script_error ("#PBS -N 'unterminated\n", "line 1: unterminated quote");
    check_script_error ("#PBS -N\n", "line 1: option -N requires an argument");
    check_script_error ("#PBS -N x stray\n", "line 1: unexpected argument 'stray'");
    check_script_error ("#PBS -\n", "line 1: unexpected argument '-'");
    check_script_error ("#PBS -I\n",
                        "line 1: -I (interactive) is only a qsub command-line option");
    check_script_error ("#PBS -k x\n",
                        "line 1: invalid -k value 'x' (o, e, oe, n or d, d with o/e)");
    check_script_error ("#PBS -J 1-2\n#PBS -t 1-2\n",
                        "line 2: -J and -t both ask for a job array (-t is Torque's "
                        "spelling of -J): give one of them");
    check_script_error ("#PBS -N a\\ b\n", "line 1: job name 'a b' contains"
                                           " whitespace, '/' or a control character");

    errno = 0;
    jobspec_init (&spec);
    ok (directive_parse_script (&spec, NULL, NULL, &err) == -1 && errno == EINVAL,
        "NULL script is EINVAL");
    jobspec_release (&spec);
}

/* qsub's order: directives first, then argv through getopt on top. */
static void test_override (void)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err = { "" };
    char *argv[] = {
        "qsub", "-N", "cli", "-l",     "walltime=2:00:00",
        "-jn",  "-p", "-3",  "job.sh", NULL,
    };
    int argc = 9;
    int opt, failed = 0;

    ok (scan (&spec,
              "#!/bin/sh\n#PBS -N script -j oe -p 7\n"
              "#PBS -l walltime=1:00:00,mem=1gb -q q1\ntrue\n",
              NULL, &err)
            == 0,
        "script directives");
    optind = 1;
    opterr = 0;
    while ((opt = getopt (argc, argv, directive_optstring)) != -1) {
        if (directive_apply (&spec, opt, optarg, &err) < 0)
            failed++;
    }
    ok (failed == 0 && optind == 8, "argv options applied with getopt");
    is (spec.name, "cli", "argv -N wins over #PBS -N");
    ok (spec.res.walltime == 7200, "argv walltime wins over #PBS");
    ok (spec.join == JOIN_NONE, "argv -jn wins over #PBS -j oe");
    ok (spec.priority == -3, "argv -p wins over #PBS -p");
    ok (spec.res.job_mem == 1LL << 30, "#PBS mem not given on argv stays");
    is (spec.queue, "q1", "#PBS queue not given on argv stays");
    ok (resource_finalize (&spec.res, &err) == 0 && spec.res.chunk[0].mem == 1LL << 30,
        "finalized request carries the script's mem");
    jobspec_release (&spec);
}

int main (int argc, char *argv[])
{
    plan (NO_PLAN);
    test_near_misses ();
    test_optstring ();
    test_apply_simple ();
    test_apply_values ();
    test_apply_env ();
    test_script ();
    test_prefix ();
    test_script_errors ();
    test_override ();
    return done_testing ();
}

/* test_jobspec.c - jobspec environment, JSON round trip and validation */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <string.h>

#include "common/jobspec.h"
#include "common/util.h"
#include "common/test/tap.h"

/* tap.h's is() tests its arguments for NULL, which gcc -Waddress flags
 * for arrays; passing them through a function hides that. */
static const char *text_of (const char *s)
{
    return s;
}

static int streq_null (const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp (a, b) == 0;
}

static void test_init_release (void)
{
    struct hpcq_jobspec spec;

    jobspec_init (&spec);
    ok (spec.name == NULL && spec.queue == NULL && spec.script == NULL
            && spec.env == NULL && spec.nenv == 0,
        "init leaves pointers NULL");
    ok (spec.priority == 0 && spec.rerunnable == 1 && spec.hold == 0
            && spec.join == JOIN_NONE && spec.umask == -1,
        "init sets defaults");
    ok (spec.res.nchunks == 0 && spec.res.walltime == -1 && spec.res.job_ncpus == -1,
        "init initializes resources");
    errno = 1234;
    jobspec_release (&spec);
    ok (errno == 1234, "release keeps errno");
    jobspec_release (&spec);
    jobspec_release (NULL);
    ok (spec.name == NULL && spec.rerunnable == 1,
        "release twice and release(NULL) are harmless");

    spec.name = strdup ("x");
    spec.depend = strdup ("afterok:1");
    jobspec_release (&spec);
    ok (spec.name == NULL && spec.depend == NULL, "release frees strings and re-inits");
}

static void test_env (void)
{
    struct hpcq_jobspec spec;

    jobspec_init (&spec);
    ok (jobspec_getenv (&spec, "A") == NULL, "getenv on empty env is NULL");
    ok (jobspec_setenv (&spec, "A", "1") == 0, "setenv A=1");
    ok (jobspec_setenv (&spec, "AB", "2") == 0, "setenv AB=2");
    ok (jobspec_setenv (&spec, "EMPTY", "") == 0, "setenv EMPTY=");
    ok (spec.nenv == 3, "three variables");
    is (jobspec_getenv (&spec, "A"), "1", "getenv A");
    is (jobspec_getenv (&spec, "AB"), "2", "getenv AB is not confused with A");
    is (jobspec_getenv (&spec, "EMPTY"), "", "getenv of empty value");
    ok (jobspec_getenv (&spec, "ABC") == NULL, "getenv of unset is NULL");
    ok (jobspec_setenv (&spec, "A", "x=y") == 0, "replace A");
    ok (spec.nenv == 3, "replacing does not add");
    is (jobspec_getenv (&spec, "A"), "x=y", "new value of A, '=' kept");
    is (spec.env[0], "A=x=y", "entry is KEY=VALUE in place");
    ok (spec.env[spec.nenv] == NULL, "env is NULL-terminated");
    errno = 0;
    ok (jobspec_setenv (&spec, "", "1") == -1 && errno == EINVAL,
        "empty key is EINVAL");
    errno = 0;
    ok (jobspec_setenv (&spec, "A=B", "1") == -1 && errno == EINVAL,
        "key with '=' is EINVAL");
    errno = 0;
    ok (jobspec_setenv (&spec, "A", NULL) == -1 && errno == EINVAL,
        "NULL value is EINVAL");
    ok (spec.nenv == 3, "failed setenv adds nothing");
    jobspec_release (&spec);
    ok (spec.env == NULL && spec.nenv == 0, "release frees env");
}

/* A spec with every field set. */
static void make_full (struct hpcq_jobspec *spec)
{
    struct hpcq_error err;

    jobspec_init (spec);
    spec->name = strdup ("myjob");
    spec->queue = strdup ("gpu");
    spec->script = strdup ("#!/bin/sh\n#PBS -N myjob\necho \"hi\" \\ ü\n");
    spec->workdir = strdup ("/home/alice/run");
    spec->submit_host = strdup ("login1");
    spec->output_path = strdup ("/tmp/out.txt");
    spec->error_path = strdup ("err.txt");
    spec->join = JOIN_OE;
    spec->hold = 1;
    spec->priority = -12;
    spec->depend = strdup ("afterok:12.head,before:3");
    spec->account = strdup ("proj1");
    spec->rerunnable = 0;
    spec->umask = 022;
    spec->mail_points = strdup ("abe");
    spec->mail_users = strdup ("alice@example.org");
    spec->submit_args = strdup ("-N myjob job.sh");
    jobspec_setenv (spec, "PBS_O_HOME", "/home/alice");
    jobspec_setenv (spec, "FOO", "a b=c");
    if (resource_parse_list (&spec->res,
                             "select=2:ncpus=4:mem=8gb:ngpus=1"
                             ":mpiprocs=2+1:ncpus=1,walltime=1:30:00,"
                             "place=scatter:excl",
                             &err)
            < 0
        || resource_finalize (&spec->res, &err) < 0)
        diag ("make_full: %s", err.text);
}

/* A spec with only what is required. */
static void make_minimal (struct hpcq_jobspec *spec)
{
    struct hpcq_error err;

    jobspec_init (spec);
    spec->name = strdup ("STDIN");
    spec->script = strdup ("");
    spec->workdir = strdup ("/");
    if (resource_finalize (&spec->res, &err) < 0)
        diag ("make_minimal: %s", err.text);
}

static int chunks_equal (const struct hpcq_resources *a, const struct hpcq_resources *b)
{
    int i;

    if (a->nchunks != b->nchunks)
        return 0;
    for (i = 0; i < a->nchunks; i++) {
        const struct hpcq_chunk *x = &a->chunk[i], *y = &b->chunk[i];
        if (x->count != y->count || x->ncpus != y->ncpus || x->mem != y->mem
            || x->ngpus != y->ngpus || x->mpiprocs != y->mpiprocs)
            return 0;
    }
    return 1;
}

static void compare_specs (const struct hpcq_jobspec *a, const struct hpcq_jobspec *b,
                           const char *what)
{
    int i, env_same = a->nenv == b->nenv;

    ok (streq_null (a->name, b->name) && streq_null (a->queue, b->queue)
            && streq_null (a->script, b->script) && streq_null (a->workdir, b->workdir)
            && streq_null (a->submit_host, b->submit_host),
        "%s: name, queue, script, workdir, submit_host survive", what);
    ok (streq_null (a->output_path, b->output_path)
            && streq_null (a->error_path, b->error_path)
            && streq_null (a->depend, b->depend) && streq_null (a->account, b->account)
            && streq_null (a->mail_points, b->mail_points)
            && streq_null (a->mail_users, b->mail_users)
            && streq_null (a->submit_args, b->submit_args),
        "%s: paths, depend, account, mail, submit_args survive", what);
    ok (a->join == b->join && a->hold == b->hold && a->priority == b->priority
            && a->rerunnable == b->rerunnable && a->umask == b->umask,
        "%s: join, hold, priority, rerunnable, umask survive", what);
    for (i = 0; env_same && i < a->nenv; i++)
        env_same = strcmp (a->env[i], b->env[i]) == 0;
    ok (env_same, "%s: env survives", what);
    ok (b->nenv == 0 || b->env[b->nenv] == NULL, "%s: decoded env is NULL-terminated",
        what);
    ok (chunks_equal (&a->res, &b->res), "%s: chunks survive", what);
    ok (a->res.walltime == b->res.walltime && strcmp (a->res.place, b->res.place) == 0,
        "%s: walltime and place survive", what);
}

static void check_full_json (json_t *o)
{
    json_t *res = json_object_get (o, "resources");
    json_t *chunks = json_object_get (res, "chunks");
    json_t *c0 = json_array_get (chunks, 0);

    is (json_string_value (json_object_get (o, "name")), "myjob", "json name");
    is (json_string_value (json_object_get (o, "join")), "oe", "json join");
    ok (json_is_true (json_object_get (o, "hold")), "json hold is true");
    ok (json_is_false (json_object_get (o, "rerunnable")), "json rerunnable is false");
    ok (json_integer_value (json_object_get (o, "priority")) == -12, "json priority");
    ok (json_integer_value (json_object_get (o, "umask")) == 022, "json umask");
    ok (json_array_size (json_object_get (o, "env")) == 2, "json env size");
    is (json_string_value (json_array_get (json_object_get (o, "env"), 1)), "FOO=a b=c",
        "json env entry");
    ok (json_integer_value (json_object_get (res, "walltime")) == 5400,
        "json walltime");
    is (json_string_value (json_object_get (res, "place")), "scatter:excl",
        "json place");
    ok (json_array_size (chunks) == 2, "json has two chunks");
    ok (json_integer_value (json_object_get (c0, "count")) == 2
            && json_integer_value (json_object_get (c0, "ncpus")) == 4
            && json_integer_value (json_object_get (c0, "mem")) == 8LL << 30
            && json_integer_value (json_object_get (c0, "ngpus")) == 1
            && json_integer_value (json_object_get (c0, "mpiprocs")) == 2,
        "json first chunk fields");
}

static void test_round_trip (void)
{
    struct hpcq_jobspec a, b;
    struct hpcq_error err = { "" };
    json_t *o, *o2;
    char *text;

    make_full (&a);
    o = jobspec_to_json (&a);
    ok (o != NULL, "full spec encodes");
    check_full_json (o);
    ok (jobspec_from_json (o, &b, &err) == 0, "full spec decodes: %s", err.text);
    compare_specs (&a, &b, "full");
    json_decref (o);
    jobspec_release (&b);

    /* through text, as it travels on the wire and sits in the database */
    o = jobspec_to_json (&a);
    text = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    o2 = json_loads (text, 0, NULL);
    ok (o2 && jobspec_from_json (o2, &b, &err) == 0, "full spec decodes from text");
    compare_specs (&a, &b, "text");
    free (text);
    json_decref (o2);
    jobspec_release (&b);
    jobspec_release (&a);

    make_minimal (&a);
    o = jobspec_to_json (&a);
    ok (o != NULL, "minimal spec encodes");
    ok (json_is_null (json_object_get (o, "queue"))
            && json_is_null (json_object_get (o, "error_path"))
            && json_is_null (json_object_get (o, "submit_args")),
        "unset strings encode as null");
    ok (json_integer_value (
            json_object_get (json_object_get (o, "resources"), "walltime"))
            == -1,
        "unset walltime encodes as -1");
    ok (jobspec_from_json (o, &b, &err) == 0, "minimal spec decodes: %s", err.text);
    compare_specs (&a, &b, "minimal");
    ok (b.queue == NULL && b.output_path == NULL && b.env == NULL,
        "null strings decode as NULL");
    json_decref (o);
    jobspec_release (&b);
    jobspec_release (&a);
}

static void test_encode_errors (void)
{
    struct hpcq_jobspec a;

    make_minimal (&a);
    free (a.name);
    a.name = strdup ("caf\xe9");
    errno = 0;
    ok (jobspec_to_json (&a) == NULL && errno == EILSEQ,
        "invalid UTF-8 in the name fails with EILSEQ");
    {
        struct hpcq_error err = { "" };
        ok (jobspec_check_text (&a, &err) == -1 && errno == EILSEQ
                && strstr (err.text,
                           "the job name is not UTF-8 (byte 0xe9 at offset 3)"),
            "jobspec_check_text names the job name and the byte");
    }
    free (a.name);
    a.name = strdup ("x");
    a.join = 7;
    errno = 0;
    ok (jobspec_to_json (&a) == NULL && errno == EINVAL, "bad join fails with EINVAL");
    jobspec_release (&a);
}

/* A valid encoded spec (full, so every field is there to break). */
static json_t *good_json (void)
{
    struct hpcq_jobspec a;
    json_t *o;

    make_full (&a);
    o = jobspec_to_json (&a);
    jobspec_release (&a);
    return o;
}

/* Borrowed: the first chunk object of o. */
static json_t *chunk0 (json_t *o)
{
    return json_array_get (json_object_get (json_object_get (o, "resources"), "chunks"),
                           0);
}

/* Decoding o (taken) fails with EPROTO, a message containing want, and
 * leaves the spec empty. */
static void check_bad (json_t *o, const char *want, const char *what)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err = { "" };
    int rc;

    errno = 0;
    rc = jobspec_from_json (o, &spec, &err);
    ok (rc == -1 && errno == EPROTO && strstr (err.text, want) != NULL
            && strncmp (err.text, "invalid job: ", 13) == 0 && spec.name == NULL
            && spec.env == NULL && spec.nenv == 0,
        "%s: %s", what, err.text);
    jobspec_release (&spec);
    json_decref (o);
}

/* o with key set to v (both taken). */
static json_t *with (json_t *o, const char *key, json_t *v)
{
    json_object_set_new (o, key, v);
    return o;
}

static json_t *without (json_t *o, const char *key)
{
    json_object_del (o, key);
    return o;
}

static json_t *with_chunk (const char *key, json_t *v)
{
    json_t *o = good_json ();

    json_object_set_new (chunk0 (o), key, v);
    return o;
}

static json_t *with_resource (const char *key, json_t *v)
{
    json_t *o = good_json ();

    json_object_set_new (json_object_get (o, "resources"), key, v);
    return o;
}

static json_t *with_chunks (int n)
{
    json_t *o = good_json ();
    json_t *a = json_array ();
    int i;

    for (i = 0; i < n; i++)
        json_array_append_new (a, json_pack ("{s:i s:i}", "count", 1, "ncpus", 1));
    json_object_set_new (json_object_get (o, "resources"), "chunks", a);
    return o;
}

static void test_decode_strings (void)
{
    char longname[300];

    check_bad (json_array (), "not a JSON object", "array is refused");
    check_bad (json_null (), "not a JSON object", "null is refused");
    check_bad (with (good_json (), "foo", json_true ()), "unknown key 'foo'",
               "unknown key");
    check_bad (without (good_json (), "name"), "missing name", "missing name");
    check_bad (with (good_json (), "name", json_null ()), "missing name", "null name");
    check_bad (with (good_json (), "name", json_integer (3)), "name must be a string",
               "integer name");
    check_bad (with (good_json (), "name", json_string ("")), "job name is empty",
               "empty name");
    check_bad (with (good_json (), "name", json_string ("a b")),
               "job name 'a b' contains whitespace", "name with a blank");
    check_bad (with (good_json (), "name", json_string ("a\tb")), "contains whitespace",
               "name with a tab");
    check_bad (with (good_json (), "name", json_string ("../x")),
               "contains whitespace, '/'", "name with a slash");
    check_bad (with (good_json (), "name", json_string ("a\x01")), "control character",
               "name with a control character");
    memset (longname, 'x', 237);
    longname[237] = '\0';
    check_bad (with (good_json (), "name", json_string (longname)), "longer than 236",
               "237-character name");
    check_bad (without (good_json (), "script"), "missing script", "missing script");
    check_bad (with (good_json (), "script", json_stringn ("a\0b", 3)),
               "script contains a NUL", "script with NUL");
    check_bad (without (good_json (), "workdir"), "missing workdir", "missing workdir");
    check_bad (with (good_json (), "workdir", json_string ("run")),
               "workdir 'run' is not an absolute path", "relative workdir");
    check_bad (with (good_json (), "queue", json_integer (1)), "queue must be a string",
               "integer queue");
    check_bad (with (good_json (), "depend", json_false ()), "depend must be a string",
               "boolean depend");
}

static void test_decode_scalars (void)
{
    check_bad (with (good_json (), "join", json_string ("x")),
               "join 'x' is not one of n, oe, eo", "bad join");
    check_bad (with (good_json (), "join", json_integer (1)),
               "invalid job: ", "integer join");
    check_bad (with (good_json (), "hold", json_string ("yes")),
               "invalid job: ", "string hold");
    check_bad (with (good_json (), "rerunnable", json_integer (1)),
               "invalid job: ", "integer rerunnable");
    check_bad (with (good_json (), "priority", json_integer (5000)),
               "invalid job: priority 5000 out of range", "priority 5000");
    check_bad (with (good_json (), "priority", json_integer (-1025)),
               "priority -1025 out of range", "priority -1025");
    check_bad (with (good_json (), "priority", json_integer (1LL << 40)),
               "out of range", "priority 2^40");
    check_bad (with (good_json (), "priority", json_string ("1")),
               "invalid job: ", "string priority");
    check_bad (with (good_json (), "umask", json_integer (01000)),
               "invalid job: umask 512 out of range", "umask 01000");
    check_bad (with (good_json (), "umask", json_integer (-2)),
               "invalid job: umask -2 out of range", "umask -2");
    check_bad (with (good_json (), "umask", json_string ("022")),
               "invalid job: ", "string umask");
    check_bad (with (good_json (), "priority", json_real (1.0)),
               "invalid job: ", "real priority");
    check_bad (with (good_json (), "env", json_string ("A=1")), "env must be an array",
               "string env");
    check_bad (with (good_json (), "env", json_pack ("[s s]", "A=1", "B")),
               "env[1] 'B' is not KEY=VALUE", "env entry without '='");
    check_bad (with (good_json (), "env", json_pack ("[s]", "=x")),
               "env[0] '=x' is not KEY=VALUE", "env entry with empty key");
    check_bad (with (good_json (), "env", json_pack ("[i]", 3)),
               "env[0] must be a string", "integer env entry");
}

static void test_decode_resources (void)
{
    check_bad (without (good_json (), "resources"), "resources", "missing resources");
    check_bad (with (good_json (), "resources", json_string ("x")), "resources",
               "string resources");
    check_bad (with_resource ("foo", json_integer (1)), "resources",
               "unknown key in resources");
    check_bad (with_resource ("walltime", json_integer (-2)),
               "walltime -2 out of range", "walltime -2");
    check_bad (with_resource ("walltime", json_string ("1:00")), "resources",
               "string walltime");
    check_bad (with_resource ("place", json_string ("bogus")), "invalid place 'bogus'",
               "bad place");
    check_bad (with_resource ("place", json_string ("scatter:excl:"
                                                    "scatter:excl:scatter")),
               "place 'scatter:excl:scatter:excl:scatter' is too long",
               "place longer than the struct holds");
    check_bad (with_resource ("chunks", json_object ()),
               "resources.chunks must be an array", "chunks not an array");
    check_bad (with_chunks (0), "1 to 4096 entries", "no chunks");
    check_bad (with_chunks (HPCQ_MAX_CHUNKS + 1), "1 to 4096 entries", "4097 chunks");
    check_bad (with_chunk ("count", json_integer (0)), "chunk 1: count 0 out of range",
               "count 0");
    check_bad (with_chunk ("ncpus", json_integer (0)), "chunk 1: ncpus 0 out of range",
               "ncpus 0");
    check_bad (with_chunk ("ncpus", json_integer (3000000000LL)),
               "chunk 1: ncpus 3000000000 out of range", "ncpus > INT_MAX");
    check_bad (with_chunk ("mem", json_integer (-1)), "chunk 1: mem -1 out of range",
               "mem -1");
    check_bad (with_chunk ("ngpus", json_integer (-1)),
               "chunk 1: ngpus -1 out of range", "ngpus -1");
    check_bad (with_chunk ("mpiprocs", json_integer (-1)),
               "chunk 1: mpiprocs -1 out of range", "mpiprocs -1");
    check_bad (with_chunk ("count", json_string ("2")), "chunk 1: ", "string count");
    check_bad (with_chunk ("hostname", json_string ("n1")),
               "chunk 1: ", "unknown chunk key");
    check_bad (with_chunk ("count", json_integer (1000000000)), "too large",
               "totals that overflow");
    check_bad (without (with_chunk ("ncpus", json_integer (1)), "resources"),
               "resources", "no resources at all");
}

static void test_decode_ok (void)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err = { "" };
    char name[237];
    json_t *o;

    memset (name, 'n', 236);
    name[236] = '\0';
    o = with (good_json (), "name", json_string (name));
    ok (jobspec_from_json (o, &spec, &err) == 0 && strlen (spec.name) == 236,
        "236-character name is accepted");
    jobspec_release (&spec);
    json_decref (o);

    o = with (with (good_json (), "priority", json_integer (1023)), "join",
              json_string ("eo"));
    ok (jobspec_from_json (o, &spec, &err) == 0 && spec.priority == 1023
            && spec.join == JOIN_EO,
        "priority 1023 and join eo accepted");
    jobspec_release (&spec);
    json_decref (o);

    o = with (good_json (), "priority", json_integer (-1024));
    ok (jobspec_from_json (o, &spec, &err) == 0 && spec.priority == -1024,
        "priority -1024 accepted");
    jobspec_release (&spec);
    json_decref (o);

    /* Optional keys may be left out entirely. */
    o = json_pack ("{s:s s:s s:s s:{s:[{s:i s:i}]}}", "name", "j", "script", "true",
                   "workdir", "/tmp", "resources", "chunks", "count", 3, "ncpus", 2);
    ok (jobspec_from_json (o, &spec, &err) == 0, "only required keys: %s", err.text);
    ok (spec.priority == 0 && spec.rerunnable == 1 && spec.join == JOIN_NONE
            && spec.hold == 0 && spec.nenv == 0 && spec.res.walltime == -1
            && spec.res.place[0] == '\0',
        "left-out keys take their defaults");
    ok (spec.res.nchunks == 1 && spec.res.chunk[0].count == 3
            && spec.res.chunk[0].ncpus == 2 && spec.res.chunk[0].mem == 0
            && spec.res.chunk[0].ngpus == 0 && spec.res.chunk[0].mpiprocs == 1,
        "left-out chunk fields take their defaults");
    ok (resource_total_ncpus (&spec.res) == 6, "decoded totals");
    jobspec_release (&spec);
    json_decref (o);
}

static void test_decode_into_used_spec (void)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err = { "" };
    json_t *o = good_json ();
    char buf[64];

    /* A second decode into a released spec, then formatting its select,
     * checks nothing stale survives. */
    ok (jobspec_from_json (o, &spec, &err) == 0, "decode");
    jobspec_release (&spec);
    ok (jobspec_from_json (o, &spec, &err) == 0, "decode again");
    resource_format_select (&spec.res, buf, sizeof (buf));
    is (text_of (buf), "2:ncpus=4:mem=8gb:ngpus=1:mpiprocs=2+1:ncpus=1",
        "decoded select formats as submitted");
    is (jobspec_getenv (&spec, "FOO"), "a b=c", "decoded env is searchable");
    jobspec_release (&spec);
    json_decref (o);
}

/* -A is checked as a job name is; printers escape what got stored. */
static void test_account (void)
{
    struct hpcq_error err;
    char *e;

    ok (jobspec_check_account ("proj-7,a/b", &err) == 0, "an ordinary account passes");
    ok (jobspec_check_account ("x\033]0;t\007", &err) < 0
            && strstr (err.text, "x\\x1b]0;t\\x07"),
        "an escape sequence is refused, shown escaped: %s", err.text);
    ok (jobspec_check_account ("a\nb", &err) < 0, "a newline is refused");
    ok (jobspec_check_account ("a b", &err) == 0, "a space passes (PBS allows it)");
    ok (jobspec_check_account ("a\tb", &err) < 0, "a tab is refused");
    ok (jobspec_check_account ("a\xc2\x9b"
                               "2J",
                               &err)
            < 0,
        "a UTF-8 C1 (CSI) is refused");
    ok (jobspec_check_account ("caf\xc3\xa9", &err) == 0, "other UTF-8 passes");
    ok (jobspec_check_account ("", &err) < 0, "empty is refused");
    e = util_escape_ctl ("a\tb\nc\x7f\xc2\x9b"
                         "d");
    is (e, "a\\tb\\nc\\x7f\\x9bd", "util_escape_ctl: tab, newline, DEL, C1");
    free (e);
}

/* A script that is not UTF-8 goes as script_base64 and comes back byte
 * for byte; a decoder refuses both keys at once, or a NUL inside. */
static void test_script_bytes (void)
{
    struct hpcq_jobspec a, b;
    struct hpcq_error err = { "" };
    json_t *o;

    make_minimal (&a);
    free (a.script);
    a.script = strdup ("echo caf\xe9 \xff\r\n");
    ok (jobspec_check_text (&a, &err) == 0, "a Latin-1 script passes the text check");
    o = jobspec_to_json (&a);
    ok (o && json_object_get (o, "script_base64") && !json_object_get (o, "script"),
        "it is encoded as script_base64");
    ok (o && jobspec_from_json (o, &b, &err) == 0, "and decodes");
    is (b.script, "echo caf\xe9 \xff\r\n", "byte for byte");
    jobspec_release (&b);
    json_object_set_new (o, "script", json_string ("true"));
    check_bad (json_incref (o), "script and script_base64 both given", "both keys");
    json_object_del (o, "script");
    json_object_set_new (o, "script_base64", json_string ("YQBi")); /* a\0b */
    check_bad (o, "script_base64 holds a NUL byte", "a NUL in base64");
    ok (util_utf8_invalid ("caf\xc3\xa9") == -1 && util_utf8_invalid ("\xc0\x80") == 0
            && util_utf8_invalid ("a\xed\xa0\x80") == 1,
        "util_utf8_invalid: UTF-8 passes, overlong and surrogates do not");
    jobspec_release (&a);
}

int main (int argc, char *argv[])
{
    plan (NO_PLAN);
    test_init_release ();
    test_env ();
    test_round_trip ();
    test_encode_errors ();
    test_decode_strings ();
    test_decode_scalars ();
    test_decode_resources ();
    test_decode_ok ();
    test_decode_into_used_spec ();
    test_account ();
    test_script_bytes ();
    return done_testing ();
}

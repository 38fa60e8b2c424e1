/* test_resource.c - PBS resource lists: parsing, finalizing, formatting */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/resource.h"
#include "common/test/tap.h"

/* tap.h's is() tests its arguments for NULL, which gcc -Waddress flags
 * for arrays; passing them through a function hides that. */
static const char *text_of (const char *s)
{
    return s;
}

#define GB (1LL << 30)
#define MB (1LL << 20)
#define KB (1LL << 10)

static void test_size (void)
{
    struct {
        const char *s;
        int64_t bytes;
    } good[] = {
        { "0", 0 },           { "100", 100 },
        { "100b", 100 },      { "1kb", KB },
        { "1KB", KB },        { "4gb", 4 * GB },
        { "4Gb", 4 * GB },    { "1536mb", 1536 * MB },
        { "2tb", 2LL << 40 }, { "1pb", 1LL << 50 },
        { "1w", 8 },          { "2kw", 16 * KB },
        { "1mw", 8 * MB },    { "1gw", 8 * GB },
        { "1tw", 8LL << 40 }, { "1W", 8 },
    };
    const char *bad[] = {
        "12XB",
        "",
        "-1",
        "gb",
        "1.5gb",
        " 1gb",
        "1 gb",
        "1gbb",
        "+1",
        "9999999pb",
        "99999999999999999999",
        "1k",
        "1bk",
    };
    size_t i;

    for (i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        struct hpcq_error err = { "" };
        int64_t b = -42;
        int rc = resource_parse_size (good[i].s, &b, &err);
        ok (rc == 0 && b == good[i].bytes, "size '%s' is %lld bytes", good[i].s,
            (long long)good[i].bytes);
    }
    for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct hpcq_error err = { "" };
        char want[64];
        int64_t b = -42;
        errno = 0;
        int rc = resource_parse_size (bad[i], &b, &err);
        snprintf (want, sizeof (want), "invalid size '%s'", bad[i]);
        ok (rc == -1 && errno == EINVAL && b == -42 && strcmp (err.text, want) == 0,
            "size '%s' is rejected: %s", bad[i], err.text);
    }
}

static void test_walltime (void)
{
    struct {
        const char *s;
        int64_t secs;
    } good[] = {
        { "01:30:00", 5400 }, { "90", 90 },      { "1:00", 60 },
        { "0", 0 },           { "00:00:01", 1 }, { "100:00:00", 360000 },
        { "1:02:03", 3723 },  { "90:00", 5400 },
    };
    const char *bad[] = {
        "abc",
        "",
        "1:2:3:4",
        "1::0",
        ":30",
        "30:",
        "-5",
        "1:-1",
        "1h",
        " 10",
        "99999999999999999999",
        "9999999999999999:00:00",
    };
    size_t i;

    for (i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        struct hpcq_error err = { "" };
        int64_t s = -42;
        int rc = resource_parse_walltime (good[i].s, &s, &err);
        ok (rc == 0 && s == good[i].secs, "walltime '%s' is %lld s", good[i].s,
            (long long)good[i].secs);
    }
    for (i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct hpcq_error err = { "" };
        char want[64];
        int64_t s = -42;
        int rc = resource_parse_walltime (bad[i], &s, &err);
        snprintf (want, sizeof (want), "invalid walltime '%s'", bad[i]);
        ok (rc == -1 && s == -42 && strcmp (err.text, want) == 0,
            "walltime '%s' is rejected: %s", bad[i], err.text);
    }
}

/* A walltime must stay convertible to milliseconds (the worker's timer)
 * and addable to a start time (backfill): at most 2^31 - 1 seconds. */
static void test_walltime_max (void)
{
    struct hpcq_error err = { "" };
    int64_t s = -42;

    ok (resource_parse_walltime ("2147483647", &s, &err) == 0
            && s == RESOURCE_WALLTIME_MAX,
        "walltime 2^31 - 1 seconds is the longest accepted");
    s = -42;
    ok (resource_parse_walltime ("2147483648", &s, &err) == -1 && s == -42
            && strstr (err.text, "longest allowed"),
        "one second more is refused: %s", err.text);
    ok (resource_parse_walltime ("9223372036854776", &s, &err) == -1,
        "a walltime whose milliseconds overflow int64 is refused");
    ok (resource_parse_walltime ("596524:00:00", &s, &err) == -1,
        "596524 hours is refused");
}

static void test_format (void)
{
    char buf[64];
    char small[4];

    resource_format_walltime (5400, buf, sizeof (buf));
    is (text_of (buf), "01:30:00", "5400 s formats as 01:30:00");
    resource_format_walltime (0, buf, sizeof (buf));
    is (text_of (buf), "00:00:00", "0 s formats as 00:00:00");
    resource_format_walltime (3661, buf, sizeof (buf));
    is (text_of (buf), "01:01:01", "3661 s formats as 01:01:01");
    resource_format_walltime (360000, buf, sizeof (buf));
    is (text_of (buf), "100:00:00", "hours may exceed 99");
    resource_format_walltime (-1, buf, sizeof (buf));
    is (text_of (buf), "--", "unset walltime formats as --");
    resource_format_walltime (5400, small, sizeof (small));
    ok (strlen (small) == 3, "walltime is cut to a small buffer");

    resource_format_size (4 * GB, buf, sizeof (buf));
    is (text_of (buf), "4gb", "4 GiB formats as 4gb");
    resource_format_size (1536 * MB, buf, sizeof (buf));
    is (text_of (buf), "1536mb", "1.5 GiB formats as 1536mb");
    resource_format_size (512 * KB, buf, sizeof (buf));
    is (text_of (buf), "512kb", "512 KiB formats as 512kb");
    resource_format_size (100, buf, sizeof (buf));
    is (text_of (buf), "100b", "100 bytes formats as 100b");
    resource_format_size (0, buf, sizeof (buf));
    is (text_of (buf), "0b", "0 formats as 0b");
    resource_format_size (1025, buf, sizeof (buf));
    is (text_of (buf), "1025b", "1025 bytes formats as 1025b");
    resource_format_size (1LL << 50, buf, sizeof (buf));
    is (text_of (buf), "1pb", "2^50 formats as 1pb");
    resource_format_size (3LL << 40, buf, sizeof (buf));
    is (text_of (buf), "3tb", "3 TiB formats as 3tb");
    resource_format_size (1024 * GB, buf, sizeof (buf));
    is (text_of (buf), "1tb", "1024 GiB formats as 1tb");
}

/* Parse arg into a fresh res and finalize; returns -1 on either failing. */
/* res holds a request or is zeroed: what it held is freed first. */
static int parse_final (const char *arg, struct hpcq_resources *res,
                        struct hpcq_error *err)
{
    resource_release (res);
    if (resource_parse_list (res, arg, err) < 0)
        return -1;
    return resource_finalize (res, err);
}

static void check_select (const char *arg, const char *want)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };
    char buf[256] = "";

    if (parse_final (arg, &res, &err) < 0)
        diag ("%s: %s", arg, err.text);
    resource_format_select (&res, buf, sizeof (buf));
    is (text_of (buf), want, "-l %s gives select %s", arg, want);
    resource_release (&res);
}

static void test_select (void)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };
    char buf[256];

    ok (parse_final ("select=2:ncpus=4:mem=8gb:ngpus=1+1:ncpus=1", &res, &err) == 0,
        "two-term select parses");
    ok (res.nchunks == 2, "two chunks");
    ok (res.chunk[0].count == 2 && res.chunk[0].ncpus == 4 && res.chunk[0].mem == 8 * GB
            && res.chunk[0].ngpus == 1 && res.chunk[0].mpiprocs == 1,
        "first chunk 2:ncpus=4:mem=8gb:ngpus=1");
    ok (res.chunk[1].count == 1 && res.chunk[1].ncpus == 1 && res.chunk[1].mem == 0
            && res.chunk[1].ngpus == 0 && res.chunk[1].mpiprocs == 1,
        "second chunk 1:ncpus=1");
    ok (resource_total_ncpus (&res) == 9, "total ncpus 9");
    ok (resource_total_mem (&res) == 16 * GB, "total mem 16gb");
    ok (resource_total_ngpus (&res) == 2, "total ngpus 2");
    ok (resource_total_chunks (&res) == 3, "total chunks 3");
    ok (res.walltime == -1, "walltime unset");
    resource_format_select (&res, buf, sizeof (buf));
    is (text_of (buf), "2:ncpus=4:mem=8gb:ngpus=1+1:ncpus=1", "select formats back");

    check_select ("select=ncpus=4", "1:ncpus=4");
    check_select ("select=3", "3:ncpus=1");
    check_select ("select=2:ncpus=8:mpiprocs=4", "2:ncpus=8:mpiprocs=4");
    check_select ("select=1:ncpus=2:mpiprocs=0", "1:ncpus=2:mpiprocs=0");
    check_select ("select=2:ncpus=4:mpiprocs=2:ompthreads=2",
                  "2:ncpus=4:mpiprocs=2:ompthreads=2");
    check_select ("select=1:ompthreads=8:ncpus=2", "1:ncpus=2:ompthreads=8");
    ok (parse_final ("select=2:ncpus=4:mpiprocs=2:ompthreads=2+1:ncpus=3", &res, &err)
                == 0
            && chunk_ompthreads (&res.chunk[0]) == 2
            && chunk_ompthreads (&res.chunk[1]) == 3,
        "ompthreads: as asked, else the chunk's ncpus (PBS Pro's default)");
    resource_release (&res);
    check_select ("select=1:ncpus=2:mem=1536mb", "1:ncpus=2:mem=1536mb");
    check_select ("SELECT=1:NCPUS=2:ngpus=0", "1:ncpus=2");
    check_select ("select=1:ncpus=2,select=4:ncpus=1", "4:ncpus=1");
    check_select ("nodes=2:ppn=4:gpus=1", "2:ncpus=4:ngpus=1:mpiprocs=4");
    check_select ("nodes=3", "3:ncpus=1");
    check_select ("nodes=2:ppn=4+1:ppn=2", "2:ncpus=4:mpiprocs=4+1:ncpus=2:mpiprocs=2");
    check_select ("select=1:ncpus=2:host=n1:bigmem=True",
                  "1:ncpus=2:host=n1:bigmem=True");
    check_select ("select=2:fast=true:ib=True", "2:ncpus=1:fast=True:ib=True");
    check_select ("ncpus=8,mem=4gb", "1:ncpus=8:mem=4gb");
    check_select ("ngpus=2", "1:ncpus=1:ngpus=2");
    check_select ("ngpus=0", "1:ncpus=1");
    check_select ("walltime=10", "1:ncpus=1");
    check_select ("mem=1gb,select=2:ncpus=1:mem=512mb", "2:ncpus=1:mem=512mb");
    check_select ("ngpus=2,select=2:ncpus=1:ngpus=1", "2:ncpus=1:ngpus=1");

    ok (parse_final ("nodes=2:ppn=4:gpus=1", &res, &err) == 0
            && res.chunk[0].mpiprocs == 4 && resource_total_ncpus (&res) == 8
            && resource_total_ngpus (&res) == 2,
        "Torque ppn sets ncpus and mpiprocs");
    ok (parse_final ("ncpus=8,mem=4gb,ngpus=1", &res, &err) == 0 && res.nchunks == 1
            && res.chunk[0].count == 1 && res.chunk[0].ncpus == 8
            && res.chunk[0].mem == 4 * GB && res.chunk[0].ngpus == 1
            && res.chunk[0].mpiprocs == 1,
        "job-wide values become one chunk");
    ok (res.job_ncpus == -1 && res.job_mem == -1 && res.job_ngpus == -1,
        "folded job-wide values are cleared");
    ok (resource_finalize (&res, &err) == 0 && res.nchunks == 1
            && res.chunk[0].ncpus == 8,
        "finalizing twice changes nothing");
    resource_release (&res);
}

static void test_defaults (void)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };
    char buf[64];

    resource_init (&res);
    ok (res.nchunks == 0 && res.walltime == -1 && res.place[0] == '\0'
            && res.job_ncpus == -1 && res.job_mem == -1 && res.job_ngpus == -1,
        "init means nothing requested");
    ok (resource_total_ncpus (&res) == 1 && resource_total_chunks (&res) == 1
            && resource_total_mem (&res) == 0 && resource_total_ngpus (&res) == 0,
        "unfinalized empty request counts as one default chunk");
    resource_format_select (&res, buf, sizeof (buf));
    is (text_of (buf), "1:ncpus=1", "unfinalized empty request formats as default");
    ok (resource_finalize (&res, &err) == 0, "finalize empty request");
    ok (res.nchunks == 1 && res.chunk[0].count == 1 && res.chunk[0].ncpus == 1
            && res.chunk[0].mem == 0 && res.chunk[0].ngpus == 0
            && res.chunk[0].mpiprocs == 1,
        "nothing requested gives one chunk ncpus=1");
    resource_release (&res);
}

static void test_list (void)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };

    resource_init (&res);
    ok (resource_parse_list (&res, "walltime=01:30:00,mem=4gb,ncpus=8", &err) == 0,
        "mixed list parses");
    ok (res.walltime == 5400 && res.job_mem == 4 * GB && res.job_ncpus == 8,
        "walltime, mem, ncpus stored");
    ok (resource_parse_list (&res, "walltime=2:00", &err) == 0 && res.walltime == 120,
        "later walltime overrides");
    ok (res.job_mem == 4 * GB, "earlier values stay");
    ok (resource_parse_list (&res, "Walltime=1:00:00", &err) == 0
            && res.walltime == 3600,
        "resource names are case-insensitive");

    ok (resource_parse_list (&res, "walltime=99,foo=1", &err) == -1,
        "a bad item fails the list");
    ok (res.walltime == 3600, "a failed list leaves res unchanged");
    ok (resource_parse_list (&res, "select=2:ncpus=2,ncpus=x", &err) == -1
            && res.nchunks == 0,
        "a failed list leaves chunks unchanged");

    ok (resource_parse_list (&res, "place=scatter", &err) == 0
            && strcmp (res.place, "scatter") == 0,
        "place=scatter");
    ok (resource_parse_list (&res, "place=pack:excl", &err) == 0
            && strcmp (res.place, "pack:excl") == 0,
        "place=pack:excl");
    ok (resource_parse_list (&res, "place=free:shared", &err) == 0
            && strcmp (res.place, "free:shared") == 0,
        "place=free:shared");
    ok (resource_parse_list (&res, "place=excl", &err) == 0
            && strcmp (res.place, "excl") == 0,
        "place=excl alone");
    ok (resource_finalize (&res, &err) == 0, "finalize keeps valid place");
    resource_release (&res);
}

/* The list (or finalize) fails and the message contains want. */
static void check_error (const char *arg, const char *want)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };
    int rc;

    errno = 0;
    rc = parse_final (arg, &res, &err);
    ok (rc == -1 && errno == EINVAL && strstr (err.text, want) != NULL,
        "-l %s fails: %s", arg, err.text);
    resource_release (&res);
}

static void test_errors (void)
{
    check_error ("walltime=abc", "invalid walltime 'abc'");
    check_error ("ncpus=-1", "invalid ncpus '-1'");
    check_error ("ncpus=0", "invalid ncpus '0'");
    check_error ("ncpus=abc", "invalid ncpus 'abc'");
    check_error ("ncpus=99999999999", "invalid ncpus '99999999999'");
    check_error ("ncpus=2147483648", "invalid ncpus '2147483648'");
    check_error ("ngpus=-1", "invalid ngpus '-1'");
    check_error ("mem=12XB", "invalid size '12XB'");
    check_error ("foo=1", "unknown resource 'foo'");
    check_error ("nodect=2", "unknown resource 'nodect'");
    check_error ("vmem=1gb,select=1:ncpus=1", "vmem is Torque's");
    check_error ("select=1:ncpus=1,pmem=1gb", "pmem is Torque's");
    check_error ("foo", "unknown resource 'foo'");
    check_error ("walltime", "missing value for resource 'walltime'");
    check_error ("walltime=", "missing value for resource 'walltime'");
    check_error ("", "empty resource list");
    check_error ("walltime=10,", "empty item");
    check_error ("walltime=10,,mem=1gb", "empty item");
    check_error ("select=2:foo=1", "unknown resource 'foo' in select");
    check_error ("select=2:ppn=1", "unknown resource 'ppn' in select");
    check_error ("select=1:ompthreads=0",
                 "invalid ompthreads '0' (must be an integer >= 1)");
    check_error ("select=1:ompthreads=-2", "invalid ompthreads '-2'");
    check_error ("select=1:ompthreads=two", "invalid ompthreads 'two'");
    check_error ("select=1:ompthreads=", "invalid ompthreads ''");
    check_error ("select=1:ompthreads=4294967297", "invalid ompthreads '4294967297'");
    check_error ("nodes=2:mem=1gb", "unknown resource 'mem' in nodes");
    check_error ("nodes=node/01:ppn=2", "invalid host 'node/01'");
    check_error ("select=1:host=a,b", "unknown resource 'b'");
    check_error ("select=1:big mem=True", "invalid node label 'big mem'");
    check_error ("select=0:ncpus=1", "invalid chunk count '0'");
    check_error ("select=-1:ncpus=1", "invalid chunk count '-1'");
    check_error ("select=2:ncpus=0", "invalid ncpus '0'");
    check_error ("select=2:mem=12XB", "invalid size '12XB'");
    check_error ("select=2:ngpus=-1", "invalid ngpus '-1'");
    check_error ("select=2:ncpus=4:2", "invalid select item '2'");
    check_error ("select=2::ncpus=4", "invalid select item ''");
    check_error ("select=1:ncpus=1++1:ncpus=1", "invalid chunk count ''");
    check_error ("select=", "missing value");
    check_error ("nodes=2:ppn=0", "invalid ppn '0'");
    check_error ("select=2000000:ncpus=2000", "too large");
    check_error ("select=1:ncpus=2,ncpus=4", "job-wide ncpus=4");
    check_error ("ncpus=4,select=1:ncpus=2", "cannot be combined");
    check_error ("select=1:ncpus=1,nodes=2:ppn=1", "cannot be combined");
    check_error ("nodes=2:ppn=1,select=1:ncpus=1", "cannot be combined");
    check_error ("procs=2,select=1:ncpus=1", "cannot be combined");
    check_error ("walltime=00:00:00", "walltime=00:00:00 is no time at all");
    check_error ("walltime=0", "no time at all");
    check_error ("ngpus=1,select=2:ngpus=1", "job-wide ngpus=1");
    check_error ("place=bogus", "invalid place 'bogus'");
    check_error ("place=scatter:bogus", "invalid place 'scatter:bogus'");
    check_error ("place=excl:scatter", "invalid place 'excl:scatter'");
    check_error ("place=scatter:excl:x", "invalid place");
    check_error ("place=scatterscatterscatterscatterscatter", "invalid place");
}

/* gpu_model= and mig= per chunk: parsed, checked, formatted back. */
static void test_gpu_kinds (void)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };

    ok (parse_final ("select=2:ncpus=4:ngpus=1:gpu_model=A100+1:ncpus=1:mig=1g.5gb",
                     &res, &err)
            == 0,
        "select with gpu_model and mig parses");
    is (chunk_model (&res.chunk[0]), "A100", "chunk 1 gpu_model A100");
    is (chunk_mig (&res.chunk[0]), "", "chunk 1 no mig");
    is (chunk_mig (&res.chunk[1]), "1g.5gb", "chunk 2 mig 1g.5gb");
    ok (res.chunk[1].mig == resource_intern ("1g.5gb"),
        "equal profiles share one interned copy");
    ok (res.chunk[1].ngpus == 0, "a MIG chunk counts no whole GPU");
    check_select ("select=1:ncpus=2:mig=3g.20gb", "1:ncpus=2:mig=3g.20gb");
    check_select ("select=1:mig=1g.18gb:gpu_model=H200",
                  "1:ncpus=1:gpu_model=H200:mig=1g.18gb");
    check_select ("select=1:ngpus=2:gpu_model=NVIDIA_A100-SXM4.40GB",
                  "1:ncpus=1:ngpus=2:gpu_model=NVIDIA_A100-SXM4.40GB");
    check_select ("select=4:MIG=7g.80gb", "4:ncpus=1:mig=7g.80gb");
    check_error ("select=1:mig=1g", "invalid MIG profile '1g'");
    check_error ("select=1:mig=0g.5gb", "invalid MIG profile '0g.5gb'");
    check_error ("select=1:mig=9g.5gb", "invalid MIG profile '9g.5gb'");
    check_error ("select=1:mig=1g.5GB", "invalid MIG profile '1g.5GB'");
    check_error ("select=1:mig=1g.5gbx", "invalid MIG profile '1g.5gbx'");
    check_error ("select=1:mig=g.5gb", "invalid MIG profile 'g.5gb'");
    check_error ("select=1:mig=1g.gb", "invalid MIG profile '1g.gb'");
    check_error ("select=1:mig=", "invalid MIG profile ''");
    check_error ("select=1:mig=1g.99999gb", "invalid MIG profile '1g.99999gb'");
    check_error ("select=1:mig=01g.5gb", "invalid MIG profile '01g.5gb'");
    check_error ("select=1:mig=1g.05gb", "invalid MIG profile '1g.05gb'");
    check_error ("select=1:mig=0000000000000001g.5gb", "invalid MIG profile");
    check_error ("select=1:ngpus=1:mig=1g.5gb",
                 "chunk 1: ngpus=1 and mig=1g.5gb cannot be combined");
    check_error ("select=1:gpu_model=", "invalid gpu_model ''");
    check_error ("select=1:gpu_model=A 100", "invalid gpu_model 'A 100'");
    check_error ("select=1:gpu_model=a/b", "invalid gpu_model 'a/b'");
    check_error (
        "select=1:gpu_model=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "invalid gpu_model");
    check_error ("nodes=1:mig=1g.5gb", "unknown resource 'mig' in nodes");

    /* A stored spec is checked again: a bad profile there is refused. */
    ok (parse_final ("select=1:mig=1g.5gb", &res, &err) == 0, "mig parses");
    res.chunk[0].mig = "bogus";
    ok (resource_finalize (&res, &err) == -1 && strstr (err.text, "bogus"),
        "finalize refuses a bad stored profile");
    ok (resource_check_mig ("2g.10gb", &err) == 0, "2g.10gb is a profile");
    resource_release (&res);
}

static void test_select_16 (void)
{
    struct hpcq_resources res = { 0 };
    struct hpcq_error err = { "" };
    char buf[16];

    ok (parse_final ("select=1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+2", &res, &err) == 0
            && res.nchunks == 16 && resource_total_chunks (&res) == 17,
        "16 chunks are allowed");
    resource_format_select (&res, buf, sizeof (buf));
    ok (strlen (buf) == sizeof (buf) - 1 && strncmp (buf, "1:ncpus=1+1:ncp", 15) == 0,
        "select format is cut short to the buffer: %s", buf);

    res.chunk[3].ncpus = 0;
    errno = 0;
    ok (resource_finalize (&res, &err) == -1 && errno == EINVAL
            && strstr (err.text, "chunk 4: ncpus 0") != NULL,
        "finalize checks chunks set by hand: %s", err.text);
    res.chunk[3].ncpus = 1;
    res.walltime = -7;
    ok (resource_finalize (&res, &err) == -1, "finalize checks walltime");
    resource_release (&res);
}

/* "1+1+...+1", n terms: a select statement of n chunks (caller frees). */
static char *terms (int n)
{
    char *s = malloc (strlen ("select=") + 2 * (size_t)n + 1), *p = s;

    p += sprintf (p, "select=");
    for (int i = 0; i < n; i++)
        p += sprintf (p, "%s1", i ? "+" : "");
    return s;
}

/* Any number of nodes: a chunk list sized to the request, owned by it. */
static void test_big (void)
{
    struct hpcq_resources res = { 0 }, copy;
    struct hpcq_error err = { "" };
    char *text;

    ok (parse_final ("select=4096:ncpus=64:ngpus=8,place=scatter", &res, &err) == 0
            && res.nchunks == 1 && resource_total_chunks (&res) == 4096
            && resource_total_ncpus (&res) == 4096 * 64,
        "select=4096 is one chunk of 4096 copies");
    text = terms (HPCQ_MAX_CHUNKS);
    ok (parse_final (text, &res, &err) == 0 && res.nchunks == HPCQ_MAX_CHUNKS
            && resource_total_chunks (&res) == HPCQ_MAX_CHUNKS,
        "%d select terms are allowed", HPCQ_MAX_CHUNKS);
    free (text);
    text = terms (HPCQ_MAX_CHUNKS + 1);
    errno = 0;
    ok (parse_final (text, &res, &err) == -1 && errno == EINVAL
            && strstr (err.text, "too many chunks in select"),
        "%d terms are refused: %s", HPCQ_MAX_CHUNKS + 1, err.text);
    free (text);

    ok (parse_final ("select=2:ncpus=4+3:ncpus=1:mem=1gb", &res, &err) == 0
            && resource_copy (&copy, &res) == 0 && copy.chunk != res.chunk
            && copy.nchunks == 2 && copy.chunk[1].count == 3 && copy.chunk[1].mem == GB,
        "resource_copy makes a list of its own");
    copy.chunk[0].ncpus = 9;
    ok (res.chunk[0].ncpus == 4, "changing the copy leaves the original");
    resource_release (&copy);
    ok (copy.chunk == NULL && copy.nchunks == 0 && copy.walltime == -1,
        "released: nothing requested");
    resource_release (&copy); /* twice is harmless */

    ok (resource_parse_list (&res, "select=1:ncpus=2", &err) == 0 && res.nchunks == 1
            && res.chunk[0].ncpus == 2,
        "a later select replaces the list");
    ok (resource_parse_list (&res, "select=3:ncpus=2:bogus=1", &err) == -1
            && res.nchunks == 1 && res.chunk[0].ncpus == 2,
        "a failed select leaves it");
    ok (resource_add_chunk (&res, &err) != NULL && res.nchunks == 2
            && res.chunk[1].count == 1 && res.chunk[1].ncpus == 1
            && res.chunk[1].mpiprocs == 1,
        "resource_add_chunk appends a default chunk");
    resource_release (&res);
}

/* A job-wide mem beside select, as PBS Pro folds it (pbs_resources(7B)). */
static void test_job_wide_mem (void)
{
    check_select ("select=1:ncpus=1,mem=1gb", "1:ncpus=1:mem=1gb");
    check_select ("mem=1gb,select=1:ncpus=1", "1:ncpus=1:mem=1gb");
    check_select ("select=4:ncpus=1,mem=16gb", "4:ncpus=1:mem=4gb");
    check_select ("select=2:ncpus=1+1:ncpus=2,mem=3gb",
                  "2:ncpus=1:mem=1gb+1:ncpus=2:mem=1gb");
    /* The chunks' own memory wins over a job-wide one. */
    check_select ("mem=3gb,select=2:ncpus=1:mem=1gb", "2:ncpus=1:mem=1gb");
    check_select ("walltime=00:00:01", "1:ncpus=1");
    check_select ("select=1:ncpus=1:vnode=node2", "1:ncpus=1:host=node2");
}

int main (int argc, char *argv[])
{
    plan (NO_PLAN);
    test_size ();
    test_walltime ();
    test_walltime_max ();
    test_format ();
    test_select ();
    test_defaults ();
    test_list ();
    test_errors ();
    test_select_16 ();
    test_big ();
    test_gpu_kinds ();
    test_job_wide_mem ();
    return done_testing ();
}

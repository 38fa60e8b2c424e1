/* test_config.c - the configuration file: parsing, errors, overrides */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/test/tap.h"

static char tmpdir[256];

/* Write text to a file in tmpdir; returns its path (static buffer per slot). */
static const char *write_conf (const char *name, const char *text)
{
    static char paths[8][512];
    static int slot;
    char *path = paths[slot++ % 8];
    FILE *f;

    snprintf (path, 512, "%s/%s", tmpdir, name);
    if (!(f = fopen (path, "w"))) {
        diag ("cannot write %s", path);
        exit (1);
    }
    fputs (text, f);
    fclose (f);
    return path;
}

static void test_load (void)
{
    struct config *cfg = config_create ();
    struct hpcq_error err = { "" };
    const char *path =
        write_conf ("good.conf", "# hpcq test configuration\n"
                                 "server_name = alpha\n"
                                 "\n"
                                 "   \t\n"
                                 "  node_timeout=30   \n"
                                 "sched_interval_ms =   500 # trailing comment\n"
                                 "# server_name = commented\n"
                                 "server_name = beta\n"
                                 "labels = a=b,c\n"
                                 "gpu_model =\n"
                                 "log_file = /var/log/hpcq.log\r\n"
                                 "log_level = debug");

    ok (cfg != NULL, "config_create works");
    ok (config_load (cfg, path, &err) == 0,
        "a file with comments and blank lines loads");
    is (config_get (cfg, "server_name", NULL), "beta",
        "a later key overrides an earlier one");
    is (config_get (cfg, "node_timeout", NULL), "30",
        "spaces around a line are trimmed");
    is (config_get (cfg, "sched_interval_ms", NULL), "500",
        "spaces around '=' and a trailing comment are dropped");
    is (config_get (cfg, "labels", NULL), "a=b,c", "a value may contain '='");
    is (config_get (cfg, "gpu_model", "unset"), "",
        "an empty value is an empty string");
    is (config_get (cfg, "log_file", NULL), "/var/log/hpcq.log",
        "a CRLF line ending is trimmed");
    is (config_get (cfg, "log_level", NULL), "debug",
        "a last line without newline is read");
    is (config_get (cfg, "socket", "dflt"), "dflt", "an absent key gives the default");
    ok (config_get (cfg, "socket", NULL) == NULL,
        "an absent key with a NULL default is NULL");
    is (config_get (NULL, "socket", "dflt"), "dflt",
        "config_get accepts a NULL config");

    ok (config_set (cfg, "server_name", "gamma") == 0, "config_set replaces a key");
    is (config_get (cfg, "server_name", NULL), "gamma",
        "the override wins over the file");
    ok (config_set (cfg, "not_a_known_key", "x") == 0,
        "config_set does not check the key list");
    is (config_get (cfg, "not_a_known_key", NULL), "x", "and the value reads back");

    /* A second load over the same config overrides what it names only. */
    path = write_conf ("second.conf", "node_timeout = 60\n");
    ok (config_load (cfg, path, &err) == 0, "a second file loads into the same config");
    is (config_get (cfg, "node_timeout", NULL), "60", "the second file overrides");
    is (config_get (cfg, "server_name", NULL), "gamma", "keys it does not name stay");
    config_destroy (cfg);
    config_destroy (NULL);
    ok (1, "config_destroy (NULL) is safe");
}

static void test_errors (void)
{
    struct config *cfg = config_create ();
    struct hpcq_error err = { "" };
    char want[600], missing[512];
    const char *path;
    const char *text;

    path = write_conf ("unknown.conf", "server_name = x\n\nbogus_key = 1\n");
    errno = 0;
    ok (config_load (cfg, path, &err) < 0, "an unknown key is an error");
    ok (errno == EINVAL, "errno is EINVAL for an unknown key");
    snprintf (want, sizeof (want), "%s:3: unknown key 'bogus_key'", path);
    text = err.text;
    ok (strcmp (text, want) == 0, "the message names file, line and key: '%s'", text);

    path = write_conf ("case.conf", "Server_Name = x\n");
    ok (config_load (cfg, path, &err) < 0, "keys are case sensitive");

    path = write_conf ("noeq.conf", "# comment\n"
                                    "server_name = x\n"
                                    "\n"
                                    "   \n"
                                    "node_timeout 30\n"
                                    "sched_interval_ms = 5\n");
    errno = 0;
    ok (config_load (cfg, path, &err) < 0, "a line without '=' is an error");
    ok (errno == EINVAL, "errno is EINVAL for a line without '='");
    snprintf (want, sizeof (want), "%s:5: expected 'key = value'", path);
    text = err.text;
    ok (strcmp (text, want) == 0, "blank and comment lines count: '%s'", text);

    path = write_conf ("noeq2.conf", "socket = /tmp/s\r\n\r\njunk\r\n");
    ok (config_load (cfg, path, &err) < 0, "a CRLF file with a junk line fails");
    snprintf (want, sizeof (want), "%s:3: expected 'key = value'", path);
    text = err.text;
    ok (strcmp (text, want) == 0, "with the right line number: '%s'", text);

    path = write_conf ("emptykey.conf", " = 5\n");
    ok (config_load (cfg, path, &err) < 0, "an empty key is an error");
    snprintf (want, sizeof (want), "%s:1: unknown key ''", path);
    text = err.text;
    ok (strcmp (text, want) == 0, "and named as '': '%s'", text);

    snprintf (missing, sizeof (missing), "%s/does-not-exist.conf", tmpdir);
    errno = 0;
    err.text[0] = '\0';
    ok (config_load (cfg, missing, &err) < 0, "a missing file is an error");
    ok (errno == ENOENT, "errno is ENOENT for a missing file");
    ok (strstr (err.text, missing) != NULL, "the message names the file: '%s'",
        err.text);
    ok (config_load (cfg, tmpdir, &err) < 0, "a directory is not a config file");
    ok (config_load (cfg, missing, NULL) < 0, "a NULL err is accepted");
    config_destroy (cfg);
}

static void test_get_int (void)
{
    struct config *cfg = config_create ();
    struct hpcq_error err = { "" };
    int64_t v;
    struct {
        const char *value;
        int64_t min, max;
    } bad[] = {
        { "abc", 0, 100 },
        { "", 0, 100 },
        { "12abc", 0, 100 },
        { "1.5", 0, 100 },
        { "0x10", 0, 100 },
        { "101", 0, 100 },
        { "-1", 0, 100 },
        { "99999999999999999999", INT64_MIN, INT64_MAX },
        { "-99999999999999999999", INT64_MIN, INT64_MAX },
        { "5 6", 0, 100 },
    };

    v = -42;
    ok (config_get_int (cfg, "node_timeout", 17, 1, 100, &v, &err) == 0 && v == 17,
        "an absent key gives the default");
    config_set (cfg, "node_timeout", "30");
    ok (config_get_int (cfg, "node_timeout", 17, 1, 100, &v, &err) == 0 && v == 30,
        "an integer in range is read");
    ok (config_get_int (cfg, "node_timeout", 17, 30, 30, &v, &err) == 0 && v == 30,
        "the bounds are inclusive");
    config_set (cfg, "node_timeout", "-7");
    ok (config_get_int (cfg, "node_timeout", 0, -10, 10, &v, &err) == 0 && v == -7,
        "a negative value within range is read");
    config_set (cfg, "node_timeout", "9223372036854775807");
    ok (config_get_int (cfg, "node_timeout", 0, 0, INT64_MAX, &v, &err) == 0
            && v == INT64_MAX,
        "INT64_MAX is read");

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        v = -42;
        err.text[0] = '\0';
        errno = 0;
        config_set (cfg, "node_timeout", bad[i].value);
        int rc =
            config_get_int (cfg, "node_timeout", 5, bad[i].min, bad[i].max, &v, &err);
        ok (rc < 0 && errno == EINVAL && v == -42,
            "'%s' in [%lld,%lld] is rejected (EINVAL, out untouched)", bad[i].value,
            (long long)bad[i].min, (long long)bad[i].max);
    }
    config_set (cfg, "node_timeout", "abc");
    config_get_int (cfg, "node_timeout", 5, 1, 100, &v, &err);
    {
        const char *text = err.text;
        is (text, "node_timeout: invalid value 'abc' (want 1..100)",
            "the message names key, value and range: '%s'", text);
    }
    config_destroy (cfg);
}

static void test_client_server (void)
{
    struct hpcq_error err = { "" };
    char *s;

    setenv ("HPCQ_CONFIG",
            write_conf ("client.conf", "server = head:15001\nsocket = /s\n"), 1);
    s = config_client_server (&err);
    is (s, "head:15001", "config_client_server prefers 'server'");
    free (s);

    setenv ("HPCQ_CONFIG", write_conf ("client2.conf", "socket = /run/hpcq.sock\n"), 1);
    s = config_client_server (&err);
    is (s, "/run/hpcq.sock", "config_client_server falls back to 'socket'");
    free (s);

    setenv ("HPCQ_CONFIG", write_conf ("client3.conf", "node_name = n1\n"), 1);
    err.text[0] = '\0';
    s = config_client_server (&err);
    ok (s == NULL && strstr (err.text, "neither") != NULL,
        "without server or socket it fails: '%s'", err.text);
    free (s);

    setenv ("HPCQ_CONFIG", write_conf ("client4.conf", "bogus = 1\n"), 1);
    s = config_client_server (&err);
    ok (s == NULL && strstr (err.text, "unknown key") != NULL,
        "a broken file fails: '%s'", err.text);
    free (s);
    unsetenv ("HPCQ_CONFIG");
}

static void cleanup (void)
{
    const char *names[] = {
        "good.conf",    "second.conf",  "unknown.conf",  "case.conf",
        "noeq.conf",    "noeq2.conf",   "emptykey.conf", "client.conf",
        "client2.conf", "client3.conf", "client4.conf",
    };
    char path[512];

    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
        snprintf (path, sizeof (path), "%s/%s", tmpdir, names[i]);
        (void)unlink (path);
    }
    if (rmdir (tmpdir) < 0)
        diag ("cannot remove %s", tmpdir);
}

int main (void)
{
    const char *t = getenv ("TMPDIR");

    snprintf (tmpdir, sizeof (tmpdir), "%s/test_config.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp (tmpdir)) {
        diag ("mkdtemp failed");
        return 1;
    }
    test_load ();
    test_errors ();
    test_get_int ();
    test_client_server ();
    cleanup ();
    return done_testing ();
}

/* test_ckptspec.c - qsub -c values (PBS Pro's, Torque's, auto) and
 * -W checkpoint_signal. */
#include <config.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "common/ckptspec.h"
#include "common/test/tap.h"

/* The canonical form of s, or "ERR: message". */
static const char *canon (const char *s)
{
    static char buf[300];
    struct hpcq_error err;
    struct ckptspec c;

    if (ckptspec_parse (s, &c, &err) < 0) {
        snprintf (buf, sizeof (buf), "ERR: %s", err.text);
        return buf;
    }
    ckptspec_format (&c, buf, sizeof (buf));
    return buf;
}

static void test_values (void)
{
    static const char *cases[][2] = {
        { "n", "n" },
        { "s", "s" },
        { "u", "u" },
        { "auto", "auto" },
        { "c", "c" },
        { "c=30", "c=30" },
        { "w", "w" },
        { "w=10", "w=10" },
        { "enabled", "s" },
        { "shutdown", "s" },
        { "none", "n" },
        { "periodic", "w" },
        { "periodic,interval=5", "w=5" },
        { "enabled,periodic,interval=10", "w=10" },
        { "interval=3,periodic", "w=3" },
        { "enabled,shutdown", "s" },
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        is (canon (cases[i][0]), cases[i][1], "-c %s is %s", cases[i][0], cases[i][1]);
}

static void test_errors (void)
{
    struct hpcq_error err;
    struct ckptspec c;
    static const char *bad[] = {
        "x=3",      "",           "c=0",         "w=-1",
        "c=abc",    "w=1.5",      "c=999999999", "periodic,depth=2",
        "dir=/tmp", "interval=5", "C",           "s,",
        "auto=3",
    };

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        ok (ckptspec_parse (bad[i], &c, &err) < 0 && errno == EINVAL
                && strncmp (err.text, "illegal -c value: ", 18) == 0
                && !strchr (err.text, '\n'),
            "-c '%s' refused in one line: %s", bad[i], err.text);
    }
    ckptspec_parse ("x=3", &c, &err);
    is (err.text,
        "illegal -c value: x=3 (expected n, s, c[=MIN], w[=MIN], u, auto, "
        "enabled, shutdown or periodic[,interval=MIN])",
        "the message names what is allowed");
    ok (ckptspec_parse (NULL, &c, &err) < 0, "NULL is refused");
}

static void test_signals (void)
{
    struct hpcq_error err;
    char name[16];

    ok (ckptspec_signal ("USR1", name, sizeof (name), &err) == SIGUSR1
            && !strcmp (name, "USR1"),
        "USR1");
    ok (ckptspec_signal ("SIGUSR2", name, sizeof (name), &err) == SIGUSR2
            && !strcmp (name, "USR2"),
        "SIGUSR2 is USR2");
    ok (ckptspec_signal ("hup", name, sizeof (name), &err) == SIGHUP
            && !strcmp (name, "HUP"),
        "names in any case");
    ok (ckptspec_signal ("10", name, sizeof (name), &err) == 10, "a number");
    /* Found by the fuzzer: these were accepted as TRAP, SEGV and PWR,
     * names that did not read back. */
    ok (ckptspec_signal ("5", NULL, 0, &err) < 0
            && ckptspec_signal ("11", NULL, 0, &err) < 0
            && ckptspec_signal ("30", NULL, 0, &err) < 0
            && strstr (err.text, "not a signal to checkpoint with")
            && !strchr (err.text, '\n'),
        "numbers of signals without a name hpcq reads are refused: %s", err.text);
    ok (ckptspec_signal ("TERM", name, sizeof (name), &err) < 0
            && strstr (err.text, "SIGTERM"),
        "TERM refused: it means checkpoint, then stop (%s)", err.text);
    ok (ckptspec_signal ("KILL", NULL, 0, &err) < 0
            && ckptspec_signal ("STOP", NULL, 0, &err) < 0
            && ckptspec_signal ("CONT", NULL, 0, &err) < 0,
        "KILL, STOP, CONT refused");
    ok (ckptspec_signal ("BOGUS", NULL, 0, &err) < 0
            && strstr (err.text, "unknown signal"),
        "an unknown name: %s", err.text);
}

static void test_takes_signal (void)
{
    ok (!ckptspec_takes_signal (CKPT_UNSET) && !ckptspec_takes_signal (CKPT_NEVER),
        "u and n take no checkpoint signal");
    ok (ckptspec_takes_signal (CKPT_ASKED) && ckptspec_takes_signal (CKPT_CPU)
            && ckptspec_takes_signal (CKPT_WALL) && ckptspec_takes_signal (CKPT_AUTO),
        "s, c, w and auto do");
}

int main (void)
{
    plan (NO_PLAN);
    test_values ();
    test_errors ();
    test_signals ();
    test_takes_signal ();
    done_testing ();
}

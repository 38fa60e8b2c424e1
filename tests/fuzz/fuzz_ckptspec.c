/* fuzz_ckptspec.c - what a job asks of checkpointing: qsub -c and #PBS -c
 * values (ckptspec_parse), and -W checkpoint_signal (ckptspec_signal),
 * both read from any user and again by the scheduler.  The first line of
 * the input is a -c value, the second a signal (values of one line each,
 * as the command line and #PBS give them).
 * Properties: an accepted -c value prints (ckptspec_format) as text that
 * parses back to the same request; a refused one leaves one line of
 * error; an accepted signal is in 1..64, its canonical name parses back
 * to the same number, and it is never one a checkpoint cannot be asked
 * with (TERM, KILL, STOP, CONT).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/ckptspec.h"
#include "tests/fuzz/fuzz.h"

static void check_mode (const char *s)
{
    struct ckptspec c, back;
    struct hpcq_error err = { "" };
    char text[16];

    if (ckptspec_parse (s, &c, &err) < 0) {
        if (!err.text[0] || strchr (err.text, '\n'))
            fuzz_fail ("-c '%s' refused without one line of error", s);
        return;
    }
    if (c.minutes < 0 || c.minutes > CKPTSPEC_MAX_MINUTES)
        fuzz_fail ("-c '%s': %d minutes", s, c.minutes);
    ckptspec_format (&c, text, sizeof (text));
    if (ckptspec_parse (text, &back, &err) < 0 || back.mode != c.mode
        || back.minutes != c.minutes)
        fuzz_fail ("-c '%s' prints as '%s', which reads back differently", s, text);
}

static void check_signal (const char *s)
{
    struct hpcq_error err = { "" };
    char name[16], again[16];
    int signo = ckptspec_signal (s, name, sizeof (name), &err);

    if (signo < 0) {
        if (!err.text[0] || strchr (err.text, '\n'))
            fuzz_fail ("checkpoint_signal '%s' refused without one line of error", s);
        return;
    }
    if (signo < 1 || signo > 64 || signo == SIGTERM || signo == SIGKILL
        || signo == SIGSTOP || signo == SIGCONT)
        fuzz_fail ("checkpoint_signal '%s' accepted as %d", s, signo);
    if (ckptspec_signal (name, again, sizeof (again), &err) != signo
        || strcmp (name, again))
        fuzz_fail ("checkpoint_signal '%s' is %s, which reads back differently", s,
                   name);
}

FUZZ_TARGET (ckptspec)
{
    char *s = fuzz_string (data, size), *sig = strchr (s, '\n'), *end;

    fuzz_setup ();
    if (sig) {
        *sig++ = '\0';
        if ((end = strchr (sig, '\n')))
            *end = '\0';
    }
    check_mode (s);
    if (sig)
        check_signal (sig);
    free (s);
    return 0;
}

/* ckptspec.c - see ckptspec.h
 *
 * PBS Pro's -c values are from its qsub(1B) ("n", "s", "c", "c=<minutes>",
 * "w", "w=<minutes>", "u"); Torque's from its qsub documentation
 * ("none", "enabled", "shutdown", "periodic", "interval=<minutes>", joined
 * by commas).  Torque's depth= and dir= are refused: checkpoints keep
 * checkpoint_keep generations in the folder the scheduler chooses.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/ckptspec.h"
#include "common/jobspec.h"
#include "common/util.h"

#define EXPECTED                                                      \
    "expected n, s, c[=MIN], w[=MIN], u, auto, enabled, shutdown or " \
    "periodic[,interval=MIN]"

static int illegal (const char *s, struct hpcq_error *err)
{
    return errprintf_code (err, EINVAL, "illegal -c value: %s (" EXPECTED ")", s);
}

/* MIN of "c=MIN": whole minutes, 1 and up. */
static int parse_minutes (const char *v, const char *s, int *out,
                          struct hpcq_error *err)
{
    long m;

    if (util_parse_long (v, 1, CKPTSPEC_MAX_MINUTES, &m) < 0)
        return errprintf_code (err, EINVAL,
                               "illegal -c value: %s (the interval is "
                               "whole minutes, 1 to %d)",
                               s, CKPTSPEC_MAX_MINUTES);
    *out = (int)m;
    return 0;
}

/* PBS's one-letter forms and ours. */
static int parse_pbs (const char *s, struct ckptspec *out, struct hpcq_error *err)
{
    if (!strcmp (s, "n") || !strcmp (s, "none"))
        out->mode = CKPT_NEVER;
    else if (!strcmp (s, "s"))
        out->mode = CKPT_ASKED;
    else if (!strcmp (s, "u"))
        out->mode = CKPT_UNSET;
    else if (!strcmp (s, "auto"))
        out->mode = CKPT_AUTO;
    else if ((s[0] == 'c' || s[0] == 'w') && (s[1] == '\0' || s[1] == '=')) {
        out->mode = s[0] == 'c' ? CKPT_CPU : CKPT_WALL;
        if (s[1] == '=')
            return parse_minutes (s + 2, s, &out->minutes, err);
    } else
        return 1; /* not one of these: maybe Torque's */
    return 0;
}

/* Torque's comma-joined words. */
static int parse_torque (const char *s, struct ckptspec *out, struct hpcq_error *err)
{
    char *copy = xstrdup (s), *rest = copy, *w;
    int periodic = 0, asked = 0, interval = 0, rc = 0;

    while (rc == 0 && (w = strsep (&rest, ","))) {
        if (!strcmp (w, "enabled") || !strcmp (w, "shutdown"))
            asked = 1;
        else if (!strcmp (w, "periodic"))
            periodic = 1;
        else if (!strncmp (w, "interval=", 9))
            rc = parse_minutes (w + 9, s, &interval, err);
        else
            rc = illegal (s, err);
    }
    free (copy);
    if (rc < 0)
        return -1;
    if (interval && !periodic)
        return errprintf_code (err, EINVAL,
                               "illegal -c value: %s (interval= goes with "
                               "periodic)",
                               s);
    out->mode = periodic ? CKPT_WALL : asked ? CKPT_ASKED : CKPT_NEVER;
    out->minutes = interval;
    return 0;
}

int ckptspec_parse (const char *s, struct ckptspec *out, struct hpcq_error *err)
{
    int rc;

    memset (out, 0, sizeof (*out));
    if (!s || !*s)
        return illegal ("''", err);
    if ((rc = parse_pbs (s, out, err)) <= 0)
        return rc;
    return parse_torque (s, out, err);
}

void ckptspec_format (const struct ckptspec *c, char *buf, size_t len)
{
    static const char *names[] = {
        [CKPT_UNSET] = "u", [CKPT_NEVER] = "n", [CKPT_ASKED] = "s",
        [CKPT_CPU] = "c",   [CKPT_WALL] = "w",  [CKPT_AUTO] = "auto",
    };
    const char *name =
        c->mode >= 0 && c->mode < (int)ARRAY_SIZE (names) ? names[c->mode] : "u";

    if ((c->mode == CKPT_CPU || c->mode == CKPT_WALL) && c->minutes > 0)
        snprintf (buf, len, "%s=%d", name, c->minutes);
    else
        snprintf (buf, len, "%s", name);
}

int ckptspec_signal (const char *s, char *name, size_t len, struct hpcq_error *err)
{
    int signo = s ? jobspec_signal_number (s) : -1;
    const char *abbrev;

    if (signo <= 0 || !(abbrev = sigabbrev_np (signo)))
        return errprintf_code (err, EINVAL,
                               "illegal -W value: checkpoint_signal=%s "
                               "(unknown signal)",
                               s ? s : "");
    if (signo == SIGTERM)
        return errprintf_code (err, EINVAL,
                               "illegal -W value: checkpoint_signal=%s "
                               "(SIGTERM always means checkpoint, then stop; the "
                               "checkpoint signal lets the job go on: USR1, USR2...)",
                               s);
    if (signo == SIGKILL || signo == SIGSTOP || signo == SIGTSTP || signo == SIGTTIN
        || signo == SIGTTOU || signo == SIGCONT)
        return errprintf_code (err, EINVAL,
                               "illegal -W value: checkpoint_signal=%s "
                               "(a job cannot catch it, or it stops the job)",
                               s);
    /* A number is stored by its name: a signal whose name hpcq does not
     * read back (5 is TRAP, 30 PWR) would be refused once stored. */
    if (jobspec_signal_number (abbrev) != signo)
        return errprintf_code (err, EINVAL,
                               "illegal -W value: checkpoint_signal=%s "
                               "(not a signal to checkpoint with: HUP, INT, QUIT, "
                               "ABRT, USR1, USR2, ALRM, URG, XCPU or WINCH)",
                               s);
    if (name)
        snprintf (name, len, "%s", abbrev);
    return signo;
}

int ckptspec_takes_signal (enum ckpt_mode mode)
{
    return mode != CKPT_UNSET && mode != CKPT_NEVER;
}

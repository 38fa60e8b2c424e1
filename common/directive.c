/* directive.c - qsub options, from argv and from #PBS script lines.
 *
 * qsub reads the directives in a script's leading comment block first and
 * then applies its own command line on top, both through
 * directive_apply(), so a script and a command line accept exactly the
 * same options and the later one wins.  Each option has a small handler
 * in one table; the letters that take an argument come from
 * directive_optstring, the same string qsub hands to getopt().
 */
#ifdef HAVE_CONFIG_H
/* <>, not "": "config.h" would find common/config.h (hpcq's config file
 * reader) next to this file before autoconf's in the build directory. */
#include <config.h>
#endif
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/arrayspec.h"
#include "common/ckptspec.h"
#include "common/directive.h"
#include "common/stage.h"
#include "common/util.h"

extern char **environ;

const char *directive_optstring = "N:q:l:o:e:j:v:Vhp:W:A:r:m:M:S:C:J:t:c:P:k:R:a:z";

#define PRIORITY_MIN (-1024)
#define PRIORITY_MAX 1023

/* A bad option is EINVAL whatever errno held before. */
#define invalid(err, ...) errprintf_code (err, EINVAL, __VA_ARGS__)

#define nomem(err) errprintf_code (err, ENOMEM, "out of memory")

/* Replace *dst with a copy of val. */
static int set_string (char **dst, const char *val, struct hpcq_error *err)
{
    char *copy = strdup (val);

    if (!copy)
        return nomem (err);
    free (*dst);
    *dst = copy;
    return 0;
}

/* Options whose argument may not be empty share this check. */
static int set_nonempty (char **dst, int opt, const char *val, struct hpcq_error *err)
{
    if (val[0] == '\0')
        return invalid (err, "-%c needs a non-empty value", opt);
    return set_string (dst, val, err);
}

static int apply_name (struct hpcq_jobspec *spec, const char *arg,
                       struct hpcq_error *err)
{
    if (jobspec_check_name (arg, err) < 0)
        return -1;
    return set_string (&spec->name, arg, err);
}

static int apply_queue (struct hpcq_jobspec *spec, const char *arg,
                        struct hpcq_error *err)
{
    return set_nonempty (&spec->queue, 'q', arg, err);
}

/* -J (PBS Pro) and -t (Torque): a job array; checked here, expanded by
 * the scheduler. */
/* -J (PBS Pro) and -t (Torque's spelling) ask for the same thing; a job
 * that gives both (anywhere: script or command line) would keep one
 * silently, so that is refused. */
static int set_array (struct hpcq_jobspec *spec, int opt, const char *arg,
                      struct hpcq_error *err)
{
    struct arrayspec a;

    if (spec->array_opt && spec->array_opt != opt)
        return invalid (err, "-J and -t both ask for a job array (-t is Torque's "
                             "spelling of -J): give one of them");
    if (arrayspec_parse (arg, &a, err) < 0)
        return -1;
    arrayspec_release (&a);
    spec->array_opt = opt;
    return set_string (&spec->array, arg, err);
}

static int apply_array (struct hpcq_jobspec *spec, const char *arg,
                        struct hpcq_error *err)
{
    return set_array (spec, 'J', arg, err);
}

static int apply_array_torque (struct hpcq_jobspec *spec, const char *arg,
                               struct hpcq_error *err)
{
    return set_array (spec, 't', arg, err);
}

static int apply_resources (struct hpcq_jobspec *spec, const char *arg,
                            struct hpcq_error *err)
{
    return resource_parse_list (&spec->res, arg, err);
}

/* PBS allows "host:path" for -o/-e.  Output always lands on the shared
 * file system here, so the host is dropped.  A colon after a '/' is part
 * of the path, since host names never contain '/'. */
static int set_path (char **dst, int opt, const char *arg, struct hpcq_error *err)
{
    const char *colon = strchr (arg, ':');

    if (colon && !memchr (arg, '/', colon - arg))
        arg = colon + 1;
    if (arg[0] == '\0')
        return invalid (err, "-%c needs a path", opt);
    return set_string (dst, arg, err);
}

static int apply_output (struct hpcq_jobspec *spec, const char *arg,
                         struct hpcq_error *err)
{
    return set_path (&spec->output_path, 'o', arg, err);
}

static int apply_error (struct hpcq_jobspec *spec, const char *arg,
                        struct hpcq_error *err)
{
    return set_path (&spec->error_path, 'e', arg, err);
}

static int apply_join (struct hpcq_jobspec *spec, const char *arg,
                       struct hpcq_error *err)
{
    if (strcmp (arg, "oe") == 0)
        spec->join = JOIN_OE;
    else if (strcmp (arg, "eo") == 0)
        spec->join = JOIN_EO;
    else if (strcmp (arg, "n") == 0)
        spec->join = JOIN_NONE;
    else
        return invalid (err, "invalid -j value '%s' (expected oe, eo or n)", arg);
    return 0;
}

static int valid_var_name (const char *s)
{
    if (!isalpha ((unsigned char)*s) && *s != '_')
        return 0;
    for (s++; *s; s++) {
        if (!isalnum ((unsigned char)*s) && *s != '_')
            return 0;
    }
    return 1;
}

/* One -v item (modified in place): "NAME=value", or "NAME" to pass the
 * caller's own value along. */
static int apply_var (struct hpcq_jobspec *spec, char *item, struct hpcq_error *err)
{
    char *value = strchr (item, '=');

    if (value)
        *value++ = '\0';
    if (!valid_var_name (item))
        return invalid (err, "invalid variable name '%s'", item);
    if (!value && !(value = getenv (item)))
        return invalid (err, "variable '%s' not set", item);
    if (jobspec_setenv (spec, item, value) < 0)
        return nomem (err);
    return 0;
}

static int apply_vars (struct hpcq_jobspec *spec, const char *arg,
                       struct hpcq_error *err)
{
    char *copy = strdup (arg);
    char *rest = copy;
    char *item;
    int rc = 0;

    if (!copy)
        return nomem (err);
    while (rc == 0 && (item = strsep (&rest, ",")))
        rc = apply_var (spec, item, err);
    free (copy);
    return rc;
}

static int apply_export_all (struct hpcq_jobspec *spec, const char *arg,
                             struct hpcq_error *err)
{
    char **e;

    for (e = environ; e && *e; e++) {
        const char *eq = strchr (*e, '=');
        char *key;
        int rc;

        if (!eq || eq == *e)
            continue;
        if (!(key = strndup (*e, eq - *e)))
            return nomem (err);
        rc = jobspec_setenv (spec, key, eq + 1);
        free (key);
        if (rc < 0)
            return nomem (err);
    }
    return 0;
}

static int apply_hold (struct hpcq_jobspec *spec, const char *arg,
                       struct hpcq_error *err)
{
    spec->hold = 1;
    return 0;
}

static int apply_priority (struct hpcq_jobspec *spec, const char *arg,
                           struct hpcq_error *err)
{
    if (util_parse_int (arg, PRIORITY_MIN, PRIORITY_MAX, &spec->priority) < 0)
        return invalid (err, "invalid priority '%s' (must be %d to %d)", arg,
                        PRIORITY_MIN, PRIORITY_MAX);
    return 0;
}

/* -W umask=NNN: octal, as PBS takes it (022, 0077, 7). */
static int attr_umask (struct hpcq_jobspec *spec, const char *val,
                       struct hpcq_error *err)
{
    char *end;
    long v;

    errno = 0;
    v = strtol (val, &end, 8);
    if (val[0] < '0' || val[0] > '7' || *end != '\0' || errno != 0 || strlen (val) > 4
        || v > 0777)
        return invalid (err,
                        "invalid -W umask value '%s' (expected octal"
                        " digits, 0 to 777)",
                        val);
    spec->umask = (int)v;
    return 0;
}

/* -W block=true|false: qsub waits for the job and exits with its status. */
static int attr_block (struct hpcq_jobspec *spec, const char *val,
                       struct hpcq_error *err)
{
    if (strcasecmp (val, "true") == 0)
        spec->block = 1;
    else if (strcasecmp (val, "false") == 0)
        spec->block = 0;
    else
        return invalid (err, "illegal -W value: block=%s (expected true or false)",
                        val);
    return 0;
}

/* -W sandbox=HOME|PRIVATE (PBS Pro): PRIVATE gives the job a scratch
 * directory of its own, its working directory and TMPDIR, removed after. */
static int attr_sandbox (struct hpcq_jobspec *spec, const char *val,
                         struct hpcq_error *err)
{
    if (strcasecmp (val, "HOME") == 0)
        return set_string (&spec->sandbox, "HOME", err);
    if (strcasecmp (val, "PRIVATE") == 0)
        return set_string (&spec->sandbox, "PRIVATE", err);
    return invalid (err, "illegal -W value: sandbox=%s (expected HOME or PRIVATE)",
                    val);
}

/* The dependency list is kept verbatim: it contains commas, so the
 * argument is not split. */
static int attr_depend (struct hpcq_jobspec *spec, const char *val,
                        struct hpcq_error *err)
{
    if (val[0] == '\0')
        return invalid (err, "empty dependency list in -W depend=");
    return set_string (&spec->depend, val, err);
}

/* -W group_list=GROUP: the group the job runs as.  PBS Pro's list form
 * (group@host,...) names one group per host; here every host knows the
 * same groups, so one name.  Whether the owner belongs to it is checked by
 * qsub (a clear error early) and by the worker (which decides). */
static int attr_group_list (struct hpcq_jobspec *spec, const char *val,
                            struct hpcq_error *err)
{
    if (!val[0] || strpbrk (val, "@, \t:/"))
        return invalid (err,
                        "invalid -W group_list '%s' (one group name; the "
                        "group@host form is not supported)",
                        val);
    return set_string (&spec->group_list, val, err);
}

/* -W stagein=, -W stageout=: PBS Pro's lists (common/stage.h). */
static int attr_stage (char **dst, const char *val, struct hpcq_error *err)
{
    struct stage_file f[STAGE_MAX];

    if (stage_parse (val, f, STAGE_MAX, err) < 0)
        return -1;
    return set_string (dst, val, err);
}

static int attr_stagein (struct hpcq_jobspec *spec, const char *val,
                         struct hpcq_error *err)
{
    return attr_stage (&spec->stagein, val, err);
}

static int attr_stageout (struct hpcq_jobspec *spec, const char *val,
                          struct hpcq_error *err)
{
    return attr_stage (&spec->stageout, val, err);
}

/* -W checkpoint_signal=SIG: the signal that asks the job for a
 * checkpoint (common/ckptspec.h), kept by its name. */
static int attr_checkpoint_signal (struct hpcq_jobspec *spec, const char *val,
                                   struct hpcq_error *err)
{
    char name[16];

    if (ckptspec_signal (val, name, sizeof (name), err) < 0)
        return -1;
    return set_string (&spec->checkpoint_signal, name, err);
}

/* The -W attributes with a meaning here; accepting others would promise
 * a behaviour that never happens. */
static const struct {
    const char *name;
    int (*apply) (struct hpcq_jobspec *spec, const char *val, struct hpcq_error *err);
} w_attrs[] = {
    { "depend", attr_depend },   { "block", attr_block },
    { "sandbox", attr_sandbox }, { "checkpoint_signal", attr_checkpoint_signal },
    { "umask", attr_umask },     { "group_list", attr_group_list },
    { "stagein", attr_stagein }, { "stageout", attr_stageout },
};

static int apply_attribute (struct hpcq_jobspec *spec, const char *arg,
                            struct hpcq_error *err)
{
    const char *eq = strchr (arg, '=');

    if (!eq)
        return invalid (err,
                        "invalid -W value '%s' (expected"
                        " attribute=value)",
                        arg);
    for (size_t i = 0; i < ARRAY_SIZE (w_attrs); i++)
        if (strlen (w_attrs[i].name) == (size_t)(eq - arg)
            && strncmp (arg, w_attrs[i].name, eq - arg) == 0)
            return w_attrs[i].apply (spec, eq + 1, err);
    return invalid (err, "unknown -W attribute '%.*s'", (int)(eq - arg), arg);
}

static int apply_account (struct hpcq_jobspec *spec, const char *arg,
                          struct hpcq_error *err)
{
    if (arg[0] && jobspec_check_account (arg, err) < 0)
        return -1;
    return set_nonempty (&spec->account, 'A', arg, err);
}

static int apply_rerunnable (struct hpcq_jobspec *spec, const char *arg,
                             struct hpcq_error *err)
{
    if (strcmp (arg, "y") == 0)
        spec->rerunnable = 1;
    else if (strcmp (arg, "n") == 0)
        spec->rerunnable = 0;
    else
        return invalid (err, "invalid -r value '%s' (expected y or n)", arg);
    return 0;
}

/* -c: when the job checkpoints (common/ckptspec.h), kept in its canonical
 * form ("w=10" for Torque's "periodic,interval=10"). */
static int apply_checkpoint (struct hpcq_jobspec *spec, const char *arg,
                             struct hpcq_error *err)
{
    struct ckptspec c;
    char text[16];

    if (ckptspec_parse (arg, &c, err) < 0)
        return -1;
    ckptspec_format (&c, text, sizeof (text));
    return set_string (&spec->checkpoint, text, err);
}

/* -m: "n" alone, or some of a (abort), b (begin), e (end), once each. */
static int apply_mail_points (struct hpcq_jobspec *spec, const char *arg,
                              struct hpcq_error *err)
{
    const char *p;

    if (strcmp (arg, "n") == 0)
        return set_string (&spec->mail_points, arg, err);
    for (p = arg; *p; p++) {
        if (!strchr ("abe", *p) || strchr (p + 1, *p))
            break;
    }
    if (arg[0] == '\0' || *p != '\0')
        return invalid (err,
                        "invalid -m value '%s' (expected n or a"
                        " combination of a, b, e)",
                        arg);
    return set_string (&spec->mail_points, arg, err);
}

static int apply_mail_users (struct hpcq_jobspec *spec, const char *arg,
                             struct hpcq_error *err)
{
    return set_nonempty (&spec->mail_users, 'M', arg, err);
}

/* -S: the script runs as "SHELL SCRIPT", as in PBS Pro, whatever its #!
 * line says.  PBS Pro's list form (path@host,...) picks a shell per host;
 * here every host has the same files, so one path. */
static int apply_shell (struct hpcq_jobspec *spec, const char *arg,
                        struct hpcq_error *err)
{
    if (arg[0] != '/')
        return invalid (err,
                        "invalid -S value '%s' (must be an absolute"
                        " path)",
                        arg);
    if (strpbrk (arg, "@,"))
        return invalid (err,
                        "invalid -S value '%s' (one path; the path@host form "
                        "is not supported)",
                        arg);
    return set_string (&spec->shell, arg, err);
}

/* -P: the job's project, as PBS Pro keeps it (shown by qstat -f, written
 * to the accounting log).  No blanks or commas: it is a word there. */
static int apply_project (struct hpcq_jobspec *spec, const char *arg,
                          struct hpcq_error *err)
{
    for (const char *p = arg; *p; p++)
        if (isspace ((unsigned char)*p) || *p == ',' || iscntrl ((unsigned char)*p))
            return invalid (err, "invalid -P project '%s' (no blanks or commas)", arg);
    return set_nonempty (&spec->project, 'P', arg, err);
}

/* "o", "e", "oe"/"eo" (either order, once each), or for -k also "n" and
 * "d" alone or with o/e.  0 if s is one of those, else -1. */
static int check_file_letters (const char *s, const char *letters)
{
    if (!s[0] || (strcmp (s, "n") == 0 && strchr (letters, 'n')))
        return s[0] ? 0 : -1;
    for (const char *p = s; *p; p++)
        if (*p == 'n' || !strchr (letters, *p) || strchr (p + 1, *p))
            return -1;
    return 0;
}

/* -k: PBS Pro's keep files.  hpcq writes output straight to its final
 * path as the job runs (PBS Pro's d); o or e without d keeps that file
 * in the owner's home directory on the first host instead, as PBS Pro
 * does. */
static int apply_keep (struct hpcq_jobspec *spec, const char *arg,
                       struct hpcq_error *err)
{
    if (check_file_letters (arg, "oedn") < 0)
        return invalid (err, "invalid -k value '%s' (o, e, oe, n or d, d with o/e)",
                        arg);
    return set_string (&spec->keep_files, arg, err);
}

/* -R: PBS Pro's remove files: the output and/or error file is removed
 * once the job has ended (for jobs whose output nobody reads). */
static int apply_remove (struct hpcq_jobspec *spec, const char *arg,
                         struct hpcq_error *err)
{
    if (check_file_letters (arg, "oe") < 0)
        return invalid (err, "invalid -R value '%s' (o, e or oe)", arg);
    return set_string (&spec->remove_files, arg, err);
}

/* -a [[[[CC]YY]MM]DD]hhmm[.SS]: not before then, in local time.  A part
 * left out is the current one, and a time that has then passed moves on
 * by the next larger part (today's 09:00 gone: tomorrow's), as PBS Pro
 * reads it. */
static int apply_execution_time (struct hpcq_jobspec *spec, const char *arg,
                                 struct hpcq_error *err)
{
    time_t now = time (NULL), t;
    struct tm tm;
    const char *dot = strchr (arg, '.');
    size_t n = dot ? (size_t)(dot - arg) : strlen (arg);
    int f[6] = { 0 }, nf = (int)n / 2, sec = 0;

    if (n < 4 || n > 12 || n % 2 || strspn (arg, "0123456789") != n
        || (dot && (strlen (dot) != 3 || strspn (dot + 1, "0123456789") != 2)))
        return invalid (err, "invalid -a value '%s' (want [[[[CC]YY]MM]DD]hhmm[.SS])",
                        arg);
    for (int i = 0; i < nf; i++)
        f[i] = (arg[2 * i] - '0') * 10 + (arg[2 * i + 1] - '0');
    if (dot)
        sec = (dot[1] - '0') * 10 + (dot[2] - '0');
    localtime_r (&now, &tm);
    tm.tm_sec = sec;
    tm.tm_min = f[nf - 1];
    tm.tm_hour = f[nf - 2];
    if (nf >= 3)
        tm.tm_mday = f[nf - 3];
    if (nf >= 4)
        tm.tm_mon = f[nf - 4] - 1;
    if (nf == 5)
        tm.tm_year = 100 + f[0]; /* YY: 20YY */
    if (nf == 6)
        tm.tm_year = f[0] * 100 + f[1] - 1900;
    if (tm.tm_min > 59 || tm.tm_hour > 23 || sec > 59 || tm.tm_mday < 1
        || tm.tm_mday > 31 || tm.tm_mon < 0 || tm.tm_mon > 11)
        return invalid (err, "invalid -a value '%s' (no such time)", arg);
    tm.tm_isdst = -1;
    t = mktime (&tm);
    /* Passed already: the next day, month or year of that time. */
    if (t <= now && nf < 5) {
        if (nf == 2)
            tm.tm_mday++;
        else if (nf == 3)
            tm.tm_mon++;
        else
            tm.tm_year++;
        tm.tm_isdst = -1;
        t = mktime (&tm);
    }
    if (t == (time_t)-1)
        return invalid (err, "invalid -a value '%s' (no such time)", arg);
    spec->execution_time = t > now ? (int64_t)t : 0;
    return 0;
}

/* -z: qsub prints no job id. */
static int apply_quiet (struct hpcq_jobspec *spec, const char *arg,
                        struct hpcq_error *err)
{
    spec->quiet = 1;
    return 0;
}

/* -C picks the directive prefix, which the caller needs before it scans
 * the script; by the time it reaches here it has done its job. */
static int apply_prefix (struct hpcq_jobspec *spec, const char *arg,
                         struct hpcq_error *err)
{
    return 0;
}

struct directive_opt {
    int letter;
    int (*apply) (struct hpcq_jobspec *spec, const char *arg, struct hpcq_error *err);
};

static const struct directive_opt directive_opts[] = {
    { 'N', apply_name },         { 'q', apply_queue },
    { 'l', apply_resources },    { 'o', apply_output },
    { 'e', apply_error },        { 'j', apply_join },
    { 'v', apply_vars },         { 'V', apply_export_all },
    { 'h', apply_hold },         { 'p', apply_priority },
    { 'W', apply_attribute },    { 'A', apply_account },
    { 'r', apply_rerunnable },   { 'm', apply_mail_points },
    { 'M', apply_mail_users },   { 'S', apply_shell },
    { 'C', apply_prefix },       { 'J', apply_array },
    { 't', apply_array_torque }, { 'c', apply_checkpoint },
    { 'P', apply_project },      { 'k', apply_keep },
    { 'R', apply_remove },       { 'a', apply_execution_time },
    { 'z', apply_quiet },
};

/* 1 if opt takes an argument, 0 if it is a flag, -1 if unknown. */
static int takes_arg (int opt)
{
    const char *p;

    if (opt <= 0 || opt == ':' || !(p = strchr (directive_optstring, opt)))
        return -1;
    return p[1] == ':';
}

static const struct directive_opt *directive_lookup (int opt)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE (directive_opts); i++) {
        if (directive_opts[i].letter == opt)
            return &directive_opts[i];
    }
    return NULL;
}

int directive_apply (struct hpcq_jobspec *spec, int opt, const char *arg,
                     struct hpcq_error *err)
{
    const struct directive_opt *d = directive_lookup (opt);

    if (opt == 'I')
        return invalid (err, "-I (interactive) is only a qsub command-line option");
    if (!d || takes_arg (opt) < 0) {
        if (opt > 0 && opt < 128 && isprint (opt))
            return invalid (err, "unknown option -%c", opt);
        return invalid (err, "unknown option (code %d)", opt);
    }
    if (takes_arg (opt) && !arg)
        return invalid (err, "option -%c requires an argument", opt);
    return d->apply (spec, arg, err);
}

/* Copy one word starting at *sp to *outp, removing quotes and
 * backslashes, and leave *sp past the blank that ended it.  out never
 * overtakes s, so this works in place.  Returns -1 on an open quote. */
static int copy_word (char **sp, char **outp)
{
    char *s = *sp;
    char *out = *outp;
    char quote = 0;

    for (; *s; s++) {
        if (quote) {
            if (*s == quote)
                quote = 0;
            else if (quote == '"' && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
                *out++ = *++s;
            else
                *out++ = *s;
        } else if (*s == '\'' || *s == '"')
            quote = *s;
        else if (*s == '\\' && s[1])
            *out++ = *++s;
        else if (isspace ((unsigned char)*s)) {
            s++;
            break;
        } else
            *out++ = *s;
    }
    *sp = s;
    *outp = out;
    return quote ? -1 : 0;
}

/* Split line in place into words, shell style: blanks separate, quotes
 * group, an unquoted word starting with '#' begins a trailing comment.
 * words must have room for strlen(line) / 2 + 1 entries.
 * Returns the number of words, or -1 on an unterminated quote. */
int directive_split_words (char *line, char **words)
{
    char *s = line;
    char *out = line;
    int n = 0;

    for (;;) {
        while (isspace ((unsigned char)*s))
            s++;
        if (*s == '\0' || *s == '#')
            break;
        words[n++] = out;
        if (copy_word (&s, &out) < 0)
            return -1;
        *out++ = '\0';
    }
    return n;
}

/* Apply the option word words[*i] ("-N", "-Nname", "-hV") and, where it
 * needs one and does not carry it, the argument in the next word. */
static int apply_option_word (struct hpcq_jobspec *spec, char **words, int n, int *i,
                              struct hpcq_error *err)
{
    const char *w = words[(*i)++];
    const char *p;

    if (w[0] != '-' || w[1] == '\0')
        return invalid (err, "unexpected argument '%s'", w);
    for (p = w + 1; *p; p++) {
        int has_arg = takes_arg ((unsigned char)*p);
        const char *arg = NULL;

        if (has_arg > 0) {
            if (p[1] != '\0')
                arg = p + 1;
            else if (*i < n)
                arg = words[(*i)++];
        }
        if (directive_apply (spec, (unsigned char)*p, arg, err) < 0)
            return -1;
        if (has_arg > 0)
            break;
    }
    return 0;
}

static int apply_line (struct hpcq_jobspec *spec, const char *text, size_t len,
                       struct hpcq_error *err)
{
    char *line = strndup (text, len);
    char **words = NULL;
    int n, i = 0;
    int rc = -1;

    if (!line || !(words = calloc (len / 2 + 1, sizeof (*words)))) {
        nomem (err);
        goto done;
    }
    if ((n = directive_split_words (line, words)) < 0) {
        invalid (err, "unterminated quote");
        goto done;
    }
    while (i < n) {
        if (apply_option_word (spec, words, n, &i, err) < 0)
            goto done;
    }
    rc = 0;
done:
    free (words);
    free (line);
    return rc;
}

/* Returns 1 to go on to the next line, 0 at the first command (stop),
 * -1 on a bad directive. */
static int scan_line (struct hpcq_jobspec *spec, const char *line, size_t len,
                      const char *prefix, int lineno, struct hpcq_error *err)
{
    size_t plen = strlen (prefix);
    size_t skip = 0;
    struct hpcq_error line_err;

    while (skip < len && isspace ((unsigned char)line[skip]))
        skip++;
    if (skip == len || (lineno == 1 && strncmp (line, "#!", 2) == 0))
        return 1;
    if (line[skip] != '#')
        return 0;
    /* "#PBS" must start the line and be followed by a blank; "#PBSfoo"
     * or an indented "#PBS" is an ordinary comment, as in PBS. */
    if (len < plen || strncmp (line, prefix, plen) != 0
        || (len > plen && !isspace ((unsigned char)line[plen])))
        return 1;
    if (apply_line (spec, line + plen, len - plen, &line_err) < 0)
        return errprintf (err, "line %d: %s", lineno, line_err.text);
    return 1;
}

int directive_parse_script (struct hpcq_jobspec *spec, const char *script,
                            const char *prefix, struct hpcq_error *err)
{
    const char *p = script;
    int lineno = 0;
    int rc;

    if (!script) {
        errno = EINVAL;
        return errprintf (err, "no script");
    }
    if (!prefix)
        prefix = "#PBS";
    /* qsub -C "" means: do not look for directives at all. */
    if (prefix[0] == '\0')
        return 0;
    while (*p) {
        const char *eol = strchrnul (p, '\n');
        if ((rc = scan_line (spec, p, eol - p, prefix, ++lineno, err)) <= 0)
            return rc;
        p = *eol ? eol + 1 : eol;
    }
    return 0;
}

/* Is line (len bytes, a comment) prefix gone slightly wrong? */
static int near_miss (const char *line, size_t len, const char *prefix)
{
    size_t plen = strlen (prefix), i = 1, k = 1;

    /* "#PBS-N": the prefix, then something other than a blank. */
    if (len > plen && strncmp (line, prefix, plen) == 0)
        return !isspace ((unsigned char)line[plen]);
    /* "#pbs", "# PBS", "#  Pbs": blanks after '#', then the rest of the
     * prefix in any case, then a blank or '-'. */
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    for (; k < plen && i < len; k++, i++)
        if (tolower ((unsigned char)line[i]) != tolower ((unsigned char)prefix[k]))
            return 0;
    return k == plen
           && (i == len || isspace ((unsigned char)line[i]) || line[i] == '-');
}

void directive_near_misses (const char *script, const char *prefix,
                            directive_warn_f warn, void *arg)
{
    const char *p = script;
    int lineno = 0;

    if (!prefix)
        prefix = "#PBS";
    if (!script || prefix[0] != '#' || !prefix[1])
        return;
    while (*p) {
        const char *eol = strchrnul (p, '\n');
        size_t len = eol - p, skip = 0;
        lineno++;
        while (skip < len && isspace ((unsigned char)p[skip]))
            skip++;
        if (skip < len && p[skip] != '#')
            return; /* the first command ends the directives */
        if (skip == 0 && len && !(lineno == 1 && strncmp (p, "#!", 2) == 0)
            && near_miss (p, len, prefix))
            warn (lineno, p, (int)len, arg);
        p = *eol ? eol + 1 : eol;
    }
}

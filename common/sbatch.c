/* sbatch.c - see sbatch.h
 *
 * Options are collected first (Slurm lets them come in any order and the
 * request depends on several at once), then turned into qsub options and
 * applied through directive_apply(), so the checks are the same as for
 * #PBS lines.
 */
#include <config.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/arrayspec.h"
#include "common/directive.h"
#include "common/resource.h"
#include "common/sbatch.h"
#include "common/util.h"

#define invalid(err, ...) errprintf_code (err, EINVAL, __VA_ARGS__)

struct sbatch {
    int nodes, ntasks, tasks_per_node, cpus_per_task, gpus;
    char gpu_type[64]; /* --gres=gpu:TYPE:N: a model or MIG profile */
    int64_t mem, mem_per_cpu, time;
    const char *name, *output, *error, *partition, *dependency, *account;
    const char *mail_type, *mail_user, *export, *array, *signal, *constraint;
    int exclusive, requeue; /* requeue: -1 unset, 0 no, 1 yes */
    int hold;
    /* Pyxis's container options and Slurm's binding, as -l resources
     * (container_image, container_mounts with '+' between items,
     * container_workdir, gpu_bind, cpu_bind). */
    const char *container_image, *container_workdir, *gpu_bind, *cpu_bind;
    char container_mounts[1024];
    struct sbatch_cli *cli; /* the command's own options, or NULL */
};

/* Long option names with their one-letter forms (0: none). */
static const struct {
    const char *name;
    int letter;
    int has_arg;
} sbatch_opts[] = {
    { "nodes", 'N', 1 },
    { "ntasks", 'n', 1 },
    { "ntasks-per-node", 0, 1 },
    { "cpus-per-task", 'c', 1 },
    { "gres", 0, 1 },
    { "gpus-per-node", 0, 1 },
    { "mem", 0, 1 },
    { "mem-per-cpu", 0, 1 },
    { "time", 't', 1 },
    { "job-name", 'J', 1 },
    { "output", 'o', 1 },
    { "error", 'e', 1 },
    { "partition", 'p', 1 },
    { "dependency", 'd', 1 },
    { "account", 'A', 1 },
    { "mail-type", 0, 1 },
    { "mail-user", 0, 1 },
    { "export", 0, 1 },
    { "exclusive", 0, 0 },
    { "requeue", 0, 0 },
    { "no-requeue", 0, 0 },
    { "array", 'a', 1 },
    { "signal", 0, 1 },
    { "constraint", 'C', 1 },
    { "hold", 'H', 0 },
    { "chdir", 'D', 1 },
    { "wrap", 0, 1 },
    { "parsable", 0, 0 },
    { "wait", 'W', 0 },
    { "container-image", 0, 1 },
    { "container-mounts", 0, 1 },
    { "container-workdir", 0, 1 },
    { "gpu-bind", 0, 1 },
    { "cpu-bind", 0, 1 },
    { "cpu_bind", 0, 1 },
};

#define NOPTS ARRAY_SIZE (sbatch_opts)

static int parse_count (const char *opt, const char *v, int *out,
                        struct hpcq_error *err)
{
    if (util_parse_int (v, 1, 1000000, out) < 0)
        return invalid (err, "invalid --%s '%s'", opt, v);
    return 0;
}

/* Slurm memory: a number of megabytes, or with a K, M, G or T suffix. */
static int parse_mem (const char *opt, const char *v, int64_t *out,
                      struct hpcq_error *err)
{
    char buf[64];
    size_t len = strlen (v);

    if (len == 0 || len > 40)
        return invalid (err, "invalid --%s '%s'", opt, v);
    if (isdigit ((unsigned char)v[len - 1]))
        snprintf (buf, sizeof (buf), "%smb", v);
    else
        snprintf (buf, sizeof (buf), "%sb", v);
    if (resource_parse_size (buf, out, NULL) < 0 || *out <= 0)
        return invalid (err, "invalid --%s '%s'", opt, v);
    return 0;
}

int sbatch_parse_time (const char *s, int64_t *secs, struct hpcq_error *err)
{
    long long d = 0, f[3] = { 0, 0, 0 }, h = 0, m = 0, sec = 0;
    const char *p = s, *dash = strchr (s, '-');
    int64_t t;
    int n = 0;
    char *end;

    errno = 0;
    if (dash) {
        d = strtoll (s, &end, 10);
        if (end != dash || d < 0 || !isdigit ((unsigned char)*s))
            return invalid (err, "invalid time '%s'", s);
        p = dash + 1;
    }
    for (;;) {
        if (!isdigit ((unsigned char)*p) || n == 3)
            return invalid (err, "invalid time '%s'", s);
        f[n++] = strtoll (p, &end, 10);
        if (*end == '\0')
            break;
        if (*end != ':')
            return invalid (err, "invalid time '%s'", s);
        p = end + 1;
    }
    /* Each field within a walltime's range keeps the sums below exact. */
    if (d > RESOURCE_WALLTIME_MAX / 86400 || f[0] > RESOURCE_WALLTIME_MAX
        || f[1] > RESOURCE_WALLTIME_MAX || f[2] > RESOURCE_WALLTIME_MAX)
        return invalid (err, "time '%s' is more than the longest allowed", s);
    /* Without days: M, M:S, H:M:S.  With days: D-H, D-H:M, D-H:M:S. */
    if (dash)
        h = f[0], m = f[1], sec = f[2];
    else if (n == 1)
        m = f[0];
    else if (n == 2)
        m = f[0], sec = f[1];
    else
        h = f[0], m = f[1], sec = f[2];
    /* A number too large for strtoll (ERANGE) or a total past int64 is
     * refused rather than wrapped. */
    if (errno == ERANGE || __builtin_mul_overflow (d, 24, &t)
        || __builtin_add_overflow (t, h, &t) || __builtin_mul_overflow (t, 60, &t)
        || __builtin_add_overflow (t, m, &t) || __builtin_mul_overflow (t, 60, &t)
        || __builtin_add_overflow (t, sec, &t) || t <= 0)
        return invalid (err, "invalid time '%s'", s);
    if (t > RESOURCE_WALLTIME_MAX)
        return invalid (err, "time '%s' is more than the longest allowed", s);
    *secs = t;
    return 0;
}

/* --gres=gpu[:TYPE][:N].  TYPE is a GPU model (gpu_model=) or, as Slurm
 * names MIG instances, a MIG profile such as 1g.5gb (mig=). */
static int parse_gres (struct sbatch *sb, const char *v, struct hpcq_error *err)
{
    const char *type, *last = strrchr (v, ':');
    size_t len;

    if (strncmp (v, "gpu", 3) != 0 || (v[3] != '\0' && v[3] != ':'))
        return invalid (err, "unsupported --gres '%s' (only gpu[:TYPE][:N])", v);
    sb->gpus = 1;
    sb->gpu_type[0] = '\0';
    if (!last)
        return 0;
    type = v + 4;
    if (last[1] >= '0' && last[1] <= '9') {
        if (parse_count ("gres", last + 1, &sb->gpus, err) < 0)
            return -1;
        len = last > type ? (size_t)(last - type) : 0;
    } else
        len = strlen (type);
    if (len >= sizeof (sb->gpu_type) || memchr (type, ':', len))
        return invalid (err, "invalid --gres '%s' (want gpu[:TYPE][:N])", v);
    memcpy (sb->gpu_type, type, len);
    sb->gpu_type[len] = '\0';
    return 0;
}

/* Slurm features are node labels here: NAME, or NAME&NAME (all of them). */
static int check_constraint (const char *v, struct hpcq_error *err)
{
    size_t len = strlen (v);

    if (len == 0 || len > 200
        || strspn (v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"
                      "rstuvwxyz0123456789-_.&")
               != len
        || v[0] == '&' || v[len - 1] == '&' || strstr (v, "&&"))
        return invalid (err,
                        "unsupported --constraint '%s' (features joined by '&' "
                        "only: a node must have all of them)",
                        v);
    return 0;
}

/* Pyxis's --container-mounts=SRC:DST[:FLAGS][,SRC:DST...] (its flags
 * joined by '+', github.com/NVIDIA/pyxis/wiki/Usage) as container_mounts'
 * items joined by '+': only ro and rw are taken as flags. */
static int parse_mounts (struct sbatch *sb, const char *v, struct hpcq_error *err)
{
    size_t len = strlen (v);

    if (len == 0 || len >= sizeof (sb->container_mounts))
        return invalid (err, "invalid --container-mounts '%s'", v);
    for (const char *p = v; *p;) {
        size_t n = strcspn (p, ",");
        const char *plus = memchr (p, '+', n);
        if (plus)
            return invalid (err,
                            "unsupported --container-mounts flags in '%.*s' (ro or rw "
                            "only)",
                            (int)n, p);
        p += n + (p[n] == ',');
    }
    for (size_t i = 0; i <= len; i++)
        sb->container_mounts[i] = v[i] == ',' ? '+' : v[i];
    return 0;
}

/* Slurm's --gpu-bind and --cpu-bind, with their verbose / quiet words
 * (slurm.schedmd.com/sbatch.html): the kinds hpcq binds by
 * (closest|none, cores|none), others refused by name. */
static int parse_bind (const char *opt, const char *v, const char *const *kinds,
                       const char **out, struct hpcq_error *err)
{
    char buf[64];
    const char *word = NULL;

    if (strlen (v) >= sizeof (buf))
        return invalid (err, "invalid --%s '%s'", opt, v);
    snprintf (buf, sizeof (buf), "%s", v);
    for (char *save = NULL, *w = strtok_r (buf, ",", &save); w;
         w = strtok_r (NULL, ",", &save)) {
        const char *kind = NULL;
        if (!strcasecmp (w, "verbose") || !strcasecmp (w, "quiet"))
            continue;
        for (int k = 0; kinds[k]; k++)
            if (!strcasecmp (w, kinds[k]) || (!strcasecmp (w, "no") && k == 1))
                kind = kinds[k];
        if (!kind) {
            word = NULL;
            break;
        }
        word = kind;
    }
    if (!word)
        return invalid (err, "unsupported --%s '%s' (%s or %s)", opt, v, kinds[0],
                        kinds[1]);
    *out = word;
    return 0;
}

static int cli_option (struct sbatch_cli *cli, const char *name, const char *v)
{
    if (!strcmp (name, "wrap"))
        cli->wrap = v;
    else if (!strcmp (name, "chdir"))
        cli->chdir = v;
    else if (!strcmp (name, "parsable"))
        cli->parsable = 1;
    else
        cli->wait = 1;
    return 0;
}

static int set_option (struct sbatch *sb, const char *name, const char *v,
                       struct hpcq_error *err)
{
    if (!strcmp (name, "nodes"))
        return parse_count (name, v, &sb->nodes, err);
    if (!strcmp (name, "ntasks"))
        return parse_count (name, v, &sb->ntasks, err);
    if (!strcmp (name, "ntasks-per-node"))
        return parse_count (name, v, &sb->tasks_per_node, err);
    if (!strcmp (name, "cpus-per-task"))
        return parse_count (name, v, &sb->cpus_per_task, err);
    if (!strcmp (name, "gres"))
        return parse_gres (sb, v, err);
    if (!strcmp (name, "gpus-per-node"))
        return parse_count (name, v, &sb->gpus, err);
    if (!strcmp (name, "mem"))
        return parse_mem (name, v, &sb->mem, err);
    if (!strcmp (name, "mem-per-cpu"))
        return parse_mem (name, v, &sb->mem_per_cpu, err);
    if (!strcmp (name, "time"))
        return sbatch_parse_time (v, &sb->time, err);
    if (!strcmp (name, "array")) {
        struct arrayspec a;
        if (arrayspec_parse (v, &a, err) < 0)
            return -1;
        arrayspec_release (&a);
        return (sb->array = v), 0;
    }
    if (!strcmp (name, "exclusive"))
        return (sb->exclusive = 1), 0;
    if (!strcmp (name, "hold"))
        return (sb->hold = 1), 0;
    if (!strcmp (name, "signal"))
        return jobspec_parse_signal (v, NULL, NULL, NULL, err) < 0
                   ? -1
                   : (sb->signal = v, 0);
    if (!strcmp (name, "constraint"))
        return check_constraint (v, err) < 0 ? -1 : (sb->constraint = v, 0);
    if (!strcmp (name, "container-image"))
        return (sb->container_image = v), 0;
    if (!strcmp (name, "container-workdir"))
        return (sb->container_workdir = v), 0;
    if (!strcmp (name, "container-mounts"))
        return parse_mounts (sb, v, err);
    if (!strcmp (name, "gpu-bind")) {
        static const char *const kinds[] = { "closest", "none", NULL };
        return parse_bind (name, v, kinds, &sb->gpu_bind, err);
    }
    if (!strcmp (name, "cpu-bind") || !strcmp (name, "cpu_bind")) {
        static const char *const kinds[] = { "cores", "none", NULL };
        return parse_bind ("cpu-bind", v, kinds, &sb->cpu_bind, err);
    }
    /* The command's own: meaningless in a script, as in Slurm. */
    if (!strcmp (name, "wrap") || !strcmp (name, "chdir") || !strcmp (name, "parsable")
        || !strcmp (name, "wait"))
        return sb->cli ? cli_option (sb->cli, name, v) : 0;
    if (!strcmp (name, "requeue") || !strcmp (name, "no-requeue"))
        return (sb->requeue = name[0] == 'r'), 0;
    const char **dst = !strcmp (name, "job-name")     ? &sb->name
                       : !strcmp (name, "output")     ? &sb->output
                       : !strcmp (name, "error")      ? &sb->error
                       : !strcmp (name, "partition")  ? &sb->partition
                       : !strcmp (name, "dependency") ? &sb->dependency
                       : !strcmp (name, "account")    ? &sb->account
                       : !strcmp (name, "mail-type")  ? &sb->mail_type
                       : !strcmp (name, "mail-user")  ? &sb->mail_user
                                                      : &sb->export;
    *dst = v;
    return 0;
}

/* The option in words[*i] ("--time=1:00", "--time 1:00", "-t 1:00", "-t1:00"). */
static int take_option (struct sbatch *sb, char **words, int n, int *i,
                        struct hpcq_error *err)
{
    char *w = words[(*i)++], *val = NULL;
    size_t k;

    /* The words are left as they are: sbatch reads its argv twice. */
    if (w[0] == '-' && w[1] == '-') {
        char *eq = strchr (w, '=');
        size_t len = eq ? (size_t)(eq - w - 2) : strlen (w + 2);
        if (eq)
            val = eq + 1;
        for (k = 0; k < NOPTS
                    && (strlen (sbatch_opts[k].name) != len
                        || strncmp (sbatch_opts[k].name, w + 2, len));
             k++)
            ;
    } else if (w[0] == '-' && w[1]) {
        for (k = 0; k < NOPTS && sbatch_opts[k].letter != w[1]; k++)
            ;
        if (k < NOPTS && w[2])
            val = w + 2;
    } else
        return invalid (err, "unexpected argument '%s'", w);
    if (k == NOPTS)
        return invalid (err,
                        sb->cli ? "unrecognized option '%s'"
                                : "unknown #SBATCH option '%s'",
                        w);
    if (sbatch_opts[k].has_arg && !val) {
        if (*i >= n)
            return invalid (err,
                            sb->cli ? "option '%s' requires an argument"
                                    : "#SBATCH option '%s' needs a value",
                            w);
        val = words[(*i)++];
    }
    return set_option (sb, sbatch_opts[k].name, val ? val : "", err);
}

/* The select statement the node, task, cpu, GPU and memory options mean. */
static int apply_resources (struct hpcq_jobspec *spec, const struct sbatch *sb,
                            struct hpcq_error *err)
{
    int cpt = sb->cpus_per_task ? sb->cpus_per_task : 1, count, tpn;
    char sel[512];
    int64_t mem, ncpus;

    if (!sb->nodes && !sb->ntasks && !sb->tasks_per_node && !sb->cpus_per_task
        && !sb->gpus && !sb->mem && !sb->mem_per_cpu && !sb->constraint)
        return 0;
    if (sb->nodes) {
        count = sb->nodes;
        tpn = sb->tasks_per_node ? sb->tasks_per_node
              : sb->ntasks       ? (sb->ntasks + sb->nodes - 1) / sb->nodes
                                 : 1;
    } else if (sb->ntasks && sb->tasks_per_node) {
        tpn = sb->tasks_per_node;
        count = (sb->ntasks + tpn - 1) / tpn;
    } else {
        /* Tasks anywhere: one chunk per task, packed where they fit. */
        count = sb->ntasks ? sb->ntasks : 1;
        tpn = sb->tasks_per_node ? sb->tasks_per_node : 1;
    }
    /* Each count is at most a million, but their products are not: a
     * product that does not fit is refused, not wrapped into a small one. */
    ncpus = (int64_t)tpn * cpt;
    if (ncpus > INT_MAX)
        return invalid (err, "%d tasks per node of %d cpus each: too many cpus", tpn,
                        cpt);
    mem = sb->mem;
    if (!mem && __builtin_mul_overflow (sb->mem_per_cpu, ncpus, &mem))
        return invalid (err, "--mem-per-cpu times %lld cpus is too large",
                        (long long)ncpus);
    snprintf (sel, sizeof (sel), "select=%d:ncpus=%lld:mpiprocs=%d", count,
              (long long)ncpus, tpn);
    if (sb->gpu_type[0] && resource_check_mig (sb->gpu_type, NULL) == 0) {
        /* One MIG instance per chunk: N of them are N chunks. */
        if (sb->gpus != 1 && count != 1)
            return invalid (err,
                            "--gres=gpu:%s:%d with several nodes: one MIG "
                            "instance per node only",
                            sb->gpu_type, sb->gpus);
        count *= sb->gpus;
        snprintf (sel, sizeof (sel), "select=%d:ncpus=%lld:mpiprocs=%d:mig=%s", count,
                  (long long)ncpus, tpn, sb->gpu_type);
    } else if (sb->gpus)
        snprintf (sel + strlen (sel), sizeof (sel) - strlen (sel), ":ngpus=%d%s%s",
                  sb->gpus, sb->gpu_type[0] ? ":gpu_model=" : "", sb->gpu_type);
    if (mem > 0)
        snprintf (sel + strlen (sel), sizeof (sel) - strlen (sel), ":mem=%lldb",
                  (long long)mem);
    for (const char *f = sb->constraint; f && *f;) {
        size_t n = strcspn (f, "&");
        snprintf (sel + strlen (sel), sizeof (sel) - strlen (sel), ":%.*s=True", (int)n,
                  f);
        f += n + (f[n] == '&');
    }
    if (directive_apply (spec, 'l', sel, err) < 0)
        return -1;
    /* -N N is N nodes in Slurm, never fewer. */
    if (sb->exclusive || sb->nodes > 1)
        return directive_apply (spec, 'l',
                                sb->exclusive ? "place=scatter:excl" : "place=scatter",
                                err);
    return 0;
}

static const char *mail_points (const char *types)
{
    if (strstr (types, "NONE"))
        return "n";
    if (strstr (types, "ALL"))
        return "abe";
    if (strstr (types, "BEGIN"))
        return strstr (types, "END") || strstr (types, "FAIL") ? "abe" : "b";
    return "ae";
}

static int apply_export (struct hpcq_jobspec *spec, const char *exp,
                         struct hpcq_error *err)
{
    /* sbatch's default is ALL: the submitter's environment goes along. */
    if (!exp)
        return directive_apply (spec, 'V', NULL, err);
    if (!strcmp (exp, "NONE"))
        return 0;
    if (!strncmp (exp, "ALL", 3)) {
        if (directive_apply (spec, 'V', NULL, err) < 0)
            return -1;
        exp += 3;
        if (*exp == ',')
            exp++;
        if (!*exp)
            return 0;
    }
    return directive_apply (spec, 'v', exp, err);
}

/* KEY=VALUE as a -l resource, if set. */
static int apply_res (struct hpcq_jobspec *spec, const char *key, const char *v,
                      struct hpcq_error *err)
{
    char buf[1200];

    if (!v || !*v)
        return 0;
    snprintf (buf, sizeof (buf), "%s=%s", key, v);
    return directive_apply (spec, 'l', buf, err);
}

static int apply_sbatch (struct hpcq_jobspec *spec, const struct sbatch *sb,
                         struct hpcq_error *err)
{
    char buf[512];

    if (apply_resources (spec, sb, err) < 0
        || apply_res (spec, "container_image", sb->container_image, err) < 0
        || apply_res (spec, "container_mounts", sb->container_mounts, err) < 0
        || apply_res (spec, "container_workdir", sb->container_workdir, err) < 0
        || apply_res (spec, "gpu_bind", sb->gpu_bind, err) < 0
        || apply_res (spec, "cpu_bind", sb->cpu_bind, err) < 0)
        return -1;
    if (sb->time) {
        snprintf (buf, sizeof (buf), "walltime=%lld", (long long)sb->time);
        if (directive_apply (spec, 'l', buf, err) < 0)
            return -1;
    }
    if ((sb->name && directive_apply (spec, 'N', sb->name, err) < 0)
        || (sb->partition && directive_apply (spec, 'q', sb->partition, err) < 0)
        || (sb->account && directive_apply (spec, 'A', sb->account, err) < 0)
        || (sb->mail_user && directive_apply (spec, 'M', sb->mail_user, err) < 0)
        || (sb->mail_type
            && directive_apply (spec, 'm', mail_points (sb->mail_type), err) < 0)
        || ((sb->export || sb->cli) && apply_export (spec, sb->export, err) < 0)
        || (sb->requeue >= 0
            && directive_apply (spec, 'r', sb->requeue ? "y" : "n", err) < 0))
        return -1;
    if (sb->array && directive_apply (spec, 'J', sb->array, err) < 0)
        return -1;
    if (sb->hold && directive_apply (spec, 'h', NULL, err) < 0)
        return -1;
    if (sb->signal) {
        free (spec->signal);
        if (!(spec->signal = strdup (sb->signal)))
            return errprintf_code (err, ENOMEM, "out of memory");
    }
    spec->slurm = 1;
    if (sb->dependency) {
        snprintf (buf, sizeof (buf), "depend=%s", sb->dependency);
        if (directive_apply (spec, 'W', buf, err) < 0)
            return -1;
    }
    /* Slurm's defaults: one file, slurm-%j.out (slurm-%A_%a.out for an
     * array), with stderr in it unless --error names another. */
    if (directive_apply (spec, 'o',
                         sb->output  ? sb->output
                         : sb->array ? "slurm-%A_%a.out"
                                     : "slurm-%j.out",
                         err)
            < 0
        || (sb->error && directive_apply (spec, 'e', sb->error, err) < 0))
        return -1;
    return directive_apply (spec, 'j', sb->error ? "n" : "oe", err);
}

/* One #SBATCH line's words into sb. */
static int sbatch_line (struct sbatch *sb, char *line, struct hpcq_error *err)
{
    char **words = calloc (strlen (line) / 2 + 2, sizeof (*words));
    int n, i = 0, rc = 0;

    if (!words)
        return errprintf_code (err, ENOMEM, "out of memory");
    if ((n = directive_split_words (line, words)) < 0)
        rc = invalid (err, "unterminated quote");
    while (rc == 0 && i < n)
        rc = take_option (sb, words, n, &i, err);
    free (words);
    return rc;
}

/* The script's #SBATCH lines into sb; values point into copy (which
 * the caller frees after applying).  Returns the number of lines, or -1. */
static int scan_script (struct sbatch *sb, char *copy, struct hpcq_error *err)
{
    struct hpcq_error lerr;
    char *p = copy;
    int lineno = 0, nlines = 0, rc = 0;

    while (*p && rc == 0) {
        char *eol = strchr (p, '\n'), *s = p;
        if (eol)
            *eol = '\0';
        lineno++;
        p = eol ? eol + 1 : p + strlen (p);
        /* As Slurm's sbatch (src/sbatch/opt.c, _opt_batch_script): a
         * directive starts the line with #SBATCH (an indented one is a
         * comment), the options follow it with or without a space; other
         * comments and blank lines are skipped, and the first line that is
         * neither ends the directives. */
        if (strncmp (s, "#SBATCH", 7) != 0
            || (s[7] && !isspace ((unsigned char)s[7]) && s[7] != '-')) {
            while (isspace ((unsigned char)*s))
                s++;
            if (*s != '\0' && *s != '#')
                break;
            continue;
        }
        nlines++;
        if (sbatch_line (sb, s + 7, &lerr) < 0)
            rc = errprintf_code (err, EINVAL, "line %d: %s", lineno, lerr.text);
    }
    return rc < 0 ? -1 : nlines;
}

int sbatch_parse_script (struct hpcq_jobspec *spec, const char *script,
                         struct hpcq_error *err)
{
    struct sbatch sb = { .requeue = -1 };
    struct hpcq_error lerr;
    char *copy = strdup (script);
    int n, rc = 0;

    if (!copy)
        return errprintf_code (err, ENOMEM, "out of memory");
    if ((n = scan_script (&sb, copy, err)) < 0)
        rc = -1;
    else if (n > 0 && apply_sbatch (spec, &sb, &lerr) < 0)
        rc = errprintf_code (err, EINVAL, "#SBATCH: %s", lerr.text);
    free (copy);
    return rc < 0 ? -1 : n > 0;
}

int sbatch_scan_command (int argc, char **argv, struct sbatch_cli *cli,
                         struct hpcq_error *err)
{
    struct sbatch sb = { .requeue = -1, .cli = cli };
    int i = 0;

    while (i < argc && argv[i][0] == '-' && argv[i][1]) {
        if (strcmp (argv[i], "--") == 0) {
            i++;
            break;
        }
        if (take_option (&sb, argv, argc, &i, err) < 0)
            return -1;
    }
    cli->first_arg = i;
    return 0;
}

int sbatch_parse_command (struct hpcq_jobspec *spec, const char *script, int argc,
                          char **argv, struct sbatch_cli *cli, struct hpcq_error *err)
{
    struct sbatch sb = { .requeue = -1 };
    char *copy = strdup (script);
    int i = 0, rc = 0;

    if (!copy)
        return errprintf_code (err, ENOMEM, "out of memory");
    /* The script's lines first, then the command line on top. */
    if (scan_script (&sb, copy, err) < 0)
        rc = -1;
    sb.cli = cli;
    while (rc == 0 && i < cli->first_arg && i < argc)
        rc = strcmp (argv[i], "--") == 0 ? (i++, 0)
                                         : take_option (&sb, argv, argc, &i, err);
    if (rc == 0 && apply_sbatch (spec, &sb, err) < 0)
        rc = -1;
    free (copy);
    return rc;
}

/* jobspec.c - a submitted job as a C struct and as JSON.
 *
 * qsub fills a struct hpcq_jobspec, jobspec_to_json() puts it on the wire
 * and jobspec_from_json() rebuilds it in the scheduler.  The decoder is
 * the trust boundary: anything a client sends is checked here (types,
 * ranges, required fields, unknown keys) so the rest of the scheduler can
 * rely on a jobspec being well formed.
 */
#ifdef HAVE_CONFIG_H
/* <>, not "": "config.h" would find common/config.h (hpcq's config file
 * reader) next to this file before autoconf's in the build directory. */
#include <config.h>
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <signal.h>
#include <strings.h>

#include "common/ckptspec.h"
#include "common/jobspec.h"
#include "common/strpool.h"
#include "common/tm.h"
#include "common/util.h"

#define JOBSPEC_NAME_MAX 236
#define PRIORITY_MIN (-1024)
#define PRIORITY_MAX 1023

/* The string members, nullable unless required.  One table drives both
 * the encoder and the decoder so they cannot drift apart. */
struct string_field {
    const char *key;
    size_t offset;
    int required;
};

static const struct string_field string_fields[] = {
    { "name", offsetof (struct hpcq_jobspec, name), 1 },
    { "queue", offsetof (struct hpcq_jobspec, queue), 0 },
    { "script", offsetof (struct hpcq_jobspec, script), 1 },
    { "workdir", offsetof (struct hpcq_jobspec, workdir), 1 },
    { "submit_host", offsetof (struct hpcq_jobspec, submit_host), 0 },
    { "output_path", offsetof (struct hpcq_jobspec, output_path), 0 },
    { "error_path", offsetof (struct hpcq_jobspec, error_path), 0 },
    { "depend", offsetof (struct hpcq_jobspec, depend), 0 },
    { "account", offsetof (struct hpcq_jobspec, account), 0 },
    { "mail_points", offsetof (struct hpcq_jobspec, mail_points), 0 },
    { "mail_users", offsetof (struct hpcq_jobspec, mail_users), 0 },
    { "submit_args", offsetof (struct hpcq_jobspec, submit_args), 0 },
    { "array", offsetof (struct hpcq_jobspec, array), 0 },
    { "sandbox", offsetof (struct hpcq_jobspec, sandbox), 0 },
    { "signal", offsetof (struct hpcq_jobspec, signal), 0 },
    { "checkpoint", offsetof (struct hpcq_jobspec, checkpoint), 0 },
    { "checkpoint_signal", offsetof (struct hpcq_jobspec, checkpoint_signal), 0 },
    { "shell", offsetof (struct hpcq_jobspec, shell), 0 },
    { "project", offsetof (struct hpcq_jobspec, project), 0 },
    { "keep_files", offsetof (struct hpcq_jobspec, keep_files), 0 },
    { "remove_files", offsetof (struct hpcq_jobspec, remove_files), 0 },
    { "group_list", offsetof (struct hpcq_jobspec, group_list), 0 },
    { "stagein", offsetof (struct hpcq_jobspec, stagein), 0 },
    { "stageout", offsetof (struct hpcq_jobspec, stageout), 0 },
};

/* Keys that are not in string_fields. */
static const char *other_keys[] = {
    "join",  "env",   "hold",          "priority",       "rerunnable", "resources",
    "slurm", "umask", "script_base64", "execution_time", NULL,
};

/* Indexed by JOIN_*. */
static const char *join_names[] = { "n", "oe", "eo" };

static char **string_member (struct hpcq_jobspec *spec, const struct string_field *f)
{
    return (char **)((char *)spec + f->offset);
}

static const char *string_member_const (const struct hpcq_jobspec *spec,
                                        const struct string_field *f)
{
    return *(char *const *)((const char *)spec + f->offset);
}

/* A rejected jobspec is always EPROTO, whatever errno was before. */
#define invalid(err, fmt, ...) \
    errprintf_code (err, EPROTO, "invalid job: " fmt, ##__VA_ARGS__)

#define nomem(err) errprintf_code (err, ENOMEM, "out of memory")

void jobspec_init (struct hpcq_jobspec *spec)
{
    memset (spec, 0, sizeof (*spec));
    spec->join = JOIN_NONE;
    spec->priority = 0;
    spec->rerunnable = 1;
    spec->umask = -1;
    resource_init (&spec->res);
}

/* A string of spec's: pooled (strpool.h) or its own. */
static void str_free (const struct hpcq_jobspec *spec, char *s)
{
    if (spec->pooled)
        strpool_put (s);
    else
        free (s);
}

static void env_free (const struct hpcq_jobspec *spec, char **env, int nenv)
{
    int i;

    for (i = 0; i < nenv; i++)
        str_free (spec, env[i]);
    free (env);
}

void jobspec_release (struct hpcq_jobspec *spec)
{
    int saved = errno;
    size_t i;

    if (!spec)
        return;
    for (i = 0; i < ARRAY_SIZE (string_fields); i++)
        str_free (spec, *string_member (spec, &string_fields[i]));
    env_free (spec, spec->env, spec->nenv);
    resource_release (&spec->res);
    /* Leave it init'ed, so releasing twice or reusing it is safe. */
    jobspec_init (spec);
    errno = saved;
}

/* Inside a JSON string every '"' is escaped, so an "array": not preceded
 * by a backslash is a key; and only the request object has that key (the
 * resources and chunks have none). */
int jobspec_text_array (const char *json, char **range)
{
    static const char key[] = "\"array\":";
    const char *p = json, *v, *end;

    *range = NULL;
    while (p && (p = strstr (p, key)) && p > json && p[-1] == '\\')
        p += sizeof (key) - 1;
    if (!p)
        return 1;
    v = p + sizeof (key) - 1;
    while (*v == ' ')
        v++;
    if (strncmp (v, "null", 4) == 0)
        return 1;
    if (*v != '"' || !(end = strchr (v + 1, '"')) || memchr (v + 1, '\\', end - v - 1))
        return -1;
    *range = xzalloc (end - v);
    memcpy (*range, v + 1, end - v - 1);
    return 0;
}

void jobspec_pool (struct hpcq_jobspec *spec)
{
    if (spec->pooled)
        return;
    for (size_t i = 0; i < ARRAY_SIZE (string_fields); i++) {
        char **m = string_member (spec, &string_fields[i]);
        char *own = *m;
        *m = (char *)strpool_get (own);
        free (own);
    }
    for (int i = 0; i < spec->nenv; i++) {
        char *own = spec->env[i];
        spec->env[i] = (char *)strpool_get (own);
        free (own);
    }
    spec->pooled = 1;
}

int jobspec_check_name (const char *name, struct hpcq_error *err)
{
    const char *p;

    if (!name || name[0] == '\0') {
        errno = EINVAL;
        return errprintf (err, "job name is empty");
    }
    if (strlen (name) > JOBSPEC_NAME_MAX) {
        errno = EINVAL;
        return errprintf (err, "job name is longer than %d characters",
                          JOBSPEC_NAME_MAX);
    }
    for (p = name; *p; p++) {
        unsigned char c = *p;
        if (isspace (c) || iscntrl (c) || c == '/') {
            errno = EINVAL;
            return errprintf (err,
                              "job name '%s' contains whitespace, '/'"
                              " or a control character",
                              name);
        }
    }
    return 0;
}

int jobspec_check_account (const char *account, struct hpcq_error *err)
{
    char *shown;

    errno = EINVAL;
    if (!account || account[0] == '\0')
        return errprintf (err, "account is empty");
    if (strlen (account) > JOBSPEC_NAME_MAX)
        return errprintf (err, "account is longer than %d characters",
                          JOBSPEC_NAME_MAX);
    for (const char *p = account; *p; p++)
        if (util_has_ctl (p)) {
            shown = util_escape_ctl (account);
            errprintf (err, "account '%s' contains a control character", shown);
            free (shown);
            return -1;
        }
    return 0;
}

/* What a person calls each text field, for jobspec_check_text. */
static const struct {
    size_t offset;
    const char *what;
} text_names[] = {
    { offsetof (struct hpcq_jobspec, name), "the job name" },
    { offsetof (struct hpcq_jobspec, queue), "the queue" },
    { offsetof (struct hpcq_jobspec, workdir), "the working directory" },
    { offsetof (struct hpcq_jobspec, output_path), "the output path" },
    { offsetof (struct hpcq_jobspec, error_path), "the error path" },
    { offsetof (struct hpcq_jobspec, depend), "the dependency list" },
    { offsetof (struct hpcq_jobspec, account), "the account" },
    { offsetof (struct hpcq_jobspec, mail_users), "the mail user list" },
    { offsetof (struct hpcq_jobspec, submit_args), "the command line" },
    { offsetof (struct hpcq_jobspec, shell), "the shell" },
    { offsetof (struct hpcq_jobspec, project), "the project" },
    { offsetof (struct hpcq_jobspec, group_list), "the group" },
    { offsetof (struct hpcq_jobspec, stagein), "the stagein list" },
    { offsetof (struct hpcq_jobspec, stageout), "the stageout list" },
};

static int not_utf8 (const char *what, const char *s, long at, struct hpcq_error *err)
{
    return errprintf_code (err, EILSEQ,
                           "%s is not UTF-8 (byte 0x%02x at offset %ld): names, "
                           "paths and variables must be UTF-8 text (the script "
                           "may hold any bytes)",
                           what, (unsigned char)s[at], at);
}

int jobspec_check_text (const struct hpcq_jobspec *spec, struct hpcq_error *err)
{
    char what[128];
    long at;

    for (size_t i = 0; i < ARRAY_SIZE (string_fields); i++) {
        const struct string_field *f = &string_fields[i];
        const char *s = string_member_const (spec, f), *name = f->key;
        if (!s || s == spec->script || (at = util_utf8_invalid (s)) < 0)
            continue;
        for (size_t k = 0; k < ARRAY_SIZE (text_names); k++)
            if (text_names[k].offset == f->offset)
                name = text_names[k].what;
        return not_utf8 (name, s, at, err);
    }
    for (int i = 0; i < spec->nenv; i++) {
        if ((at = util_utf8_invalid (spec->env[i])) < 0)
            continue;
        snprintf (what, sizeof (what), "the environment variable %.*s",
                  (int)strcspn (spec->env[i], "="), spec->env[i]);
        return not_utf8 (what, spec->env[i], at, err);
    }
    return 0;
}

static int env_find (const struct hpcq_jobspec *spec, const char *key)
{
    size_t klen = strlen (key);
    int i;

    for (i = 0; i < spec->nenv; i++) {
        if (strncmp (spec->env[i], key, klen) == 0 && spec->env[i][klen] == '=')
            return i;
    }
    return -1;
}

/* Append entry (taking it), keeping env NULL-terminated for execve(). */
static int env_append (struct hpcq_jobspec *spec, char *entry)
{
    char **env;

    if (!(env = realloc (spec->env, (spec->nenv + 2) * sizeof (*env))))
        return -1;
    env[spec->nenv++] = entry;
    env[spec->nenv] = NULL;
    spec->env = env;
    return 0;
}

int jobspec_setenv (struct hpcq_jobspec *spec, const char *key, const char *value)
{
    char *entry;
    int i;

    if (!key || key[0] == '\0' || strchr (key, '=') || !value || spec->pooled) {
        errno = EINVAL;
        return -1;
    }
    if (asprintf (&entry, "%s=%s", key, value) < 0) {
        errno = ENOMEM;
        return -1;
    }
    if ((i = env_find (spec, key)) >= 0) {
        free (spec->env[i]);
        spec->env[i] = entry;
        return 0;
    }
    if (env_append (spec, entry) < 0) {
        free (entry);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

const char *jobspec_getenv (const struct hpcq_jobspec *spec, const char *key)
{
    int i;

    if (!key || (i = env_find (spec, key)) < 0)
        return NULL;
    return spec->env[i] + strlen (key) + 1;
}

/* json_string() refuses invalid UTF-8 as well as failing on ENOMEM; a
 * script with Latin-1 bytes is far likelier than running out of memory,
 * so report that. */
static json_t *string_or_null (const char *s)
{
    json_t *v;

    if (!s)
        return json_null ();
    if (!(v = json_string (s)))
        errno = EILSEQ;
    return v;
}

static json_t *env_to_json (const struct hpcq_jobspec *spec)
{
    json_t *a = json_array ();
    int i;

    if (!a)
        return NULL;
    for (i = 0; i < spec->nenv; i++) {
        /* append_new steals the new string, also when it fails */
        if (json_array_append_new (a, string_or_null (spec->env[i])) < 0) {
            json_decref (a);
            return NULL;
        }
    }
    return a;
}

static json_t *chunks_to_json (const struct hpcq_resources *res)
{
    json_t *a = json_array ();
    int i;

    if (!a)
        return NULL;
    for (i = 0; i < res->nchunks; i++) {
        const struct hpcq_chunk *c = &res->chunk[i];
        json_t *o = json_pack ("{s:i s:i s:I s:i s:i}", "count", c->count, "ncpus",
                               c->ncpus, "mem", (json_int_t)c->mem, "ngpus", c->ngpus,
                               "mpiprocs", c->mpiprocs);
        /* Only when asked, so specs stored before these existed compare
         * equal to what they decode into. */
        if (o && c->ompthreads > 0)
            json_object_set_new (o, "ompthreads", json_integer (c->ompthreads));
        if (o && chunk_model (c)[0])
            json_object_set_new (o, "gpu_model", json_string (c->gpu_model));
        if (o && chunk_mig (c)[0])
            json_object_set_new (o, "mig", json_string (c->mig));
        if (o && chunk_host (c)[0])
            json_object_set_new (o, "host", json_string (c->host));
        if (o && chunk_labels (c)[0])
            json_object_set_new (o, "labels", json_string (c->labels));
        if (json_array_append_new (a, o) < 0) {
            json_decref (a);
            return NULL;
        }
    }
    return a;
}

/* {image, mounts?, workdir?}: the container the job runs in. */
static json_t *container_to_json (const struct hpcq_resources *res)
{
    json_t *o = json_pack ("{s:s}", "image", res->container_image);

    if (o && res->container_mounts)
        json_object_set_new (o, "mounts", json_string (res->container_mounts));
    if (o && res->container_workdir)
        json_object_set_new (o, "workdir", json_string (res->container_workdir));
    return o;
}

static json_t *resources_to_json (const struct hpcq_resources *res)
{
    json_t *o = json_pack ("{s:I s:s%}", "walltime", (json_int_t)res->walltime, "place",
                           res->place, strnlen (res->place, sizeof (res->place)));

    /* set_new steals the chunks array even when it fails (or is NULL) */
    if (!o || json_object_set_new (o, "chunks", chunks_to_json (res)) < 0
        || (res->spot >= 0
            && json_object_set_new (o, "spot", json_boolean (res->spot)) < 0)
        || ((res->spot_want == RES_SPOT_PREFER || res->spot_want == RES_SPOT_AVOID)
            && json_object_set_new (o, "spot_want", json_integer (res->spot_want)) < 0)
        || (res->gpu_bind[0]
            && json_object_set_new (o, "gpu_bind", json_string (res->gpu_bind)) < 0)
        || (res->cpu_bind[0]
            && json_object_set_new (o, "cpu_bind", json_string (res->cpu_bind)) < 0)
        || (res->container_image
            && json_object_set_new (o, "container", container_to_json (res)) < 0)) {
        json_decref (o);
        return NULL;
    }
    return o;
}

static json_t *scalars_to_json (const struct hpcq_jobspec *spec)
{
    if (spec->join < 0 || spec->join >= (int)ARRAY_SIZE (join_names)) {
        errno = EINVAL;
        return NULL;
    }
    json_t *o = json_pack ("{s:s s:b s:i s:b}", "join", join_names[spec->join], "hold",
                           spec->hold, "priority", spec->priority, "rerunnable",
                           spec->rerunnable);

    /* Only when set, so specs stored before it existed decode the same. */
    if (o && spec->slurm && json_object_set_new (o, "slurm", json_true ()) < 0) {
        json_decref (o);
        return NULL;
    }
    /* Only when given, so specs stored before it existed compare equal. */
    if (o && spec->umask >= 0
        && json_object_set_new (o, "umask", json_integer (spec->umask)) < 0) {
        json_decref (o);
        return NULL;
    }
    if (o && spec->execution_time > 0
        && json_object_set_new (o, "execution_time",
                                json_integer ((json_int_t)spec->execution_time))
               < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
}

json_t *jobspec_to_json (const struct hpcq_jobspec *spec)
{
    json_t *o;
    size_t i;

    errno = ENOMEM;
    if (!(o = scalars_to_json (spec)))
        return NULL;
    for (i = 0; i < ARRAY_SIZE (string_fields); i++) {
        const struct string_field *f = &string_fields[i];
        const char *s = string_member_const (spec, f), *key = f->key;
        json_t *v;
        if (s == spec->script && s && util_utf8_invalid (s) >= 0) {
            key = "script_base64";
            v = tm_data_json (s, strlen (s));
        } else
            v = string_or_null (s);
        if (json_object_set_new (o, key, v) < 0)
            goto error;
    }
    errno = ENOMEM;
    if (json_object_set_new (o, "env", env_to_json (spec)) < 0
        || json_object_set_new (o, "resources", resources_to_json (&spec->res)) < 0)
        goto error;
    return o;
error:
    json_decref (o);
    return NULL;
}

static int known_key (const char *key)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE (string_fields); i++) {
        if (strcmp (string_fields[i].key, key) == 0)
            return 1;
    }
    for (i = 0; other_keys[i]; i++) {
        if (strcmp (other_keys[i], key) == 0)
            return 1;
    }
    return 0;
}

/* An unknown key is refused rather than dropped: it would be a setting
 * the client believes in and the scheduler never applies. */
static int check_keys (const json_t *o, struct hpcq_error *err)
{
    const char *key;
    json_t *v;

    json_object_foreach ((json_t *)o, key, v)
    {
        if (!known_key (key))
            return invalid (err, "unknown key '%s'", key);
    }
    return 0;
}

/* Copy a string member: absent or null is NULL unless required.  A JSON
 * string may hold "\u0000", which C would silently cut short. */
static int decode_string (const json_t *o, const struct string_field *f, char **dst,
                          struct hpcq_error *err)
{
    json_t *v = json_object_get (o, f->key); /* borrowed */

    if (!v || json_is_null (v)) {
        if (f->required)
            return invalid (err, "missing %s", f->key);
        return 0;
    }
    if (!json_is_string (v))
        return invalid (err, "%s must be a string", f->key);
    if (strlen (json_string_value (v)) != json_string_length (v))
        return invalid (err, "%s contains a NUL character", f->key);
    if (!(*dst = strdup (json_string_value (v))))
        return nomem (err);
    return 0;
}

/* A script that is not UTF-8, as jobspec_to_json sent it: base64 of bytes
 * with no NUL, and never beside a "script". */
static int decode_script_base64 (const json_t *o, char **dst, struct hpcq_error *err)
{
    size_t len;

    if (json_object_get (o, "script"))
        return invalid (err, "script and script_base64 both given");
    if (tm_data_decode (json_object_get (o, "script_base64"), dst, &len) < 0)
        return errno == ENOMEM ? nomem (err)
                               : invalid (err, "script_base64 is not base64");
    if (strlen (*dst) != len || len == 0)
        return invalid (err, "script_base64 holds %s",
                        len ? "a NUL byte" : "an empty script");
    return 0;
}

static int decode_strings (const json_t *o, struct hpcq_jobspec *spec,
                           struct hpcq_error *err)
{
    struct hpcq_error name_err;
    struct ckptspec ck;
    size_t i;

    for (i = 0; i < ARRAY_SIZE (string_fields); i++) {
        const struct string_field *f = &string_fields[i];
        if (f->offset == offsetof (struct hpcq_jobspec, script)
            && json_object_get (o, "script_base64")) {
            if (decode_script_base64 (o, &spec->script, err) < 0)
                return -1;
        } else if (decode_string (o, f, string_member (spec, f), err) < 0)
            return -1;
    }
    if (jobspec_check_name (spec->name, &name_err) < 0)
        return invalid (err, "%s", name_err.text);
    /* The worker chdirs here on another host: relative means nothing. */
    if (spec->workdir[0] != '/')
        return invalid (err, "workdir '%s' is not an absolute path", spec->workdir);
    if (spec->sandbox && strcmp (spec->sandbox, "HOME") != 0
        && strcmp (spec->sandbox, "PRIVATE") != 0)
        return invalid (err, "sandbox '%s' is not HOME or PRIVATE", spec->sandbox);
    if (spec->signal
        && jobspec_parse_signal (spec->signal, NULL, NULL, NULL, &name_err) < 0)
        return invalid (err, "%s", name_err.text);
    if (spec->checkpoint && ckptspec_parse (spec->checkpoint, &ck, &name_err) < 0)
        return invalid (err, "%s", name_err.text);
    if (spec->checkpoint_signal
        && ckptspec_signal (spec->checkpoint_signal, NULL, 0, &name_err) < 0)
        return invalid (err, "%s", name_err.text);
    return 0;
}

static int decode_join (const char *s, int *join, struct hpcq_error *err)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE (join_names); i++) {
        if (strcmp (s, join_names[i]) == 0) {
            *join = (int)i;
            return 0;
        }
    }
    return invalid (err, "join '%s' is not one of n, oe, eo", s);
}

static int decode_scalars (const json_t *o, struct hpcq_jobspec *spec,
                           struct hpcq_error *err)
{
    json_error_t jerr;
    const char *join = "n";
    json_int_t priority = 0, umask = -1, exec_time = 0;

    /* unpack wants a non-const root but only reads it */
    if (json_unpack_ex ((json_t *)o, &jerr, 0, "{s?s s?b s?I s?b s?b s?I s?I}", "join",
                        &join, "hold", &spec->hold, "priority", &priority, "rerunnable",
                        &spec->rerunnable, "slurm", &spec->slurm, "umask", &umask,
                        "execution_time", &exec_time)
        < 0)
        return invalid (err, "%s", jerr.text);
    if (exec_time < 0)
        return invalid (err, "execution_time %lld out of range", (long long)exec_time);
    spec->execution_time = exec_time;
    if (priority < PRIORITY_MIN || priority > PRIORITY_MAX)
        return invalid (err, "priority %lld out of range", (long long)priority);
    if (umask < -1 || umask > 0777)
        return invalid (err, "umask %lld out of range", (long long)umask);
    spec->priority = (int)priority;
    spec->umask = (int)umask;
    return decode_join (join, &spec->join, err);
}

static int decode_env_entry (json_t *v, size_t i, struct hpcq_jobspec *spec,
                             struct hpcq_error *err)
{
    const char *s = json_string_value (v);
    char *entry;

    if (!s)
        return invalid (err, "env[%zu] must be a string", i);
    if (strlen (s) != json_string_length (v))
        return invalid (err, "env[%zu] contains a NUL character", i);
    if (s[0] == '=' || !strchr (s, '='))
        return invalid (err, "env[%zu] '%s' is not KEY=VALUE", i, s);
    if (!(entry = strdup (s)) || env_append (spec, entry) < 0) {
        free (entry);
        return nomem (err);
    }
    return 0;
}

static int decode_env (const json_t *o, struct hpcq_jobspec *spec,
                       struct hpcq_error *err)
{
    json_t *env = json_object_get (o, "env"); /* borrowed */
    json_t *v;
    size_t i;

    if (!env || json_is_null (env))
        return 0;
    if (!json_is_array (env))
        return invalid (err, "env must be an array");
    json_array_foreach (env, i, v)
    {
        if (decode_env_entry (v, i, spec, err) < 0)
            return -1;
    }
    return 0;
}

static int decode_chunk (json_t *o, size_t i, struct hpcq_chunk *c,
                         struct hpcq_error *err)
{
    json_error_t jerr;
    json_int_t count, ncpus, mem = 0, ngpus = 0, mpiprocs = 1, omp = 0;
    const char *model = "", *mig = "", *host = "", *labels = "";

    if (json_unpack_ex (o, &jerr, JSON_STRICT,
                        "{s:I s:I s?I s?I s?I s?I s?s s?s s?s s?s}", "count", &count,
                        "ncpus", &ncpus, "mem", &mem, "ngpus", &ngpus, "mpiprocs",
                        &mpiprocs, "ompthreads", &omp, "gpu_model", &model, "mig", &mig,
                        "host", &host, "labels", &labels)
        < 0)
        return invalid (err, "chunk %zu: %s", i + 1, jerr.text);
    if (strlen (model) > HPCQ_GPU_MODEL_MAX || strlen (mig) > HPCQ_MIG_MAX
        || strlen (host) > HPCQ_HOST_MAX || strlen (labels) > 1000)
        return invalid (err, "chunk %zu: gpu_model, mig, host or labels too long",
                        i + 1);
    if (count < 1 || count > INT_MAX)
        return invalid (err, "chunk %zu: count %lld out of range", i + 1,
                        (long long)count);
    if (ncpus < 1 || ncpus > INT_MAX)
        return invalid (err, "chunk %zu: ncpus %lld out of range", i + 1,
                        (long long)ncpus);
    if (mem < 0)
        return invalid (err, "chunk %zu: mem %lld out of range", i + 1, (long long)mem);
    if (ngpus < 0 || ngpus > INT_MAX)
        return invalid (err, "chunk %zu: ngpus %lld out of range", i + 1,
                        (long long)ngpus);
    if (mpiprocs < 0 || mpiprocs > INT_MAX)
        return invalid (err, "chunk %zu: mpiprocs %lld out of range", i + 1,
                        (long long)mpiprocs);
    if (omp < 0 || omp > INT_MAX)
        return invalid (err, "chunk %zu: ompthreads %lld out of range", i + 1,
                        (long long)omp);
    *c = (struct hpcq_chunk){ .count = (int)count,
                              .ncpus = (int)ncpus,
                              .mem = mem,
                              .ngpus = (int)ngpus,
                              .mpiprocs = (int)mpiprocs,
                              .ompthreads = (int)omp };
    /* Checked with the rest of the request by resource_finalize(). */
    if ((model[0] && !(c->gpu_model = resource_intern (model)))
        || (mig[0] && !(c->mig = resource_intern (mig)))
        || (host[0] && !(c->host = resource_intern (host)))
        || (labels[0] && !(c->labels = resource_intern (labels))))
        return invalid (err,
                        "chunk %zu: too many different GPU models and MIG "
                        "profiles",
                        i + 1);
    return 0;
}

static int decode_chunks (json_t *chunks, struct hpcq_resources *res,
                          struct hpcq_error *err)
{
    json_t *v;
    size_t i;

    if (!json_is_array (chunks))
        return invalid (err, "resources.chunks must be an array");
    if (json_array_size (chunks) < 1 || json_array_size (chunks) > HPCQ_MAX_CHUNKS)
        return invalid (err, "resources.chunks must have 1 to %d entries",
                        HPCQ_MAX_CHUNKS);
    free (res->chunk);
    res->nchunks = 0;
    if (!(res->chunk = calloc (json_array_size (chunks), sizeof (*res->chunk))))
        return errprintf (err, "out of memory");
    json_array_foreach (chunks, i, v)
    {
        if (decode_chunk (v, i, &res->chunk[i], err) < 0)
            return -1;
        res->nchunks = (int)i + 1;
    }
    return 0;
}

/* gpu_bind and cpu_bind, checked as qsub checks them. */
static int decode_bind (const char *gpu_bind, const char *cpu_bind,
                        struct hpcq_resources *res, struct hpcq_error *err)
{
    char item[64];
    struct hpcq_error rerr;

    if (gpu_bind[0]) {
        snprintf (item, sizeof (item), "gpu_bind=%.20s", gpu_bind);
        if (resource_parse_list (res, item, &rerr) < 0)
            return invalid (err, "%s", rerr.text);
    }
    if (cpu_bind[0]) {
        snprintf (item, sizeof (item), "cpu_bind=%.20s", cpu_bind);
        if (resource_parse_list (res, item, &rerr) < 0)
            return invalid (err, "%s", rerr.text);
    }
    return 0;
}

/* The container, checked as qsub checks it. */
static int decode_container (json_t *c, struct hpcq_resources *res,
                             struct hpcq_error *err)
{
    static const char *const keys[] = { "image", "mounts", "workdir" };
    struct hpcq_error rerr;

    if (!c)
        return 0;
    if (!json_is_object (c) || !json_is_string (json_object_get (c, "image")))
        return invalid (err, "resources: container without an image");
    for (size_t i = 0; i < ARRAY_SIZE (keys); i++) {
        json_t *v = json_object_get (c, keys[i]);
        size_t len;
        char *item;
        int rc;
        if (!v)
            continue;
        if (!json_is_string (v))
            return invalid (err, "resources: container %s is not a string", keys[i]);
        len = strlen (json_string_value (v)) + 32;
        item = xzalloc (len);
        snprintf (item, len, "container_%s=%s", keys[i], json_string_value (v));
        rc = resource_parse_list (res, item, &rerr);
        free (item);
        if (rc < 0)
            return invalid (err, "%s", rerr.text);
    }
    return 0;
}

static int decode_resources (const json_t *o, struct hpcq_resources *res,
                             struct hpcq_error *err)
{
    json_error_t jerr;
    struct hpcq_error rerr;
    json_t *chunks;
    json_int_t walltime = -1;
    const char *place = "", *gpu_bind = "", *cpu_bind = "";
    json_t *container = NULL;
    int spot = -1, want = RES_SPOT_ANY;

    if (json_unpack_ex ((json_t *)o, &jerr, 0,
                        "{s:{s:o s?I s?s s?b s?i s?s s?s s?o !}}", "resources",
                        "chunks", &chunks, "walltime", &walltime, "place", &place,
                        "spot", &spot, "spot_want", &want, "gpu_bind", &gpu_bind,
                        "cpu_bind", &cpu_bind, "container", &container)
        < 0)
        return invalid (err, "resources: %s", jerr.text);
    if (want != RES_SPOT_ANY && want != RES_SPOT_PREFER && want != RES_SPOT_AVOID)
        return invalid (err, "resources: spot_want %d", want);
    res->spot = spot;
    res->spot_want = spot == 1 ? RES_SPOT_REQUIRE : spot == 0 ? RES_SPOT_NEVER : want;
    if (decode_bind (gpu_bind, cpu_bind, res, err) < 0
        || decode_container (container, res, err) < 0)
        return -1;
    if (walltime < -1 || walltime > RESOURCE_WALLTIME_MAX)
        return invalid (err, "walltime %lld out of range", (long long)walltime);
    res->walltime = walltime;
    if (strlen (place) >= sizeof (res->place))
        return invalid (err, "place '%s' is too long", place);
    strcpy (res->place, place);
    if (decode_chunks (chunks, res, err) < 0)
        return -1;
    /* Same checks as qsub's: place spelling, totals that fit. */
    if (resource_finalize (res, &rerr) < 0)
        return invalid (err, "%s", rerr.text);
    return 0;
}

int jobspec_from_json (const json_t *o, struct hpcq_jobspec *spec,
                       struct hpcq_error *err)
{
    jobspec_init (spec);
    if (!json_is_object (o)) {
        invalid (err, "not a JSON object");
        return -1;
    }
    if (check_keys (o, err) < 0 || decode_strings (o, spec, err) < 0
        || decode_scalars (o, spec, err) < 0 || decode_env (o, spec, err) < 0
        || decode_resources (o, &spec->res, err) < 0) {
        /* Free what was decoded so far; the caller may release again. */
        jobspec_release (spec);
        return -1;
    }
    return 0;
}

void jobspec_expand_path (const char *pattern, long long seq, int index,
                          const char *name, char *buf, size_t len)
{
    size_t o = 0;

    for (const char *p = pattern; *p && o + 1 < len; p++) {
        /* %J is Slurm's job.step: the batch step is the job's number. */
        if (p[0] == '%' && (p[1] == 'j' || p[1] == 'J') && index >= 0)
            o += snprintf (buf + o, len - o, "%lld.%d", seq, index), p++;
        else if (p[0] == '%' && (p[1] == 'j' || p[1] == 'J' || p[1] == 'A'))
            o += snprintf (buf + o, len - o, "%lld", seq), p++;
        else if (p[0] == '%' && p[1] == 'a')
            o += snprintf (buf + o, len - o, "%d", index >= 0 ? index : 0), p++;
        else if (p[0] == '%' && p[1] == 'x')
            o += snprintf (buf + o, len - o, "%s", name), p++;
        else if (p[0] == '%' && p[1] == '%')
            buf[o++] = '%', p++;
        else
            buf[o++] = *p;
        if (o >= len)
            o = len - 1;
    }
    buf[o < len ? o : len - 1] = '\0';
}

/* Signal names a job may ask for ahead of its walltime. */
static const struct {
    const char *name;
    int signo;
} warn_signals[] = {
    { "HUP", SIGHUP },   { "INT", SIGINT },   { "QUIT", SIGQUIT },
    { "ABRT", SIGABRT }, { "KILL", SIGKILL }, { "USR1", SIGUSR1 },
    { "USR2", SIGUSR2 }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
    { "CONT", SIGCONT }, { "STOP", SIGSTOP }, { "TSTP", SIGTSTP },
    { "URG", SIGURG },   { "XCPU", SIGXCPU }, { "WINCH", SIGWINCH },
};

int jobspec_signal_number (const char *name)
{
    int n;

    if (strncasecmp (name, "SIG", 3) == 0)
        name += 3;
    for (size_t i = 0; i < ARRAY_SIZE (warn_signals); i++)
        if (strcasecmp (name, warn_signals[i].name) == 0)
            return warn_signals[i].signo;
    if (util_parse_int (name, 1, NSIG - 1, &n) < 0)
        return -1;
    return n;
}

int jobspec_parse_signal (const char *s, int *signo, int *secs, int *batch_only,
                          struct hpcq_error *err)
{
    char name[32];
    const char *at = strchr (s, '@'), *p = s;
    int b = 0, sig, t = 60;

    if (strncmp (p, "B:", 2) == 0)
        b = 1, p += 2;
    else if (strncmp (p, "R:", 2) == 0 || strncmp (p, "RB:", 3) == 0
             || strncmp (p, "BR:", 3) == 0)
        return errprintf_code (err, EINVAL,
                               "--signal '%s': the R flag (reservations)"
                               " is not supported",
                               s);
    if ((size_t)((at ? at : p + strlen (p)) - p) >= sizeof (name))
        return errprintf_code (err, EINVAL, "invalid --signal '%s'", s);
    snprintf (name, sizeof (name), "%.*s", (int)((at ? at : p + strlen (p)) - p), p);
    if ((sig = jobspec_signal_number (name)) < 0)
        return errprintf_code (err, EINVAL,
                               "invalid --signal '%s' (unknown signal '%s')", s, name);
    if (at && util_parse_int (at + 1, 0, 65535, &t) < 0)
        return errprintf_code (err, EINVAL,
                               "invalid --signal '%s' (time must be "
                               "0 to 65535 seconds)",
                               s);
    if (signo)
        *signo = sig;
    if (secs)
        *secs = t;
    if (batch_only)
        *batch_only = b;
    return 0;
}

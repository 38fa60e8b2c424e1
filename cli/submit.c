/* submit.c - see submit.h */
#include <config.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uuid/uuid.h>

#include "cli/submit.h"
#include "common/client.h"
#include "common/util.h"

/* The whole request must fit max_spec_size, which is at most this. */
#define SCRIPT_MAX JOBSPEC_TEXT_MAX

/* A DOS line break (\r\n) makes the shell look for "/bin/bash\r" and the
 * job fail only when it runs: refuse it now, naming the line, as sbatch
 * does.  Returns the line number of the first one, or 0. */
static int crlf_line (const char *text)
{
    const char *cr = strstr (text, "\r\n");
    int line = 1;

    if (!cr)
        return 0;
    for (const char *p = text; p < cr; p++)
        line += *p == '\n';
    return line;
}

char *submit_read_script (const char *path, struct hpcq_error *err)
{
    const char *what = path ? path : "from standard input";
    size_t len;
    int line;
    char *text = path ? util_read_file (path, SCRIPT_MAX, &len)
                      : util_read_fd (0, SCRIPT_MAX, &len);

    if (!text) {
        if (errno == EFBIG)
            errprintf (err, "script %s is larger than %d MiB (max_spec_size)", what,
                       SCRIPT_MAX >> 20);
        else
            errprintf (err, "cannot read script %s: %s", what, strerror (errno));
        return NULL;
    }
    if (memchr (text, '\0', len) || len == 0) {
        errprintf (err, len ? "script %s is not a text file" : "script %s is empty",
                   what);
        free (text);
        return NULL;
    }
    if ((line = crlf_line (text))) {
        errprintf (err,
                   "script %s has DOS line breaks (\\r\\n), the first at line %d: "
                   "convert it with dos2unix",
                   what, line);
        free (text);
        return NULL;
    }
    return text;
}

/* Submit_arguments is shown, never parsed: a byte that is not UTF-8 (a
 * Latin-1 file name) is written \xNN, so the job can still be sent. */
char *submit_join_args (int argc, char **argv)
{
    size_t len = 1;
    char *s, *o;

    for (int i = 1; i < argc; i++)
        len += 4 * strlen (argv[i]) + 1;
    o = s = xzalloc (len);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long bad;
        if (i > 1)
            *o++ = ' ';
        while ((bad = util_utf8_invalid (a)) >= 0) {
            memcpy (o, a, bad);
            o += bad;
            o += sprintf (o, "\\x%02x", (unsigned char)a[bad]);
            a += bad + 1;
        }
        o = stpcpy (o, a);
    }
    return s;
}

int submit_set_origin (struct hpcq_jobspec *spec, struct hpcq_error *err)
{
    static const char *vars[] = { "HOME", "LANG",  "LOGNAME", "PATH",
                                  "MAIL", "SHELL", "TZ",      NULL };
    char cwd[PATH_MAX], host[256], key[64];
    struct passwd *pw;

    if (!getcwd (cwd, sizeof (cwd)))
        return errprintf (err, "cannot determine the current directory: %s",
                          strerror (errno));
    util_short_hostname (host, sizeof (host));
    if (!spec->workdir)
        spec->workdir = xstrdup (cwd);
    free (spec->submit_host);
    spec->submit_host = xstrdup (host);
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv (vars[i]);
        snprintf (key, sizeof (key), "PBS_O_%s", vars[i]);
        if (v && jobspec_setenv (spec, key, v) < 0)
            return errprintf (err, "out of memory");
    }
    /* PBS names the submitter from the password database, not LOGNAME
     * (which cron, sudo and containers may leave unset). */
    if ((pw = getpwuid (getuid ()))
        && jobspec_setenv (spec, "PBS_O_LOGNAME", pw->pw_name) < 0)
        return errprintf (err, "out of memory");
    if (jobspec_setenv (spec, "PBS_O_WORKDIR", cwd) < 0
        || jobspec_setenv (spec, "PBS_O_HOST", host) < 0
        || jobspec_setenv (spec, "PBS_O_SYSTEM", "Linux") < 0)
        return errprintf (err, "out of memory");
    return 0;
}

/* 1 if the OCI index names a manifest tag (org.opencontainers.image.ref.name). */
static int index_has_tag (json_t *index, const char *tag)
{
    json_t *m;
    size_t i;

    json_array_foreach (json_object_get (index, "manifests"), i, m)
    {
        const char *name =
            json_string_value (json_object_get (json_object_get (m, "annotations"),
                                                "org.opencontainers.image.ref.name"));
        if (name && strcmp (name, tag) == 0)
            return 1;
    }
    return 0;
}

/* container_image names, as the submitting user sees it, a local OCI image
 * layout (the folder umoci and skopeo write: oci-layout, index.json), with
 * the tag asked for ("latest" when none). */
static int check_image (const char *image, struct hpcq_error *err)
{
    const char *slash = strrchr (image, '/'),
               *colon = slash ? strchr (slash, ':') : NULL;
    char dir[1024], path[1100];
    json_t *layout, *index;
    int ok;

    snprintf (dir, sizeof (dir), "%.*s",
              (int)(colon ? colon - image : (long)strlen (image)), image);
    if (access (dir, R_OK | X_OK) < 0)
        return errprintf (err, "container_image %s: %s", dir, strerror (errno));
    snprintf (path, sizeof (path), "%s/oci-layout", dir);
    layout = json_load_file (path, 0, NULL);
    ok = json_is_string (json_object_get (layout, "imageLayoutVersion"));
    json_decref (layout);
    if (!ok)
        return errprintf (
            err, "container_image %s: not an OCI image layout (no oci-layout file)",
            dir);
    snprintf (path, sizeof (path), "%s/index.json", dir);
    if (!(index = json_load_file (path, 0, NULL)))
        return errprintf (err,
                          "container_image %s: not an OCI image layout (no index.json)",
                          dir);
    ok = index_has_tag (index, colon ? colon + 1 : "latest");
    json_decref (index);
    if (!ok)
        return errprintf (err, "container_image %s: no image tagged '%s' in it", dir,
                          colon ? colon + 1 : "latest");
    return 0;
}

int submit_send (const struct hpcq_jobspec *spec, char *jobid, size_t len,
                 struct hpcq_error *err)
{
    struct client *c;
    json_t *body, *reply = NULL, *js = jobspec_to_json (spec);
    char uuid[UUID_STR_LEN];
    const char *id;
    uuid_t u;
    int rc = -1;

    if (spec->res.container_image && check_image (spec->res.container_image, err) < 0) {
        json_decref (js);
        return -1;
    }
    if (jobspec_check_text (spec, err) < 0) {
        json_decref (js);
        return -1;
    }
    if (!js)
        return errprintf (err, "cannot encode the job: %s", strerror (errno));
    /* Ours, so a retry after a lost reply (a new leader, common/client.h)
     * finds the job it made instead of making a second. */
    uuid_generate (u);
    uuid_unparse_lower (u, uuid);
    body = json_pack ("{s:o s:s}", "spec", js, "uuid", uuid);
    if (!(c = client_connect (NULL, err))) {
        json_decref (body);
        return -1;
    }
    if (client_rpc (c, "job.submit", body, &reply, err) == 0) {
        if (json_unpack (reply, "{s:s}", "jobid", &id) < 0)
            errprintf (err, "malformed reply from server");
        else {
            snprintf (jobid, len, "%s", id);
            rc = 0;
        }
    }
    json_decref (reply);
    client_destroy (c);
    return rc;
}

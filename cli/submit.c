/* submit.c - see submit.h */
#include <config.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/submit.h"
#include "common/client.h"
#include "common/util.h"

#define SCRIPT_MAX (4 << 20)

char *submit_read_script (const char *path, struct hpcq_error *err)
{
    const char *what = path ? path : "from standard input";
    size_t len;
    char *text = path ? util_read_file (path, SCRIPT_MAX, &len)
                      : util_read_fd (0, SCRIPT_MAX, &len);

    if (!text) {
        if (errno == EFBIG)
            errprintf (err, "script %s is larger than 4 MiB", what);
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
    return text;
}

char *submit_join_args (int argc, char **argv)
{
    size_t len = 1;
    char *s;

    for (int i = 1; i < argc; i++)
        len += strlen (argv[i]) + 1;
    s = xzalloc (len);
    for (int i = 1; i < argc; i++) {
        if (i > 1)
            strcat (s, " ");
        strcat (s, argv[i]);
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

int submit_send (const struct hpcq_jobspec *spec, char *jobid, size_t len,
                 struct hpcq_error *err)
{
    struct client *c;
    json_t *body, *reply = NULL, *js = jobspec_to_json (spec);
    const char *id;
    int rc = -1;

    if (!js)
        return errprintf (err, "cannot encode the job: %s", strerror (errno));
    body = json_pack ("{s:o}", "spec", js);
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

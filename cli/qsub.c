/* qsub - submit a batch job (PBS Pro conventions).
 *
 * Reads the script (a file, or standard input), applies its #PBS
 * directives and then the command-line options (which win), and sends the
 * job to the scheduler.  Prints only the job id, as tools that drive PBS
 * expect.
 */
#include <config.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/client.h"
#include "common/directive.h"
#include "common/jobspec.h"
#include "common/sbatch.h"
#include "common/util.h"

#define SCRIPT_MAX (4 << 20)

static const char *usage_text =
    "Usage: qsub [-N name] [-q queue] [-l resource_list] [-o path] [-e path]\n"
    "            [-j oe|eo|n] [-v var[=value],...] [-V] [-h] [-p priority]\n"
    "            [-W depend=...] [-A account] [-r y|n] [-m abe|n] [-M users]\n"
    "            [-S shell] [-C prefix] [script]\n"
    "Submits a batch job; the script is read from standard input if not given.\n"
    "#PBS lines at the top of the script give the same options; the command\n"
    "line wins.  Prints the new job's id.  See qsub(1).\n";

struct opt {
    int letter;
    const char *arg;
};

static char *join_args (int argc, char **argv)
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

/* The PBS_O_* variables describing where the job came from. */
static void set_origin (struct hpcq_jobspec *spec)
{
    static const char *vars[] = { "HOME", "LANG", "LOGNAME", "PATH", "MAIL",
                                  "SHELL", "TZ", NULL };
    char cwd[PATH_MAX], host[256], key[64];

    if (!getcwd (cwd, sizeof (cwd)))
        util_die (1, "cannot determine the current directory: %s", strerror (errno));
    util_short_hostname (host, sizeof (host));
    spec->workdir = xstrdup (cwd);
    spec->submit_host = xstrdup (host);
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv (vars[i]);
        snprintf (key, sizeof (key), "PBS_O_%s", vars[i]);
        if (v && jobspec_setenv (spec, key, v) < 0)
            util_die (1, "out of memory");
    }
    if (jobspec_setenv (spec, "PBS_O_WORKDIR", cwd) < 0
        || jobspec_setenv (spec, "PBS_O_HOST", host) < 0
        || jobspec_setenv (spec, "PBS_O_SYSTEM", "Linux") < 0)
        util_die (1, "out of memory");
}

static char *read_script (const char *path, size_t *len)
{
    char *text = path ? util_read_file (path, SCRIPT_MAX, len)
                      : util_read_fd (0, SCRIPT_MAX, len);

    if (!text)
        util_die (1, errno == EFBIG ? "script %s is larger than 4 MiB"
                               : "cannot read script %s: %s",
             path ? path : "from standard input", strerror (errno));
    if (memchr (text, '\0', *len))
        util_die (1, "script %s is not a text file", path ? path : "(stdin)");
    if (*len == 0)
        util_die (1, "script %s is empty", path ? path : "from standard input");
    return text;
}

static const char *base_name (const char *path)
{
    const char *slash = strrchr (path, '/');
    return slash ? slash + 1 : path;
}

static void build_spec (struct hpcq_jobspec *spec, const char *path,
                        struct opt *opts, int nopts, const char *prefix)
{
    struct hpcq_error err;
    size_t len;

    spec->script = read_script (path, &len);
    /* Slurm's directives first, so #PBS lines and the command line win. */
    if (sbatch_parse_script (spec, spec->script, &err) < 0)
        util_die (1, "directive error: %s", err.text);
    if (directive_parse_script (spec, spec->script, prefix, &err) < 0)
        util_die (1, "directive error: %s", err.text);
    for (int i = 0; i < nopts; i++)
        if (directive_apply (spec, opts[i].letter, opts[i].arg, &err) < 0)
            util_die (2, "%s", err.text);
    if (!spec->name) {
        const char *base = path ? base_name (path) : "STDIN";
        if (jobspec_check_name (base, &err) < 0)
            util_die (1, "cannot name the job after '%s' (%s): use -N", base, err.text);
        spec->name = xstrdup (base);
    }
    if (resource_finalize (&spec->res, &err) < 0)
        util_die (2, "%s", err.text);
    set_origin (spec);
}

static void submit (struct hpcq_jobspec *spec)
{
    struct hpcq_error err;
    struct client *c;
    json_t *body = json_object (), *reply = NULL, *js = jobspec_to_json (spec);
    const char *jobid;

    if (!js)
        util_die (1, "cannot encode the job: %s", strerror (errno));
    json_object_set_new (body, "spec", js);
    if (!(c = client_connect (NULL, &err)))
        util_die (1, "%s", err.text);
    if (client_rpc (c, "job.submit", body, &reply, &err) < 0)
        util_die (1, "%s", err.text);
    if (json_unpack (reply, "{s:s}", "jobid", &jobid) < 0)
        util_die (1, "malformed reply from server");
    printf ("%s\n", jobid);
    json_decref (reply);
    client_destroy (c);
}

static struct opt *opts;   /* global so it stays reachable when util_die() exits */

int main (int argc, char **argv)
{
    struct hpcq_jobspec spec;
    const char *prefix = NULL;
    char optstring[128];
    int nopts = 0, c;

    opts = xzalloc ((argc + 1) * sizeof (*opts));
    if (argc > 1 && strcmp (argv[1], "--help") == 0) {
        fputs (usage_text, stdout);
        return 0;
    }
    /* '+': stop at the script name; options after it belong to nobody. */
    snprintf (optstring, sizeof (optstring), "+:%s", directive_optstring);
    opterr = 0;
    while ((c = getopt (argc, argv, optstring)) != -1) {
        if (c == '?')
            util_die (2, "invalid option -- '%c' (qsub --help lists them)", optopt);
        if (c == ':')
            util_die (2, "option -%c requires an argument", optopt);
        if (c == 'C')
            prefix = optarg;
        opts[nopts].letter = c;
        opts[nopts++].arg = optarg;
    }
    if (argc - optind > 1)
        util_die (2, "too many arguments: give one script (extra: '%s')",
                  argv[optind + 1]);
    jobspec_init (&spec);
    spec.submit_args = join_args (argc, argv);
    build_spec (&spec, optind < argc ? argv[optind] : NULL, opts, nopts, prefix);
    submit (&spec);
    jobspec_release (&spec);
    free (opts);
    return 0;
}

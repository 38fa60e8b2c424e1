/* printjob - a job's stored script and attributes, for managers
 * (PBS Pro's printjob: -s the script alone, -a without the attributes). */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cliopt.h"
#include "common/client.h"
#include "common/tm.h"

#define USAGE "Usage: printjob [-a] jobid\n       printjob -s jobid\n"

static const struct cliopt cli = {
    .prog = "printjob",
    .shortopts = "as",
    .usage = USAGE "Prints a job's attributes (-a: not them) or its script (-s); "
                   "managers only.\nSee printjob(8).\n",
    .kind = CLIOPT_PBS,
};

static void usage (void)
{
    fputs (USAGE, stderr);
}

static void print_value (const char *name, json_t *v)
{
    if (json_is_object (v)) {
        const char *k;
        json_t *sv;
        json_object_foreach (v, k, sv)
        {
            char sub[256];
            snprintf (sub, sizeof (sub), "%s.%s", name, k);
            print_value (sub, sv);
        }
        return;
    }
    if (json_is_string (v))
        printf ("%s = %s\n", name, json_string_value (v));
    else if (json_is_integer (v))
        printf ("%s = %lld\n", name, (long long)json_integer_value (v));
    else if (json_is_boolean (v))
        printf ("%s = %s\n", name, json_is_true (v) ? "True" : "False");
}

static int print_one (struct client *c, const char *id, int script, int no_attrs)
{
    struct hpcq_error err;
    json_t *reply = NULL, *attrs;
    const char *jobid = id, *text = "", *key;
    json_t *v;
    char *bytes = NULL;
    size_t len;

    if (client_rpc (c, "job.print", json_pack ("{s:s}", "id", id), &reply, &err) < 0) {
        if (errno == ENOENT)
            fprintf (stderr, "Job %s not found\n", id);
        else
            fprintf (stderr, "printjob: %s\n", err.text);
        return 1;
    }
    (void)json_unpack (reply, "{s?s s?s}", "jobid", &jobid, "script", &text);
    if (json_object_get (reply, "script_base64")
        && tm_data_decode (json_object_get (reply, "script_base64"), &bytes, &len) == 0)
        text = bytes;
    if (script) {
        printf ("---------------------------------------------------\n"
                "Jobscript for jobid:%s\n"
                "---------------------------------------------------\n%s \n",
                jobid, text);
    } else {
        printf ("---------------------------------------------------\n"
                "jobid:\t%s\n"
                "---------------------------------------------------\n",
                jobid);
        attrs = json_object_get (reply, "attributes");
        printf ("state:\t\t%s\nqueue:\t\t%s\nuuid:\t\t%s\n",
                json_string_value (json_object_get (attrs, "job_state")),
                json_string_value (json_object_get (attrs, "queue")),
                json_string_value (json_object_get (reply, "uuid")));
        if (!no_attrs) {
            printf ("--attributes--\n");
            json_object_foreach (attrs, key, v) print_value (key, v);
        }
        printf ("\n");
    }
    free (bytes);
    json_decref (reply);
    return 0;
}

int main (int argc, char **argv)
{
    struct hpcq_error err;
    struct client *c;
    int opt, script = 0, no_attrs = 0, rc = 0;

    while ((opt = cliopt_next (&cli, argc, argv)) != -1) {
        if ((opt == 'a' && script) || (opt == 's' && no_attrs)) {
            usage ();
            return 1;
        }
        if (opt == 'a')
            no_attrs = 1;
        else
            script = 1;
    }
    if (optind >= argc) {
        usage ();
        return 1;
    }
    if (!(c = client_connect (NULL, &err))) {
        fprintf (stderr, "printjob: %s\n", err.text);
        return 1;
    }
    for (int i = optind; i < argc; i++)
        rc |= print_one (c, argv[i], script, no_attrs);
    client_destroy (c);
    return rc;
}

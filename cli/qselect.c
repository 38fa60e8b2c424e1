/* qselect - print the ids of the jobs that meet the criteria given
 * (PBS Pro conventions), one per line, for "qselect ... | xargs qdel".
 *
 *   -u user[,user...]  -s states (QHWRESBF...)  -q queue[@server]  -N name
 *   -h hold_list (u, o, s, or n for none)  -l res.op.value[,...] (ops eq ne
 *   ge gt le lt; ncpus ngpus nodect mpiprocs mem walltime select place)
 *   -x finished jobs too  -J job arrays only
 */
#include <config.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cliopt.h"
#include "common/client.h"

#define USAGE                                                           \
    "usage: qselect [-h hold_list] [-J] [-l resource_list] [-N name]\n" \
    "\t[-q destination] [-s states] [-x] [-u user_name]\n"

static const struct cliopt cli = {
    .prog = "qselect",
    .shortopts = "u:s:q:N:l:h:xJ",
    .usage = USAGE "Prints the ids of the jobs that meet every criterion.  See "
                   "qselect(1).\n",
    .kind = CLIOPT_PBS,
};

static void usage (void)
{
    fputs (USAGE, stderr);
    exit (2);
}

/* -l "ncpus.gt.4,mem.ge.2gb": [[name, op, value]...], or exits. */
static json_t *resource_list (const char *arg)
{
    json_t *list = json_array ();
    char *copy = strdup (arg), *p = copy, *item;

    while (copy && (item = strsep (&p, ","))) {
        char *op = strchr (item, '.'), *val = op ? strchr (op + 1, '.') : NULL;
        if (!op || !val || val == op + 1 || !val[1]) {
            fprintf (stderr, "qselect: illegal -l value\nresource_list: %s\n", arg);
            exit (2);
        }
        *op++ = '\0';
        *val++ = '\0';
        json_array_append_new (list, json_pack ("[sss]", item, op, val));
    }
    free (copy);
    return list;
}

static json_t *user_list (const char *arg)
{
    json_t *list = json_array ();
    char *copy = strdup (arg), *p = copy, *u;

    while (copy && (u = strsep (&p, ",")))
        if (*u)
            json_array_append_new (list, json_string (u));
    free (copy);
    return list;
}

int main (int argc, char **argv)
{
    json_t *body = json_object (), *reply = NULL, *v;
    struct hpcq_error err;
    struct client *c;
    size_t i;
    int opt;

    while ((opt = cliopt_next (&cli, argc, argv)) != -1) {
        switch (opt) {
        case 'u': json_object_set_new (body, "users", user_list (optarg)); break;
        case 's':
            if (strspn (optarg, "QHWTRESBFXMU") != strlen (optarg) || !*optarg) {
                fprintf (stderr, "qselect: illegal -s value\n");
                usage ();
            }
            json_object_set_new (body, "states", json_string (optarg));
            break;
        case 'q': {
            char q[128];
            snprintf (q, sizeof (q), "%.*s", (int)strcspn (optarg, "@"), optarg);
            json_object_set_new (body, "queue", json_string (q));
            break;
        }
        case 'N': json_object_set_new (body, "name", json_string (optarg)); break;
        case 'l':
            json_object_set_new (body, "resources", resource_list (optarg));
            break;
        case 'h':
            if (strcmp (optarg, "n")
                && (strspn (optarg, "uos") != strlen (optarg) || !*optarg)) {
                fprintf (stderr, "qselect: illegal -h value\n");
                usage ();
            }
            json_object_set_new (body, "holds", json_string (optarg));
            break;
        case 'x': json_object_set_new (body, "history", json_true ()); break;
        case 'J': json_object_set_new (body, "arrays", json_true ()); break;
        }
    }
    if (optind < argc)
        usage ();
    if (!(c = client_connect (NULL, &err))) {
        fprintf (stderr, "qselect: %s\n", err.text);
        return 1;
    }
    if (client_rpc (c, "job.select", body, &reply, &err) < 0) {
        fprintf (stderr, "qselect: %s\n", err.text);
        client_destroy (c);
        return 1;
    }
    json_array_foreach (json_object_get (reply, "ids"), i, v)
        printf ("%s\n", json_string_value (v));
    json_decref (reply);
    client_destroy (c);
    return 0;
}

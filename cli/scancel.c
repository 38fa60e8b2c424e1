/* scancel - cancel jobs the way Slurm's scancel does.
 *
 * Job ids ("42", "42_3" for one array task, "42" for a whole array), or
 * the jobs that match -u USER, -n NAME, -t STATE, -p PARTITION (found with
 * qselect's job.select).  Each goes through qdel's job.delete.  An id
 * that is not a job, or one already finished, is reported as Slurm does;
 * only the first makes the exit status 1.
 */
#include <config.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cliopt.h"
#include "cli/slurm.h"
#include "common/client.h"

static const char *usage_text =
    "Usage: scancel [-u USER] [-n NAME] [-t STATE] [-p PARTITION] [job_id[_task]...]\n"
    "Cancels hpcq jobs as Slurm's scancel does.  STATE: PENDING, RUNNING.\n"
    "See scancel(1) and docs/compat.md.\n";

static int cancel_one (struct client *c, const char *id)
{
    struct hpcq_error err;
    char pbs[128];
    int e;

    /* "42" names an array as a whole too, as in Slurm. */
    slurm_to_pbs_id (id, pbs, sizeof (pbs));
    if (client_rpc (c, "job.delete", json_pack ("{s:s}", "id", pbs), NULL, &err) == 0)
        return 0;
    /* An array task by its own number (its SLURM_JOB_ID). */
    e = errno;
    if (e == ENOENT && slurm_task_of ("scancel", id, pbs, sizeof (pbs)) == 0) {
        if (client_rpc (c, "job.delete", json_pack ("{s:s}", "id", pbs), NULL, &err)
            == 0)
            return 0;
        e = errno;
    }
    errno = e;
    if (errno == ENOENT) {
        fprintf (stderr,
                 "scancel: error: Kill job error on job id %s: Invalid job id "
                 "specified\n",
                 id);
        return 1;
    }
    if (errno == EINVAL || errno == EBUSY) {
        fprintf (stderr,
                 "scancel: error: Kill job error on job id %s: Job/step already "
                 "completing or completed\n",
                 id);
        return 0;
    }
    fprintf (stderr, "scancel: error: Kill job error on job id %s: %s\n", id, err.text);
    return 1;
}

/* The ids job.select finds for the filters (new reference). */
static json_t *select_ids (struct client *c, const char *user, const char *name,
                           const char *state, const char *part)
{
    struct hpcq_error err;
    json_t *body = json_object (), *reply = NULL;

    if (user)
        json_object_set_new (body, "users", json_pack ("[s]", user));
    if (name)
        json_object_set_new (body, "name", json_string (name));
    if (part)
        json_object_set_new (body, "queue", json_string (part));
    if (state) {
        const char *s =
            !strcasecmp (state, "PENDING") || !strcasecmp (state, "PD")  ? "QHW"
            : !strcasecmp (state, "RUNNING") || !strcasecmp (state, "R") ? "RB"
                                                                         : NULL;
        if (!s) {
            fprintf (stderr, "scancel: error: Invalid job state specified: %s\n",
                     state);
            exit (1);
        }
        json_object_set_new (body, "states", json_string (s));
    }
    if (client_rpc (c, "job.select", body, &reply, &err) < 0) {
        fprintf (stderr, "scancel: error: %s\n", err.text);
        exit (1);
    }
    return reply;
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "user", required_argument, NULL, 'u' },
        { "name", required_argument, NULL, 'n' },
        { "jobname", required_argument, NULL, 'n' },
        { "state", required_argument, NULL, 't' },
        { "partition", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'H' },
        { "quiet", no_argument, NULL, 'Q' },
        { NULL, 0, NULL, 0 },
    };
    const char *user = NULL, *name = NULL, *state = NULL, *part = NULL;
    struct hpcq_error err;
    struct client *c;
    int opt, rc = 0;

    cliopt_only (&(struct cliopt){ .prog = "scancel", .kind = CLIOPT_SLURM }, argc,
                 argv);
    opterr = 0;
    while ((opt = getopt_long (argc, argv, "u:n:t:p:Q", longopts, NULL)) != -1) {
        switch (opt) {
        case 'u': user = optarg; break;
        case 'n': name = optarg; break;
        case 't': state = optarg; break;
        case 'p': part = optarg; break;
        case 'Q': break;
        case 'H': fputs (usage_text, stdout); return 0;
        default:
            fprintf (stderr,
                     "scancel: unrecognized option '%s'\nTry \"scancel --help\" for "
                     "more information\n",
                     argv[optind - 1]);
            return 1;
        }
    }
    if (optind >= argc && !user && !name && !state && !part) {
        fprintf (stderr, "scancel: error: No job identification provided\n");
        return 1;
    }
    if (!(c = client_connect (NULL, &err))) {
        fprintf (stderr, "scancel: error: %s\n", err.text);
        return 1;
    }
    if (optind < argc) {
        for (int i = optind; i < argc; i++)
            rc |= cancel_one (c, argv[i]);
    } else {
        json_t *reply = select_ids (c, user, name, state, part), *v;
        size_t i;
        json_array_foreach (json_object_get (reply, "ids"), i, v)
        {
            char id[128];
            slurm_id (json_string_value (v), id, sizeof (id));
            rc |= cancel_one (c, id);
        }
        json_decref (reply);
    }
    client_destroy (c);
    return rc;
}

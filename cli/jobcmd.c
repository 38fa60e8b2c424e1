/* jobcmd.c - see jobcmd.h */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/jobcmd.h"
#include "common/client.h"

/* PBS exit codes: error number modulo 256. */
static int pbs_exit (const char *prog, int errnum)
{
    switch (errnum) {
    case ENOENT: return 153; /* PBSE_UNKJOBID */
    case EPERM: return 159;  /* PBSE_PERM */
    case EINVAL:
    case EBUSY: return 168;  /* PBSE_BADSTATE */
    case ERANGE: return 165; /* PBSE_UNKSIG */
    case EAGAIN: return 196; /* PBSE_RESCUNAV */
    case ENOTSUP:            /* PBSE_NORERUN for qrerun, else PBSE_NOSUP */
        return strcmp (prog, "qrerun") == 0 ? 190 : 181;
    default: return 1;
    }
}

/* A reply that refused one job (the next may still go), not a lost link. */
static int refused (int errnum)
{
    return errnum == ENOENT || errnum == EPERM || errnum == EINVAL || errnum == EBUSY
           || errnum == ERANGE || errnum == EAGAIN || errnum == ENOTSUP;
}

int jobcmd_run (const char *prog, const char *type, int argc, char **argv, int first,
                json_t *extra)
{
    struct hpcq_error err;
    struct client *c;
    int rc = 0;

    if (first >= argc) {
        fprintf (stderr, "usage: %s job_identifier...\n", prog);
        return 2;
    }
    if (!(c = client_connect (NULL, &err))) {
        fprintf (stderr, "%s: %s\n", prog, err.text);
        return 1;
    }
    for (int i = first; i < argc; i++) {
        json_t *body = json_pack ("{s:s}", "id", argv[i]);
        if (extra)
            json_object_update (body, extra);
        if (client_rpc (c, type, body, NULL, &err) < 0) {
            fprintf (stderr, "%s: %s\n", prog, err.text);
            rc = pbs_exit (prog, errno);
            if (!refused (errno))
                break; /* the connection itself failed */
        }
    }
    client_destroy (c);
    return rc;
}

int jobcmd_hold_options (const struct cliopt *co, int argc, char **argv,
                         const char **types)
{
    int c;

    while ((c = cliopt_next (co, argc, argv)) != -1) {
        if (c == 'h') {
            if (!*optarg || strspn (optarg, "uos") != strlen (optarg)) {
                fprintf (stderr,
                         "%s: illegal -h value '%s' (u, o, s or a combination)\n",
                         co->prog, optarg);
                return 2;
            }
            *types = optarg;
        }
    }
    return 0;
}

/* qenable, qdisable, qstart, qstop - open or close queues to new jobs
 * (enabled) and to running them (started), as PBS Pro's commands do:
 * each sets one queue attribute through qmgr's request (managers). */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/cliopt.h"
#include "common/client.h"
#include "common/util.h"

static const struct {
    const char *prog, *attr, *value, *what;
} cmds[] = {
    { "qenable", "enabled", "True", "accepts new jobs" },
    { "qdisable", "enabled", "False", "refuses new jobs (those queued stay)" },
    { "qstart", "started", "True", "runs its jobs" },
    { "qstop", "started", "False", "keeps its jobs queued (running ones go on)" },
};

int main (int argc, char **argv)
{
    const char *base = strrchr (argv[0], '/') ? strrchr (argv[0], '/') + 1 : argv[0];
    struct hpcq_error err;
    struct client *c;
    struct cliopt cli = { .prog = base, .kind = CLIOPT_PBS };
    char usage[512];
    size_t k;
    int rc = 0;

    for (k = 0; k < ARRAY_SIZE (cmds) && strcmp (base, cmds[k].prog); k++)
        ;
    if (k == ARRAY_SIZE (cmds)) {
        fprintf (stderr, "%s: run as qenable, qdisable, qstart or qstop\n", base);
        return 1;
    }
    snprintf (
        usage, sizeof (usage),
        "Usage: %s [queue][@server] ...\nSets %s = %s: the queue %s.  See %s(8).\n",
        base, cmds[k].attr, cmds[k].value, cmds[k].what, base);
    cli.usage = usage;
    while (cliopt_next (&cli, argc, argv) != -1)
        ;
    if (optind == argc) {
        fprintf (stderr, "Usage: %s [queue][@server] ...\n", base);
        return 1;
    }
    if (!(c = client_connect (NULL, &err))) {
        fprintf (stderr, "%s: could not connect to server (%s)\n", base, err.text);
        return 2;
    }
    for (int i = optind; i < argc; i++) {
        char queue[128];
        snprintf (queue, sizeof (queue), "%.*s", (int)strcspn (argv[i], "@"), argv[i]);
        if (!queue[0]) {
            fprintf (stderr, "%s: illegally formed destination: %s\n", base, argv[i]);
            rc = 1;
            continue;
        }
        if (client_rpc (c, "queue.manage",
                        json_pack ("{s:s s:s s:[[ss]]}", "op", "set", "queue", queue,
                                   "attrs", cmds[k].attr, cmds[k].value),
                        NULL, &err)
            < 0) {
            fprintf (stderr, "%s: %s %s\n", base, err.text, argv[i]);
            rc = 2;
        }
    }
    client_destroy (c);
    return rc;
}

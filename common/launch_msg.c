/* launch_msg.c - see launch_msg.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/launch_msg.h"
#include "common/resource.h"
#include "common/util.h"

json_t *launch_msg_encode (const struct launch_req *req)
{
    json_t *gpus = json_array (), *nodefile = json_array (), *body;

    for (int g = 0; g < req->ngpus; g++)
        json_array_append_new (gpus, json_integer (req->gpus[g]));
    for (int i = 0; i < req->nnodefile; i++)
        json_array_append_new (nodefile, json_string (req->nodefile[i]));
    body = json_pack ("{s:I s:i s:s s:s s:s s:I s:s s:s s:o s:i s:I s:o s:o s:I}",
                      "seq", (json_int_t)req->seq, "attempt", req->attempt, "jobid",
                      req->jobid, "uuid", req->uuid, "owner", req->owner, "uid",
                      (json_int_t)req->uid, "queue", req->queue, "server", req->server,
                      "spec", jobspec_to_json (&req->spec), "ncpus", req->ncpus, "mem",
                      (json_int_t)req->mem, "gpus", gpus, "nodefile", nodefile,
                      "walltime", (json_int_t)req->walltime);
    if (!body)
        return NULL;
    /* A MIG instance as [gpu, instance]: the worker knows its UUID. */
    if (req->nmig)
        json_object_set_new (body, "mig",
                             json_pack ("[i i]", req->mig[0], req->mig[1]));
    json_object_set_new (body, "number", json_integer (req->number));
    json_object_set_new (body, "array_index", json_integer (req->array_index));
    if (req->has_ckpt)
        json_object_set_new (body, "checkpoint",
                             json_pack ("{s:s s:I s:s s:b}", "dir", req->ckpt_dir,
                                        "keep", (json_int_t)req->ckpt_keep, "signal",
                                        req->ckpt_signal, "cpu", req->ckpt_cpu));
    return body;
}

/* The launch's optional "checkpoint" object {dir, keep, signal, cpu}. */
static int decode_ckpt (json_t *o, struct launch_req *req, struct hpcq_error *err)
{
    const char *dir = "", *sig = "USR1";

    if (!o)
        return 0;
    if (json_unpack (o, "{s?s s?i s?s s?b}", "dir", &dir, "keep", &req->ckpt_keep,
                     "signal", &sig, "cpu", &req->ckpt_cpu)
            < 0
        || (dir[0] && dir[0] != '/') || strlen (dir) >= sizeof (req->ckpt_dir)
        || strlen (sig) >= sizeof (req->ckpt_signal) || req->ckpt_keep < 0) {
        errno = EPROTO;
        return errprintf (err, "job.launch: malformed checkpoint");
    }
    req->has_ckpt = 1;
    snprintf (req->ckpt_dir, sizeof (req->ckpt_dir), "%s", dir);
    snprintf (req->ckpt_signal, sizeof (req->ckpt_signal), "%s", sig);
    return 0;
}

int launch_msg_decode (json_t *body, struct launch_req *req, struct hpcq_error *err)
{
    const char *jobid, *uuid, *owner, *queue, *server;
    json_t *spec, *gpus, *nodefile, *v;
    json_int_t seq, uid, mem, walltime;
    size_t i;

    memset (req, 0, sizeof (*req));
    jobspec_init (&req->spec);
    if (json_unpack (body, "{s:I s:i s:s s:s s:s s:I s:s s:s s:o s:i s:I s:o s:o s:I}",
                     "seq", &seq, "attempt", &req->attempt, "jobid", &jobid, "uuid",
                     &uuid, "owner", &owner, "uid", &uid, "queue", &queue, "server",
                     &server, "spec", &spec, "ncpus", &req->ncpus, "mem", &mem, "gpus",
                     &gpus, "nodefile", &nodefile, "walltime", &walltime)
            < 0
        || !json_is_array (gpus) || json_array_size (gpus) > GPU_MAX
        || !json_is_array (nodefile) || json_array_size (nodefile) == 0 || walltime < -1
        || walltime > RESOURCE_WALLTIME_MAX) {
        errno = EPROTO;
        return errprintf (err, "job.launch: malformed request");
    }
    if (jobspec_from_json (spec, &req->spec, err) < 0)
        return -1;
    req->seq = seq;
    req->number = seq;
    req->array_index = -1;
    {
        json_int_t number;
        if (json_unpack (body, "{s:I s:i}", "number", &number, "array_index",
                         &req->array_index)
            == 0)
            req->number = number;
        else
            req->array_index = -1;
    }
    req->uid = uid;
    req->mem = mem;
    req->walltime = walltime;
    snprintf (req->jobid, sizeof (req->jobid), "%s", jobid);
    snprintf (req->uuid, sizeof (req->uuid), "%s", uuid);
    snprintf (req->owner, sizeof (req->owner), "%s", owner);
    snprintf (req->queue, sizeof (req->queue), "%s", queue);
    snprintf (req->server, sizeof (req->server), "%s", server);
    json_array_foreach (gpus, i, v) req->gpus[req->ngpus++] =
        (int)json_integer_value (v);
    if ((v = json_object_get (body, "mig"))) {
        if (json_unpack (v, "[i i]", &req->mig[0], &req->mig[1]) < 0) {
            errno = EPROTO;
            return errprintf (err, "job.launch: malformed mig");
        }
        req->nmig = 1;
    }
    if (decode_ckpt (json_object_get (body, "checkpoint"), req, err) < 0)
        return -1;
    req->nodefile = xzalloc (json_array_size (nodefile) * sizeof (char *));
    json_array_foreach (nodefile, i, v) req->nodefile[req->nnodefile++] =
        xstrdup (json_string_value (v));
    return 0;
}

void launch_msg_release (struct launch_req *req)
{
    jobspec_release (&req->spec);
    for (int i = 0; i < req->nnodefile; i++)
        free (req->nodefile[i]);
    free (req->nodefile);
    req->nodefile = NULL;
    req->nnodefile = 0;
}

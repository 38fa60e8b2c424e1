/* test_launch_msg.c - job.launch's struct and encoding (common/launch_msg.c):
 * what the scheduler encodes the worker decodes to the same struct, with
 * or without its optional parts (mig, checkpoint, a subjob's number), and
 * a malformed body is refused with EPROTO and one line.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/launch_msg.h"
#include "common/test/tap.h"

static char *nodes[] = { "n1", "n1", "n2" };

/* A request as the scheduler fills one: a subjob on GPU 3's MIG instance
 * 1, with checkpoint settings. */
static void fill (struct launch_req *req, struct hpcq_jobspec *spec)
{
    struct hpcq_error err;
    json_t *o =
        json_pack ("{s:s s:s s:s s:{s:[{s:i s:i}]} s:i}", "name", "myjob", "script",
                   "#!/bin/sh\ntrue\n", "workdir", "/tmp", "resources", "chunks",
                   "count", 1, "ncpus", 2, "priority", 7);

    memset (req, 0, sizeof (*req));
    jobspec_init (spec);
    if (!o || jobspec_from_json (o, spec, &err) < 0)
        diag ("bad test spec: %s", o ? err.text : "no memory");
    json_decref (o);
    req->seq = (int64_t)1 << 62;
    req->number = 17;
    req->array_index = 4;
    req->attempt = 3;
    snprintf (req->jobid, sizeof (req->jobid), "17[4].srv");
    snprintf (req->uuid, sizeof (req->uuid), "u-1");
    snprintf (req->owner, sizeof (req->owner), "alice");
    req->uid = 1000;
    snprintf (req->queue, sizeof (req->queue), "workq");
    snprintf (req->server, sizeof (req->server), "srv");
    req->spec = *spec; /* borrowed, as the scheduler does */
    req->ncpus = 2;
    req->mem = 1LL << 33;
    req->ngpus = 2;
    req->gpus[0] = 3;
    req->gpus[1] = 5;
    req->nmig = 1;
    req->mig[0] = 3;
    req->mig[1] = 1;
    req->nodefile = nodes;
    req->nnodefile = 3;
    req->walltime = 3600;
    req->has_ckpt = 1;
    snprintf (req->ckpt_dir, sizeof (req->ckpt_dir), "/ckpt/u-1");
    req->ckpt_keep = 2;
    snprintf (req->ckpt_signal, sizeof (req->ckpt_signal), "USR2");
    req->ckpt_cpu = 1;
}

static int same (const struct launch_req *a, const struct launch_req *b)
{
    int nodes_same = a->nnodefile == b->nnodefile;

    for (int i = 0; nodes_same && i < a->nnodefile; i++)
        nodes_same = !strcmp (a->nodefile[i], b->nodefile[i]);
    return a->seq == b->seq && a->number == b->number
           && a->array_index == b->array_index && a->attempt == b->attempt
           && !strcmp (a->jobid, b->jobid) && !strcmp (a->uuid, b->uuid)
           && !strcmp (a->owner, b->owner) && a->uid == b->uid
           && !strcmp (a->queue, b->queue) && !strcmp (a->server, b->server)
           && !strcmp (a->spec.name, b->spec.name)
           && !strcmp (a->spec.script, b->spec.script)
           && a->spec.priority == b->spec.priority && a->ncpus == b->ncpus
           && a->mem == b->mem && a->ngpus == b->ngpus
           && !memcmp (a->gpus, b->gpus, sizeof (a->gpus[0]) * a->ngpus)
           && a->nmig == b->nmig
           && (!a->nmig || !memcmp (a->mig, b->mig, sizeof (a->mig))) && nodes_same
           && a->walltime == b->walltime && a->has_ckpt == b->has_ckpt
           && !strcmp (a->ckpt_dir, b->ckpt_dir) && a->ckpt_keep == b->ckpt_keep
           && !strcmp (a->ckpt_signal, b->ckpt_signal) && a->ckpt_cpu == b->ckpt_cpu;
}

static void test_round_trip (void)
{
    struct hpcq_jobspec spec;
    struct launch_req req, got;
    struct hpcq_error err = { "" };
    json_t *o;

    fill (&req, &spec);
    o = launch_msg_encode (&req);
    ok (o && json_integer_value (json_object_get (o, "number")) == 17
            && json_integer_value (json_object_get (o, "array_index")) == 4
            && json_is_array (json_object_get (o, "mig"))
            && json_is_object (json_object_get (o, "checkpoint")),
        "encoded with a subjob's number, its MIG instance and its checkpoint");
    ok (o && launch_msg_decode (o, &got, &err) == 0 && same (&req, &got),
        "decoded to the same request %s", err.text);
    launch_msg_release (&got);
    json_decref (o);

    req.nmig = 0;
    req.has_ckpt = 0;
    req.ckpt_dir[0] = req.ckpt_signal[0] = '\0';
    req.ckpt_keep = req.ckpt_cpu = 0;
    req.number = req.seq;
    req.array_index = -1;
    o = launch_msg_encode (&req);
    ok (o && !json_object_get (o, "mig") && !json_object_get (o, "checkpoint"),
        "without them, no mig and no checkpoint");
    ok (o && launch_msg_decode (o, &got, &err) == 0 && same (&req, &got)
            && got.ckpt_signal[0] == '\0',
        "and decoded the same");
    launch_msg_release (&got);
    /* An older scheduler's launch: no number, no array_index. */
    json_object_del (o, "number");
    json_object_del (o, "array_index");
    ok (o && launch_msg_decode (o, &got, &err) == 0 && got.number == req.seq
            && got.array_index == -1,
        "without a number it is its own, without an index no subjob");
    launch_msg_release (&got);
    json_decref (o);
    jobspec_release (&spec);
}

/* Decoding body after set (a key and a JSON value, or key alone to delete). */
static int decode_with (const char *key, const char *value, char *why, size_t len)
{
    struct hpcq_jobspec spec;
    struct launch_req req, got;
    struct hpcq_error err = { "" };
    json_t *o;
    int rc;

    fill (&req, &spec);
    o = launch_msg_encode (&req);
    if (value)
        json_object_set_new (o, key, json_loads (value, JSON_DECODE_ANY, NULL));
    else
        json_object_del (o, key);
    errno = 0;
    rc = launch_msg_decode (o, &got, &err);
    snprintf (why, len, "%s", err.text);
    rc = rc < 0 && errno == EPROTO ? -1 : 0;
    launch_msg_release (&got);
    json_decref (o);
    jobspec_release (&spec);
    return rc;
}

static void test_malformed (void)
{
    char why[256];

    ok (decode_with ("seq", NULL, why, sizeof (why)) < 0
            && !strcmp (why, "job.launch: malformed request"),
        "no seq: EPROTO, '%s'", why);
    ok (decode_with ("nodefile", "[]", why, sizeof (why)) < 0,
        "an empty node file: refused");
    ok (decode_with ("walltime", "-2", why, sizeof (why)) < 0,
        "a walltime below -1: refused");
    ok (decode_with ("gpus", "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]", why,
                     sizeof (why))
            < 0,
        "more GPUs than a node has: refused");
    ok (decode_with ("mig", "[1]", why, sizeof (why)) < 0
            && !strcmp (why, "job.launch: malformed mig"),
        "a bad mig: '%s'", why);
    ok (decode_with ("checkpoint", "{\"dir\":\"relative\"}", why, sizeof (why)) < 0
            && !strcmp (why, "job.launch: malformed checkpoint"),
        "a relative checkpoint folder: '%s'", why);
    ok (decode_with ("checkpoint", "{\"signal\":\"A_SIGNAL_NAME_TOO_LONG\"}", why,
                     sizeof (why))
            < 0,
        "a checkpoint signal too long: refused");
}

int main (void)
{
    plan (NO_PLAN);
    test_round_trip ();
    test_malformed ();
    done_testing ();
}

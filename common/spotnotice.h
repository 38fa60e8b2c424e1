/* spotnotice.h - the documents in which cloud providers announce that they
 * take a spot node back, read into one notice.
 *
 *   aws    latest/meta-data/spot/instance-action (IMDSv2): HTTP 404 while
 *          nothing is planned; else {"action": "terminate"|"stop"|
 *          "hibernate", "time": "2017-09-18T08:22:00Z"}, two minutes ahead
 *          (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/
 *          spot-instance-termination-notices.html).
 *   gcp    computeMetadata/v1/instance/preempted (header Metadata-Flavor:
 *          Google): "FALSE", or "TRUE" once preemption has begun, which
 *          leaves about 30 s (https://cloud.google.com/compute/docs/
 *          instances/spot#preemption-process).
 *   azure  metadata/scheduledevents (header Metadata: true):
 *          {"DocumentIncarnation": N, "Events": [{"EventType": "Preempt",
 *          "Resources": ["vm1"], "NotBefore": "Mon, 19 Sep 2016 18:29:47
 *          GMT", ...}]}; a Spot eviction is a Preempt event, at least 30 s
 *          ahead (https://learn.microsoft.com/azure/virtual-machines/
 *          linux/scheduled-events).
 *
 * Pure functions of the bytes received: the worker's poller (worker/notice.c)
 * fetches, this reads, and the tests and fuzzers feed it anything.
 */
#ifndef HPCQ_COMMON_SPOTNOTICE_H
#define HPCQ_COMMON_SPOTNOTICE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

enum spotnotice_provider {
    SPOTNOTICE_AWS,
    SPOTNOTICE_GCP,
    SPOTNOTICE_AZURE,
};

/* GCP says only that preemption has begun: this much time is left. */
#define SPOTNOTICE_GCP_SECONDS 30

struct spotnotice {
    char action[32];  /* "terminate", "stop", "hibernate", "preempt" */
    int64_t deadline; /* wall seconds when the provider takes the node */
};

/* "aws", "gcp" or "azure": the provider, or -1. */
int spotnotice_provider (const char *name);
const char *spotnotice_provider_name (enum spotnotice_provider p);

/* Read what provider p answered (HTTP status, body of len bytes, not
 * necessarily terminated) at wall time now.  resource: for azure, the VM
 * name the events must name (NULL or "": any).  1 with *out filled if the
 * node is being taken back, 0 if not, -1 with err (one line saying what is
 * wrong) if the answer is not such a document. */
int spotnotice_parse (enum spotnotice_provider p, long status, const char *body,
                      size_t len, const char *resource, int64_t now,
                      struct spotnotice *out, struct hpcq_error *err);

/* Read the answer to AWS's IMDSv2 token request (PUT latest/api/token):
 * the token goes into a header of the next request, so it must be one
 * line of 1..size-1 printable bytes.  0 with out filled (terminated), or
 * -1 with err. */
int spotnotice_token (long status, const char *body, size_t len, char *out, size_t size,
                      struct hpcq_error *err);

#endif

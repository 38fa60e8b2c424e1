/* notice.h - the worker's watch on its cloud provider's spot notice.
 *
 * With notice_provider (aws, gcp, azure) and notice_url set, the worker
 * fetches the provider's notice document every notice_interval seconds
 * (default 5, as AWS recommends) through libcurl's multi interface, driven
 * by the worker's event loop (never blocking it), and reads it with
 * common/spotnotice.h.  AWS is asked the IMDSv2 way: a session token from
 * PUT notice_token_url (default: the URL's scheme, host and port with
 * /latest/api/token; header X-aws-ec2-metadata-token-ttl-seconds), then
 * the document with the header X-aws-ec2-metadata-token; GCP with
 * Metadata-Flavor: Google; Azure with Metadata: true.  The URL always comes
 * from the config: there is no default, so nothing reaches a real metadata
 * address unless an administrator names it.
 *
 * A notice goes to the scheduler as node.notice {provider, action,
 * deadline} once (again after a reconnection until acknowledged, or if
 * its deadline changes).  An answer that is no notice document is one
 * log line (repeated only when the complaint changes) and nothing else.
 */
#ifndef HPCQ_WORKER_NOTICE_H
#define HPCQ_WORKER_NOTICE_H

#include "common/error.h"
#include "common/wire.h"

struct worker;
struct notice;

/* From the worker's config.  NULL with err on bad settings (an unknown
 * provider, a provider without a URL); an inert watch when none is set. */
struct notice *notice_create (struct worker *w, struct hpcq_error *err);
void notice_destroy (struct notice *n);

/* The scheduler link is up (its hello acknowledged): a notice not yet
 * acknowledged is sent again. */
void notice_link_up (struct notice *n);

/* A reply from the scheduler: 1 if it was for node.notice (consumed). */
int notice_reply (struct notice *n, const struct wire_msg *msg);

#endif

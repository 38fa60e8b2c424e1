/* client.h - blocking request/reply to the scheduler, for the CLI.
 *
 * The address comes from the argument, else $HPCQ_SERVER, else the config
 * file (config_client_server): "unix:/path/to/sock", a plain absolute path
 * (a Unix socket), or "host:port" (TCP).  With replicas it is a comma list
 * of those: the client tries each in turn (only the leader listens) until
 * one answers, for up to $HPCQ_FAILOVER_TIMEOUT seconds (15), and sends a
 * request again to the new leader if the connection fails under it.
 */
#ifndef HPCQ_COMMON_CLIENT_H
#define HPCQ_COMMON_CLIENT_H

#include <jansson.h>

#include "common/error.h"

struct client;

struct client *client_connect (const char *server, struct hpcq_error *err);
void client_destroy (struct client *c);

/* Send a request (body stolen, NULL = {}) and wait for its reply.
 * Returns 0 and sets *replyp to the reply body (new reference, may pass
 * NULL to ignore), or -1 with errno and err: the server's errnum and error
 * line when it refused the request, or the transport failure. */
int client_rpc (struct client *c, const char *type, json_t *body, json_t **replyp,
                struct hpcq_error *err);

/* Like client_rpc for requests whose answer comes in several replies
 * (each with "more":true but the last): cb is called with each reply body
 * (borrowed).  Returns 0 or -1 with errno and err. */
int client_rpc_stream (struct client *c, const char *type, json_t *body,
                       void (*cb) (json_t *reply, void *arg), void *arg,
                       struct hpcq_error *err);

/* fn for each address of a comma list until one returns 0; 0 then, else
 * -1 (the worker walks its 'server' list with it). */
int client_each_address (const char *list, int (*fn) (const char *addr, void *arg),
                         void *arg);

/* Open a stream socket to addr (shared with the worker).  -1 with err. */
int client_dial (const char *addr, struct hpcq_error *err);

#endif

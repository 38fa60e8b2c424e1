/* server_attr.h - the server attributes qmgr sets (PBS Pro's names):
 *
 *   query_other_jobs      may users see others' jobs in full (default False:
 *                         others' jobs show only their qstat table fields)
 *   max_queued            limits on queued jobs (scheduler/limits.h)
 *   max_queued_res.RES    limits on the resources queued jobs ask for
 *
 * Each starts from the config file's key of the same name; "qmgr -c 'set
 * server NAME = VALUE'" stores a value in the database, which then wins,
 * and "unset server NAME" returns to the config's.  Only managers change
 * them (request server.manage); server.stat shows them to everyone.
 */
#ifndef HPCQ_SCHEDULER_SERVER_ATTR_H
#define HPCQ_SCHEDULER_SERVER_ATTR_H

#include <jansson.h>

#include "scheduler/server.h"

struct server_attrs;

struct server_attrs *server_attr_create (struct server *srv, struct hpcq_error *err);
void server_attr_destroy (struct server_attrs *sa);

/* 1 if every user may see every job in full. */
int server_attr_query_other_jobs (const struct server *srv);

/* The attributes that are set, added to o (server.stat's reply). */
void server_attr_json (const struct server *srv, json_t *o);

int server_attr_register (struct server *srv);

#endif

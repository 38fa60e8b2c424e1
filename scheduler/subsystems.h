/* subsystems.h - the scheduler daemon put together: the server and every
 * subsystem, created in order and destroyed in reverse.
 *
 * main.c and the unit tests' fixture call these; no subsystem includes
 * this header, so the server (server.c) knows none of them by name and
 * stays out of their include circle.  It calls them back through the
 * hooks this file gives it (struct server_hooks).
 */
#ifndef HPCQ_SCHEDULER_SUBSYSTEMS_H
#define HPCQ_SCHEDULER_SUBSYSTEMS_H

#include "common/config.h"
#include "common/error.h"
#include "common/loop.h"
#include "scheduler/server.h"

struct replica;

/* Create from cfg (owned by the caller, outlives the server); replica is
 * NULL with one replica, else the elected replica whose database the
 * server opens (replica.h; borrowed).  NULL with err. */
struct server *subsystems_create (struct loop *loop, struct config *cfg,
                                  struct replica *replica, struct hpcq_error *err);
void subsystems_destroy (struct server *srv);

#endif

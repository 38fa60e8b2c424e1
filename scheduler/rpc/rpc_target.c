/* rpc_target.c - see rpc_target.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>

#include "scheduler/jobs.h"
#include "scheduler/rpc/rpc_target.h"

/* The job named in a request that the caller may act on, or NULL after
 * replying with the reason (PBS wording). */
struct job *rpc_target_job (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    const char *id;
    struct job *job;

    if (json_unpack (msg->body, "{s:s}", "id", &id) < 0) {
        server_reply_error (c, msg, EPROTO, "%s: missing job id", msg->type);
        return NULL;
    }
    if (!(job = jobs_find (srv->jobs, id))) {
        server_reply_error (c, msg, ENOENT, "Unknown Job Id %s", id);
        return NULL;
    }
    if (!server_may_act (srv, conn_peer_uid (c), job->rec.uid)) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", job->id);
        return NULL;
    }
    return job;
}

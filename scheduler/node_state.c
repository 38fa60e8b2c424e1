/* node_state.c - see node_state.h
 *
 * Shaped like scheduler/policy/job_state.c: a table of legal moves, the
 * cause beside each, and one function that checks and writes.  Where a
 * cause used to write DOWN whatever the node's state was (a reclaim, a
 * failed power program), the table lists every state it may come from, so
 * nothing that happened before is refused now.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db_job.h"
#include "db/db_node.h"
#include "scheduler/node_state.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"

static const char *const cause_names[NODE_EV_COUNT] = {
    [NODE_EV_HELLO] = "hello",
    [NODE_EV_TIMEOUT] = "timeout",
    [NODE_EV_RECLAIMED] = "reclaimed",
    [NODE_EV_POWER_FAILED] = "power_failed",
    [NODE_EV_POWERED_OFF] = "powered_off",
    [NODE_EV_CLOUD_CLEARED] = "cloud_cleared",
};

#define U NODE_UNKNOWN
#define D NODE_DOWN

static const struct node_transition table[] = {
    /* A hello brings a node up from anything; its row is written whole
     * (nodes.c node_record).  Up again is a reconnect: no change. */
    { U, NODE_UP, NODE_EV_HELLO, NULL },
    { D, NODE_UP, NODE_EV_HELLO, NULL },
    { NODE_UP, NODE_UP, NODE_EV_HELLO, NULL },
    /* Heartbeats stopped, or a known node never came back after a
     * restart; nodes.c leaves nodes already down alone. */
    { NODE_UP, D, NODE_EV_TIMEOUT, "down" },
    { U, D, NODE_EV_TIMEOUT, "down" },
    /* The provider took it: whatever it was (its link may have dropped
     * first, or it timed out while the notice ran). */
    { NODE_UP, D, NODE_EV_RECLAIMED, "down" },
    { U, D, NODE_EV_RECLAIMED, "down" },
    { D, D, NODE_EV_RECLAIMED, "down" },
    /* A resume (from off: unknown) or a suspend (from up) failed. */
    { U, D, NODE_EV_POWER_FAILED, "down" },
    { NODE_UP, D, NODE_EV_POWER_FAILED, "down" },
    { D, D, NODE_EV_POWER_FAILED, "down" },
    /* Suspended: a cloud node, off, not heard from until it resumes. */
    { NODE_UP, U, NODE_EV_POWERED_OFF, "cloud" },
    { U, U, NODE_EV_POWERED_OFF, "cloud" },
    { D, U, NODE_EV_POWERED_OFF, "cloud" },
    /* A failed cloud node that the administrator clears is off again; the
     * row says so when it next resumes or is suspended. */
    { D, U, NODE_EV_CLOUD_CLEARED, NULL },
};

#undef U
#undef D

const char *node_cause_name (enum node_cause cause)
{
    return cause >= 0 && cause < NODE_EV_COUNT ? cause_names[cause] : "?";
}

const struct node_transition *node_state_table (int *n)
{
    *n = ARRAY_SIZE (table);
    return table;
}

static const struct node_transition *find (enum node_state from, enum node_state to,
                                           enum node_cause cause)
{
    for (size_t i = 0; i < ARRAY_SIZE (table); i++)
        if (table[i].from == from && table[i].to == to && table[i].cause == cause)
            return &table[i];
    return NULL;
}

int node_state_legal (enum node_state from, enum node_state to, enum node_cause cause)
{
    return find (from, to, cause) != NULL;
}

/* The state's name in the event: what pbsnodes shows. */
static const char *event_name (enum node_state s)
{
    return s == NODE_UNKNOWN ? "unknown" : node_state_name (s);
}

int nodes_set_state_at (struct server *srv, struct node *n, enum node_state to,
                        enum node_cause cause, const char *why, const char *caller)
{
    const struct node_transition *t = find (n->state, to, cause);
    enum node_state from = n->state;
    char detail[512];

    if (!t) {
        log_msg (LOG_ERR,
                 "bug: node %s: illegal state change %s -> %s (%s) in %s: refused",
                 n->name, event_name (from), event_name (to), node_cause_name (cause),
                 caller ? caller : "?");
        errno = EINVAL;
        return -1;
    }
    nodeclass_state (srv->nodeclass, n, to); /* up time, from this change */
    n->state = to;
    if (to == NODE_DOWN)
        n->down_since_ms = util_now_ms ();
    if (t->row && db_node_set_state (srv->db, n->name, t->row, util_wall_secs ()) < 0)
        log_error ("node %s: record state", n->name);
    if (from == to)
        return 0;
    snprintf (detail, sizeof (detail), "%s: %s -> %s: %s%s%s", n->name,
              event_name (from), event_name (to), node_cause_name (cause),
              why ? ": " : "", why ? why : "");
    if (db_event_add (srv->db, 0, util_wall_secs (), "node_state", "scheduler", detail)
        < 0)
        log_error ("node %s: record state change", n->name);
    return 0;
}

/* test_node_state.c - the node state machine (scheduler/node_state.c) on a
 * real server: every row of the table is legal and nothing else is; a
 * hello brings a node up with one node_state event, a second hello is no
 * event; heartbeats that stop take it down with its row and an event; an
 * illegal change is refused, logged, and changes nothing.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "common/test/tap.h"
#include "scheduler/node_state.h"
#include "scheduler/nodes.h"
#include "scheduler/test/fixture.h"

static struct fixture f;

static const enum node_state states[] = { NODE_UNKNOWN, NODE_UP, NODE_DOWN };

static int64_t nevents (const char *like)
{
    char sql[256];

    snprintf (
        sql, sizeof (sql),
        "SELECT count(*) FROM events WHERE job_seq IS NULL AND type = 'node_state'"
        " AND detail LIKE '%s'",
        like);
    return fixture_db_int (&f, sql);
}

static void test_table (void)
{
    const struct node_transition *t;
    int n, rows = 0, legal = 0, bad = 0;

    t = node_state_table (&n);
    for (int i = 0; i < n; i++)
        if (!node_state_legal (t[i].from, t[i].to, t[i].cause)
            || !strcmp (node_cause_name (t[i].cause), "?"))
            bad++;
    ok (n > 0 && bad == 0, "each of the table's %d rows is legal and its cause named",
        n);
    for (int c = 0; c < NODE_EV_COUNT; c++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                int listed = 0;
                for (int i = 0; i < n; i++)
                    listed |= t[i].from == states[a] && t[i].to == states[b]
                              && (int)t[i].cause == c;
                rows += listed;
                legal += node_state_legal (states[a], states[b], c);
            }
    ok (rows == n && legal == n, "and nothing else is (%d legal of %d moves)", legal,
        NODE_EV_COUNT * 9);
    ok (!node_state_legal (NODE_DOWN, NODE_DOWN, NODE_EV_TIMEOUT)
            && !node_state_legal (NODE_UP, NODE_UNKNOWN, NODE_EV_CLOUD_CLEARED)
            && !node_state_legal (NODE_DOWN, NODE_UP, NODE_EV_RECLAIMED),
        "a node down is not timed out again, an up one is not cleared, a reclaim "
        "brings nothing up");
    ok (!strcmp (node_cause_name (NODE_EV_COUNT), "?"), "an unknown cause is '?'");
}

static void test_hello_and_timeout (void)
{
    struct fx_peer *w;
    struct node *n;
    char buf[64];

    config_set (f.cfg, "node_timeout", "1");
    fixture_restart (&f);
    w = fixture_worker (&f, "s1", 2, 1LL << 30);
    n = nodes_lookup (f.srv->nodes, "s1");
    ok (n && n->state == NODE_UP, "node.hello brings s1 up");
    ok (nevents ("s1: unknown -> free: hello%") == 1,
        "with one node_state event, caused by the hello");
    fixture_disconnect (w);
    w = fixture_worker (&f, "s1", 2, 1LL << 30);
    ok (n->state == NODE_UP && nevents ("s1: %") == 1,
        "a second hello while up is no change and no event");
    fixture_disconnect (w);
    fixture_turns (&f, 2600); /* node_timeout is 1 s, and 1 s of grace */
    ok (n->state == NODE_DOWN && n->down_since_ms > 0,
        "its heartbeats stopped: down, and since when");
    ok (nevents ("s1: free -> down: timeout: %") == 1
            && !strcmp (fixture_db_text (&f,
                                         "SELECT state FROM nodes WHERE name = 's1'",
                                         buf, sizeof (buf)),
                        "down"),
        "written through: the event and the nodes row");
    errno = 0;
    ok (nodes_set_state (f.srv, n, NODE_UNKNOWN, NODE_EV_HELLO, NULL) == -1
            && errno == EINVAL && n->state == NODE_DOWN,
        "an illegal change is refused with EINVAL; the state stays");
    fixture_turn (&f);
    ok (nevents ("s1: %") == 2
            && fixture_log_has (&f,
                                "bug: node s1: illegal state change down -> unknown "
                                "(hello) in test_hello_and_timeout: refused"),
        "no event for it, and the log names both states, the cause and the caller");
}

int main (void)
{
    plan (NO_PLAN);
    fixture_start (&f, NULL);
    test_table ();
    test_hello_and_timeout ();
    fixture_stop (&f);
    done_testing ();
}

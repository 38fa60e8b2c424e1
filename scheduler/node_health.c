/* node_health.c - see node_health.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/node_health.h"
#include "scheduler/nodes.h"

static const char *sql_set =
    "UPDATE nodes SET offline = ?2, comment = ?3, health_offline = ?4 WHERE name = ?1";
static const char *sql_forget = "UPDATE nodes SET health_offline = 0 WHERE name = ?1";
static const char *sql_loaded = "SELECT name FROM nodes WHERE health_offline = 1";

/* The nodes the check holds offline: few, so a plain list of names. */
struct node_health {
    struct server *srv;
    char (*names)[64];
    int n;
};

static const struct handler node_health_handlers[];

static int held_index (const struct node_health *nh, const char *name)
{
    for (int i = 0; i < nh->n; i++)
        if (strcmp (nh->names[i], name) == 0)
            return i;
    return -1;
}

static void held_add (struct node_health *nh, const char *name)
{
    if (held_index (nh, name) >= 0)
        return;
    nh->names = xrealloc (nh->names, (nh->n + 1) * sizeof (*nh->names));
    snprintf (nh->names[nh->n++], sizeof (nh->names[0]), "%s", name);
}

static void held_remove (struct node_health *nh, const char *name)
{
    int i = held_index (nh, name);

    if (i >= 0)
        memcpy (nh->names[i], nh->names[--nh->n], sizeof (nh->names[0]));
}

static int node_health_write (struct server *srv, const struct node *n, int held)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (srv->db) < 0 || !(st = db_stmt (srv->db, sql_set)))
        return -1;
    sqlite3_bind_text (st, 1, n->name, -1, SQLITE_STATIC);
    sqlite3_bind_int (st, 2, n->offline);
    sqlite3_bind_text (st, 3, n->comment, -1, SQLITE_STATIC);
    sqlite3_bind_int (st, 4, held);
    return db_exec_stmt (srv->db, st);
}

static void node_health_msg (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct node_health *nh = srv->node_health;
    struct node *n = conn_aux (c);
    const char *reason = "";
    int ok, held;

    if (!n) {
        server_reply_error (c, msg, EPROTO, "node.health before node.hello");
        return;
    }
    if (json_unpack (msg->body, "{s:b s?s}", "ok", &ok, "reason", &reason) < 0) {
        server_reply_error (c, msg, EPROTO, "node.health: malformed verdict");
        return;
    }
    held = held_index (nh, n->name) >= 0;
    if (!ok
        && (!n->offline
            || (held && strncmp (n->comment, reason, sizeof (n->comment) - 1) != 0))) {
        /* Out of service, or still out with a new reason. */
        n->offline = 1;
        snprintf (n->comment, sizeof (n->comment), "%s", reason);
        if (node_health_write (srv, n, 1) < 0) {
            server_reply_error (c, msg, EIO, "node.health: cannot record it");
            return;
        }
        held_add (nh, n->name);
        log_msg (LOG_WARNING, "node %s taken offline by its health check: %s", n->name,
                 reason);
        server_request_pass (srv);
    } else if (ok && held) {
        n->offline = 0;
        n->comment[0] = '\0';
        if (node_health_write (srv, n, 0) < 0) {
            server_reply_error (c, msg, EIO, "node.health: cannot record it");
            return;
        }
        held_remove (nh, n->name);
        log_msg (LOG_INFO, "node %s back in service: its health check passes", n->name);
        server_request_pass (srv);
    }
    server_reply_after_commit (srv, c, msg, NULL);
}

static const struct handler node_health_handlers[] = {
    { "node.health", node_health_msg, ROLE_NODE },
    { NULL, NULL, 0 },
};

int node_health_forget (struct server *srv, struct node *n)
{
    sqlite3_stmt *st;

    if (!srv->node_health || held_index (srv->node_health, n->name) < 0)
        return 0;
    held_remove (srv->node_health, n->name);
    if (db_txn_ensure (srv->db) < 0 || !(st = db_stmt (srv->db, sql_forget)))
        return -1;
    sqlite3_bind_text (st, 1, n->name, -1, SQLITE_STATIC);
    return db_exec_stmt (srv->db, st);
}

struct node_health *node_health_create (struct server *srv)
{
    struct node_health *nh = xzalloc (sizeof (*nh));
    sqlite3_stmt *st = db_stmt (srv->db, sql_loaded);

    nh->srv = srv;
    if (!st || server_register (srv, node_health_handlers) < 0) {
        node_health_destroy (nh);
        return NULL;
    }
    while (sqlite3_step (st) == SQLITE_ROW)
        held_add (nh, (const char *)sqlite3_column_text (st, 0));
    sqlite3_reset (st);
    return nh;
}

void node_health_destroy (struct node_health *nh)
{
    if (!nh)
        return;
    free (nh->names);
    free (nh);
}

/* server_attr.c - see server_attr.h
 *
 * A request is checked whole before anything changes, so a bad attribute
 * in a list leaves the others as they were.  Values go into the open
 * transaction; the reply waits for the commit like every change's.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db_settings.h"
#include "scheduler/limits.h"
#include "scheduler/server_attr.h"

struct server_attrs {
    int query_other_jobs;
};

int server_attr_query_other_jobs (const struct server *srv)
{
    return srv->attrs->query_other_jobs;
}

void server_attr_json (const struct server *srv, json_t *o)
{
    json_object_set_new (o, "query_other_jobs",
                         json_string (srv->attrs->query_other_jobs ? "True" : "False"));
    limits_attrs_json (srv->limits, NULL, o);
}

/* --- server.manage --- */

/* One attribute of a request: [name, value] or [name, value, "+"|"-"]
 * (qmgr's += and -=); value null to unset. */
struct attr_req {
    const char *name;
    const char *value;
    int op;
};

static int attr_unpack (json_t *a, int unset, struct attr_req *r,
                        struct hpcq_error *err)
{
    json_t *value = json_array_get (a, 1), *op = json_array_get (a, 2);

    r->name = json_string_value (json_array_get (a, 0));
    r->value = json_string_value (value);
    r->op = '=';
    if (op && json_string_value (op) && strchr ("+-", json_string_value (op)[0]))
        r->op = json_string_value (op)[0];
    if (!json_is_array (a) || json_array_size (a) > 3 || !r->name
        || (value && !json_is_null (value) && !r->value)
        || (op && !json_is_string (op))) {
        errno = EPROTO;
        return errprintf (err, "server.manage: malformed attribute");
    }
    if (unset)
        r->value = NULL;
    else if (!r->value) {
        errno = EPROTO;
        return errprintf (err, "server.manage: %s: no value", r->name);
    }
    return 0;
}

/* Would r apply?  0, or -1 with err (PBS's wording where it has one). */
static int attr_check (const struct attr_req *r, struct hpcq_error *err)
{
    int b, rc;

    if (strcasecmp (r->name, "query_other_jobs") == 0) {
        if (r->value && util_parse_bool (r->value, &b) < 0)
            return errprintf_code (err, EINVAL,
                                   "Illegal attribute or resource value: "
                                   "query_other_jobs=%s (true or false)",
                                   r->value);
        if (r->op != '=')
            return errprintf_code (err, EINVAL, "query_other_jobs takes = only");
        return 0;
    }
    if ((rc = limits_check_value (r->name, r->value, err)) == 0)
        return errprintf_code (err, EINVAL,
                               "Unknown attribute %s (qmgr sets "
                               "query_other_jobs, max_queued and max_queued_res.RES on "
                               "the server; the rest is in the hpcq-scheduler config)",
                               r->name);
    return rc < 0 ? -1 : 0;
}

static int attr_apply (struct server *srv, const struct attr_req *r,
                       struct hpcq_error *err)
{
    int b = 0;

    if (strcasecmp (r->name, "query_other_jobs") != 0)
        return limits_set (srv->limits, NULL, r->name, r->value, r->op, err);
    if (r->value) {
        (void)util_parse_bool (r->value, &b);
        if (db_setting_set (srv->db, "", "query_other_jobs", b ? "True" : "False") < 0)
            return errprintf (err, "cannot store query_other_jobs: %s",
                              strerror (errno));
    } else {
        const char *base = config_get (srv->cfg, "query_other_jobs", "false");
        if (db_setting_delete (srv->db, "", "query_other_jobs") < 0)
            return errprintf (err, "cannot store query_other_jobs: %s",
                              strerror (errno));
        (void)util_parse_bool (base, &b);
    }
    srv->attrs->query_other_jobs = b;
    return 0;
}

static void server_manage (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct attr_req r;
    struct hpcq_error err;
    const char *op;
    json_t *attrs, *a;
    char who[64];
    size_t i;
    int unset;

    if (json_unpack (msg->body, "{s:s s:o}", "op", &op, "attrs", &attrs) < 0
        || !json_is_array (attrs) || (strcmp (op, "set") && strcmp (op, "unset"))) {
        server_reply_error (c, msg, EPROTO, "server.manage: malformed request");
        return;
    }
    if (!server_is_manager (srv, conn_peer_uid (c))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request");
        return;
    }
    unset = strcmp (op, "unset") == 0;
    json_array_foreach (attrs, i, a)
    {
        if (attr_unpack (a, unset, &r, &err) < 0 || attr_check (&r, &err) < 0) {
            server_reply_error (c, msg, errno ? errno : EINVAL, "%s", err.text);
            return;
        }
    }
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    json_array_foreach (attrs, i, a)
    {
        (void)attr_unpack (a, unset, &r, &err);
        if (attr_apply (srv, &r, &err) < 0) {
            /* Checked above: only the database or memory can fail here,
             * and the batch then rolls back at commit. */
            server_reply_error (c, msg, errno ? errno : EIO, "%s", err.text);
            return;
        }
        log_msg (LOG_INFO, "server: %s %s%s%s by %s", op, r.name,
                 r.value ? (r.op == '='   ? " = "
                            : r.op == '+' ? " += "
                                          : " -= ")
                         : "",
                 r.value ? r.value : "", who);
    }
    server_reply_after_commit (srv, c, msg, NULL);
}

static const struct handler attr_handlers[] = {
    { "server.manage", server_manage, ROLE_ANY },
    { NULL, NULL, 0 },
};

int server_attr_register (struct server *srv)
{
    return server_register (srv, attr_handlers);
}

/* --- life --- */

static int load_one (const char *scope, const char *name, const char *value, void *arg)
{
    struct server_attrs *sa = arg;
    int b;

    if (*scope || strcmp (name, "query_other_jobs") != 0)
        return 0;
    if (util_parse_bool (value, &b) == 0)
        sa->query_other_jobs = b;
    else
        log_msg (LOG_ERR, "stored query_other_jobs '%s' unreadable, ignored", value);
    return 0;
}

struct server_attrs *server_attr_create (struct server *srv, struct hpcq_error *err)
{
    struct server_attrs *sa = xzalloc (sizeof (*sa));
    const char *q = config_get (srv->cfg, "query_other_jobs", "false");

    if (util_parse_bool (q, &sa->query_other_jobs) < 0) {
        errprintf (err, "config query_other_jobs: '%s' is not true or false", q);
        goto error;
    }
    if (db_setting_foreach (srv->db, load_one, sa) < 0) {
        errprintf (err, "cannot read the server's attributes from the database");
        goto error;
    }
    return sa;
error:
    free (sa);
    return NULL;
}

void server_attr_destroy (struct server_attrs *sa)
{
    free (sa);
}

/* qmgr - administer the server's queues and attributes (PBS Pro's qmgr
 * syntax).
 *
 *   qmgr -c "create queue gpu queue_type=execution"
 *   qmgr -c "set queue gpu priority=100,resources_max.walltime=24:00:00"
 *   qmgr -c "unset queue gpu max_run_user"
 *   qmgr -c "set server max_queued = [u:PBS_GENERIC=100], [o:PBS_ALL=10000]"
 *   qmgr -c "set server max_queued += [u:alice=500]"
 *   qmgr -c "set server query_other_jobs = true"
 *   qmgr -c "list queue gpu"      qmgr -c "print server" > saved; qmgr < saved
 *
 * Commands come from -c, else from standard input, one a line ('#' starts
 * a comment).  Verbs and object types may be abbreviated to their first
 * letter (c q, s q, u q, d q, l q, p q, l s, p s).  The scheduler checks
 * every change and who asks (managers only); qmgr only parses and prints.
 * An error names the object as PBS does ("qmgr obj=gpu svr=default: ...")
 * and makes the exit status 1; later commands still run.
 */
#include <config.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/cliopt.h"
#include "common/client.h"
#include "common/util.h"

static const char usage_text[] =
    "Usage: qmgr [-c command]\n"
    "Administers queues: create, set, unset, delete, list and print queue NAME;\n"
    "set, unset, list and print server.  Without -c, reads commands from\n"
    "standard input.\n"
    "See qmgr(8).\n";

static const struct cliopt cli = {
    .prog = "qmgr", .shortopts = "c:", .usage = usage_text, .kind = CLIOPT_PBS
};

struct qmgr {
    struct client *client;
    int failed;
};

enum verb { V_CREATE, V_DELETE, V_SET, V_UNSET, V_LIST, V_PRINT, V_NONE };

static const char *verbs[] = {
    "create", "delete", "set", "unset", "list", "print", NULL,
};

/* A verb or object word: the whole word or its first letter. */
static int word_is (const char *w, const char *full)
{
    return strcasecmp (w, full) == 0
           || (w[0] && !w[1] && tolower ((unsigned char)w[0]) == full[0]);
}

static enum verb verb_of (const char *w)
{
    for (int i = 0; verbs[i]; i++)
        if (word_is (w, verbs[i]))
            return (enum verb)i;
    return V_NONE;
}

/* Next whitespace-separated word of *p into buf ("" at the end). */
static void next_word (const char **p, char *buf, size_t len)
{
    size_t n;

    *p += strspn (*p, " \t");
    n = strcspn (*p, " \t");
    snprintf (buf, len, "%.*s", (int)n, *p);
    *p += n;
    *p += strspn (*p, " \t");
}

static void obj_error (struct qmgr *m, const char *obj, const char *text)
{
    fprintf (stderr, "qmgr obj=%s svr=default: %s\n", obj, text);
    m->failed = 1;
}

static int syntax_error (struct qmgr *m, const char *what, const char *line)
{
    fprintf (stderr, "qmgr: Syntax error: %s: %s\n", what, line);
    m->failed = 1;
    return -1;
}

static json_t *rpc (struct qmgr *m, const char *obj, const char *type, json_t *body)
{
    struct hpcq_error err;
    json_t *reply = NULL;

    if (!m->client && !(m->client = client_connect (NULL, &err))) {
        fprintf (stderr, "qmgr: %s\n", err.text);
        exit (1);
    }
    if (client_rpc (m->client, type, body, &reply, &err) < 0) {
        obj_error (m, obj, err.text);
        return NULL;
    }
    return reply ? reply : json_object ();
}

/* The end of a limit list at p ("[u:a=1], [o:PBS_ALL=9]": bracketed
 * entries separated by commas or blanks), or NULL if one is not closed. */
static const char *limit_list_end (const char *p)
{
    const char *end = p;

    while (*p == '[') {
        if (!(p = strchr (p, ']')))
            return NULL;
        end = ++p;
        p += strspn (p, " \t,");
    }
    return end;
}

/* "a=b, c = d, e=\"x,y\", f += [u:x=1],[u:y=2]":
 * [[a,b],[c,d],[e,"x,y"],[f,"[u:x=1],[u:y=2]","+"]] (names only when
 * unset).  NULL on a syntax error. */
static json_t *parse_attrs (const char *p, int names_only)
{
    json_t *attrs = json_array ();

    while (*(p += strspn (p, " \t,"))) {
        char name[128], value[1024], op[2] = "";
        size_t n = strcspn (p, " \t=,+-");
        size_t k = 0;

        snprintf (name, sizeof (name), "%.*s", (int)n, p);
        p += n;
        p += strspn (p, " \t");
        if (names_only) {
            json_array_append_new (attrs, json_pack ("[s n]", name));
            continue;
        }
        if ((*p == '+' || *p == '-') && p[1] == '=')
            op[0] = *p++;
        if (*p != '=' || !name[0])
            goto bad;
        p++;
        p += strspn (p, " \t");
        if (*p == '[') {
            const char *end = limit_list_end (p);
            if (!end || (size_t)(end - p) >= sizeof (value))
                goto bad;
            snprintf (value, sizeof (value), "%.*s", (int)(end - p), p);
            p = end;
        } else if (*p == '"') {
            const char *end = strchr (p + 1, '"');
            if (!end || (size_t)(end - p - 1) >= sizeof (value))
                goto bad;
            snprintf (value, sizeof (value), "%.*s", (int)(end - p - 1), p + 1);
            p = end + 1;
        } else {
            while (*p && *p != ',' && k + 1 < sizeof (value))
                value[k++] = *p++;
            while (k > 0 && isspace ((unsigned char)value[k - 1]))
                k--;
            value[k] = '\0';
            if (!k)
                goto bad;
        }
        json_array_append_new (attrs, op[0] ? json_pack ("[s s s]", name, value, op)
                                            : json_pack ("[s s]", name, value));
    }
    return attrs;
bad:
    json_decref (attrs);
    return NULL;
}

static void value_text (json_t *v, char *buf, size_t len)
{
    if (json_is_string (v))
        snprintf (buf, len, "%s", json_string_value (v));
    else if (json_is_integer (v))
        snprintf (buf, len, "%lld", (long long)json_integer_value (v));
    else
        snprintf (buf, len, "?");
}

/* Call fn with each settable attribute of a queue as "name" and "value",
 * nested resource lists flattened (resources_max.walltime). */
static void each_attr (json_t *attrs, void (*fn) (const char *, const char *, void *),
                       void *arg)
{
    const char *key, *sub;
    json_t *v, *sv;
    char name[256], text[1024];

    json_object_foreach (attrs, key, v)
    {
        /* What the server counts, not settings (qstat -Q -f shows them). */
        if (strcmp (key, "state_count") == 0 || strcmp (key, "resources_used") == 0)
            continue;
        if (json_is_object (v)) {
            json_object_foreach (v, sub, sv)
            {
                snprintf (name, sizeof (name), "%s.%s", key, sub);
                value_text (sv, text, sizeof (text));
                fn (name, text, arg);
            }
            continue;
        }
        value_text (v, text, sizeof (text));
        fn (key, text, arg);
    }
}

static void list_line (const char *name, const char *value, void *arg)
{
    printf ("    %s = %s\n", name, value);
}

static void print_line (const char *name, const char *value, void *arg)
{
    const char *q = strpbrk (value, ", \t") ? "\"" : "";

    printf ("set queue %s %s = %s%s%s\n", (const char *)arg, name, q, value, q);
}

static void show_queue (const char *name, json_t *attrs, enum verb v)
{
    json_t *c = json_object_get (attrs, "state_count");

    if (v == V_PRINT) {
        printf ("#\n# Create and define queue %s\n#\ncreate queue %s\n", name, name);
        each_attr (attrs, print_line, (void *)name);
        return;
    }
    printf ("Queue %s\n", name);
    each_attr (attrs, list_line, NULL);
    if (c)
        printf ("    total_jobs = %lld\n",
                (long long)json_integer_value (json_object_get (c, "total_jobs")));
    printf ("\n");
}

/* list/print queue [NAME[,NAME...]]; every queue without a name. */
static void show_queues (struct qmgr *m, const char *names, enum verb v)
{
    json_t *reply = rpc (m, names[0] ? names : "default", "queue.stat", NULL);
    json_t *queues = json_object_get (reply, "queues"), *attrs;
    const char *name;

    if (!reply)
        return;
    if (v == V_PRINT)
        printf ("#\n# Create queues and set their attributes.\n#\n");
    if (!names[0])
        json_object_foreach (queues, name, attrs) show_queue (name, attrs, v);
    for (const char *p = names; *p;) {
        char one[128];
        size_t n = strcspn (p, ",");
        snprintf (one, sizeof (one), "%.*s", (int)n, p);
        one[strcspn (one, "@")] = '\0';
        p += n + (p[n] == ',');
        if (!(attrs = json_object_get (queues, one)))
            obj_error (m, one, "Unknown queue");
        else
            show_queue (one, attrs, v);
    }
    json_decref (reply);
}

static void list_server (struct qmgr *m)
{
    json_t *reply = rpc (m, "default", "server.stat", NULL);
    json_t *c;

    if (!reply)
        return;
    c = json_object_get (reply, "state_count");
    printf ("Server %s\n    server_state = %s\n    default_queue = %s\n"
            "    total_jobs = %lld\n    pbs_version = %s\n",
            json_string_value (json_object_get (reply, "server")),
            json_string_value (json_object_get (reply, "server_state")),
            json_string_value (json_object_get (reply, "default_queue")),
            (long long)json_integer_value (json_object_get (c, "total_jobs")),
            json_string_value (json_object_get (reply, "pbs_version")));
    each_attr (json_object_get (reply, "attributes"), list_line, NULL);
    printf ("\n");
    json_decref (reply);
}

static void print_server_line (const char *name, const char *value, void *arg)
{
    const char *q = strpbrk (value, ", \t") ? "\"" : "";

    printf ("set server %s = %s%s%s\n", name, q, value, q);
}

static void print_server (struct qmgr *m)
{
    json_t *reply = rpc (m, "default", "server.stat", NULL);

    if (!reply)
        return;
    /* The default queue is the scheduler's config, not a qmgr setting. */
    printf ("#\n# default_queue = %s (hpcq-scheduler config)\n",
            json_string_value (json_object_get (reply, "default_queue")));
    show_queues (m, "", V_PRINT);
    printf ("#\n# Set server attributes.\n#\n");
    each_attr (json_object_get (reply, "attributes"), print_server_line, NULL);
    json_decref (reply);
}

/* Does p start with an attribute ("name = v", "name += v"; for unset a
 * name alone), rather than an object's name? */
static int attr_next (const char *p, int unset)
{
    const char *q = p + strcspn (p, " \t=,+-");

    q += strspn (q, " \t");
    if (unset)
        return *q == '\0' || *q == ',';
    return *q == '=' || ((*q == '+' || *q == '-') && q[1] == '=');
}

/* set/unset server [NAME] attributes */
static int qmgr_server_change (struct qmgr *m, enum verb v, const char *p,
                               const char *line)
{
    json_t *attrs, *reply;
    char name[128];

    if (v != V_SET && v != V_UNSET) {
        obj_error (m, "default", "the server is not created or deleted with qmgr");
        return -1;
    }
    if (*p && !attr_next (p, v == V_UNSET))
        next_word (&p, name, sizeof (name)); /* the server's name: there is one */
    if (!(attrs = parse_attrs (p, v == V_UNSET)))
        return syntax_error (m, "expected name=value[,name=value...]", line);
    if (json_array_size (attrs) == 0) {
        json_decref (attrs);
        return syntax_error (m, "no attributes given", line);
    }
    if (!(reply = rpc (m, "default", "server.manage",
                       json_pack ("{s:s s:o}", "op", v == V_SET ? "set" : "unset",
                                  "attrs", attrs))))
        return -1;
    json_decref (reply);
    return 0;
}

/* create/set/unset/delete queue NAME[,NAME...] [attributes] */
static void change_queues (struct qmgr *m, enum verb v, const char *names,
                           json_t *attrs)
{
    static const char *ops[] = { "create", "delete", "set", "unset" };

    for (const char *p = names; *p;) {
        char one[128];
        size_t n = strcspn (p, ",");
        json_t *body, *reply;
        snprintf (one, sizeof (one), "%.*s", (int)n, p);
        one[strcspn (one, "@")] = '\0';
        p += n + (p[n] == ',');
        body = json_pack ("{s:s s:s s:O}", "op", ops[v], "queue", one, "attrs", attrs);
        if ((reply = rpc (m, one, "queue.manage", body)))
            json_decref (reply);
    }
}

static int qmgr_queue (struct qmgr *m, enum verb v, const char *p, const char *line)
{
    char names[512];
    json_t *attrs;

    names[0] = '\0';
    if (*p && strcspn (p, " \t=") == strcspn (p, " \t"))
        next_word (&p, names, sizeof (names)); /* a word without '=': names */
    if (v == V_LIST || v == V_PRINT) {
        if (*p)
            return syntax_error (m, "list and print take no attributes", line);
        show_queues (m, names, v);
        return 0;
    }
    if (!names[0])
        return syntax_error (m, "a queue name is required", line);
    if (v == V_DELETE && *p)
        return syntax_error (m, "delete takes no attributes", line);
    if (!(attrs = parse_attrs (p, v == V_UNSET)))
        return syntax_error (m, "expected name=value[,name=value...]", line);
    if ((v == V_SET || v == V_UNSET) && json_array_size (attrs) == 0) {
        json_decref (attrs);
        return syntax_error (m, "no attributes given", line);
    }
    change_queues (m, v, names, attrs);
    json_decref (attrs);
    return 0;
}

/* One command.  0, -1 after an error message, 1 for quit. */
static int qmgr_line (struct qmgr *m, const char *line)
{
    const char *p = line;
    char word[64], obj[64];
    enum verb v;

    next_word (&p, word, sizeof (word));
    if (!word[0] || word[0] == '#')
        return 0;
    if (word_is (word, "quit") || strcasecmp (word, "exit") == 0)
        return 1;
    if ((v = verb_of (word)) == V_NONE)
        return syntax_error (m, "unknown command", line);
    next_word (&p, obj, sizeof (obj));
    if (word_is (obj, "queue"))
        return qmgr_queue (m, v, p, line);
    if (word_is (obj, "server") && (v == V_LIST || v == V_PRINT)) {
        if (*p && p[0] != '@')
            return syntax_error (m, "list and print server take no attributes", line);
        if (v == V_LIST)
            list_server (m);
        else
            print_server (m);
        return 0;
    }
    if (word_is (obj, "server"))
        return qmgr_server_change (m, v, p, line);
    if (word_is (obj, "node")) {
        /* Every verb, every spelling ("node1", "@default", none): one
         * refusal and exit status 1, as qmgr gives for an object it cannot
         * manage. */
        char name[128];
        next_word (&p, name, sizeof (name));
        obj_error (m, name[0] && name[0] != '@' ? name : "default",
                   "nodes are managed by their hpcq-worker (pbsnodes shows and "
                   "offlines them); qmgr manages queues and the server");
        return -1;
    }
    return syntax_error (m, "unknown object type (queue or server)", line);
}

static void qmgr_stdin (struct qmgr *m)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;

    while ((len = getline (&line, &cap, stdin)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (qmgr_line (m, line) == 1)
            break;
    }
    free (line);
}

int main (int argc, char **argv)
{
    struct qmgr m = { NULL, 0 };
    const char *command = NULL;
    int c;

    while ((c = cliopt_next (&cli, argc, argv)) != -1)
        command = optarg;
    if (optind < argc) {
        fprintf (stderr, "qmgr: unexpected argument '%s' (commands go in -c \"...\")\n",
                 argv[optind]);
        return 2;
    }
    if (command)
        (void)qmgr_line (&m, command);
    else
        qmgr_stdin (&m);
    client_destroy (m.client);
    return m.failed ? 1 : 0;
}

/* tracejob - a job's whole history, as PBS's tracejob shows it.
 *
 *   tracejob [-n DAYS] [-a] [-l] [-s] [-p STATE_DIR] JOBID
 *
 * Three sources, merged by time, one line each:
 *   S  the scheduler's events table: every state change with its cause
 *      (asked of the scheduler, job.trace; kept in the database after the
 *      job left memory)
 *   A  the accounting log (STATE_DIR/accounting/YYYYMMDD: Q S E D R A)
 *   L  the scheduler's log file, the lines that name the job
 * -n DAYS looks that many days back (default 1, as PBS's); -a, -l and -s
 * leave out the accounting log, the scheduler's log and the events.  The
 * files are read here, not by the scheduler (they may be large), so they
 * need read access (root or the scheduler's user); one that cannot be read
 * is said once on standard error and the rest is shown.
 */
#include <config.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cliopt.h"
#include "common/client.h"
#include "common/util.h"

struct line {
    int64_t time;
    int order; /* stable sort: input order */
    char source;
    char *text;
};

struct trace {
    struct line *v;
    int n, cap;
};

#define USAGE "Usage: tracejob [-n DAYS] [-a] [-l] [-s] [-p STATE_DIR] JOBID\n"

static const struct cliopt cli = {
    .prog = "tracejob",
    .shortopts = "n:alsp:h",
    .usage = USAGE
    "Prints a job's history, oldest first: its events, accounting records and\n"
    "scheduler log lines of the last DAYS days (default 1).  -a, -l and -s leave\n"
    "out the accounting records, the log lines and the events.  See tracejob(8).\n",
    .kind = CLIOPT_PBS,
};

static void usage (void)
{
    fputs (USAGE, stderr);
}

static void add (struct trace *t, int64_t time, char source, const char *text)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->v = xrealloc (t->v, t->cap * sizeof (*t->v));
    }
    t->v[t->n] = (struct line){ time, t->n, source, xstrdup (text) };
    t->n++;
}

static int by_time (const void *a, const void *b)
{
    const struct line *x = a, *y = b;

    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->order - y->order;
}

/* "seq.server" of a job id: what PBS's logs name it by; 1 if line names
 * it as a whole word (followed by a space, ';', ':', ')' or the end). */
static int names_job (const char *line, const char *id)
{
    size_t len = strlen (id);

    for (const char *p = strstr (line, id); p; p = strstr (p + 1, id)) {
        char before = p == line ? ' ' : p[-1], after = p[len];
        if ((before == ' ' || before == ';' || before == '(')
            && (after == '\0' || after == ' ' || after == ';' || after == ':'
                || after == ')' || after == '\n'))
            return 1;
    }
    return 0;
}

/* ---- the events --------------------------------------------------------- */

static int trace_events (json_t *reply, struct trace *t)
{
    json_t *events = json_object_get (reply, "events"), *e;
    size_t i;

    json_array_foreach (events, i, e)
    {
        /* Absent values are JSON nulls: taken one by one. */
        const char *type = json_string_value (json_object_get (e, "type"));
        const char *actor = json_string_value (json_object_get (e, "actor"));
        const char *detail = json_string_value (json_object_get (e, "detail"));
        const char *o = json_string_value (json_object_get (e, "old_state"));
        const char *n = json_string_value (json_object_get (e, "new_state"));
        json_int_t time = json_integer_value (json_object_get (e, "time"));
        char text[1024];

        type = type ? type : "?";
        actor = actor ? actor : "?";
        if (n)
            snprintf (text, sizeof (text), "%s by %s (%s -> %s)%s%s", type, actor,
                      o ? o : "-", n, detail ? ": " : "", detail ? detail : "");
        else
            snprintf (text, sizeof (text), "%s by %s%s%s", type, actor,
                      detail ? ": " : "", detail ? detail : "");
        add (t, time, 'S', text);
    }
    return 0;
}

/* ---- the accounting log ------------------------------------------------- */

/* "MM/DD/YYYY HH:MM:SS" (local time) to seconds, -1 if it is not that. */
static int64_t parse_pbs_time (const char *s)
{
    struct tm tm = { 0 };
    const char *end = strptime (s, "%m/%d/%Y %H:%M:%S", &tm);

    if (!end)
        return -1;
    tm.tm_isdst = -1;
    return (int64_t)mktime (&tm);
}

static void trace_accounting_file (const char *path, const char *id, int64_t since,
                                   struct trace *t)
{
    FILE *f = fopen (path, "r");
    char *line = NULL, pat[256];
    size_t cap = 0;
    ssize_t n;

    if (!f) {
        fprintf (stderr, "tracejob: cannot read %s: %s\n", path, strerror (errno));
        return;
    }
    snprintf (pat, sizeof (pat), ";%s;", id);
    while ((n = getline (&line, &cap, f)) > 0) {
        const char *semi = strchr (line, ';');
        int64_t when;
        if (line[n - 1] == '\n')
            line[n - 1] = '\0';
        if (!semi || strncmp (semi + 2, pat, strlen (pat)) != 0
            || (when = parse_pbs_time (line)) < since)
            continue;
        /* "TYPE;the record": as PBS's tracejob shows accounting lines. */
        {
            char text[8192];
            snprintf (text, sizeof (text), "%c %s", semi[1], semi + 2 + strlen (pat));
            add (t, when, 'A', text);
        }
    }
    free (line);
    fclose (f);
}

static void trace_accounting (const char *dir, const char *id, int64_t since,
                              struct trace *t)
{
    char first[16], path[4200];
    time_t s = (time_t)since;
    struct tm tm;
    struct dirent **names;
    int n;

    localtime_r (&s, &tm);
    strftime (first, sizeof (first), "%Y%m%d", &tm);
    if ((n = scandir (dir, &names, NULL, alphasort)) < 0) {
        fprintf (stderr, "tracejob: cannot read %s: %s\n", dir, strerror (errno));
        return;
    }
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (strlen (name) == 8 && strspn (name, "0123456789") == 8
            && strcmp (name, first) >= 0) {
            snprintf (path, sizeof (path), "%s/%s", dir, name);
            trace_accounting_file (path, id, since, t);
        }
        free (names[i]);
    }
    free (names);
}

/* ---- the scheduler's log ------------------------------------------------ */

/* "2026-11-30T22:11:42.059 hpcq-scheduler[info]: ..." */
static int64_t parse_log_time (const char *s)
{
    struct tm tm = { 0 };

    if (!strptime (s, "%Y-%m-%dT%H:%M:%S", &tm))
        return -1;
    tm.tm_isdst = -1;
    return (int64_t)mktime (&tm);
}

static void trace_log (const char *path, const char *id, int64_t since, struct trace *t)
{
    FILE *f = fopen (path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;

    if (!f) {
        fprintf (stderr, "tracejob: cannot read %s: %s\n", path, strerror (errno));
        return;
    }
    while ((n = getline (&line, &cap, f)) > 0) {
        const char *msg = strstr (line, "]: ");
        int64_t when;
        if (line[n - 1] == '\n')
            line[n - 1] = '\0';
        if (!msg || !names_job (msg, id) || (when = parse_log_time (line)) < since)
            continue;
        add (t, when, 'L', msg + 3);
    }
    free (line);
    fclose (f);
}

int main (int argc, char **argv)
{
    int opt, no_acct = 0, no_log = 0, no_events = 0;
    const char *state_dir = NULL;
    long days = 1;
    struct hpcq_error err;
    struct client *c;
    json_t *reply = NULL;
    struct trace t = { 0 };
    const char *jobid, *acct_dir = "", *log_file = "";
    char dir[4200];
    int64_t since;

    while ((opt = cliopt_next (&cli, argc, argv)) != -1) {
        switch (opt) {
        case 'n': {
            char *end;
            days = strtol (optarg, &end, 10);
            if (*end || days < 1 || days > 36500) {
                fprintf (stderr, "tracejob: invalid -n '%s' (days, 1 or more)\n",
                         optarg);
                return 2;
            }
            break;
        }
        case 'a': no_acct = 1; break;
        case 'l': no_log = 1; break;
        case 's': no_events = 1; break;
        case 'p': state_dir = optarg; break;
        default: usage (); return 2;
        }
    }
    if (optind != argc - 1) {
        usage ();
        return 2;
    }
    since = util_wall_secs () - (int64_t)days * 86400;
    if (!(c = client_connect (NULL, &err))) {
        fprintf (stderr, "tracejob: %s\n", err.text);
        return 1;
    }
    if (client_rpc (c, "job.trace",
                    json_pack ("{s:s s:I}", "id", argv[optind], "since",
                               (json_int_t)since),
                    &reply, &err)
        < 0) {
        fprintf (stderr, "tracejob: %s\n", err.text);
        client_destroy (c);
        return errno == ENOENT ? 1 : 2;
    }
    client_destroy (c);
    (void)json_unpack (reply, "{s:s s?s s?s}", "jobid", &jobid, "accounting_dir",
                       &acct_dir, "log_file", &log_file);
    if (state_dir) {
        snprintf (dir, sizeof (dir), "%s/accounting", state_dir);
        acct_dir = dir;
    }
    if (!no_events)
        trace_events (reply, &t);
    if (!no_acct && acct_dir[0])
        trace_accounting (acct_dir, jobid, since, &t);
    if (!no_log && log_file[0])
        trace_log (log_file, jobid, since, &t);
    if (t.n > 0) /* none at all: a subjob that never ran, say (t.v NULL) */
        qsort (t.v, t.n, sizeof (*t.v), by_time);
    printf ("\nJob: %s\n\n", jobid);
    for (int i = 0; i < t.n; i++) {
        char when[32];
        time_t tt = (time_t)t.v[i].time;
        struct tm tm;
        localtime_r (&tt, &tm);
        strftime (when, sizeof (when), "%m/%d/%Y %H:%M:%S", &tm);
        char *shown = util_escape_ctl (t.v[i].text); /* events quote users' text */
        printf ("%s  %c    %s\n", when, t.v[i].source, shown);
        free (shown);
        free (t.v[i].text);
    }
    free (t.v);
    json_decref (reply);
    return 0;
}

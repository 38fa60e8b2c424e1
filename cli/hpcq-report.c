/* hpcq-report - usage and wait over a time window, like sreport or an
 * XDMoD summary, read from the scheduler's database (report.h says what
 * each number counts).
 *
 *   hpcq-report [--by user|group|account|queue|job] [--from WHEN] [--to WHEN]
 *               [--csv | --json] [--wide] [--png FILE] [--currency NAME]
 *               [--state-dir DIR]
 *
 * WHEN is YYYY-MM-DD, "YYYY-MM-DD HH:MM[:SS]" (local time), seconds since
 * the epoch, now, today, yesterday (local midnight) or -N followed by s,
 * m, h, d or w (-7d: seven days ago); the window is [from, to), by default
 * the last 30 days.  The database is found in --state-dir, else
 * $HPCQ_STATE_DIR, else where the scheduler that $HPCQ_SERVER (or the
 * config's server) names says its state_dir is (server.stat), else the
 * state_dir of the config file ($HPCQ_CONFIG or SYSCONFDIR/hpcq.conf); it
 * is opened read-only (the state folder is private: run as root or as the
 * scheduler's user).  The table shows the columns with data (--wide: all);
 * CSV and JSON have every column.
 */
#include <config.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cliopt.h"
#include "cli/report.h"
#include "common/client.h"
#include "common/config.h"
#include "common/util.h"

static const char *const by_names[] = { "user", "group", "account", "queue", "job" };

static void usage (FILE *f)
{
    fprintf (f, "Usage: hpcq-report [--by user|group|account|queue|job] [--from WHEN] "
                "[--to WHEN]\n"
                "                   [--csv | --json] [--wide] [--png FILE] "
                "[--currency NAME]\n"
                "                   [--state-dir DIR]\n"
                "WHEN: YYYY-MM-DD, \"YYYY-MM-DD HH:MM[:SS]\" (local time), epoch "
                "seconds,\n"
                "      now, today, yesterday, or -N with s, m, h, d or w (-7d: 7 days "
                "ago).\n");
}

/* now, today, yesterday, -N[smhdw]: relative to now.  1 if s is one. */
static int parse_relative (const char *s, int64_t now, int64_t *out)
{
    static const struct {
        char unit;
        int64_t secs;
    } units[] = {
        { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 }
    };
    char *end;
    long long n;

    if (strcmp (s, "now") == 0)
        return *out = now, 1;
    if (strcmp (s, "today") == 0)
        return *out = report_midnight (now), 1;
    if (strcmp (s, "yesterday") == 0)
        return *out = report_midnight (report_midnight (now) - 43200), 1;
    if (s[0] != '-' || !(s[1] >= '0' && s[1] <= '9'))
        return 0;
    n = strtoll (s + 1, &end, 10);
    for (size_t i = 0; i < ARRAY_SIZE (units); i++)
        if (end[0] == units[i].unit && !end[1] && n <= now / units[i].secs)
            return *out = now - n * units[i].secs, 1;
    return 0;
}

static int parse_when (const char *s, int64_t now, int64_t *out)
{
    static const char *const formats[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M",
                                           "%Y-%m-%d" };
    char *end;
    long long v = strtoll (s, &end, 10);

    if (*s && *s != '-' && !*end && v >= 0) {
        *out = v;
        return 0;
    }
    if (parse_relative (s, now, out))
        return 0;
    for (size_t i = 0; i < ARRAY_SIZE (formats); i++) {
        struct tm tm = { 0 };
        const char *e = strptime (s, formats[i], &tm);
        if (e && !*e) {
            tm.tm_isdst = -1;
            *out = (int64_t)mktime (&tm);
            return 0;
        }
    }
    return -1;
}

static void when_text (int64_t t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    localtime_r (&tt, &tm);
    strftime (buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* What the scheduler says of itself (server.stat): its state folder and
 * the currency of its prices, when HPCQ_SERVER or the config names one.
 * 0, or -1 with why in err. */
static int ask_scheduler (char *dir, size_t len, char *currency, size_t clen,
                          struct hpcq_error *err)
{
    struct client *c = client_connect (NULL, err);
    json_t *reply = NULL;
    const char *d, *cur;
    int rc = -1;

    if (!c)
        return -1;
    if (client_rpc (c, "server.stat", NULL, &reply, err) == 0) {
        if ((d = json_string_value (json_object_get (reply, "hpcq_state_dir")))) {
            snprintf (dir, len, "%s", d);
            rc = 0;
        } else
            errprintf (err, "the scheduler did not say where its state_dir is");
        if (!*currency
            && (cur = json_string_value (json_object_get (reply, "hpcq_currency"))))
            snprintf (currency, clen, "%s", cur);
    }
    json_decref (reply);
    client_destroy (c);
    return rc;
}

/* The database: --state-dir, $HPCQ_STATE_DIR, the scheduler's word, or the
 * config file's; and the currency (--currency, the scheduler's, the
 * config's). */
static int db_path (const char *dir, char *buf, size_t len, char *currency, size_t clen)
{
    struct hpcq_error err, asked = { 0 };
    struct config *cfg;
    const char *path, *cur;
    char said[4096];
    int have_cfg, named;

    if (!dir)
        dir = getenv ("HPCQ_STATE_DIR");
    path = getenv ("HPCQ_CONFIG");
    if (!path)
        path = HPCQ_SYSCONFDIR "/hpcq.conf";
    cfg = config_create ();
    have_cfg = cfg && config_load (cfg, path, &err) == 0;
    if (have_cfg && !*currency && (cur = config_get (cfg, "currency", NULL)))
        snprintf (currency, clen, "%s", cur);
    named = getenv ("HPCQ_SERVER") || (have_cfg && config_get (cfg, "server", NULL));
    if (!dir && named
        && ask_scheduler (said, sizeof (said), currency, clen, &asked) == 0)
        dir = said;
    if (!dir && have_cfg)
        dir = config_get (cfg, "state_dir", NULL);
    if (!dir) {
        fprintf (stderr,
                 "hpcq-report: cannot find the database: %s%s; no state_dir in %s "
                 "(give --state-dir, or set HPCQ_STATE_DIR)\n",
                 named ? "asking the scheduler: "
                       : "no scheduler named (HPCQ_SERVER, as hpcq-local start "
                         "prints it)",
                 named ? asked.text : "", path);
        config_destroy (cfg);
        return -1;
    }
    snprintf (buf, len, "%s/hpcq.sqlite", dir);
    config_destroy (cfg);
    return 0;
}

/* ---- output ------------------------------------------------------------- */

static double hours (double secs)
{
    return secs / 3600.0;
}

/* The table's columns, in order; the MIG profiles' come after the GPUs'.
 * Each is shown when some row has a value other than 0 (or always). */
enum {
    T_JOBS,
    T_RUNNING,
    T_CORE,
    T_GPU,
    T_GPU_J,
    T_GPU_UTIL,
    T_WAIT_MEAN,
    T_WAIT_P95,
    T_FAILURES,
    T_DELETED,
    T_REQUEUES,
    T_PREEMPTIONS,
    T_RECLAIMS,
    T_COST,
    T_COST_SPOT,
    T_COST_OD,
    T_SAVED,
    T_CKPTS,
    T_CKPT_S,
    T_CKPT_COST,
    T_FIXED
};
static const struct {
    const char *name;
    int decimals, always;
} tcols[T_FIXED] = {
    [T_JOBS] = { "jobs", 0, 1 },
    [T_RUNNING] = { "running", 0, 0 },
    [T_CORE] = { "core_hours", 2, 1 },
    [T_GPU] = { "gpu_hours", 2, 0 },
    [T_GPU_J] = { "gpu_energy_j", 1, 0 },
    [T_GPU_UTIL] = { "gpu_util_mean", 1, 0 },
    [T_WAIT_MEAN] = { "wait_mean_s", 1, 0 },
    [T_WAIT_P95] = { "wait_p95_s", 1, 0 },
    [T_FAILURES] = { "failures", 0, 0 },
    [T_DELETED] = { "deleted", 0, 0 },
    [T_REQUEUES] = { "requeues", 0, 0 },
    [T_PREEMPTIONS] = { "preemptions", 0, 0 },
    [T_RECLAIMS] = { "reclaims", 0, 0 },
    /* Costs with 4 decimals: a small cluster's hours cost cents. */
    [T_COST] = { "cost", 4, 0 },
    [T_COST_SPOT] = { "cost_spot", 4, 0 },
    [T_COST_OD] = { "cost_if_ondemand", 4, 0 },
    [T_SAVED] = { "saved", 4, 0 },
    [T_CKPTS] = { "checkpoints", 0, 0 },
    [T_CKPT_S] = { "ckpt_s", 1, 0 },
    [T_CKPT_COST] = { "ckpt_cost", 4, 0 },
};

/* A row's values in tcols' order, then its MIG-instance-hours. */
static void table_values (struct report *r, struct report_row *row, double *v)
{
    v[T_JOBS] = (double)row->jobs;
    v[T_RUNNING] = (double)row->running;
    v[T_CORE] = hours (row->core_s);
    v[T_GPU] = hours (row->gpu_s);
    v[T_GPU_J] = row->gpu_energy_j;
    v[T_GPU_UTIL] = report_gpu_util (row);
    v[T_WAIT_MEAN] = report_wait_mean (row);
    v[T_WAIT_P95] = report_wait_p95 (row);
    v[T_FAILURES] = (double)row->failures;
    v[T_DELETED] = (double)row->deleted;
    v[T_REQUEUES] = (double)row->requeues;
    v[T_PREEMPTIONS] = (double)row->preemptions;
    v[T_RECLAIMS] = (double)row->reclaims;
    v[T_COST] = row->cost;
    v[T_COST_SPOT] = row->cost_spot;
    v[T_COST_OD] = row->cost_ondemand;
    v[T_SAVED] = row->cost_ondemand - row->cost;
    v[T_CKPTS] = (double)row->checkpoints;
    v[T_CKPT_S] = row->ckpt_s;
    v[T_CKPT_COST] = row->ckpt_cost;
    for (int p = 0; p < r->nprofiles; p++)
        v[T_FIXED + p] = hours (row->mig_s[p]);
}

/* Column k of the table: its name and decimals (MIG profiles last). */
static const char *tcol_name (struct report *r, int k, char *buf, size_t len,
                              int *decimals)
{
    if (k < T_FIXED) {
        *decimals = tcols[k].decimals;
        return tcols[k].name;
    }
    *decimals = 2;
    snprintf (buf, len, "mig_hours[%s]", r->profiles[k - T_FIXED]);
    return buf;
}

/* The order shown, CSV's: the fixed columns with the MIG profiles after
 * the GPUs'. */
static int tcol_at (const struct report *r, int i)
{
    if (i <= T_GPU_UTIL)
        return i;
    if (i <= T_GPU_UTIL + r->nprofiles)
        return T_FIXED + i - T_GPU_UTIL - 1;
    return i - r->nprofiles;
}

/* The names of the columns left out, wrapped under the table. */
static void print_hidden (const char *names)
{
    int col = 0;

    printf ("\n0 in every row, not shown (--wide shows them; --csv and --json have "
            "them all):\n ");
    while (*names) {
        int len = (int)strcspn (names, ",");
        if (col && col + len > 74) {
            printf ("\n ");
            col = 0;
        }
        col += printf (" %.*s%s", len, names, names[len] ? "," : "");
        names += len + (names[len] == ',');
        names += *names == ' ';
    }
    printf ("\n");
}

static void print_table (struct report *r, struct report_row **rows, int n, int wide,
                         const char *currency)
{
    int ncols = T_FIXED + r->nprofiles, w = (int)strlen (by_names[r->by]);
    double (*v)[T_FIXED + REPORT_MAX_PROFILES] = xzalloc ((n + 1) * sizeof (*v));
    int width[T_FIXED + REPORT_MAX_PROFILES] = { 0 },
                        shown[T_FIXED + REPORT_MAX_PROFILES];
    char from[32], to[32], name[48], hidden[1024] = "";
    size_t hl = 0;

    for (int i = 0; i <= n; i++) {
        struct report_row *row = i < n ? rows[i] : &r->total;
        char *key = util_escape_ctl (row->key); /* an account's text is a user's */
        table_values (r, row, v[i]);
        if ((int)strlen (key) > w)
            w = (int)strlen (key);
        free (key);
    }
    for (int k = 0; k < ncols; k++) {
        int dec;
        const char *nm = tcol_name (r, k, name, sizeof (name), &dec);
        shown[k] = wide || (k < T_FIXED && tcols[k].always);
        width[k] = (int)strlen (nm);
        for (int i = 0; i <= n; i++) {
            char cell[64];
            int len = snprintf (cell, sizeof (cell), "%.*f", dec, v[i][k]);
            width[k] = len > width[k] ? len : width[k];
            shown[k] |= v[i][k] != 0;
        }
    }
    when_text (r->from, from, sizeof (from));
    when_text (r->to, to, sizeof (to));
    printf ("hpcq usage by %s, %s to %s%s%s%s\n\n", by_names[r->by], from, to,
            currency ? " (cost in " : "", currency ? currency : "",
            currency ? ")" : "");
    printf ("%-*s", w, by_names[r->by]);
    for (int i = 0; i < ncols; i++) {
        int k = tcol_at (r, i), dec;
        const char *nm = tcol_name (r, k, name, sizeof (name), &dec);
        if (shown[k])
            printf ("  %*s", width[k], nm);
        else if (hl + strlen (nm) + 3 < sizeof (hidden))
            hl += (size_t)snprintf (hidden + hl, sizeof (hidden) - hl, "%s%s",
                                    hl ? ", " : "", nm);
    }
    printf ("\n");
    for (int j = 0; j <= n; j++) {
        struct report_row *row = j < n ? rows[j] : &r->total;
        char *key = util_escape_ctl (row->key);
        if (j == n)
            printf ("\n");
        printf ("%-*s", w, key);
        free (key);
        for (int i = 0; i < ncols; i++) {
            int k = tcol_at (r, i), dec;
            tcol_name (r, k, name, sizeof (name), &dec);
            if (shown[k])
                printf ("  %*.*f", width[k], dec, v[j][k]);
        }
        printf ("\n");
    }
    if (hl)
        print_hidden (hidden);
    free (v);
}

static void print_csv (struct report *r, struct report_row **rows, int n)
{
    printf ("%s,jobs,core_hours,gpu_hours,gpu_energy_j,gpu_util_mean", by_names[r->by]);
    for (int p = 0; p < r->nprofiles; p++)
        printf (",mig_hours[%s]", r->profiles[p]);
    printf (",wait_mean_s,wait_p95_s,failures,deleted,running,requeues,preemptions,"
            "reclaims,cost,cost_spot,cost_if_ondemand,saved,checkpoints,ckpt_s,"
            "ckpt_cost\n");
    for (int i = 0; i <= n; i++) {
        struct report_row *row = i < n ? rows[i] : &r->total;
        /* Keys are user, group, queue names or job ids: no commas or quotes
         * but an account may have them; quote it as CSV does, and escape
         * its control characters, so no account makes a row of its own. */
        char *key = util_escape_ctl (row->key);
        if (strpbrk (key, ",\"")) {
            putchar ('"');
            for (const char *c = key; *c; c++)
                printf (*c == '"' ? "\"\"" : "%c", *c);
            putchar ('"');
        } else
            printf ("%s", key);
        free (key);
        printf (",%lld,%.6f,%.6f,%.1f,%.1f", (long long)row->jobs, hours (row->core_s),
                hours (row->gpu_s), row->gpu_energy_j, report_gpu_util (row));
        for (int p = 0; p < r->nprofiles; p++)
            printf (",%.6f", hours (row->mig_s[p]));
        printf (",%.3f,%.3f,%lld,%lld,%lld,%lld,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%lld,"
                "%.3f,%.6f\n",
                report_wait_mean (row), report_wait_p95 (row), (long long)row->failures,
                (long long)row->deleted, (long long)row->running,
                (long long)row->requeues, (long long)row->preemptions,
                (long long)row->reclaims, row->cost, row->cost_spot, row->cost_ondemand,
                row->cost_ondemand - row->cost, (long long)row->checkpoints,
                row->ckpt_s, row->ckpt_cost);
    }
}

static json_t *row_json (struct report *r, struct report_row *row)
{
    json_t *mig = json_object ();
    json_t *o;

    for (int p = 0; p < r->nprofiles; p++)
        json_object_set_new (mig, r->profiles[p], json_real (hours (row->mig_s[p])));
    o = json_pack ("{s:s s:I s:I s:I s:f s:f s:o s:f s:f s:I s:I s:I}", by_names[r->by],
                   row->key, "jobs", (json_int_t)row->jobs, "running",
                   (json_int_t)row->running, "deleted", (json_int_t)row->deleted,
                   "core_hours", hours (row->core_s), "gpu_hours", hours (row->gpu_s),
                   "mig_hours", mig, "wait_mean_s", report_wait_mean (row),
                   "wait_p95_s", report_wait_p95 (row), "failures",
                   (json_int_t)row->failures, "requeues", (json_int_t)row->requeues,
                   "preemptions", (json_int_t)row->preemptions);
    if (o
        && (json_object_update_new (
                o, json_pack ("{s:I s:f s:f s:f s:f s:I s:f s:f}", "reclaims",
                              (json_int_t)row->reclaims, "cost", row->cost, "cost_spot",
                              row->cost_spot, "cost_if_ondemand", row->cost_ondemand,
                              "saved", row->cost_ondemand - row->cost, "checkpoints",
                              (json_int_t)row->checkpoints, "ckpt_s", row->ckpt_s,
                              "ckpt_cost", row->ckpt_cost))
                < 0
            || json_object_update_new (o, json_pack ("{s:f s:f}", "gpu_energy_j",
                                                     row->gpu_energy_j, "gpu_util_mean",
                                                     report_gpu_util (row)))
                   < 0)) {
        json_decref (o);
        o = NULL;
    }
    return o;
}

/* Per day, what --png draws: GPU- and MIG-instance-hours and cost. */
static json_t *days_json (const struct report *r)
{
    json_t *days = json_array ();

    for (int i = 0; i < r->ndays; i++) {
        char day[16];
        time_t t = (time_t)(r->day0 + (int64_t)i * 86400 + 43200);
        struct tm tm;
        localtime_r (&t, &tm);
        strftime (day, sizeof (day), "%Y-%m-%d", &tm);
        json_array_append_new (days, json_pack ("{s:s s:f s:f s:f s:f}", "day", day,
                                                "core_hours", hours (r->day_core_s[i]),
                                                "gpu_hours", hours (r->day_gpu_s[i]),
                                                "mig_hours", hours (r->day_mig_s[i]),
                                                "cost", r->day_cost[i]));
    }
    return days;
}

static void print_json (struct report *r, struct report_row **rows, int n)
{
    json_t *list = json_array (), *o;
    char *text;

    for (int i = 0; i < n; i++)
        json_array_append_new (list, row_json (r, rows[i]));
    o = json_pack ("{s:s s:I s:I s:o s:o s:o}", "by", by_names[r->by], "from",
                   (json_int_t)r->from, "to", (json_int_t)r->to, "rows", list, "total",
                   row_json (r, &r->total), "days", days_json (r));
    text = o ? json_dumps (o, JSON_INDENT (2)) : NULL;
    printf ("%s\n", text ? text : "{}");
    free (text);
    json_decref (o);
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "by", required_argument, NULL, 'b' },
        { "from", required_argument, NULL, 'f' },
        { "to", required_argument, NULL, 't' },
        { "csv", no_argument, NULL, 'c' },
        { "json", no_argument, NULL, 'j' },
        { "png", required_argument, NULL, 'p' },
        { "wide", no_argument, NULL, 'w' },
        { "currency", required_argument, NULL, 'C' },
        { "state-dir", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    static struct report rep; /* big (its days), one per run */
    struct report *r = &rep;
    const char *png = NULL, *dir = NULL;
    int opt, csv = 0, json = 0, wide = 0, n, rc = 1;
    struct hpcq_error err;
    struct report_row **rows;
    char path[4200], currency[64] = "";
    int64_t now = util_wall_secs ();

    /* Up to now, this second included (times are whole seconds). */
    r->to = now + 1;
    r->from = r->to - 30 * 86400;
    while ((opt = getopt_long (argc, argv, "b:f:t:cjp:wC:d:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'b': {
            size_t i;
            for (i = 0; i < ARRAY_SIZE (by_names) && strcmp (optarg, by_names[i]); i++)
                ;
            if (i == ARRAY_SIZE (by_names)) {
                fprintf (stderr,
                         "hpcq-report: invalid --by '%s' (user, group, account, "
                         "queue or job)\n",
                         optarg);
                return 2;
            }
            r->by = (enum report_by)i;
            break;
        }
        case 'f':
        case 't':
            if (parse_when (optarg, now, opt == 'f' ? &r->from : &r->to) < 0) {
                fprintf (stderr,
                         "hpcq-report: invalid --%s '%s' (YYYY-MM-DD, "
                         "\"YYYY-MM-DD HH:MM\", epoch seconds, now, today, "
                         "yesterday or -N[smhdw])\n",
                         opt == 'f' ? "from" : "to", optarg);
                return 2;
            }
            break;
        case 'c': csv = 1; break;
        case 'j': json = 1; break;
        case 'p': png = optarg; break;
        case 'w': wide = 1; break;
        case 'C': snprintf (currency, sizeof (currency), "%s", optarg); break;
        case 'd': dir = optarg; break;
        case 'h': usage (stdout); return 0;
        case 'V': cliopt_print_version ("hpcq-report", CLIOPT_HPCQ); return 0;
        default: usage (stderr); return 2;
        }
    }
    if (optind < argc || (csv && json)) {
        if (optind < argc)
            fprintf (stderr, "hpcq-report: unexpected argument '%s'\n", argv[optind]);
        else
            fprintf (stderr, "hpcq-report: --csv and --json exclude each other\n");
        return 2;
    }
    if (r->to <= r->from) {
        fprintf (stderr, "hpcq-report: --to must come after --from\n");
        return 2;
    }
    if (db_path (dir, path, sizeof (path), currency, sizeof (currency)) < 0)
        return 2;
    if (report_run (r, path, &err) < 0) {
        fprintf (stderr, "hpcq-report: %s\n", err.text);
        goto out;
    }
    rows = report_sorted (r, &n);
    if (json)
        print_json (r, rows, n);
    else if (csv)
        print_csv (r, rows, n);
    else
        print_table (r, rows, n, wide, *currency ? currency : NULL);
    free (rows);
    rc = 0;
    if (png && report_png (r, png, *currency ? currency : NULL, &err) < 0) {
        fprintf (stderr, "hpcq-report: %s\n", err.text);
        rc = 1;
    } else if (png) {
        /* On stderr: stdout is the table, CSV or JSON. */
        char from[32], to[32];
        when_text (r->from, from, sizeof (from));
        when_text (r->to, to, sizeof (to));
        fprintf (stderr,
                 "hpcq-report: wrote %s (core-, GPU-hours and cost per day, %s to "
                 "%s)\n",
                 png, from, to);
    }
out:
    report_release (r);
    return rc;
}

/* hpcq-report - usage and wait over a time window, like sreport or an
 * XDMoD summary, read from the scheduler's database (report.h says what
 * each number counts).
 *
 *   hpcq-report [--by user|group|account|queue|job] [--from WHEN] [--to WHEN]
 *               [--csv | --json] [--png FILE] [--state-dir DIR]
 *
 * WHEN is YYYY-MM-DD, "YYYY-MM-DD HH:MM[:SS]" (local time) or seconds
 * since the epoch; the window is [from, to), by default the last 30 days.
 * The database is found in --state-dir, else $HPCQ_STATE_DIR, else the
 * state_dir of the config file ($HPCQ_CONFIG or SYSCONFDIR/hpcq.conf); it
 * is opened read-only (the state folder is private: run as root or as the
 * scheduler's user).
 */
#include <config.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/report.h"
#include "common/config.h"
#include "common/util.h"

static const char *const by_names[] = { "user", "group", "account", "queue", "job" };

static void usage (FILE *f)
{
    fprintf (f, "Usage: hpcq-report [--by user|group|account|queue|job] [--from WHEN] "
                "[--to WHEN]\n"
                "                   [--csv | --json] [--png FILE] [--state-dir DIR]\n"
                "WHEN: YYYY-MM-DD, \"YYYY-MM-DD HH:MM[:SS]\" (local time) or epoch "
                "seconds.\n");
}

static int parse_when (const char *s, int64_t *out)
{
    static const char *const formats[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M",
                                           "%Y-%m-%d" };
    char *end;
    long long v = strtoll (s, &end, 10);

    if (*s && !*end && v >= 0) {
        *out = v;
        return 0;
    }
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

/* The database: --state-dir, $HPCQ_STATE_DIR, or the config file's. */
static int db_path (const char *dir, char *buf, size_t len)
{
    struct hpcq_error err;
    struct config *cfg;
    const char *path;

    if (!dir)
        dir = getenv ("HPCQ_STATE_DIR");
    if (dir) {
        snprintf (buf, len, "%s/hpcq.sqlite", dir);
        return 0;
    }
    path = getenv ("HPCQ_CONFIG");
    if (!path)
        path = HPCQ_SYSCONFDIR "/hpcq.conf";
    cfg = config_create ();
    if (!cfg || config_load (cfg, path, &err) < 0
        || !(dir = config_get (cfg, "state_dir", NULL))) {
        fprintf (stderr,
                 "hpcq-report: no state folder: give --state-dir (or set "
                 "HPCQ_STATE_DIR, or state_dir in %s)\n",
                 path);
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

static void print_table (struct report *r, struct report_row **rows, int n)
{
    char from[32], to[32];
    int w = (int)strlen (by_names[r->by]);

    for (int i = 0; i < n; i++)
        if ((int)strlen (rows[i]->key) > w)
            w = (int)strlen (rows[i]->key);
    w = w < 5 ? 5 : w;
    when_text (r->from, from, sizeof (from));
    when_text (r->to, to, sizeof (to));
    printf ("hpcq usage by %s, %s to %s\n\n", by_names[r->by], from, to);
    printf ("%-*s %7s %11s %10s", w, by_names[r->by], "jobs", "core_hours",
            "gpu_hours");
    for (int p = 0; p < r->nprofiles; p++)
        printf (" mig_hours[%s]", r->profiles[p]);
    printf (" %11s %10s %8s %8s %11s %8s %10s %10s %16s %10s %11s %8s %10s\n",
            "wait_mean_s", "wait_p95_s", "failures", "requeues", "preemptions",
            "reclaims", "cost", "cost_spot", "cost_if_ondemand", "saved", "checkpoints",
            "ckpt_s", "ckpt_cost");
    for (int i = 0; i <= n; i++) {
        struct report_row *row = i < n ? rows[i] : &r->total;
        if (i == n)
            printf ("\n");
        printf ("%-*s %7lld %11.2f %10.2f", w, row->key, (long long)row->jobs,
                hours (row->core_s), hours (row->gpu_s));
        for (int p = 0; p < r->nprofiles; p++)
            printf (" %*.2f", (int)strlen (r->profiles[p]) + 11, hours (row->mig_s[p]));
        printf (" %11.1f %10.1f %8lld %8lld %11lld %8lld %10.2f %10.2f %16.2f %10.2f "
                "%11lld %8.1f %10.2f\n",
                report_wait_mean (row), report_wait_p95 (row), (long long)row->failures,
                (long long)row->requeues, (long long)row->preemptions,
                (long long)row->reclaims, row->cost, row->cost_spot, row->cost_ondemand,
                row->cost_ondemand - row->cost, (long long)row->checkpoints,
                row->ckpt_s, row->ckpt_cost);
    }
}

static void print_csv (struct report *r, struct report_row **rows, int n)
{
    printf ("%s,jobs,core_hours,gpu_hours,gpu_energy_j,gpu_util_mean", by_names[r->by]);
    for (int p = 0; p < r->nprofiles; p++)
        printf (",mig_hours[%s]", r->profiles[p]);
    printf (",wait_mean_s,wait_p95_s,failures,requeues,preemptions,reclaims,cost,"
            "cost_spot,cost_if_ondemand,saved,checkpoints,ckpt_s,ckpt_cost\n");
    for (int i = 0; i <= n; i++) {
        struct report_row *row = i < n ? rows[i] : &r->total;
        /* Keys are user, group, queue names or job ids: no commas or quotes
         * but an account may have them; quote it as CSV does. */
        if (strpbrk (row->key, ",\"\n")) {
            putchar ('"');
            for (const char *c = row->key; *c; c++)
                printf (*c == '"' ? "\"\"" : "%c", *c);
            putchar ('"');
        } else
            printf ("%s", row->key);
        printf (",%lld,%.6f,%.6f,%.1f,%.1f", (long long)row->jobs, hours (row->core_s),
                hours (row->gpu_s), row->gpu_energy_j, report_gpu_util (row));
        for (int p = 0; p < r->nprofiles; p++)
            printf (",%.6f", hours (row->mig_s[p]));
        printf (",%.3f,%.3f,%lld,%lld,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%lld,%.3f,%.6f\n",
                report_wait_mean (row), report_wait_p95 (row), (long long)row->failures,
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
    o = json_pack ("{s:s s:I s:f s:f s:o s:f s:f s:I s:I s:I}", by_names[r->by],
                   row->key, "jobs", (json_int_t)row->jobs, "core_hours",
                   hours (row->core_s), "gpu_hours", hours (row->gpu_s), "mig_hours",
                   mig, "wait_mean_s", report_wait_mean (row), "wait_p95_s",
                   report_wait_p95 (row), "failures", (json_int_t)row->failures,
                   "requeues", (json_int_t)row->requeues, "preemptions",
                   (json_int_t)row->preemptions);
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
        json_array_append_new (days, json_pack ("{s:s s:f s:f s:f}", "day", day,
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
        { "state-dir", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static struct report rep; /* big (its days), one per run */
    struct report *r = &rep;
    const char *png = NULL, *dir = NULL;
    int opt, csv = 0, json = 0, n, rc = 1;
    struct hpcq_error err;
    struct report_row **rows;
    char path[4200];

    /* Up to now, this second included (times are whole seconds). */
    r->to = util_wall_secs () + 1;
    r->from = r->to - 30 * 86400;
    while ((opt = getopt_long (argc, argv, "b:f:t:cjp:d:h", longopts, NULL)) != -1) {
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
            if (parse_when (optarg, opt == 'f' ? &r->from : &r->to) < 0) {
                fprintf (stderr,
                         "hpcq-report: invalid --%s '%s' (YYYY-MM-DD, "
                         "\"YYYY-MM-DD HH:MM\" or epoch seconds)\n",
                         opt == 'f' ? "from" : "to", optarg);
                return 2;
            }
            break;
        case 'c': csv = 1; break;
        case 'j': json = 1; break;
        case 'p': png = optarg; break;
        case 'd': dir = optarg; break;
        case 'h': usage (stdout); return 0;
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
    if (db_path (dir, path, sizeof (path)) < 0)
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
        print_table (r, rows, n);
    free (rows);
    rc = 0;
    if (png && report_png (r, png, &err) < 0) {
        fprintf (stderr, "hpcq-report: %s\n", err.text);
        rc = 1;
    }
out:
    report_release (r);
    return rc;
}

/* accounting.c - see accounting.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/lifecycle_sub.h"
#include "scheduler/accounting.h"
#include "scheduler/acct_record.h"
#include "scheduler/jobs.h"

/* Numbered by us, not by SQLite: a rowid starts again at 1 whenever the
 * table is empty (every row on disk and let go), and written and synced
 * below compare numbers that only grow. */
static const char *sql_outbox_add =
    "INSERT INTO acct_outbox (id, time, record) VALUES (?3, ?1, ?2)";
static const char *sql_outbox_all =
    "SELECT id, time, record FROM acct_outbox ORDER BY id";
static const char *sql_outbox_done = "DELETE FROM acct_outbox WHERE id <= ?1";
static const char *sql_charge =
    "UPDATE jobs SET egroup = ?2, account = ?3 WHERE seq = ?1";
static const char *sql_attempt_held =
    "UPDATE attempts SET ncpus = ?3, ngpus = ?4, mig = ?5"
    " WHERE job_seq = ?1 AND attempt = ?2";
static const char *sql_attempt =
    "SELECT start_time, end_time, cput, walltime, maxrss, exec_host,"
    " gpu_seconds, gpu_util, gpu_mem_peak, gpu_energy_j"
    " FROM attempts WHERE job_seq = ?1 AND attempt = ?2";
/* When the job last became eligible: its last move into Q. */
static const char *sql_eligible =
    "SELECT max(time) FROM events WHERE job_seq = ?1 AND new_state = 'Q'";

/* A record committed or about to be, not yet in its file. */
struct acct_line {
    int64_t id; /* its outbox row */
    int64_t time;
    char *text; /* without the newline */
    struct acct_line *next;
};

/* The group of a user, looked up once (a name service may be slow). */
struct group_cache {
    int64_t uid;
    char name[64];
};
#define GROUP_CACHE 64

struct accounting {
    struct server *srv;
    char dir[4096];
    struct acct_line *lines, **tail; /* made in this turn's transaction */
    int fd;                          /* the file being appended to, -1 if none */
    char fd_day[16];                 /* its day */
    int64_t written;                 /* highest outbox id appended to a file */
    int64_t synced;                  /* highest outbox id known to be on disk */
    int64_t next_id;                 /* the next record's outbox id */
    struct loop_timer *sync;
    struct group_cache groups[GROUP_CACHE];
    int ngroups, next_group;
};

static void acct_sync (struct loop *l, void *arg);

const char *accounting_dir (const struct accounting *a)
{
    return a->dir;
}

static void acct_group (struct accounting *a, int64_t uid, char *buf, size_t len)
{
    struct passwd pw, *pwr = NULL;
    struct group gr, *grr = NULL;
    char tmp[4096];
    struct group_cache *g;

    for (int i = 0; i < a->ngroups; i++)
        if (a->groups[i].uid == uid) {
            snprintf (buf, len, "%s", a->groups[i].name);
            return;
        }
    if (getpwuid_r ((uid_t)uid, &pw, tmp, sizeof (tmp), &pwr) == 0 && pwr) {
        gid_t gid = pw.pw_gid;
        if (getgrgid_r (gid, &gr, tmp, sizeof (tmp), &grr) == 0 && grr)
            snprintf (buf, len, "%s", gr.gr_name);
        else
            snprintf (buf, len, "%u", (unsigned)gid);
    } else
        snprintf (buf, len, "%lld", (long long)uid);
    g = &a->groups[a->next_group];
    a->next_group = (a->next_group + 1) % GROUP_CACHE;
    if (a->ngroups < GROUP_CACHE)
        a->ngroups++;
    g->uid = uid;
    snprintf (g->name, sizeof (g->name), "%s", buf);
}

/* ---- the files ---------------------------------------------------------- */

static int acct_open_day (struct accounting *a, const char *day)
{
    char path[4200];

    if (a->fd >= 0 && strcmp (a->fd_day, day) == 0)
        return 0;
    if (a->fd >= 0) {
        /* What went to the old day's file must be on disk before the
         * outbox forgets it: flush it before letting it go. */
        if (fdatasync (a->fd) < 0)
            log_error ("accounting: flush %s/%s", a->dir, a->fd_day);
        close (a->fd);
        a->fd = -1;
    }
    snprintf (path, sizeof (path), "%s/%s", a->dir, day);
    if ((a->fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0)
        return -1;
    snprintf (a->fd_day, sizeof (a->fd_day), "%s", day);
    return 0;
}

/* Append lines (all of one day) as one write. */
static int acct_append (struct accounting *a, const char *day, const char *buf,
                        size_t len)
{
    if (acct_open_day (a, day) < 0 || util_write_all (a->fd, buf, len) < 0) {
        log_error ("accounting: cannot write %s/%s (the records stay in the "
                   "database's outbox and are written at the next start)",
                   a->dir, day);
        return -1;
    }
    return 0;
}

void accounting_after_commit (struct accounting *a)
{
    struct acct_line *l = a->lines, *next;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = NULL;
    char day[16] = "", lday[16];
    int ok = 1;

    a->lines = NULL;
    a->tail = &a->lines;
    for (; l; l = next) {
        next = l->next;
        acct_record_day (l->time, lday, sizeof (lday));
        if (f && strcmp (lday, day) != 0) {
            ok &= fclose (f) == 0 && acct_append (a, day, buf, len) == 0;
            free (buf);
            f = NULL;
        }
        if (!f && !(f = open_memstream (&buf, &len)))
            ok = 0;
        snprintf (day, sizeof (day), "%s", lday);
        if (f)
            fprintf (f, "%s\n", l->text);
        if (ok && l->id > a->written)
            a->written = l->id;
        free (l->text);
        free (l);
    }
    if (f) {
        ok &= fclose (f) == 0 && acct_append (a, day, buf, len) == 0;
        free (buf);
    }
    if (!ok)
        a->written = a->synced; /* keep the outbox rows: written at start */
}

/* Once a second: what was appended reaches the disk, and the outbox lets
 * go of it in the next commit. */
static void acct_sync (struct loop *l, void *arg)
{
    struct accounting *a = arg;
    sqlite3_stmt *st;

    if (a->written <= a->synced || a->fd < 0)
        return;
    if (fdatasync (a->fd) < 0) {
        log_error ("accounting: flush %s/%s", a->dir, a->fd_day);
        return;
    }
    if (db_txn_ensure (a->srv->db) < 0 || !(st = db_stmt (a->srv->db, sql_outbox_done)))
        return;
    sqlite3_bind_int64 (st, 1, a->written);
    if (db_exec_stmt (a->srv->db, st) == 0)
        a->synced = a->written;
}

/* ---- catching up at start ---------------------------------------------- */

struct pending_row {
    int64_t id;
    char day[16];
    char *text;
};

/* The number of rows[0..n) whose lines the file already ends with: the
 * largest j such that the file's end is rows[0..j) joined.  The file has
 * no torn line (cut off by the caller). */
static int acct_present (int fd, off_t size, struct pending_row *rows, int n)
{
    size_t total = 0, want;
    char *tail;
    int found = 0;

    for (int i = 0; i < n; i++)
        total += strlen (rows[i].text) + 1;
    want = (size_t)size < total ? (size_t)size : total;
    if (want == 0 || !(tail = malloc (want)))
        return 0;
    if (pread (fd, tail, want, size - (off_t)want) != (ssize_t)want) {
        free (tail);
        return 0;
    }
    /* Try the longest prefix first: j rows end the file if their joined
     * text is the last bytes read. */
    for (int j = n; j > 0 && !found; j--) {
        size_t len = 0, off;
        for (int i = 0; i < j; i++)
            len += strlen (rows[i].text) + 1;
        if (len > want)
            continue;
        off = want - len;
        found = j;
        for (int i = 0; i < j && found; i++) {
            size_t l = strlen (rows[i].text);
            if (memcmp (tail + off, rows[i].text, l) != 0 || tail[off + l] != '\n')
                found = 0;
            off += l + 1;
        }
    }
    free (tail);
    return found;
}

/* A line cut short by a crash is dropped: its record is in the outbox. */
static off_t acct_cut_torn (int fd, const char *path)
{
    struct stat sb;
    off_t end;
    char c;

    if (fstat (fd, &sb) < 0)
        return -1;
    for (end = sb.st_size; end > 0; end--) {
        if (pread (fd, &c, 1, end - 1) != 1)
            return -1;
        if (c == '\n')
            break;
    }
    if (end < sb.st_size) {
        log_msg (LOG_WARNING,
                 "accounting: %s ended in a torn record (%lld bytes): "
                 "cut off and written again",
                 path, (long long)(sb.st_size - end));
        if (ftruncate (fd, end) < 0)
            return -1;
    }
    return end;
}

/* Write rows[0..n) (one day's, in order) that day's file lacks. */
static int acct_catch_up_day (struct accounting *a, struct pending_row *rows, int n,
                              int *written)
{
    char path[4200];
    int fd, have, rc = -1;
    off_t size;

    snprintf (path, sizeof (path), "%s/%s", a->dir, rows[0].day);
    if ((fd = open (path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0)
        return -1;
    if ((size = acct_cut_torn (fd, path)) < 0)
        goto out;
    have = acct_present (fd, size, rows, n);
    for (int i = have; i < n; i++) {
        if (util_write_all (fd, rows[i].text, strlen (rows[i].text)) < 0
            || util_write_all (fd, "\n", 1) < 0)
            goto out;
    }
    if (fdatasync (fd) < 0)
        goto out;
    *written += n - have;
    rc = 0;
out:
    close (fd);
    return rc;
}

static int acct_catch_up (struct accounting *a, struct hpcq_error *err)
{
    sqlite3_stmt *st = db_stmt (a->srv->db, sql_outbox_all);
    struct pending_row *rows = NULL;
    int n = 0, cap = 0, rc = 0, written = 0, sqlrc;
    int64_t last = 0;

    if (!st)
        return errprintf (err, "accounting: cannot read the outbox");
    while ((sqlrc = sqlite3_step (st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            rows = xrealloc (rows, cap * sizeof (*rows));
        }
        rows[n].id = sqlite3_column_int64 (st, 0);
        acct_record_day (sqlite3_column_int64 (st, 1), rows[n].day,
                         sizeof (rows[n].day));
        rows[n].text = xstrdup ((const char *)sqlite3_column_text (st, 2));
        last = rows[n].id;
        n++;
    }
    sqlite3_reset (st);
    a->next_id = last + 1;
    if (sqlrc != SQLITE_DONE)
        rc = errprintf (err, "accounting: cannot read the outbox");
    /* Each day's rows in order: consecutive runs of one day. */
    for (int i = 0, j; rc == 0 && i < n; i = j) {
        for (j = i + 1; j < n && strcmp (rows[j].day, rows[i].day) == 0; j++)
            ;
        if (acct_catch_up_day (a, rows + i, j - i, &written) < 0)
            rc = errprintf (err, "accounting: cannot write %s/%s: %s", a->dir,
                            rows[i].day, strerror (errno));
    }
    if (rc == 0 && n > 0) {
        log_msg (LOG_INFO,
                 "accounting: %d records of the outbox were already in %s, "
                 "%d written now",
                 n - written, a->dir, written);
        a->written = a->synced = last;
        if (db_txn_ensure (a->srv->db) < 0
            || !(st = db_stmt (a->srv->db, sql_outbox_done)))
            rc = errprintf (err, "accounting: cannot empty the outbox");
        else {
            sqlite3_bind_int64 (st, 1, last);
            if (db_exec_stmt (a->srv->db, st) < 0)
                rc = errprintf (err, "accounting: cannot empty the outbox");
        }
    }
    for (int i = 0; i < n; i++)
        free (rows[i].text);
    free (rows);
    return rc;
}

/* ---- records ------------------------------------------------------------ */

static int64_t acct_query_int (struct accounting *a, const char *sql, int64_t seq,
                               int64_t dflt)
{
    sqlite3_stmt *st = db_stmt (a->srv->db, sql);
    int64_t v = dflt;

    if (!st)
        return dflt;
    sqlite3_bind_int64 (st, 1, seq);
    if (sqlite3_step (st) == SQLITE_ROW && sqlite3_column_type (st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64 (st, 0);
    sqlite3_reset (st);
    return v;
}

/* The attempt a record reports on: its times and usage, from the row
 * lifecycle wrote (so an R record has the hosts of the attempt that
 * ended, which the job itself no longer shows). */
static void acct_attempt (struct accounting *a, const struct job *job,
                          struct acct_fields *f, char *host, size_t len)
{
    sqlite3_stmt *st = db_stmt (a->srv->db, sql_attempt);

    if (!st)
        return;
    sqlite3_bind_int64 (st, 1, job->rec.seq);
    sqlite3_bind_int (st, 2, job->rec.run_count);
    if (sqlite3_step (st) == SQLITE_ROW) {
        f->start = sqlite3_column_int64 (st, 0);
        if (sqlite3_column_type (st, 1) != SQLITE_NULL)
            f->end = sqlite3_column_int64 (st, 1);
        f->cput = sqlite3_column_int64 (st, 2);
        f->walltime = sqlite3_column_int64 (st, 3);
        f->mem = sqlite3_column_int64 (st, 4);
        if (sqlite3_column_text (st, 5)) {
            snprintf (host, len, "%s", (const char *)sqlite3_column_text (st, 5));
            f->exec_host = host;
        }
        f->gpu_seconds = sqlite3_column_int64 (st, 6);
        f->gpu_util = sqlite3_column_double (st, 7);
        f->gpu_mem_peak = sqlite3_column_int64 (st, 8);
        f->gpu_energy_j = sqlite3_column_double (st, 9);
    }
    sqlite3_reset (st);
}

/* The job's part of every record but D and A. */
static void acct_job_fields (struct accounting *a, const struct job *job,
                             struct acct_fields *f, char *group, size_t glen)
{
    int64_t eligible = acct_query_int (a, sql_eligible, job->rec.seq, 0);

    if (!eligible && job->parent)
        eligible = acct_query_int (a, sql_eligible, job->parent->rec.seq, 0);
    acct_group (a, job->rec.uid, group, glen);
    f->id = job->id;
    f->user = job->rec.owner;
    f->group = group;
    f->account = job->spec.account;
    f->project = job->spec.project;
    f->jobname = job->spec.name ? job->spec.name : job->rec.name;
    f->queue = job->rec.queue;
    f->ctime = job->rec.ctime;
    f->qtime = job->rec.ctime;
    f->etime = eligible ? eligible : job->rec.ctime;
    f->start = job->rec.stime;
    f->exec_host = job->rec.exec_host;
    f->exec_vnode = job->rec.exec_vnode;
    f->res = &job->spec.res;
    f->session = job->rec.session_id;
    f->run_count = job->rec.run_count;
    f->ncpus = resource_total_ncpus (&job->spec.res);
}

/* Queue a record: into the outbox now, into its file after the commit. */
static int acct_emit (struct accounting *a, const struct acct_fields *f)
{
    char *text = acct_record_format (f);
    struct acct_line *l;
    sqlite3_stmt *st;

    if (!text)
        return -1;
    if (db_txn_ensure (a->srv->db) < 0
        || !(st = db_stmt (a->srv->db, sql_outbox_add))) {
        free (text);
        return -1;
    }
    sqlite3_bind_int64 (st, 1, f->time);
    sqlite3_bind_text (st, 2, text, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 3, a->next_id);
    if (db_exec_stmt (a->srv->db, st) < 0) {
        free (text);
        return -1;
    }
    l = xzalloc (sizeof (*l));
    l->id = a->next_id++;
    l->time = f->time;
    l->text = text;
    *a->tail = l;
    a->tail = &l->next;
    return 0;
}

/* Who the job is charged to, for hpcq-report (jobs.egroup, .account). */
static int acct_charge (struct accounting *a, const struct job *job, const char *group)
{
    sqlite3_stmt *st = db_stmt (a->srv->db, sql_charge);

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, job->rec.seq);
    sqlite3_bind_text (st, 2, group, -1, SQLITE_STATIC);
    if (job->spec.account)
        sqlite3_bind_text (st, 3, job->spec.account, -1, SQLITE_STATIC);
    return db_exec_stmt (a->srv->db, st);
}

/* What the attempt holds (attempts.ncpus, .ngpus, .mig) for usage reports. */
static int acct_held (struct accounting *a, const struct job *job)
{
    sqlite3_stmt *st = db_stmt (a->srv->db, sql_attempt_held);
    char mig[512] = "";
    int ncpus = 0, ngpus = 0, off = 0;

    if (!st || !job->alloc)
        return st ? 0 : -1;
    for (int i = 0; i < job->alloc->n; i++) {
        const struct alloc_slot *s = &job->alloc->slot[i];
        ncpus += s->ncpus;
        ngpus += s->ngpus;
    }
    for (int c = 0; c < job->spec.res.nchunks; c++) {
        const struct hpcq_chunk *ch = &job->spec.res.chunk[c];
        if (*chunk_mig (ch) && off < (int)sizeof (mig))
            off += snprintf (mig + off, sizeof (mig) - off, "%s%s*%d", off ? "," : "",
                             chunk_mig (ch), ch->count);
    }
    sqlite3_bind_int64 (st, 1, job->rec.seq);
    sqlite3_bind_int (st, 2, job->rec.run_count);
    sqlite3_bind_int (st, 3, ncpus);
    sqlite3_bind_int (st, 4, ngpus);
    if (mig[0])
        sqlite3_bind_text (st, 5, mig, -1, SQLITE_STATIC);
    return db_exec_stmt (a->srv->db, st);
}

/* PBS writes an array's E record only if the array had begun (a subjob
 * ran: OpenPBS chk_array_doneness).  Only split-out subjobs can have run
 * (array.h). */
static int acct_array_begun (const struct job *array)
{
    const struct job_array *arr = array->arr;

    for (int i = 0; arr && i < arr->nsub; i++)
        if (arr->sub[i]->rec.run_count > 0)
            return 1;
    return 0;
}

/* The record of an array's end: its range, when its first subjob began. */
static int acct_array_end (struct accounting *a, struct job *array, int64_t now)
{
    struct acct_fields f = { .type = ACCT_ENDED, .time = now };
    char group[64];
    int64_t start = 0;

    acct_job_fields (a, array, &f, group, sizeof (group));
    for (int i = 0; array->arr && i < array->arr->nsub; i++) {
        const struct job *sj = array->arr->sub[i];
        if (sj->rec.stime && (!start || sj->rec.stime < start))
            start = sj->rec.stime;
    }
    f.start = start;
    f.end = array->rec.etime ? array->rec.etime : now;
    f.array_indices = array->spec.array;
    f.exec_host = f.exec_vnode = NULL;
    f.exit_status = array->rec.exit_status;
    return acct_emit (a, &f);
}

/* E (or R) for the attempt that just ended, with A first when the server
 * gave up on it. */
static int acct_end (struct accounting *a, struct job *job, char type, int64_t now)
{
    struct acct_fields f = { .type = type, .time = now };
    char group[64], host[4096];

    if (type == ACCT_ENDED && job->rec.exit_status == JOB_EXEC_NODE_LOST) {
        struct acct_fields ab = { .type = ACCT_ABORTED,
                                  .time = now,
                                  .id = job->id,
                                  .text = job->rec.comment ? job->rec.comment
                                                           : "Job aborted" };
        if (acct_emit (a, &ab) < 0)
            return -1;
    }
    acct_job_fields (a, job, &f, group, sizeof (group));
    f.end = now;
    acct_attempt (a, job, &f, host, sizeof (host));
    f.exit_status = type == ACCT_RERUN ? JOB_EXEC_RERUN : job->rec.exit_status;
    return acct_emit (a, &f);
}

int accounting_job_event (struct accounting *a, struct job *job, char old,
                          enum job_event ev, const char *actor)
{
    struct acct_fields f = { .time = util_wall_secs () };
    char group[64], text[512];

    if (!a)
        return 0;
    switch (ev) {
    case JOB_EV_SUBMITTED:
        if (job->parent)
            return 0; /* an array is queued as one */
        f.type = ACCT_QUEUED;
        acct_job_fields (a, job, &f, group, sizeof (group));
        f.time = job->rec.ctime;
        f.array_indices = job->is_array ? job->spec.array : NULL;
        return acct_charge (a, job, group) < 0 ? -1 : acct_emit (a, &f);
    case JOB_EV_STARTED:
        f.type = ACCT_STARTED;
        acct_job_fields (a, job, &f, group, sizeof (group));
        return acct_held (a, job) < 0 ? -1 : acct_emit (a, &f);
    case JOB_EV_DELETED:
        /* A subjob that never ran is no job of its own to account for. */
        if (job->parent && job->rec.run_count == 0)
            return 0;
        snprintf (text, sizeof (text), "requestor=%s@%s", actor ? actor : "?",
                  a->srv->host);
        f.type = ACCT_DELETED;
        f.id = job->id;
        f.text = text;
        return acct_emit (a, &f);
    case JOB_EV_FINISHED:
        if (job->is_array)
            return acct_array_begun (job) ? acct_array_end (a, job, f.time) : 0;
        return acct_end (a, job, ACCT_ENDED, f.time);
    case JOB_EV_REQUEUED: return acct_end (a, job, ACCT_RERUN, f.time);
    default: return 0; /* holds, releases, alterations: no PBS record */
    }
}

/* ---- life --------------------------------------------------------------- */

/* The record of each change goes into the change's transaction. */
static int accounting_on_job (struct server *srv, struct job *job,
                              const struct lifecycle_event *ev, void *arg)
{
    if (ev->point != LC_RECORDED)
        return 0;
    return accounting_job_event (arg, job, ev->old, ev->event, ev->actor);
}

static const struct lifecycle_sub accounting_sub = { "accounting", accounting_on_job,
                                                     1 };

struct accounting *accounting_create (struct server *srv, struct hpcq_error *err)
{
    struct accounting *a = xzalloc (sizeof (*a));
    const char *state_dir = config_get (srv->cfg, "state_dir", ".");

    a->srv = srv;
    a->fd = -1;
    a->tail = &a->lines;
    snprintf (a->dir, sizeof (a->dir), "%s/accounting", state_dir);
    if (util_mkdir_p (a->dir) < 0) {
        errprintf (err, "cannot create %s: %s", a->dir, strerror (errno));
        goto error;
    }
    if (acct_catch_up (a, err) < 0)
        goto error;
    if (!(a->sync = loop_timer_add (srv->loop, 1000, 1000, acct_sync, a))
        || lifecycle_subscribe (srv, &accounting_sub, a) < 0) {
        errprintf (err, "event loop: %s", strerror (errno));
        goto error;
    }
    return a;
error:
    accounting_destroy (a);
    return NULL;
}

void accounting_destroy (struct accounting *a)
{
    if (!a)
        return;
    int saved = errno;
    struct acct_line *l, *next;

    /* What was appended goes to disk and leaves the outbox.  Records not
     * appended (their commit failed, or no commit came) are dropped: those
     * committed are still in the outbox, for the next start. */
    if (a->written > a->synced) {
        acct_sync (a->srv->loop, a);
        if (db_commit (a->srv->db) < 0)
            log_error ("accounting: the outbox keeps records already written; they "
                       "are matched with the file at the next start");
    }
    for (l = a->lines; l; l = next) {
        next = l->next;
        free (l->text);
        free (l);
    }
    loop_timer_remove (a->sync);
    if (a->fd >= 0)
        close (a->fd);
    free (a);
    errno = saved;
}

/* replica.c - see replica.h
 *
 * Traps of libraft 0.15 with SQLite, each handled here (issue 24):
 * entries are padded to a multiple of 8 bytes and raft_uv's auto-recovery
 * is off (an odd length wrote segments it could not read back, and
 * recovery then dropped committed entries); apply gets no index, so each
 * entry carries its own index and term; SIGPIPE is ignored (main.c);
 * after a lost leadership the outcome of an entry is unknown, so the
 * process starts again as a follower.  Snapshots are not taken yet (the
 * threshold is out of reach), so the log holds every entry from the
 * first, and a dirty file is rebuilt by replaying it.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <raft.h>
#include <raft/uv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db_repl.h"
#include "scheduler/replica.h"
#include "scheduler/replica_link.h"

#define REPLICA_MAX 9
#define ENTRY_MAGIC "hpcqrep1"

/* What precedes the changeset in a log entry. */
struct entry_hdr {
    char magic[8];
    uint64_t cluster; /* raft_digest of cluster_id */
    uint64_t index;
    uint64_t term;
    uint64_t len; /* of the changeset that follows */
};

enum phase { FOLLOWING, ELECTED, SERVING };

struct proposal {
    struct raft_apply req;
    struct replica *rep;
};

struct replica {
    struct loop *loop;
    struct config *cfg;
    char **argv;
    replica_leader_f leader;
    void *leader_arg;
    replica_commit_f commit;
    void *commit_arg;

    uv_loop_t uv;
    struct replica_link *link; /* the Raft links, authenticated */
    uint8_t key[256];
    size_t keylen;
    struct raft_io io;
    struct raft_fsm fsm;
    struct raft raft;
    struct raft_barrier barrier;
    struct loop_watch *watch;
    struct loop_timer *tick;
    int started; /* raft_init and raft_start done */
    int closing; /* replica_destroy: what raft cancels now is no loss */

    char addrs[REPLICA_MAX][256];
    int n;
    raft_id id;
    char cluster_id[128];
    uint64_t cluster;
    char state_dir[4096];
    char raft_dir[4200];
    char dirty_path[4200];
    char address_path[4200]; /* the server's: a follower has none */

    struct db *db; /* the follower's own handle, or the server's */
    int own_db;
    struct db_capture *cap;
    int64_t db_index, db_term; /* the entry the file holds last */
    int verified;              /* ... and the log has that entry */
    enum phase phase;
    int caught_up; /* the barrier applied: time to serve */
    int64_t proposed, committed;
};

int replica_configured (const struct config *cfg)
{
    return config_get (cfg, "replicas", NULL) != NULL;
}

/* The file may hold a write the cluster never committed: the next start
 * empties it and replays the log. */
static void mark_dirty (struct replica *rep)
{
    int fd = open (rep->dirty_path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

    if (fd < 0) {
        log_error ("cannot mark %s", rep->dirty_path);
        _exit (1);
    }
    (void)(fsync (fd), close (fd));
}

/* Start again as a follower (mark_dirty first with dirty).  Never
 * returns. */
static void replica_restart (struct replica *rep, int dirty, const char *why)
{
    log_msg (LOG_ERR, "replica %llu: %s; restarting as a follower%s",
             (unsigned long long)rep->id, why,
             dirty ? " with its database rebuilt from the log" : "");
    if (dirty)
        mark_dirty (rep);
    /* Clients and scripts look for the leader by its address file. */
    (void)unlink (rep->address_path);
    log_fini ();
    closefrom (3);
    execv ("/proc/self/exe", rep->argv);
    _exit (1);
}

static int parse_replicas (struct replica *rep, const char *list,
                           struct hpcq_error *err)
{
    const char *p = list;

    while (*p) {
        size_t len = strcspn (p, ",");
        const char *colon;
        char *end;
        long port;

        if (rep->n == REPLICA_MAX)
            return errprintf (err, "replicas: more than %d replicas", REPLICA_MAX);
        if (len == 0 || len >= sizeof (rep->addrs[0]))
            return errprintf (err, "replicas: bad list '%s' (HOST:PORT,HOST:PORT,...)",
                              list);
        memcpy (rep->addrs[rep->n], p, len);
        rep->addrs[rep->n][len] = '\0';
        colon = strrchr (rep->addrs[rep->n], ':');
        if (!colon || colon == rep->addrs[rep->n])
            return errprintf (err, "replicas: '%s' is not HOST:PORT",
                              rep->addrs[rep->n]);
        errno = 0;
        port = strtol (colon + 1, &end, 10);
        if (errno || *end || port < 1 || port > 65535)
            return errprintf (err, "replicas: '%s' has no valid port",
                              rep->addrs[rep->n]);
        for (int i = 0; i < rep->n; i++)
            if (strcmp (rep->addrs[i], rep->addrs[rep->n]) == 0)
                return errprintf (err, "replicas: '%s' is listed twice", rep->addrs[i]);
        rep->n++;
        p += len;
        if (*p == ',')
            p++;
    }
    if (rep->n == 0)
        return errprintf (err, "replicas: empty list");
    return 0;
}

static int replica_settings (struct replica *rep, struct hpcq_error *err)
{
    const char *id, *cid, *dir, *s;
    char *end;
    long v;

    if (parse_replicas (rep, config_get (rep->cfg, "replicas", ""), err) < 0)
        return -1;
    if (!(id = config_get (rep->cfg, "replica_id", NULL)))
        return errprintf (err, "replica_id is not set (this replica's place in "
                               "'replicas', from 1)");
    errno = 0;
    v = strtol (id, &end, 10);
    if (errno || *end || v < 1 || v > rep->n)
        return errprintf (err, "replica_id '%s' is not a place in 'replicas' (1 to %d)",
                          id, rep->n);
    rep->id = (raft_id)v;
    cid = config_get (rep->cfg, "cluster_id", "hpcq");
    if (!*cid || strlen (cid) >= sizeof (rep->cluster_id) || strpbrk (cid, " \t\n/"))
        return errprintf (err, "cluster_id '%s' must be a word of 1 to %zu characters",
                          cid, sizeof (rep->cluster_id) - 1);
    snprintf (rep->cluster_id, sizeof (rep->cluster_id), "%s", cid);
    rep->cluster = raft_digest (cid, strlen (cid));
    if (!(s = config_get (rep->cfg, "replica_key_file", NULL)))
        return errprintf (err,
                          "replica_key_file is not set (a secret of %d bytes or "
                          "more, the same file on every replica)",
                          REPLICA_KEY_MIN);
    if (replica_link_read_key (s, rep->key, sizeof (rep->key), &rep->keylen, err) < 0)
        return -1;
    if (!(dir = config_get (rep->cfg, "state_dir", NULL)))
        return errprintf (err, "state_dir is not set (config file or --state-dir)");
    snprintf (rep->state_dir, sizeof (rep->state_dir), "%s", dir);
    snprintf (rep->raft_dir, sizeof (rep->raft_dir), "%s/raft", dir);
    snprintf (rep->dirty_path, sizeof (rep->dirty_path), "%s/replica-dirty", dir);
    snprintf (rep->address_path, sizeof (rep->address_path), "%s/scheduler.address",
              dir);
    return 0;
}

/* state_dir/raft/cluster_id says whose the folder is: a folder of another
 * cluster is refused, never joined.  Returns 1 if the folder is new. */
static int replica_claim_dir (struct replica *rep, struct hpcq_error *err)
{
    char path[4300], have[128] = "";
    FILE *f;

    if (mkdir (rep->state_dir, 0700) < 0 && errno != EEXIST)
        return errprintf (err, "cannot make '%s': %s", rep->state_dir,
                          strerror (errno));
    if (mkdir (rep->raft_dir, 0700) < 0 && errno != EEXIST)
        return errprintf (err, "cannot make '%s': %s", rep->raft_dir, strerror (errno));
    snprintf (path, sizeof (path), "%s/cluster_id", rep->raft_dir);
    if ((f = fopen (path, "r"))) {
        if (!fgets (have, sizeof (have), f))
            have[0] = '\0';
        fclose (f);
        have[strcspn (have, "\n")] = '\0';
        if (strcmp (have, rep->cluster_id) != 0)
            return errprintf (err, "state_dir %s belongs to cluster '%s', not '%s'",
                              rep->state_dir, have, rep->cluster_id);
        return 0;
    }
    if (errno != ENOENT || !(f = fopen (path, "w"))
        || fprintf (f, "%s\n", rep->cluster_id) < 0 || fflush (f) != 0
        || fsync (fileno (f)) < 0) {
        if (f)
            fclose (f);
        return errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    }
    fclose (f);
    return 1;
}

/* The follower's own file: a dirty one (or one beside new Raft state,
 * which cannot vouch for it) is emptied, to be filled again from the log;
 * the mark goes only once that is done. */
static int replica_open_db (struct replica *rep, int new_dir, struct hpcq_error *err)
{
    char path[4300];
    int fresh, dirty = access (rep->dirty_path, F_OK) == 0;

    snprintf (path, sizeof (path), "%s/hpcq.sqlite", rep->state_dir);
    (void)unlink (rep->address_path);
    fresh = access (path, F_OK) < 0;
    if (!(rep->db = db_open (path, err)))
        return -1;
    rep->own_db = 1;
    if (!fresh && (dirty || new_dir)) {
        log_msg (LOG_WARNING,
                 "replica %llu: the database may hold writes the cluster never "
                 "committed; rebuilding it from the log",
                 (unsigned long long)rep->id);
        if (db_repl_reset (rep->db, err) < 0)
            return -1;
    } else if (fresh && db_repl_normalize (rep->db) < 0)
        return errprintf (err, "cannot prepare '%s'", path);
    if (dirty && unlink (rep->dirty_path) < 0)
        return errprintf (err, "cannot remove '%s': %s", rep->dirty_path,
                          strerror (errno));
    if (db_repl_state (rep->db, &rep->db_index, &rep->db_term) < 0)
        return errprintf (err, "cannot read the replica state of '%s'", path);
    rep->verified = rep->db_index == 0;
    log_msg (LOG_INFO, "replica %llu: database holds log entry %lld (term %lld)",
             (unsigned long long)rep->id, (long long)rep->db_index,
             (long long)rep->db_term);
    return 0;
}

/* Check the entry against the file: 1 to apply, 0 to skip (the file has
 * it), restart if the file and the log disagree. */
static int entry_check (struct replica *rep, const struct entry_hdr *h)
{
    char why[256];

    if (h->cluster != rep->cluster) {
        log_msg (LOG_ERR,
                 "replica %llu: log entry %llu is of another cluster (not '%s')",
                 (unsigned long long)rep->id, (unsigned long long)h->index,
                 rep->cluster_id);
        exit (1);
    }
    if ((int64_t)h->index < rep->db_index)
        return 0;
    if ((int64_t)h->index == rep->db_index) {
        if ((int64_t)h->term == rep->db_term) {
            rep->verified = 1;
            return 0;
        }
        snprintf (
            why, sizeof (why),
            "the database holds entry %lld of term %lld, the log's is of term %llu",
            (long long)rep->db_index, (long long)rep->db_term,
            (unsigned long long)h->term);
        replica_restart (rep, 1, why);
    }
    if (!rep->verified) {
        snprintf (why, sizeof (why),
                  "the database holds entry %lld of term %lld, which the log does not",
                  (long long)rep->db_index, (long long)rep->db_term);
        replica_restart (rep, 1, why);
    }
    if (rep->phase == SERVING) {
        log_msg (LOG_ERR,
                 "replica %llu: entry %llu committed past what the leader wrote",
                 (unsigned long long)rep->id, (unsigned long long)h->index);
        exit (1);
    }
    return 1;
}

static int fsm_apply (struct raft_fsm *fsm, const struct raft_buffer *buf,
                      void **result)
{
    struct replica *rep = fsm->data;
    struct hpcq_error err;
    struct entry_hdr h;

    *result = NULL;
    if (buf->len < sizeof (h) || memcmp (buf->base, ENTRY_MAGIC, 8) != 0) {
        log_msg (LOG_ERR, "replica %llu: a log entry that is not hpcq's",
                 (unsigned long long)rep->id);
        exit (1);
    }
    memcpy (&h, buf->base, sizeof (h));
    if (h.len > buf->len - sizeof (h)) {
        log_msg (LOG_ERR, "replica %llu: log entry %llu is cut short",
                 (unsigned long long)rep->id, (unsigned long long)h.index);
        exit (1);
    }
    if (!entry_check (rep, &h))
        return 0;
    if (db_repl_apply (rep->db, (const char *)buf->base + sizeof (h), (int)h.len,
                       (int64_t)h.index, (int64_t)h.term, &err)
        < 0) {
        /* The file is not what the log says: never serve from it. */
        replica_restart (rep, 1, err.text);
    }
    rep->db_index = (int64_t)h.index;
    rep->db_term = (int64_t)h.term;
    return 0;
}

/* Snapshots are not taken yet (the threshold is out of reach): a call
 * would be a bug, and fails loudly. */
static int fsm_snapshot (struct raft_fsm *fsm, struct raft_buffer *bufs[], unsigned *n)
{
    log_msg (LOG_ERR, "replica: snapshots are not supported yet");
    return RAFT_NOTFOUND;
}

static int fsm_restore (struct raft_fsm *fsm, struct raft_buffer *buf)
{
    log_msg (LOG_ERR, "replica: cannot install a snapshot (not supported yet)");
    exit (1);
}

static void barrier_done (struct raft_barrier *req, int status)
{
    struct replica *rep = req->data;
    char why[160];

    if (rep->closing)
        return;
    if (status != 0) {
        snprintf (why, sizeof (why), "barrier failed: %s", raft_strerror (status));
        replica_restart (rep, 0, why);
    }
    if (!rep->verified) {
        snprintf (why, sizeof (why),
                  "the database holds entry %lld of term %lld, which the log does not",
                  (long long)rep->db_index, (long long)rep->db_term);
        replica_restart (rep, 1, why);
    }
    rep->caught_up = 1;
}

/* Raft's state, looked at after each of its turns. */
static void replica_watch_state (struct replica *rep)
{
    int st = raft_state (&rep->raft);

    if (rep->phase == FOLLOWING && st == RAFT_LEADER) {
        log_msg (LOG_INFO, "replica %llu: elected leader in term %llu; catching up",
                 (unsigned long long)rep->id,
                 (unsigned long long)rep->raft.current_term);
        rep->phase = ELECTED;
        rep->barrier.data = rep;
        if (raft_barrier (&rep->raft, &rep->barrier, barrier_done) != 0)
            replica_restart (rep, 0, "cannot run a barrier");
        return;
    }
    if (rep->phase != FOLLOWING && st != RAFT_LEADER)
        replica_restart (rep, rep->proposed > rep->committed,
                         rep->proposed > rep->committed
                             ? "lost the leadership with entries of unknown outcome"
                             : "lost the leadership");
    if (rep->phase == ELECTED && rep->caught_up) {
        rep->phase = SERVING;
        log_msg (LOG_INFO,
                 "replica %llu: leader with every committed entry (%lld); serving",
                 (unsigned long long)rep->id, (long long)rep->db_index);
        /* The server opens the file itself (replica_attach). */
        db_close (rep->db);
        rep->db = NULL;
        rep->own_db = 0;
        rep->leader (rep, rep->leader_arg);
    }
}

static void replica_pump (struct replica *rep)
{
    uv_run (&rep->uv, UV_RUN_NOWAIT);
    if (rep->started)
        replica_watch_state (rep);
}

static void on_uv_fd (struct loop *l, int fd, int revents, void *arg)
{
    replica_pump (arg);
}

static void on_tick (struct loop *l, void *arg)
{
    replica_pump (arg);
}

static int replica_bootstrap (struct replica *rep, struct hpcq_error *err)
{
    struct raft_configuration conf;
    int rc = 0;

    raft_configuration_init (&conf);
    for (int i = 0; i < rep->n && rc == 0; i++)
        rc =
            raft_configuration_add (&conf, (raft_id)(i + 1), rep->addrs[i], RAFT_VOTER);
    if (rc == 0)
        rc = raft_bootstrap (&rep->raft, &conf);
    raft_configuration_close (&conf);
    if (rc != 0 && rc != RAFT_CANTBOOTSTRAP)
        return errprintf (err, "raft bootstrap: %s", raft_strerror (rc));
    return 0;
}

static int replica_start_raft (struct replica *rep, struct hpcq_error *err)
{
    const char *addr = rep->addrs[rep->id - 1];
    int64_t election, heartbeat;
    int rc;

    if (config_get_int (rep->cfg, "replica_election_ms", 1000, 100, 60000, &election,
                        err)
            < 0
        || config_get_int (rep->cfg, "replica_heartbeat_ms", 100, 10, 10000, &heartbeat,
                           err)
               < 0)
        return -1;
    if (uv_loop_init (&rep->uv) != 0)
        return errprintf (err, "libuv: cannot make a loop");
    if (!(rep->link = replica_link_create (&rep->uv, addr, rep->key, rep->keylen,
                                           rep->cluster_id, err)))
        return -1;
    explicit_bzero (rep->key, sizeof (rep->key));
    if ((rc = raft_uv_init (&rep->io, &rep->uv, rep->raft_dir,
                            replica_link_transport (rep->link)))
        != 0)
        return errprintf (err, "raft storage in %s: %s", rep->raft_dir,
                          raft_strerror (rc));
    raft_uv_set_auto_recovery (&rep->io, false);
    rep->fsm.version = 1;
    rep->fsm.data = rep;
    rep->fsm.apply = fsm_apply;
    rep->fsm.snapshot = fsm_snapshot;
    rep->fsm.restore = fsm_restore;
    if ((rc = raft_init (&rep->raft, &rep->io, &rep->fsm, rep->id, addr)) != 0)
        return errprintf (err, "raft: %s", raft_strerror (rc));
    raft_set_election_timeout (&rep->raft, (unsigned)election);
    raft_set_heartbeat_timeout (&rep->raft, (unsigned)heartbeat);
    raft_set_snapshot_threshold (&rep->raft, UINT_MAX);
    raft_set_pre_vote (&rep->raft, true);
    if (replica_bootstrap (rep, err) < 0)
        return -1;
    if ((rc = raft_start (&rep->raft)) != 0)
        return errprintf (err, "raft start on %s: %s", addr, raft_errmsg (&rep->raft));
    rep->started = 1;
    if (!(rep->watch = loop_fd_add (rep->loop, uv_backend_fd (&rep->uv), LOOP_READ,
                                    on_uv_fd, rep))
        || !(rep->tick = loop_timer_add (rep->loop, 10, 10, on_tick, rep)))
        return errprintf (err, "event loop: %s", strerror (errno));
    log_msg (LOG_INFO, "replica %llu of %d in cluster '%s' at %s: following",
             (unsigned long long)rep->id, rep->n, rep->cluster_id, addr);
    return 0;
}

struct replica *replica_create (struct loop *loop, struct config *cfg, char **argv,
                                replica_leader_f leader, void *arg,
                                struct hpcq_error *err)
{
    struct replica *rep = xzalloc (sizeof (*rep));
    int new_dir;

    rep->loop = loop;
    rep->cfg = cfg;
    rep->argv = argv;
    rep->leader = leader;
    rep->leader_arg = arg;
    if (replica_settings (rep, err) < 0 || (new_dir = replica_claim_dir (rep, err)) < 0
        || replica_open_db (rep, new_dir, err) < 0
        || replica_start_raft (rep, err) < 0) {
        replica_destroy (rep);
        return NULL;
    }
    return rep;
}

static void raft_closed (struct raft *r)
{
}

void replica_destroy (struct replica *rep)
{
    if (!rep)
        return;
    int saved = errno;
    if (rep->tick)
        loop_timer_remove (rep->tick);
    if (rep->watch)
        loop_fd_remove (rep->watch);
    rep->closing = 1;
    if (rep->started) {
        raft_close (&rep->raft, raft_closed);
        uv_run (&rep->uv, UV_RUN_DEFAULT);
        raft_uv_close (&rep->io);
        replica_link_destroy (rep->link);
        uv_loop_close (&rep->uv);
    }
    db_capture_destroy (rep->cap);
    if (rep->own_db)
        db_close (rep->db);
    free (rep);
    errno = saved;
}

static void proposal_done (struct raft_apply *req, int status, void *result)
{
    struct proposal *p = req->data;
    struct replica *rep = p->rep;
    int64_t index = (int64_t)req->index;

    free (p);
    if (status != 0 && rep->closing) {
        /* Going down with an entry whose fate is unknown: the next start
         * rebuilds the file from the log. */
        mark_dirty (rep);
        return;
    }
    if (status != 0) {
        char why[160];
        snprintf (why, sizeof (why), "entry %lld: %s", (long long)index,
                  raft_strerror (status));
        replica_restart (rep, 1, why);
    }
    if (index > rep->committed)
        rep->committed = index;
    if (rep->commit)
        rep->commit (rep->commit_arg, rep->committed);
}

/* In db_commit, before COMMIT: the transaction becomes the next log
 * entry.  Proposed before the local COMMIT, so a refusal (no longer the
 * leader) rolls it back and nothing diverges. */
static int commit_before (struct db *db, void *arg)
{
    struct replica *rep = arg;
    struct raft_buffer buf = { 0 };
    struct proposal *p;
    struct entry_hdr h = { .magic = ENTRY_MAGIC };
    void *cs = NULL;
    int len = 0, rc;

    if (db_capture_empty (rep->cap))
        return 0;
    h.cluster = rep->cluster;
    h.index = raft_last_index (&rep->raft) + 1;
    h.term = rep->raft.current_term;
    if (db_repl_state_set (db, (int64_t)h.index, (int64_t)h.term) < 0
        || db_capture_take (rep->cap, &cs, &len) < 0)
        return -1;
    h.len = (uint64_t)len;
    /* A multiple of 8 bytes (trap 1: libraft only asserts it). */
    buf.len = (sizeof (h) + (size_t)len + 7) & ~(size_t)7;
    if (!(buf.base = raft_calloc (1, buf.len))) {
        sqlite3_free (cs);
        errno = ENOMEM;
        return -1;
    }
    memcpy (buf.base, &h, sizeof (h));
    memcpy ((char *)buf.base + sizeof (h), cs, (size_t)len);
    sqlite3_free (cs);
    p = xzalloc (sizeof (*p));
    p->rep = rep;
    p->req.data = p;
    if ((rc = raft_apply (&rep->raft, &p->req, &buf, 1, proposal_done)) != 0) {
        raft_free (buf.base);
        free (p);
        replica_restart (rep, 0, raft_strerror (rc));
    }
    if (raft_last_index (&rep->raft) != h.index) {
        log_msg (LOG_ERR, "replica: entry %llu went to index %llu",
                 (unsigned long long)h.index,
                 (unsigned long long)raft_last_index (&rep->raft));
        exit (1);
    }
    rep->proposed = rep->db_index = (int64_t)h.index;
    rep->db_term = (int64_t)h.term;
    return 0;
}

static void commit_rolled_back (struct db *db, void *arg)
{
    struct replica *rep = arg;

    if (db_capture_reset (rep->cap) < 0)
        exit (1);
}

static const struct db_commit_hook hook = {
    .before = commit_before,
    .rolled_back = commit_rolled_back,
};

int replica_attach (struct replica *rep, struct db *db, replica_commit_f commit,
                    void *arg)
{
    if (rep->phase != SERVING) {
        errno = EAGAIN;
        return -1;
    }
    if (!(rep->cap = db_capture_create (db)))
        return -1;
    rep->db = db;
    rep->commit = commit;
    rep->commit_arg = arg;
    db_set_commit_hook (db, &hook, rep);
    return 0;
}

void replica_detach (struct replica *rep)
{
    if (!rep || !rep->db || rep->own_db)
        return;
    db_set_commit_hook (rep->db, NULL, NULL);
    db_capture_destroy (rep->cap);
    rep->cap = NULL;
    rep->db = NULL;
    rep->commit = NULL;
}

int64_t replica_wait_index (const struct replica *rep)
{
    return rep->proposed > rep->committed ? rep->proposed : 0;
}

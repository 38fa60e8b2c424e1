/* config.c - see config.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/util.h"

#ifndef HPCQ_SYSCONFDIR
#define HPCQ_SYSCONFDIR "/etc"
#endif

/* Every key any hpcq program reads; docs/config.example explains each. */
static const char *known_keys[] = {
    /* scheduler */
    "server_name",
    "state_dir",
    "socket",
    "listen",
    "node_timeout",
    "fence_time",
    "ckpt_corrupt",
    "spot_max_reclaims",
    "spot_avoid_halflife",
    "checkpoint_cost_guess",
    "sched_interval_ms",
    /* replicas (scheduler/replica.h) */
    "replicas",
    "replica_id",
    "cluster_id",
    "replica_key_file",
    "replica_election_ms",
    "replica_heartbeat_ms",
    "max_array_size",
    "default_queue",
    "sched_policy",
    "default_walltime",
    "managers",
    "operators",
    "fairshare_halflife",
    "fairshare_gpu_weight",
    "priority_weight_queue",
    "priority_weight_job",
    "priority_weight_age",
    "priority_weight_fairshare",
    "priority_max_age",
    "metrics_listen",
    "metrics_job_gpu",
    "http_token_file",
    "job_history_enable",
    "job_history_duration",
    /* scheduler: private data and limits (docs/security.md) */
    "query_other_jobs",
    "max_queued",
    "max_queued_res.ncpus",
    "max_queued_res.mem",
    "max_queued_res.ngpus",
    "max_spec_size",
    "max_user_connections",
    "tcp_unidentified_max",
    "client_idle_timeout",
    "client_output_max",
    "node_down_grace",
    "sched_max_starts",
    "rl_enable",
    "rl_bucket_size",
    "rl_refill_rate",
    "rl_refill_period",
    /* scheduler: checkpoints, preemption, node classes, cost (docs/checkpoint.md) */
    "checkpoint_root",
    "checkpoint_keep",
    "checkpoint_keep_failed",
    "checkpoint_grace",
    "checkpoint_interval",
    "checkpoint_min_interval",
    "checkpoint_max_interval",
    "mtbi_prior",
    "price_per_hour",
    "ondemand_price_per_hour",
    "currency",
    "preempt_prio",
    "preempt_queue_prio",
    "preempt_order",
    "preempt_min_runtime",
    /* worker */
    "server",
    "node_name",
    "ncpus",
    "mem",
    "gpus",
    "gpu_model",
    "gpu_mem",
    "spool_dir",
    "heartbeat_interval",
    "usage_interval",
    "kill_delay",
    "labels",
    "mig_layout",
    "jobdir_root",
    "cgroup",
    "cgroup_prefix",
    "job_pids_max",
    "user_io_timeout",
    /* scheduler: elastic cloud nodes (power.h); worker: spot notices (notice.h) */
    "cloud_nodes",
    "resume_program",
    "suspend_program",
    "suspend_time",
    "suspend_timeout",
    "resume_timeout",
    "max_nodes_resuming",
    "notice_provider",
    "notice_url",
    "notice_token_url",
    "notice_interval",
    "health_check_program",
    "health_check_interval",
    "telemetry_interval",
    "tm_socket",
    "tm_port",
    "tm_keepalive",
    "tm_max_user_connections",
    "tm_unopened_per_addr",
    "tm_unopened_max",
    "tm_rsh_agent",
    "test_ib_sysfs_root",
    "topology_xml",
    "sim_gpu_util",
    "sim_gpu_power",
    "sim_gpu_mem_used",
    "container_runtime",
    "container_helper",
    "container_mount_allow",
    /* both */
    "log_file",
    "log_level",
    "acl_roots",
    /* both daemons (and munge_socket for the client commands) */
    "auth",
    "munge_socket",
    "munge_ttl",
    "service_user",
    "session_lifetime",
    NULL,
};

struct config_entry {
    char *key;
    char *value;
};

struct config {
    struct config_entry *v;
    int n;
};

struct config *config_create (void)
{
    return calloc (1, sizeof (struct config));
}

void config_destroy (struct config *cfg)
{
    if (!cfg)
        return;
    for (int i = 0; i < cfg->n; i++) {
        free (cfg->v[i].key);
        free (cfg->v[i].value);
    }
    free (cfg->v);
    free (cfg);
}

int config_set (struct config *cfg, const char *key, const char *value)
{
    char *v = strdup (value);
    struct config_entry *nv;

    if (!v)
        return -1;
    for (int i = 0; i < cfg->n; i++) {
        if (strcmp (cfg->v[i].key, key) == 0) {
            free (cfg->v[i].value);
            cfg->v[i].value = v;
            return 0;
        }
    }
    if (!(nv = realloc (cfg->v, (cfg->n + 1) * sizeof (*nv)))) {
        free (v);
        return -1;
    }
    cfg->v = nv;
    if (!(cfg->v[cfg->n].key = strdup (key))) {
        free (v);
        return -1;
    }
    cfg->v[cfg->n++].value = v;
    return 0;
}

const char *config_get (const struct config *cfg, const char *key, const char *dflt)
{
    for (int i = 0; cfg && i < cfg->n; i++)
        if (strcmp (cfg->v[i].key, key) == 0)
            return cfg->v[i].value;
    return dflt;
}

int config_get_int (const struct config *cfg, const char *key, int64_t dflt,
                    int64_t min, int64_t max, int64_t *out, struct hpcq_error *err)
{
    const char *s = config_get (cfg, key, NULL);

    if (!s) {
        *out = dflt;
        return 0;
    }
    if (util_parse_i64 (s, min, max, out) < 0)
        return errprintf (err, "%s: invalid value '%s' (want %lld..%lld)", key, s,
                          (long long)min, (long long)max);
    return 0;
}

/* Keys with a suffix of the administrator's choosing: a node class
 * ("mtbi_prior.spot = 6:00:00"). */
static const char *known_prefixes[] = { "mtbi_prior.", "price_per_hour.",
                                        "ondemand_price_per_hour.", NULL };

static int config_known (const char *key)
{
    for (int i = 0; known_keys[i]; i++)
        if (strcmp (key, known_keys[i]) == 0)
            return 1;
    for (int i = 0; known_prefixes[i]; i++) {
        size_t n = strlen (known_prefixes[i]);
        if (strncmp (key, known_prefixes[i], n) == 0 && key[n])
            return 1;
    }
    return 0;
}

int config_foreach (const struct config *cfg,
                    int (*cb) (const char *key, const char *value, void *arg),
                    void *arg)
{
    for (int i = 0; i < cfg->n; i++) {
        int rc = cb (cfg->v[i].key, cfg->v[i].value, arg);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static char *trim (char *s)
{
    char *e;
    while (isspace ((unsigned char)*s))
        s++;
    e = s + strlen (s);
    while (e > s && isspace ((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int config_line (struct config *cfg, const char *path, int lineno, char *line,
                        struct hpcq_error *err)
{
    char *hash = strchr (line, '#'), *eq, *key, *value;

    if (hash)
        *hash = '\0';
    line = trim (line);
    if (*line == '\0')
        return 0;
    if (!(eq = strchr (line, '='))) {
        errno = EINVAL;
        return errprintf (err, "%s:%d: expected 'key = value'", path, lineno);
    }
    *eq = '\0';
    key = trim (line);
    value = trim (eq + 1);
    if (!config_known (key)) {
        errno = EINVAL;
        return errprintf (err, "%s:%d: unknown key '%s'", path, lineno, key);
    }
    if (config_set (cfg, key, value) < 0)
        return errprintf (err, "%s: out of memory", path);
    return 0;
}

int config_load (struct config *cfg, const char *path, struct hpcq_error *err)
{
    char *text = util_read_file (path, 1 << 20, NULL), *line, *nl;
    int lineno = 0, rc = 0;

    if (!text)
        return errprintf (err, "cannot read config '%s': %s", path, strerror (errno));
    for (line = text; line && rc == 0; line = nl) {
        if ((nl = strchr (line, '\n')))
            *nl++ = '\0';
        rc = config_line (cfg, path, ++lineno, line, err);
    }
    free (text);
    return rc;
}

static const char *config_client_path (void)
{
    const char *path = getenv ("HPCQ_CONFIG");

    return path ? path : HPCQ_SYSCONFDIR "/hpcq.conf";
}

char *config_client_get (const char *key)
{
    struct config *cfg = config_create ();
    struct hpcq_error err;
    const char *v;
    char *value = NULL;

    if (cfg && config_load (cfg, config_client_path (), &err) == 0
        && (v = config_get (cfg, key, NULL)))
        value = strdup (v);
    config_destroy (cfg);
    return value;
}

char *config_client_server (struct hpcq_error *err)
{
    const char *path = config_client_path ();
    struct config *cfg;
    char *server = NULL;

    if (!(cfg = config_create ()))
        return NULL;
    if (config_load (cfg, path, err) == 0) {
        const char *s = config_get (cfg, "server", NULL);
        if (!s)
            s = config_get (cfg, "socket", NULL);
        if (s)
            server = strdup (s);
        else
            errprintf (err, "%s sets neither 'server' nor 'socket'", path);
    }
    config_destroy (cfg);
    return server;
}

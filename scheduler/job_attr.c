/* job_attr.c - see job_attr.h
 *
 * Attribute names, value formats and the order follow PBS Pro's qstat -f,
 * because workflow tools (Nextflow, Snakemake, dask-jobqueue, Parsl) parse
 * them.  Times are ctime strings, durations HH:MM:SS, sizes "4gb".
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "scheduler/ckpt.h"
#include "scheduler/cost.h"
#include "scheduler/job_attr.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/spot_choice.h"

static void set_str (json_t *o, const char *key, const char *value)
{
    if (value)
        json_object_set_new (o, key, json_string (value));
}

static void set_time (json_t *o, const char *key, int64_t secs)
{
    char buf[64];
    if (secs <= 0)
        return;
    util_format_ctime (secs, buf, sizeof (buf));
    json_object_set_new (o, key, json_string (buf));
}

static int state_substate (char state)
{
    switch (state) {
    case 'Q': return 10;
    case 'H': return 20;
    case 'W': return 30;
    case 'R': return 42;
    case 'E': return 51;
    case 'S': return 43;
    default: return 92;
    }
}

/* "host:/abs/path" as PBS shows output paths. */
static void set_path (json_t *o, const char *key, const struct job *job,
                      const char *pattern, char kind)
{
    const struct hpcq_jobspec *s = &job->spec;
    char buf[8800], expanded[4096], num[64];
    const char *given = NULL;
    long long seq = job->parent ? job->parent->rec.seq : job->rec.seq;
    int index = job->parent ? job->array_index : -1;

    /* A subjob's files are NAME.oN.I, as in PBS. */
    if (index >= 0)
        snprintf (num, sizeof (num), "%lld.%d", seq, index);
    else
        snprintf (num, sizeof (num), "%lld", seq);
    if (pattern) {
        jobspec_expand_path (pattern, seq, index, s->name, expanded, sizeof (expanded));
        given = expanded;
    }

    if (given && given[strlen (given) - 1] == '/')
        snprintf (buf, sizeof (buf), "%s:%s%s%s%s.%c%s", s->submit_host,
                  given[0] == '/' ? "" : s->workdir, given[0] == '/' ? "" : "/", given,
                  s->name, kind, num);
    else if (given && given[0] == '/')
        snprintf (buf, sizeof (buf), "%s:%s", s->submit_host, given);
    else if (given)
        snprintf (buf, sizeof (buf), "%s:%s/%s", s->submit_host, s->workdir, given);
    else
        snprintf (buf, sizeof (buf), "%s:%s/%s.%c%s", s->submit_host, s->workdir,
                  s->name, kind, num);
    json_object_set_new (o, key, json_string (buf));
}

static json_t *resource_list (const struct job *job)
{
    const struct hpcq_resources *res = &job->spec.res;
    json_t *o = json_object ();
    char buf[512];

    json_object_set_new (o, "ncpus", json_integer (resource_total_ncpus (res)));
    if (resource_total_mem (res) > 0) {
        resource_format_size (resource_total_mem (res), buf, sizeof (buf));
        json_object_set_new (o, "mem", json_string (buf));
    }
    if (resource_total_ngpus (res) > 0)
        json_object_set_new (o, "ngpus", json_integer (resource_total_ngpus (res)));
    json_object_set_new (o, "nodect", json_integer (resource_total_chunks (res)));
    json_object_set_new (o, "place", json_string (res->place[0] ? res->place : "free"));
    resource_format_select (res, buf, sizeof (buf));
    json_object_set_new (o, "select", json_string (buf));
    if (res->walltime >= 0) {
        resource_format_walltime (res->walltime, buf, sizeof (buf));
        json_object_set_new (o, "walltime", json_string (buf));
    }
    if (res->spot >= 0)
        json_object_set_new (o, "spot", json_string (res->spot ? "True" : "False"));
    else if (res->spot_want == RES_SPOT_PREFER || res->spot_want == RES_SPOT_AVOID)
        json_object_set_new (o, "spot",
                             json_string (res->spot_want == RES_SPOT_PREFER ? "prefer"
                                                                            : "avoid"));
    if (res->gpu_bind[0])
        json_object_set_new (o, "gpu_bind", json_string (res->gpu_bind));
    if (res->cpu_bind[0])
        json_object_set_new (o, "cpu_bind", json_string (res->cpu_bind));
    if (res->container_image)
        json_object_set_new (o, "container_image", json_string (res->container_image));
    if (res->container_mounts)
        json_object_set_new (o, "container_mounts",
                             json_string (res->container_mounts));
    if (res->container_workdir)
        json_object_set_new (o, "container_workdir",
                             json_string (res->container_workdir));
    return o;
}

static json_t *variable_list (const struct job *job)
{
    json_t *o = json_object ();

    for (int i = 0; i < job->spec.nenv; i++) {
        const char *kv = job->spec.env[i], *eq = strchr (kv, '=');
        char key[256];
        if (!eq || (size_t)(eq - kv) >= sizeof (key))
            continue;
        memcpy (key, kv, eq - kv);
        key[eq - kv] = '\0';
        json_object_set_new (o, key, json_string (eq + 1));
    }
    return o;
}

/* Running (or suspended): resources_used shows what it used so far. */
static int job_attr_running (const struct job *job)
{
    return job->alloc && job->rec.stime > 0
           && (job->rec.state == 'R' || job->rec.state == 'S');
}

/* resources_used of a running job, as PBS updates it while the job runs:
 * cput and mem as its node last reported them (node.usage), ncpus,
 * walltime since it started, and its GPU figures so far if it has GPUs. */
static json_t *used_so_far (const struct job *job)
{
    char cpu[32], wall[32], mem[32];
    int64_t elapsed = util_wall_secs () - job->rec.stime;
    json_t *o;

    resource_format_walltime (job->used_cput > 0 ? job->used_cput : 0, cpu,
                              sizeof (cpu));
    resource_format_walltime (elapsed > 0 ? elapsed : 0, wall, sizeof (wall));
    resource_format_size (job->used_mem > 0 ? job->used_mem : 0, mem, sizeof (mem));
    o = json_pack ("{s:s s:s s:i s:s}", "cput", cpu, "mem", mem, "ncpus",
                   resource_total_ncpus (&job->spec.res), "walltime", wall);
    if (o && job->gpu_live)
        gpu_usage_attrs (o, &job->gpu_live->total);
    return o;
}

/* The first attributes of qstat -f, in PBS's order. */
json_t *job_attr_summary (struct server *srv, const struct job *job)
{
    json_t *o = json_object ();
    char owner[384];

    if (!o)
        return NULL;
    snprintf (owner, sizeof (owner), "%s@%s", job->rec.owner, job->spec.submit_host);
    set_str (o, "Job_Name", job->spec.name);
    set_str (o, "Job_Owner", owner);
    if (job->rec.resources_used) {
        json_t *ru = json_loads (job->rec.resources_used, 0, NULL);
        if (ru)
            json_object_set_new (o, "resources_used", ru);
    } else if (job_attr_running (job))
        json_object_set_new (o, "resources_used", used_so_far (job));
    {
        char state = job_state_display (job);
        json_object_set_new (o, "job_state", json_stringn (&state, 1));
    }
    set_str (o, "queue", job->rec.queue);
    return o;
}

/* What PBS's job tables (qstat, -a, -n, -s, -t) and Slurm's squeue show
 * of any job: who, what, where, when, how big, and why it waits.  An
 * allow-list, so that an attribute added later stays private until it is
 * put here on purpose. */
static const char *public_attrs[] = {
    "Job_Name",
    "Job_Owner",
    "resources_used",
    "job_state",
    "queue",
    "server",
    "Checkpoint",
    "ctime",
    "exec_host",
    "exec_vnode",
    "exec_binding",
    "Hold_Types",
    "mtime",
    "Priority",
    "qtime",
    "Rerunable",
    "Resource_List",
    "stime",
    "substate",
    "comment",
    "estimated",
    "etime",
    "run_count",
    "Exit_status",
    "obittime",
    "project",
    "array",
    "array_indices_submitted",
    "array_state_count",
    "array_id",
    "array_index",
    NULL,
};

json_t *job_attr_public (struct server *srv, const struct job *job)
{
    json_t *all = job_attr_json (srv, job), *o = all ? json_object () : NULL, *v;

    for (int i = 0; o && public_attrs[i]; i++)
        if ((v = json_object_get (all, public_attrs[i])))
            json_object_set (o, public_attrs[i], v);
    json_decref (all);
    return o;
}

/* s with tabs and newlines as spaces: they separate a row's values. */
static void put_field (FILE *f, const char *s, int sep)
{
    for (; *s; s++)
        putc (*s == '\t' || *s == '\n' ? ' ' : *s, f);
    putc (sep, f);
}

int job_attr_row (FILE *f, const struct job *job)
{
    const char *cput = "0";
    char live[32];
    json_t *ru = NULL;

    if (job->rec.resources_used && (ru = json_loads (job->rec.resources_used, 0, NULL))
        && json_string_value (json_object_get (ru, "cput")))
        cput = json_string_value (json_object_get (ru, "cput"));
    else if (job_attr_running (job) && job->used_cput >= 0) {
        resource_format_walltime (job->used_cput, live, sizeof (live));
        cput = live;
    }
    put_field (f, job->id, '\t');
    put_field (f, job->rec.name ? job->rec.name : "", '\t');
    put_field (f, job->rec.owner, '\t');
    put_field (f, cput, '\t');
    putc (job_state_display (job), f);
    putc ('\t', f);
    put_field (f, job->rec.queue, '\n');
    json_decref (ru);
    return ferror (f) ? -1 : 0;
}

/* What PBS Pro shows for an array: that it is one, its range, and how
 * many subjobs are in each state. */
static void job_attr_array (json_t *o, const struct job *job)
{
    char counts[128];

    array_state_count (job, counts, sizeof (counts));
    set_str (o, "array", "True");
    set_str (o, "array_indices_submitted", job->spec.array);
    set_str (o, "array_state_count", counts);
}

/* Why a queued job waits where it does: its effective priority from the
 * last scheduling pass and each factor's share of it (qstat(1)). */
static void job_attr_priority (json_t *o, const struct job *job)
{
    const struct priority_factors *f = &job->prio_f;
    json_t *p = json_object (), *fs = json_object ();
    char factor[32];

    json_object_set_new (p, "total", json_integer (llround (job->prio)));
    json_object_set_new (p, "queue", json_integer (llround (f->queue)));
    json_object_set_new (p, "job", json_integer (llround (f->job)));
    json_object_set_new (p, "age", json_integer (llround (f->age)));
    json_object_set_new (p, "fairshare", json_integer (llround (f->fairshare)));
    json_object_set_new (o, "sched_priority", p);
    snprintf (factor, sizeof (factor), "%.4f", f->fs_factor);
    json_object_set_new (fs, "usage", json_integer (llround (f->usage)));
    json_object_set_new (fs, "factor", json_string (factor));
    json_object_set_new (o, "fairshare", fs);
}

/* resources_used.cost: what its attempts cost so far (cost.h). */
static void job_attr_cost (struct server *srv, const struct job *job, json_t *o)
{
    json_t *ru = json_object_get (o, "resources_used");
    char text[32];

    if (!ru) {
        ru = json_object ();
        json_object_set_new (o, "resources_used", ru);
    }
    snprintf (text, sizeof (text), "%.4f", cost_job (srv, job));
    json_object_set_new (ru, "cost", json_string (text));
}

/* As PBS shows it: the octal digits (22 for 022); PBS's 077 when qsub
 * was not given -W umask. */
static void set_umask (json_t *o, int umask)
{
    char text[16];

    snprintf (text, sizeof (text), "%o", (unsigned)(umask >= 0 ? umask : 077) & 0777);
    set_str (o, "umask", text);
}

json_t *job_attr_json (struct server *srv, const struct job *job)
{
    const struct hpcq_jobspec *s = &job->spec;
    json_t *o = job_attr_summary (srv, job);
    static const char *join[] = { "n", "oe", "eo" };

    if (!o)
        return NULL;
    set_str (o, "server", srv->name);
    ckpt_attr_json (srv, job, o);
    set_time (o, "ctime", job->rec.ctime);
    set_path (o, "Error_Path", job, s->error_path, 'e');
    set_str (o, "exec_host", job->rec.exec_host);
    set_str (o, "exec_vnode", job->rec.exec_vnode);
    if (job->binding && job->alloc) {
        char *b = alloc_format_binding (job->alloc, job->binding);
        set_str (o, "exec_binding", b);
        free (b);
    }
    set_str (o, "Hold_Types", job->rec.hold_types);
    set_str (o, "Join_Path", join[s->join % 3]);
    set_str (o, "Keep_Files", "n");
    set_str (o, "Mail_Points", s->mail_points ? s->mail_points : "a");
    set_str (o, "Mail_Users", s->mail_users);
    set_time (o, "mtime", job->rec.mtime);
    set_path (o, "Output_Path", job, s->output_path, 'o');
    json_object_set_new (o, "Priority", json_integer (job->rec.priority));
    set_time (o, "qtime", job->rec.ctime);
    set_str (o, "Rerunable", s->rerunnable ? "True" : "False");
    set_umask (o, s->umask);
    json_object_set_new (o, "Resource_List", resource_list (job));
    set_time (o, "stime", job->rec.stime);
    if (job->rec.session_id)
        json_object_set_new (o, "session_id", json_integer (job->rec.session_id));
    set_str (o, "jobdir", s->workdir);
    json_object_set_new (o, "substate", json_integer (state_substate (job->rec.state)));
    json_object_set_new (o, "Variable_List", variable_list (job));
    set_str (o, "comment", job->rec.comment);
    if (job->rec.state == 'Q')
        job_attr_priority (o, job);
    {
        /* The reservation backfill holds for it (estimated.start_time),
         * and where its expected cost sends it (estimated.spot, .cost). */
        json_t *est = json_object ();
        if (job->rec.state == 'Q' && job->est_start > 0)
            set_time (est, "start_time", job->est_start);
        spot_choice_attr_json (job, est);
        if (json_object_size (est) > 0)
            json_object_set_new (o, "estimated", est);
        else
            json_decref (est);
    }
    set_time (o, "etime", job->rec.ctime);
    json_object_set_new (o, "run_count", json_integer (job->rec.run_count));
    if (job->rec.run_count > 0)
        job_attr_cost (srv, job, o);
    if (job->rec.has_exit)
        json_object_set_new (o, "Exit_status", json_integer (job->rec.exit_status));
    set_str (o, "Submit_arguments", s->submit_args);
    set_str (o, "Account_Name", s->account);
    set_str (o, "depend", s->depend);
    set_time (o, "obittime", job->rec.state == 'F' ? job->rec.etime : 0);
    set_str (o, "project", s->project ? s->project : "_pbs_project_default");
    set_str (o, "Shell_Path_List", s->shell);
    set_str (o, "Keep_Files", s->keep_files);
    set_str (o, "Remove_Files", s->remove_files);
    set_str (o, "group_list", s->group_list);
    set_str (o, "stagein", s->stagein);
    set_str (o, "stageout", s->stageout);
    set_time (o, "Execution_Time", s->execution_time);
    set_str (o, "hpcq_uuid", job->rec.uuid);
    if (job->arr)
        job_attr_array (o, job);
    if (job->parent) {
        set_str (o, "array_id", job->parent->id);
        json_object_set_new (o, "array_index", json_integer (job->array_index));
        /* Slurm's own number for the task (jobs.c reserved them). */
        if (job->spec.slurm)
            json_object_set_new (o, "slurm_job_id",
                                 json_integer (job->parent->rec.seq + job->array_pos));
    }
    return o;
}

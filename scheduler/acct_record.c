/* acct_record.c - see acct_record.h
 *
 * The layout follows OpenPBS's src/server/accounting.c (acct_job,
 * account_jobend, write_account_record): facts of the format, written anew.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scheduler/acct_record.h"

/* v as PBS's cpy_quote_value writes it: as is, or quoted when it holds a
 * space; ';' and newlines (which would end the field or the line) become
 * spaces first. */
static void put_value (FILE *f, const char *v)
{
    int space = 0, dquote = 0;
    char q;

    for (const char *p = v; *p; p++) {
        space |= *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ';';
        dquote |= *p == '"';
    }
    q = dquote ? '\'' : '"';
    if (space)
        putc (q, f);
    for (const char *p = v; *p; p++)
        putc (*p == '\n' || *p == '\r' || *p == ';' || *p == '\t' ? ' ' : *p, f);
    if (space)
        putc (q, f);
}

static void put_str (FILE *f, const char *key, const char *v)
{
    if (!v)
        return;
    fprintf (f, "%s=", key);
    put_value (f, v);
    putc (' ', f);
}

/* Resource_List.* in name order, as PBS encodes the attribute. */
static void put_resource_list (FILE *f, const struct hpcq_resources *res)
{
    char buf[1024];
    int64_t mem = resource_total_mem (res);

    if (mem > 0) {
        resource_format_size (mem, buf, sizeof (buf));
        fprintf (f, "Resource_List.mem=%s ", buf);
    }
    fprintf (f, "Resource_List.ncpus=%d ", resource_total_ncpus (res));
    if (resource_total_ngpus (res) > 0)
        fprintf (f, "Resource_List.ngpus=%d ", resource_total_ngpus (res));
    fprintf (f, "Resource_List.nodect=%d ", resource_total_chunks (res));
    fprintf (f, "Resource_List.place=%s ", res->place[0] ? res->place : "free");
    resource_format_select (res, buf, sizeof (buf));
    put_str (f, "Resource_List.select", buf);
    if (res->walltime >= 0) {
        resource_format_walltime (res->walltime, buf, sizeof (buf));
        fprintf (f, "Resource_List.walltime=%s ", buf);
    }
}

/* The usage PBS appends to E and R records (account_jobend). */
static void put_usage (FILE *f, const struct acct_fields *a)
{
    char cput[32], wall[32];

    resource_format_walltime (a->cput, cput, sizeof (cput));
    resource_format_walltime (a->walltime, wall, sizeof (wall));
    fprintf (f,
             "session=%lld end=%lld Exit_status=%d resources_used.cput=%s "
             "resources_used.mem=%lldkb resources_used.ncpus=%d "
             "resources_used.walltime=%s run_count=%d",
             (long long)a->session, (long long)a->end, a->exit_status, cput,
             (long long)((a->mem + 1023) / 1024), a->ncpus, wall, a->run_count);
}

/* hpcq's GPU figures after PBS's usage (issue 26 part 3): absent for a job
 * that held no GPU, so records of CPU jobs read as PBS Pro writes them. */
static void put_gpu_usage (FILE *f, const struct acct_fields *a)
{
    if (a->gpu_seconds <= 0)
        return;
    fprintf (f,
             " resources_used.gpu_hours=%.6f resources_used.gpu_util_mean=%.1f "
             "resources_used.gpu_mem_peak=%lldkb resources_used.gpu_energy_j=%.0f",
             (double)a->gpu_seconds / 3600.0, a->gpu_util,
             (long long)((a->gpu_mem_peak + 1023) / 1024), a->gpu_energy_j);
}

/* What acct_job writes for Q, S, E and R records. */
static void put_job (FILE *f, const struct acct_fields *a)
{
    put_str (f, "user", a->user);
    put_str (f, "group", a->group);
    if (a->account) {
        /* PBS always quotes the account (ACCOUNT_FMT). */
        fputs ("account=\"", f);
        for (const char *p = a->account; *p; p++)
            putc (*p == '"' || *p == '\n' || *p == ';' ? ' ' : *p, f);
        fputs ("\" ", f);
    }
    /* After the account, as OpenPBS's src/server/accounting.c writes it
     * (-P allows no blanks, so never quoted). */
    if (a->project)
        put_str (f, "project", a->project);
    put_str (f, "jobname", a->jobname);
    put_str (f, "queue", a->queue);
    fprintf (f, "ctime=%lld qtime=%lld etime=%lld ", (long long)a->ctime,
             (long long)a->qtime, (long long)a->etime);
    if (a->type != ACCT_QUEUED)
        fprintf (f, "start=%lld ", (long long)a->start);
    if (a->array_indices)
        put_str (f, "array_indices", a->array_indices);
    else {
        put_str (f, "exec_host", a->exec_host);
        put_str (f, "exec_vnode", a->exec_vnode);
    }
    if (a->res)
        put_resource_list (f, a->res);
}

void acct_record_day (int64_t t, char *buf, int len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    localtime_r (&tt, &tm);
    snprintf (buf, len, "%04d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

char *acct_record_format (const struct acct_fields *a)
{
    time_t tt = (time_t)a->time;
    char *text = NULL;
    size_t len = 0;
    struct tm tm;
    FILE *f;

    if (!(f = open_memstream (&text, &len)))
        return NULL;
    localtime_r (&tt, &tm);
    fprintf (f, "%02d/%02d/%04d %02d:%02d:%02d;%c;", tm.tm_mon + 1, tm.tm_mday,
             tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, a->type);
    for (const char *p = a->id; *p; p++)
        putc (*p == ';' || *p == '\n' ? '_' : *p, f);
    putc (';', f);
    if (a->text) {
        for (const char *p = a->text; *p; p++)
            putc (*p == '\n' || *p == '\r' || *p == ';' ? ' ' : *p, f);
    } else {
        put_job (f, a);
        if (a->type == ACCT_ENDED || a->type == ACCT_RERUN) {
            put_usage (f, a);
            put_gpu_usage (f, a);
        }
    }
    if (fclose (f) != 0) {
        free (text);
        errno = ENOMEM;
        return NULL;
    }
    /* PBS's fields end in a space; the last one needs none. */
    while (len > 0 && text[len - 1] == ' ')
        text[--len] = '\0';
    return text;
}

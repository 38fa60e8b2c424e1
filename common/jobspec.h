/* jobspec.h - a job as the user submitted it.
 *
 * qsub builds one from #PBS directives and its command line, the wire
 * carries it as JSON (jobspec_to_json / jobspec_from_json), the scheduler
 * keeps it and the database stores that JSON.  It never changes after
 * submission except through qalter (a later issue).
 */
#ifndef HPCQ_COMMON_JOBSPEC_H
#define HPCQ_COMMON_JOBSPEC_H

#include <jansson.h>

#include "common/error.h"
#include "common/resource.h"

/* The largest request (its JSON text: script, environment, options) a
 * scheduler takes.  Every message that carries it must fit in one wire
 * message: qstat -f shows the environment, the arguments and the paths
 * (each at most the request; the working directory three times), and a
 * launch carries the whole request plus the node file.  A quarter of
 * WIRE_MAX_MSG leaves room for all of that. */
#define JOBSPEC_TEXT_MAX (2 * 1024 * 1024)

enum {
    JOIN_NONE = 0, /* -j n: separate .o and .e files */
    JOIN_OE = 1,   /* -j oe: stderr into stdout file */
    JOIN_EO = 2,   /* -j eo: stdout into stderr file */
};

struct hpcq_jobspec {
    char *name;  /* -N; default: script basename or "STDIN" */
    char *queue; /* -q; NULL = server default */
    struct hpcq_resources res;
    char *script;      /* full script text */
    char *workdir;     /* submission directory (PBS_O_WORKDIR) */
    char *submit_host; /* PBS_O_HOST */
    char *output_path; /* -o; NULL = WORKDIR/NAME.oNUM */
    char *error_path;  /* -e; NULL = WORKDIR/NAME.eNUM */
    int join;          /* JOIN_* */
    char **env;        /* "KEY=VALUE" strings: -v, -V and PBS_O_* */
    int nenv;
    int hold;                /* -h: submit with a user hold */
    int priority;            /* -p, -1024..1023 */
    char *depend;            /* -W depend=..., kept verbatim */
    char *account;           /* -A */
    int rerunnable;          /* -r y (1, default) | n (0) */
    char *mail_points;       /* -m, e.g. "abe" or "n" */
    char *mail_users;        /* -M */
    char *submit_args;       /* the qsub command line as typed, for qstat -f */
    char *array;             /* -J / -t / --array range, NULL = not an array */
    int array_opt;           /* the letter that set array ('J' or 't'), for
                                qsub's check that not both are given; not sent */
    char *sandbox;           /* -W sandbox=HOME|PRIVATE; NULL = HOME (PBS's
                             * default): PRIVATE runs the job in a scratch
                             * directory of its own, removed after it */
    char *signal;            /* sbatch --signal=[B:]SIG[@SECONDS]: SIG that
                             * many seconds (default 60) before the walltime,
                             * to the batch shell only with B: */
    char *checkpoint;        /* -c, canonical (common/ckptspec.h); NULL = "u" */
    char *checkpoint_signal; /* -W checkpoint_signal=SIG, its name ("USR2");
                                 * NULL = USR1 */
    int slurm;               /* submitted in Slurm's dialect (#SBATCH lines or
                             * sbatch): the job gets Slurm's variables */
    int block;               /* -W block=true: qsub waits for the job's end;
                             * qsub's alone, not sent to the scheduler */
    int quiet;               /* -z: qsub prints no job id; qsub's alone */
    int pooled;              /* its strings are the pool's (jobspec_pool):
                             * read them, never change or free them */
    int umask;               /* -W umask=NNN for the job's files, -1 = not given
                             * (the worker then uses PBS's 077) */
    char *shell;             /* -S: the shell the script runs under (its
                              * argument); NULL = its #! line, else /bin/sh */
    char *project;           /* -P; NULL = PBS's _pbs_project_default */
    char *keep_files;        /* -k: o, e, oe/eo, n or d (and d with o/e); with
                              * o or e (and no d) that file goes to the owner's
                              * home directory as NAME.oNUM / NAME.eNUM */
    char *remove_files;      /* -R: o, e or oe/eo: remove those files once the
                              * job has ended */
    char *group_list;        /* -W group_list=GROUP: the job's group (one the
                              * owner belongs to); NULL = their primary one */
    char *stagein;           /* -W stagein=local@host:remote,...; copied by the
                              * worker as the owner before the job runs */
    char *stageout;          /* -W stageout=..., copied back after it */
    int64_t execution_time;  /* -a: not before this time (epoch seconds); the
                              * job waits in state W until then; 0 = now */
};

/* Zero spec and set defaults (priority 0, rerunnable 1, umask -1,
 * resources init). */
void jobspec_init (struct hpcq_jobspec *spec);

/* Free what spec points to (not spec itself).  Safe on an init'ed spec. */
void jobspec_release (struct hpcq_jobspec *spec);

/* The -J range in a request's JSON text as jobspec_to_json writes it,
 * read without parsing the text (a scheduler restart learns which jobs
 * are arrays before it parses their requests): 0 with *range the range
 * (the caller frees it), 1 if the request is no array, -1 if the text
 * has it in a form this does not read (escaped: parse the text). */
int jobspec_text_array (const char *json, char **range);

/* Replace spec's strings by the pool's shared copies (common/strpool.h):
 * a scheduler holding many jobs keeps each repeated text once.  The spec
 * is read-only from then on but for jobspec_release, which returns them. */
void jobspec_pool (struct hpcq_jobspec *spec);

/* Set "KEY=VALUE" in spec->env, replacing an existing KEY.  Returns 0 or -1
 * (ENOMEM). */
int jobspec_setenv (struct hpcq_jobspec *spec, const char *key, const char *value);

/* Value of KEY in spec->env or NULL (borrowed). */
const char *jobspec_getenv (const struct hpcq_jobspec *spec, const char *key);

/* Check a job name as PBS does: 1..236 characters, no whitespace, no '/'
 * and no control characters (it becomes part of the output file names).
 * Returns 0 or -1 with err (EINVAL).  Shared by -N and jobspec_from_json. */
int jobspec_check_name (const char *name, struct hpcq_error *err);
/* An account (-A) as a job name is checked: not empty, at most as long,
 * no control character (C0, DEL, UTF-8 C1; a space is allowed, as PBS
 * does), so that no report or
 * terminal that prints it can be made to show another row or run an
 * escape sequence (issue 22, finding 5).  0, or -1 with err (EINVAL).
 * Checked at submission and by qalter, not on load: a job stored before
 * the check keeps its account, and the printers escape it. */
int jobspec_check_account (const char *account, struct hpcq_error *err);

/* Every text of spec but its script is UTF-8 (JSON's text; the names and
 * paths are shown, matched and logged as text), or -1 with err (EILSEQ)
 * naming the first field that is not and where.  The script may hold any
 * bytes: jobspec_to_json carries one that is not UTF-8 as base64
 * ("script_base64"), so it runs byte for byte as written. */
int jobspec_check_text (const struct hpcq_jobspec *spec, struct hpcq_error *err);

/* An output path pattern with Slurm's %j and %J (job number; N.I for subjob I
 * of array N, as PBS names their files), %A (the array's number), %a (the
 * subjob's index), %x (job name) and %% expanded, into buf.  index is -1
 * for a job that is not an array subjob.  Other % sequences are kept. */
void jobspec_expand_path (const char *pattern, long long seq, int index,
                          const char *name, char *buf, size_t len);

/* Slurm's --signal value "[B:]SIG[@SECONDS]": the signal's number, the
 * seconds before the walltime (default 60) and whether only the batch
 * shell gets it.  Any output pointer may be NULL.  0 or -1 with err. */
int jobspec_parse_signal (const char *s, int *signo, int *secs, int *batch_only,
                          struct hpcq_error *err);

/* A signal by name ("USR1", "SIGUSR1", case-insensitive) or number; -1
 * if it is neither. */
int jobspec_signal_number (const char *name);

/* Encode as a new JSON object (caller owns the reference), NULL on ENOMEM. */
json_t *jobspec_to_json (const struct hpcq_jobspec *spec);

/* Decode and validate (the scheduler does not trust the client):
 * fills spec (caller releases), returns 0, or -1 with err (EPROTO). */
int jobspec_from_json (const json_t *o, struct hpcq_jobspec *spec,
                       struct hpcq_error *err);

#endif

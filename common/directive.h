/* directive.h - qsub options, from the command line and from #PBS lines.
 *
 * PBS reads directives from the script's leading comment block ("#PBS -l
 * walltime=1:00:00"), stopping at the first executable line, then applies
 * the command line on top, so command-line options win.  Both go through
 * directive_apply(), so they accept exactly the same options.
 */
#ifndef HPCQ_COMMON_DIRECTIVE_H
#define HPCQ_COMMON_DIRECTIVE_H

#include "common/error.h"
#include "common/jobspec.h"

/* The qsub options that take an argument, for getopt: "N:q:l:o:e:j:v:p:W:A:r:m:M:S:C:" etc.
 * Flags without argument: -V (export whole environment), -h (hold). */
extern const char *directive_optstring;

/* Apply one option (letter opt, argument arg or NULL for flags) to spec.
 * Returns 0, or -1 with err ("qsub: illegal -l value ..." style text
 * without the "qsub: " prefix).  -V needs environ: it copies the caller's
 * whole environment into spec->env. */
int directive_apply (struct hpcq_jobspec *spec, int opt, const char *arg,
                     struct hpcq_error *err);

/* Scan script text for directives with the given prefix ("#PBS"; NULL
 * means "#PBS") and apply each.  Stops at the first line that is neither
 * blank nor a comment (the shebang and other comments are skipped).
 * A directive line may carry several options ("#PBS -N x -j oe") and
 * quoted arguments.  Errors name the line: "line 3: ...". */
int directive_parse_script (struct hpcq_jobspec *spec, const char *script,
                            const char *prefix, struct hpcq_error *err);

/* Split line in place into words, shell style (blanks separate, quotes
 * group, an unquoted word starting with '#' begins a comment).  words
 * needs room for strlen(line) / 2 + 1 entries.  Returns the number of
 * words, or -1 on an unterminated quote. */
int directive_split_words (char *line, char **words);

/* Lines of the leading comment block that look like a directive and are
 * not one, so PBS ignores them: "#PBS-N x" (no blank after the prefix),
 * "# PBS -N x" (a blank inside it) and "#pbs -N x" (another case).  warn
 * is called with each one's number and text (not NUL-terminated: len
 * bytes).  For a warning only; nothing changes. */
typedef void (*directive_warn_f) (int lineno, const char *line, int len, void *arg);
void directive_near_misses (const char *script, const char *prefix,
                            directive_warn_f warn, void *arg);

#endif

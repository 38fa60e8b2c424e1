/* limit_list.h - PBS Pro's limit syntax, one attribute's value:
 *     [u:PBS_GENERIC=10], [u:alice=20], [g:staff=50], [o:PBS_ALL=1000]
 * u: a user (PBS_GENERIC: each user without an entry of their own), g: a
 * group, o:PBS_ALL: everyone together.  Values are counts, or sizes
 * ("4gb") for memory.  What the limits mean is limits.h's; this is only
 * the text, which reaches the scheduler from qmgr and its config (and is
 * fuzzed: tests/fuzz/fuzz_limits.c).
 */
#ifndef HPCQ_SCHEDULER_LIMIT_LIST_H
#define HPCQ_SCHEDULER_LIMIT_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define LIMIT_NAME_MAX 64
#define LIMIT_MAX_ENTRIES 4096
#define LIMIT_VALUE_MAX (INT64_C (1) << 53) /* counts and bytes alike */

struct limit_entry {
    char kind;                 /* 'u', 'g' or 'o' */
    char name[LIMIT_NAME_MAX]; /* entity, PBS_GENERIC or PBS_ALL */
    int64_t value;
};

/* One parsed value; NULL is "not set".  Entries are distinct by kind and
 * name. */
struct limit_list {
    int n;
    int is_size;
    struct limit_entry e[];
};

/* Parse a limit list; is_size: values are sizes ("4gb"), else counts.
 * New list (limit_list_free), or NULL with errno EINVAL and err (PBS's
 * "Illegal attribute or resource value: ..."). */
struct limit_list *limit_list_parse (const char *text, int is_size,
                                     struct hpcq_error *err);
void limit_list_free (struct limit_list *l);
/* The list as PBS prints it, sorted: "[o:PBS_ALL=1000], [u:PBS_GENERIC=10]". */
void limit_list_format (const struct limit_list *l, char *buf, size_t len);
/* l with add's entries set (op '+') or removed (op '-': entries of add's
 * kind and name).  New list, or NULL with err. */
struct limit_list *limit_list_merge (const struct limit_list *l,
                                     const struct limit_list *add, int op,
                                     struct hpcq_error *err);

#endif

/* fuzz_limits.c - PBS Pro's limit lists (scheduler/limit_list.c), as
 * qmgr's "set server max_queued = ...", "set queue Q max_queued_res.mem
 * += ..." and the scheduler's config give them: limit_list_parse, then
 * limit_list_merge and limit_list_format.
 *
 * Input: the first byte picks counts or sizes (bit 0); the rest is one
 * list, or two separated by a newline (a list and what += or -= gives).
 * Properties: an accepted list prints (limit_list_format) as text that
 * parses again into a list that prints the same, with distinct entries;
 * adding a list and then removing it leaves what removing it alone
 * leaves.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "scheduler/limit_list.h"
#include "tests/fuzz/fuzz.h"

#define TEXT_MAX (1 << 18)

/* l printed, parsed again and printed again: the same text. */
static void check_round_trip (const struct limit_list *l, int is_size, char *a, char *b)
{
    struct limit_list *again;
    struct hpcq_error err;

    limit_list_format (l, a, TEXT_MAX);
    if (!(again = limit_list_parse (a, is_size, &err)))
        fuzz_fail ("'%s' as printed does not parse: %s", a, err.text);
    limit_list_format (again, b, TEXT_MAX);
    if (strcmp (a, b) != 0)
        fuzz_fail ("'%s' reads back as '%s'", a, b);
    limit_list_free (again);
}

FUZZ_TARGET (limits)
{
    char *s, *nl, *a = NULL, *b = NULL;
    struct limit_list *l, *add = NULL, *plus = NULL, *minus = NULL, *both = NULL;
    struct hpcq_error err;
    int is_size;

    fuzz_setup ();
    if (size == 0)
        return 0;
    is_size = data[0] & 1;
    s = fuzz_string (data + 1, size - 1);
    if ((nl = strchr (s, '\n')))
        *nl++ = '\0';
    if (!(l = limit_list_parse (s, is_size, &err))) {
        free (s);
        return 0;
    }
    for (int i = 0; i < l->n; i++)
        for (int k = 0; k < i; k++)
            if (l->e[i].kind == l->e[k].kind
                && strcmp (l->e[i].name, l->e[k].name) == 0)
                fuzz_fail ("'%s': [%c:%s] twice", s, l->e[i].kind, l->e[i].name);
    if (!(a = malloc (TEXT_MAX)) || !(b = malloc (TEXT_MAX)))
        fuzz_fail ("out of memory");
    check_round_trip (l, is_size, a, b);
    if (nl && (add = limit_list_parse (nl, is_size, &err))) {
        plus = limit_list_merge (l, add, '+', &err);
        minus = limit_list_merge (l, add, '-', &err);
        both = plus ? limit_list_merge (plus, add, '-', &err) : NULL;
        if (plus)
            check_round_trip (plus, is_size, a, b);
        if (minus && both) {
            limit_list_format (minus, a, TEXT_MAX);
            limit_list_format (both, b, TEXT_MAX);
            if (strcmp (a, b) != 0)
                fuzz_fail ("'%s' += and -= '%s' gives '%s', -= alone '%s'", s, nl, b,
                           a);
        }
    }
    limit_list_free (both);
    limit_list_free (minus);
    limit_list_free (plus);
    limit_list_free (add);
    limit_list_free (l);
    free (a);
    free (b);
    free (s);
    return 0;
}

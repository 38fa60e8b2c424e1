/* array.c - see array.h
 *
 * The split-out subjobs are kept in a vector sorted by position: they are
 * mostly split out in index order (scheduling takes them so), which makes
 * each an append, and a lookup is a binary search.  A bit per position
 * says split or not, so finding the next untouched subjob skips whole
 * words of split ones.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/array.h"
#include "scheduler/job.h"

enum { GROUP_NONE, GROUP_Q, GROUP_R, GROUP_F };

struct job_array *array_create (struct job *job, const char *range,
                                struct hpcq_error *err)
{
    struct job_array *a = calloc (1, sizeof (*a));
    size_t words;

    if (!a) {
        errprintf_code (err, ENOMEM, "out of memory");
        return NULL;
    }
    a->job = job;
    if (arrayspec_parse (range ? range : "", &a->range, err) < 0) {
        free (a);
        return NULL;
    }
    words = ((size_t)a->range.n + 63) / 64;
    if (!(a->split = calloc (words, sizeof (*a->split)))) {
        errprintf_code (err, ENOMEM, "out of memory");
        array_destroy (a);
        return NULL;
    }
    a->untouched = a->range.n;
    return a;
}

void array_destroy (struct job_array *a)
{
    if (!a)
        return;
    arrayspec_release (&a->range);
    free (a->split);
    free (a->sub);
    free (a);
}

int array_index_at (const struct job_array *a, int pos)
{
    return arrayspec_index (&a->range, pos);
}

int array_pos_of (const struct job_array *a, int index)
{
    return arrayspec_pos (&a->range, index);
}

static int is_split (const struct job_array *a, int pos)
{
    return (a->split[pos / 64] >> (pos % 64)) & 1;
}

/* Where pos is, or would go, in the sorted vector. */
static int sub_slot (const struct job_array *a, int pos)
{
    int lo = 0, hi = a->nsub;

    if (a->nsub > 0 && a->sub[a->nsub - 1]->array_pos < pos)
        return a->nsub; /* the usual case: after every split one */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a->sub[mid]->array_pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct job *array_sub (const struct job_array *a, int pos)
{
    int k;

    if (pos < 0 || pos >= a->range.n || !is_split (a, pos))
        return NULL;
    k = sub_slot (a, pos);
    return k < a->nsub && a->sub[k]->array_pos == pos ? a->sub[k] : NULL;
}

int array_next_untouched (struct job_array *a, int from)
{
    int n = a->range.n;

    /* Move the cursor over the split-out prefix first: it only grows,
     * except when a subjob goes back to untouched below it. */
    while (a->cursor < n && is_split (a, a->cursor)) {
        if (a->cursor % 64 == 0 && a->split[a->cursor / 64] == UINT64_MAX)
            a->cursor += 64;
        else
            a->cursor++;
    }
    if (a->cursor > n)
        a->cursor = n;
    for (int pos = from > a->cursor ? from : a->cursor; pos < n;) {
        uint64_t w = a->split[pos / 64] >> (pos % 64);
        if (pos % 64 == 0 && w == UINT64_MAX) {
            pos += 64;
            continue;
        }
        if (!(w & 1))
            return pos;
        pos++;
    }
    return -1;
}

static int group_of (char state)
{
    switch (state) {
    case 'R':
    case 'E':
    case 'S': return GROUP_R;
    case 'F': return GROUP_F;
    default: return GROUP_Q;
    }
}

/* Add (sign 1) or take back (-1) what sj counts for. */
static void count (struct job_array *a, struct job *sj, int sign)
{
    if (sign > 0) {
        sj->arr_group = group_of (sj->rec.state);
        sj->arr_began = sj->rec.run_count > 0 || sj->arr_group != GROUP_Q;
        sj->arr_failed =
            sj->arr_group == GROUP_F && (!sj->rec.has_exit || sj->rec.exit_status != 0);
    }
    a->nq += sign * (sj->arr_group == GROUP_Q);
    a->nr += sign * (sj->arr_group == GROUP_R);
    a->nf += sign * (sj->arr_group == GROUP_F);
    a->began += sign * sj->arr_began;
    a->failed += sign * sj->arr_failed;
}

int array_split_add (struct job_array *a, struct job *sj)
{
    int pos = sj->array_pos, k;

    if (pos < 0 || pos >= a->range.n || is_split (a, pos)) {
        errno = EINVAL;
        return -1;
    }
    if (a->nsub == a->sub_cap) {
        int cap = a->sub_cap ? a->sub_cap * 2 : 16;
        struct job **v = realloc (a->sub, cap * sizeof (*v));
        if (!v)
            return -1;
        a->sub = v;
        a->sub_cap = cap;
    }
    k = sub_slot (a, pos);
    memmove (&a->sub[k + 1], &a->sub[k], (a->nsub - k) * sizeof (*a->sub));
    a->sub[k] = sj;
    a->nsub++;
    a->split[pos / 64] |= UINT64_C (1) << (pos % 64);
    a->untouched--;
    count (a, sj, 1);
    return 0;
}

void array_split_remove (struct job_array *a, struct job *sj)
{
    int pos = sj->array_pos, k;

    if (!array_sub (a, pos))
        return;
    k = sub_slot (a, pos);
    count (a, sj, -1);
    memmove (&a->sub[k], &a->sub[k + 1], (a->nsub - k - 1) * sizeof (*a->sub));
    a->nsub--;
    a->split[pos / 64] &= ~(UINT64_C (1) << (pos % 64));
    a->untouched++;
    if (pos < a->cursor)
        a->cursor = pos;
}

void array_recount (struct job_array *a, struct job *sj)
{
    count (a, sj, -1);
    count (a, sj, 1);
}

char array_untouched_state (const struct job *array)
{
    char st = array->rec.state;

    return st == 'E' || st == 'F' ? 'F' : st;
}

int array_done (const struct job_array *a)
{
    return a->nq == 0 && a->nr == 0
           && (a->untouched == 0 || array_untouched_state (a->job) == 'F');
}

int array_failed (const struct job_array *a)
{
    return a->failed > 0 || (a->untouched > 0 && array_untouched_state (a->job) == 'F');
}

void array_state_count (const struct job *array, char *buf, size_t len)
{
    const struct job_array *a = array->arr;
    int gone = array_untouched_state (array) == 'F';

    snprintf (buf, len, "Queued:%d Running:%d Exiting:0 Expired:%d",
              a->nq + (gone ? 0 : a->untouched), a->nr,
              a->nf + (gone ? a->untouched : 0));
}

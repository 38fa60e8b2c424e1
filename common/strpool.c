/* strpool.c - see strpool.h
 *
 * Each entry holds its text right after its header, so the pointer handed
 * out finds its entry without a lookup, and one allocation serves both.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/hash.h"
#include "common/strpool.h"
#include "common/util.h"

struct entry {
    UT_hash_handle hh;
    size_t refs;
    size_t len;
    char s[];
};

static struct entry *pool;

static struct entry *entry_of (const char *p)
{
    return (struct entry *)(void *)(p - offsetof (struct entry, s));
}

const char *strpool_get (const char *s)
{
    struct entry *e;
    size_t len;

    if (!s)
        return NULL;
    len = strlen (s);
    HASH_FIND (hh, pool, s, len, e);
    if (!e) {
        e = xzalloc (sizeof (*e) + len + 1);
        e->len = len;
        memcpy (e->s, s, len + 1);
        HASH_ADD_KEYPTR (hh, pool, e->s, len, e);
    }
    e->refs++;
    return e->s;
}

const char *strpool_ref (const char *p)
{
    if (p)
        entry_of (p)->refs++;
    return p;
}

void strpool_put (const char *p)
{
    struct entry *e;

    if (!p)
        return;
    e = entry_of (p);
    if (--e->refs == 0) {
        HASH_DELETE (hh, pool, e);
        free (e);
    }
}

size_t strpool_count (void)
{
    return HASH_COUNT (pool);
}

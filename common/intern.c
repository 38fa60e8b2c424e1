/* intern.c - see intern.h
 *
 * Each entry holds its text right after its header: one allocation
 * serves both, and the text handed out lives as long as the entry.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/intern.h"

struct intern_entry {
    UT_hash_handle hh;
    int no;
    char text[];
};

/* s's entry in t, added if new; NULL with errno.  Under t's lock. */
static struct intern_entry *entry_get (struct intern *t, const char *s)
{
    struct intern_entry *e;
    size_t len = strlen (s);

    HASH_FIND (hh, t->set, s, len, e);
    if (e)
        return e;
    if (t->max && t->n >= t->max) {
        errno = ENOSPC;
        return NULL;
    }
    if (!(e = malloc (sizeof (*e) + len + 1))) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy (e->text, s, len + 1);
    e->no = t->n++;
    HASH_ADD_KEYPTR (hh, t->set, e->text, len, e);
    return e;
}

const char *intern_text (struct intern *t, const char *s)
{
    struct intern_entry *e;

    pthread_mutex_lock (&t->lock);
    e = entry_get (t, s);
    pthread_mutex_unlock (&t->lock);
    return e ? e->text : NULL;
}

int intern_number (struct intern *t, const char *s)
{
    struct intern_entry *e;

    pthread_mutex_lock (&t->lock);
    e = entry_get (t, s);
    pthread_mutex_unlock (&t->lock);
    return e ? e->no : -1;
}

int intern_count (struct intern *t)
{
    int n;

    pthread_mutex_lock (&t->lock);
    n = t->n;
    pthread_mutex_unlock (&t->lock);
    return n;
}

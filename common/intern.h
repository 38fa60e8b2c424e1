/* intern.h - one copy of each text kept for the life of the process, with
 * a number.
 *
 * For texts that are few and come back on every request or node: the GPU
 * models, MIG profiles, hosts, labels and container settings a request
 * names (resource_intern), a node's ib_switch (placement sorts nodes into
 * its groups by number).  intern_text gives the table's copy (equal texts
 * give the same pointer, so a parsed request stays a plain value), and
 * intern_number its number: 0, 1, ... in the order texts were first seen,
 * so an array of intern_count entries is indexed by them.  Nothing is
 * freed.  Safe from several threads (a scheduler parses its requests on
 * several at start).
 *
 * Texts that come and go with the jobs that hold them (owners, scripts,
 * working directories) are strpool.h's: counted, and freed with their
 * last reference.
 */
#ifndef HPCQ_COMMON_INTERN_H
#define HPCQ_COMMON_INTERN_H

#include <pthread.h>

struct intern_entry;

/* A table, made static with INTERN_INIT (max): at most max texts, or
 * without bound for 0. */
struct intern {
    pthread_mutex_t lock;
    struct intern_entry *set;
    int n, max;
};
#define INTERN_INIT(max_)                                \
    {                                                    \
        .lock = PTHREAD_MUTEX_INITIALIZER, .max = (max_) \
    }

/* The table's copy of s (never freed).  NULL with errno ENOSPC once max
 * texts are kept, or ENOMEM. */
const char *intern_text (struct intern *t, const char *s);

/* s's number in t (added if new), or -1 with errno as intern_text. */
int intern_number (struct intern *t, const char *s);

/* How many texts t keeps (one more than the highest number given). */
int intern_count (struct intern *t);

#endif

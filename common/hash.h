/* hash.h - the one hash table library: uthash (Debian's uthash-dev), with
 * the project's settings.
 *
 * Include this rather than <uthash.h>.  A table is a pointer to its first
 * entry, each entry a struct with a UT_hash_handle hh; see
 * https://troydhanson.github.io/uthash/userguide.html.  Running out of
 * memory inside a table aborts, as xzalloc does: tables hold bookkeeping
 * (users, requests, texts), never a client's data.
 */
#ifndef HPCQ_COMMON_HASH_H
#define HPCQ_COMMON_HASH_H

#include <stdio.h>
#include <stdlib.h>

#define uthash_fatal(msg) (fprintf (stderr, "out of memory (%s)\n", msg), abort ())

/* Keys are hashed with xxHash's XXH3 (Debian's libxxhash-dev, used here
 * header-only), several times faster than uthash's default on the short
 * keys the scheduler looks up in every pass. */
#define XXH_INLINE_ALL
#include <xxhash.h>
#define HASH_FUNCTION(keyptr, keylen, hashv)                          \
    do {                                                              \
        (hashv) = (unsigned)XXH3_64bits ((keyptr), (size_t)(keylen)); \
    } while (0)

#include <uthash.h>

/* Empty the table at head, handing each entry to free_fn. */
#define HASH_FREE_ALL(head, free_fn)         \
    do {                                     \
        __typeof__ (head) hfa_e_, hfa_t_;    \
        HASH_ITER (hh, head, hfa_e_, hfa_t_) \
        {                                    \
            HASH_DEL (head, hfa_e_);         \
            free_fn (hfa_e_);                \
        }                                    \
    } while (0)

#endif

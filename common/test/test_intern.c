/* test_intern.c - one copy of each text, with a number, from any thread */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/intern.h"
#include "common/test/tap.h"

#define NTEXTS 200
#define NTHREADS 4

static struct intern shared = INTERN_INIT (0);
static const char *seen[NTHREADS][NTEXTS];

/* Each thread interns the same texts, in its own order (a step prime to
 * NTEXTS visits each once). */
static void *intern_all (void *arg)
{
    static const int step[NTHREADS] = { 1, 3, 7, 9 };
    int t = (int)(long)arg;
    char buf[32];

    for (int i = 0; i < NTEXTS; i++) {
        int k = (i * step[t]) % NTEXTS;
        snprintf (buf, sizeof (buf), "sw%d", k);
        seen[t][k] = intern_text (&shared, buf);
    }
    return NULL;
}

int main (void)
{
    static struct intern t = INTERN_INIT (0), small = INTERN_INIT (2);
    char buf[16];
    const char *a, *b;
    pthread_t th[NTHREADS];
    int same = 1;

    plan (NO_PLAN);
    strcpy (buf, "A100");
    a = intern_text (&t, buf);
    strcpy (buf, "H100");
    b = intern_text (&t, "A100");
    ok (a && a == b && !strcmp (a, "A100") && intern_count (&t) == 1,
        "equal texts give one copy, whatever buffer they came from");
    ok (intern_number (&t, "A100") == 0 && intern_number (&t, "H100") == 1
            && intern_number (&t, "") == 2 && intern_number (&t, "H100") == 1
            && intern_count (&t) == 3,
        "numbers in the order first seen, the same each time");
    ok (intern_text (&small, "a") && intern_text (&small, "b")
            && !intern_text (&small, "c") && errno == ENOSPC,
        "a bounded table refuses a text past its bound (ENOSPC)");
    ok (intern_text (&small, "a") && intern_number (&small, "b") == 1
            && intern_number (&small, "c") == -1 && intern_count (&small) == 2,
        "and still gives those it keeps");

    for (long i = 0; i < NTHREADS; i++)
        pthread_create (&th[i], NULL, intern_all, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join (th[i], NULL);
    for (int k = 0; k < NTEXTS; k++)
        for (int i = 1; i < NTHREADS; i++)
            same &= seen[i][k] == seen[0][k] && seen[0][k] != NULL;
    ok (same && intern_count (&shared) == NTEXTS,
        "%d threads interning the same %d texts share one copy of each", NTHREADS,
        NTEXTS);
    return done_testing ();
}

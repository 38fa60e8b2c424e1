/* replay.c - every fuzz target run on its committed corpus, for make check.
 *
 * libFuzzer needs clang; this driver does not: it is a main() that feeds
 * each file of tests/fuzz/corpus/NAME/ (seeds, and the reproducers of bugs
 * the fuzzers found) to target NAME, built by whatever compiler configure
 * found, with ASan and UBSan where it has them.  A crash or a failed
 * property kills the run after naming the input.
 *
 *   replay                    all targets, all of $HPCQ_SRCDIR's corpus (TAP)
 *   replay NAME PATH...       one target on these files or folders
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "tests/fuzz/fuzz.h"

typedef int (*fuzz_f) (const uint8_t *data, size_t size);

#define FUZZ(name) int fuzz_##name (const uint8_t *data, size_t size);
#include "tests/fuzz/targets.def"
#undef FUZZ

static const struct target {
    const char *name;
    fuzz_f run;
} targets[] = {
#define FUZZ(name) { #name, fuzz_##name },
#include "tests/fuzz/targets.def"
#undef FUZZ
};

#define NTARGETS (sizeof (targets) / sizeof (targets[0]))

/* Said in the TAP output, so a log shows whether the sanitizers ran
 * (configure leaves them out where the compiler has none that run). */
#if defined(__SANITIZE_ADDRESS__)
#define REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REPLAY_ASAN 1
#endif
#endif
#ifdef REPLAY_ASAN
#define REPLAY_BUILD "with ASan and UBSan"
#else
#define REPLAY_BUILD "WITHOUT sanitizers (configure found none that run here)"
#endif

/* The input being run, for the last words of a crash. */
static char current[4096];

/* Read by the sanitizer runtimes when they are linked in: a finding
 * aborts, so on_signal names the input (gcc's UBSan and ASan are separate
 * libraries with separate death callbacks; SIGABRT reaches both). */
const char *__asan_default_options (void);
const char *__ubsan_default_options (void);

const char *__asan_default_options (void)
{
    return "abort_on_error=1";
}

const char *__ubsan_default_options (void)
{
    return "abort_on_error=1:print_stacktrace=1";
}

static void say_input (void)
{
    static const char msg[] = "replay: the failing input is ";

    if (!current[0])
        return;
    (void)!write (STDERR_FILENO, msg, sizeof (msg) - 1);
    (void)!write (STDERR_FILENO, current, strlen (current));
    (void)!write (STDERR_FILENO, "\n", 1);
    /* TAP readers see it too. */
    (void)!write (STDOUT_FILENO, "# ", 2);
    (void)!write (STDOUT_FILENO, msg, sizeof (msg) - 1);
    (void)!write (STDOUT_FILENO, current, strlen (current));
    (void)!write (STDOUT_FILENO, "\n", 1);
}

static void on_signal (int sig)
{
    say_input ();
    signal (sig, SIG_DFL);
    raise (sig);
}

/* Name the input on any death: a sanitizer finding or a failed property
 * (both abort), or a plain crash.  A signal a sanitizer already handles
 * (ASan's SIGSEGV) is left to it: it reports, then aborts. */
static void catch_deaths (void)
{
    int sigs[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };

    for (size_t i = 0; i < sizeof (sigs) / sizeof (sigs[0]); i++) {
        struct sigaction old;
        if (sigaction (sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            signal (sigs[i], on_signal);
    }
}

static const struct target *target_lookup (const char *name)
{
    for (size_t i = 0; i < NTARGETS; i++)
        if (strcmp (targets[i].name, name) == 0)
            return &targets[i];
    return NULL;
}

static int run_file (const struct target *t, const char *path)
{
    size_t len;
    char *data;

    snprintf (current, sizeof (current), "%s (target %s)", path, t->name);
    if (!(data = util_read_file (path, 64 << 20, &len))) {
        fprintf (stderr, "replay: cannot read %s: %m\n", path);
        return -1;
    }
    t->run ((const uint8_t *)data, len);
    free (data);
    current[0] = '\0';
    return 0;
}

static int by_name (const struct dirent **a, const struct dirent **b)
{
    return strcmp ((*a)->d_name, (*b)->d_name);
}

/* Run t on path, or on every file in it if it is a folder (sorted, so
 * runs are repeatable).  Returns the number of inputs, -1 on an error. */
static int run_path (const struct target *t, const char *path)
{
    struct dirent **ents;
    struct stat st;
    int n, count = 0;

    if (stat (path, &st) < 0) {
        fprintf (stderr, "replay: %s: %m\n", path);
        return -1;
    }
    if (!S_ISDIR (st.st_mode))
        return run_file (t, path) < 0 ? -1 : 1;
    if ((n = scandir (path, &ents, NULL, by_name)) < 0) {
        fprintf (stderr, "replay: %s: %m\n", path);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char file[4096];
        if (ents[i]->d_name[0] != '.' && count >= 0) {
            snprintf (file, sizeof (file), "%s/%s", path, ents[i]->d_name);
            count = run_file (t, file) < 0 ? -1 : count + 1;
        }
        free (ents[i]);
    }
    free (ents);
    return count;
}

/* A corpus folder no target reads is a target someone forgot to list. */
static int check_orphans (const char *corpus)
{
    struct dirent **ents;
    int n, bad = 0;

    if ((n = scandir (corpus, &ents, NULL, by_name)) < 0)
        return 1;
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.' && !target_lookup (ents[i]->d_name)) {
            printf ("# corpus folder %s/%s has no target in targets.def\n", corpus,
                    ents[i]->d_name);
            bad = 1;
        }
        free (ents[i]);
    }
    free (ents);
    return bad;
}

static int replay_all (void)
{
    const char *src = getenv ("HPCQ_SRCDIR");
    char corpus[4096], dir[4200];
    int failed = 0, orphans;

    snprintf (corpus, sizeof (corpus), "%s/tests/fuzz/corpus", src ? src : ".");
    printf ("1..%zu\n# replay built %s\n", NTARGETS + 1, REPLAY_BUILD);
    for (size_t i = 0; i < NTARGETS; i++) {
        int n;
        snprintf (dir, sizeof (dir), "%s/%s", corpus, targets[i].name);
        n = run_path (&targets[i], dir);
        printf ("%sok %zu - %s: %d inputs\n", n > 0 ? "" : "not ", i + 1,
                targets[i].name, n);
        fflush (stdout);
        failed += n <= 0;
    }
    orphans = check_orphans (corpus);
    printf ("%sok %zu - every corpus folder has a target\n", orphans ? "not " : "",
            NTARGETS + 1);
    return failed || orphans ? 1 : 0;
}

int main (int argc, char **argv)
{
    const struct target *t;

    catch_deaths ();
    if (argc == 1)
        return replay_all ();
    if (argc < 3 || !(t = target_lookup (argv[1]))) {
        fprintf (stderr, "usage: replay [TARGET PATH...]\ntargets:");
        for (size_t i = 0; i < NTARGETS; i++)
            fprintf (stderr, " %s", targets[i].name);
        fputc ('\n', stderr);
        return 2;
    }
    for (int i = 2; i < argc; i++)
        if (run_path (t, argv[i]) < 0)
            return 1;
    printf ("replay: %s: no failure\n", t->name);
    return 0;
}

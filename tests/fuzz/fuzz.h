/* fuzz.h - what every fuzz target shares.
 *
 * A target is one file, tests/fuzz/fuzz_NAME.c, with one entry point
 * written FUZZ_TARGET (NAME) { ... }.  Built for libFuzzer (make fuzz,
 * clang, -DHPCQ_LIBFUZZER) that is LLVMFuzzerTestOneInput; built for
 * make check it is fuzz_NAME, which tests/fuzz/replay.c calls on every
 * file of tests/fuzz/corpus/NAME/.  A target feeds the input to public
 * parsing functions only, so it keeps working while their insides change,
 * and it calls fuzz_fail() where a property that must hold does not
 * (a crash, for libFuzzer and for the replay alike).
 *
 * Adding a target: write the file, add a line to tests/fuzz/targets.def
 * and one to FUZZ_TARGET_SOURCES in tests/fuzz/local.mk, and commit a
 * few seeds under tests/fuzz/corpus/NAME/.
 */
#ifndef HPCQ_TESTS_FUZZ_FUZZ_H
#define HPCQ_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef HPCQ_LIBFUZZER
#define FUZZ_TARGET(name) int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name)                               \
    int fuzz_##name (const uint8_t *data, size_t size); \
    int fuzz_##name (const uint8_t *data, size_t size)
#endif

/* The input as a NUL-terminated string (an embedded NUL ends it early, as
 * it would for any C caller).  Never NULL: aborts on ENOMEM.  Caller frees. */
char *fuzz_string (const uint8_t *data, size_t size);

/* A path that reads back the input, for parsers that take a file name:
 * a memory file under /proc/self/fd, rewritten on each call.  Borrowed,
 * valid until the next call. */
const char *fuzz_file (const uint8_t *data, size_t size);

/* Once per process: quiet logging, so a run is not slowed by log lines. */
void fuzz_setup (void);

struct wire_msg;
struct hpcq_jobspec;

/* What any decoded message must be: a version, a type of 1..63 bytes, an
 * errnum in range, a body object, and the same message again after
 * wire_encode and wire_decode, with the same MUNGE digest (auth_digest).
 * Fails (aborts) otherwise. */
void fuzz_check_msg (const struct wire_msg *m);

/* What qsub would send for spec (after resource_finalize) must decode in
 * the scheduler (jobspec_from_json) into the same request.  spec gets a
 * name and workdir if it has none, as qsub gives it.  Fails otherwise. */
void fuzz_check_spec (struct hpcq_jobspec *spec);

/* A property did not hold: say which, and abort. */
void fuzz_fail (const char *fmt, ...) __attribute__ ((noreturn, format (printf, 1, 2)));

#endif

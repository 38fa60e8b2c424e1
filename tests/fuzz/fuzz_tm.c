/* fuzz_tm.c - the task manager's requests (common/tm.h), as a worker
 * decodes them from a job's process or another worker: the input is a
 * tm.spawn or tm.stdin body (JSON); its argv and env go through
 * tm_argv_decode, its stream data through tm_data_decode.  Properties:
 * argv has 1 to TM_MAX_ARGV strings, NULL-terminated, each as given (no
 * NUL inside); data that decodes encodes back to the same string, and any
 * bytes (the raw input) survive tm_data_json and tm_data_decode.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "common/tm.h"
#include "tests/fuzz/fuzz.h"

static void check_argv (json_t *arr)
{
    int argc = -1;
    char **argv = tm_argv_decode (arr, &argc);

    if (!argv)
        return;
    if (argc < 1 || argc > TM_MAX_ARGV || (size_t)argc != json_array_size (arr))
        fuzz_fail ("tm_argv_decode: %d arguments of %zu", argc, json_array_size (arr));
    for (int i = 0; i < argc; i++)
        if (!argv[i]
            || strcmp (argv[i], json_string_value (json_array_get (arr, i))) != 0)
            fuzz_fail ("tm_argv_decode: argument %d differs", i);
    if (argv[argc])
        fuzz_fail ("tm_argv_decode: not NULL-terminated");
    tm_argv_free (argv);
}

static void check_data (json_t *v)
{
    char *buf;
    size_t len;
    json_t *back;

    if (tm_data_decode (v, &buf, &len) < 0)
        return;
    if (!(back = tm_data_json (buf, len)))
        fuzz_fail ("tm_data_json: no memory for %zu bytes", len);
    /* Canonical base64 reads back the same; other spellings (padding)
     * must at least carry the same bytes. */
    char *again;
    size_t alen;
    if (tm_data_decode (back, &again, &alen) < 0 || alen != len
        || memcmp (again, buf, len) != 0)
        fuzz_fail ("tm_data_decode (tm_data_json (x)) != x (%zu bytes)", len);
    free (again);
    json_decref (back);
    free (buf);
}

static void check_bytes (const uint8_t *data, size_t size)
{
    json_t *s = tm_data_json (data, size);
    char *buf;
    size_t len;

    if (!s || tm_data_decode (s, &buf, &len) < 0 || len != size
        || (size && memcmp (buf, data, size) != 0))
        fuzz_fail ("%zu raw bytes did not survive tm_data_json", size);
    free (buf);
    json_decref (s);
}

FUZZ_TARGET (tm)
{
    json_t *body, *v;

    fuzz_setup ();
    check_bytes (data, size);
    if (!(body = json_loadb ((const char *)data, size, JSON_ALLOW_NUL, NULL)))
        return 0;
    if (json_is_object (body)) {
        if ((v = json_object_get (body, "argv")))
            check_argv (v);
        if ((v = json_object_get (body, "env")))
            check_argv (v);
        if ((v = json_object_get (body, "data")))
            check_data (v);
    }
    json_decref (body);
    return 0;
}

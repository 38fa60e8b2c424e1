/* fuzz_config.c - a configuration file (common/config.c): config_load on
 * the input as a file, then the integer reads the daemons make.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdint.h>

#include "common/config.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET (config)
{
    struct config *cfg = config_create ();
    struct hpcq_error err;
    int64_t v;

    fuzz_setup ();
    if (!cfg)
        fuzz_fail ("out of memory");
    if (config_load (cfg, fuzz_file (data, size), &err) == 0) {
        (void)config_get (cfg, "server", NULL);
        (void)config_get_int (cfg, "ncpus", 1, 1, 1 << 20, &v, &err);
        (void)config_get_int (cfg, "node_timeout", 30, 1, INT64_MAX, &v, &err);
        (void)config_get_int (cfg, "max_array_size", 0, INT64_MIN, INT64_MAX, &v, &err);
    }
    config_destroy (cfg);
    return 0;
}

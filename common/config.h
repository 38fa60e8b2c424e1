/* config.h - the configuration file: "key = value" lines, '#' comments.
 *
 * One file can configure a scheduler, its workers and the client commands
 * (docs/config.example lists every key); each program reads the keys it
 * needs, and a key no program knows is an error, so typos do not pass
 * silently.  Command-line options override the file through config_set.
 */
#ifndef HPCQ_COMMON_CONFIG_H
#define HPCQ_COMMON_CONFIG_H

#include <stdint.h>

#include "common/error.h"

struct config;

struct config *config_create (void);
void config_destroy (struct config *cfg);

/* Read path into cfg (later keys override earlier).  -1 with err on an
 * unreadable file, a malformed line or an unknown key. */
int config_load (struct config *cfg, const char *path, struct hpcq_error *err);

/* Set or replace a key (no check against the known list). */
int config_set (struct config *cfg, const char *key, const char *value);

/* Value (borrowed) or dflt. */
const char *config_get (const struct config *cfg, const char *key, const char *dflt);

/* Integer value: -1 with err if present but not an integer in [min,max]. */
int config_get_int (const struct config *cfg, const char *key, int64_t dflt,
                    int64_t min, int64_t max, int64_t *out, struct hpcq_error *err);

/* cb for each key and value set, in the order set; a negative return from
 * cb stops and is returned.  0 otherwise. */
int config_foreach (const struct config *cfg,
                    int (*cb) (const char *key, const char *value, void *arg),
                    void *arg);

/* Where clients look when HPCQ_SERVER is unset: $HPCQ_CONFIG, else
 * SYSCONFDIR/hpcq.conf.  Returns the server address or NULL (caller frees). */
char *config_client_server (struct hpcq_error *err);

/* Another key of that same file (e.g. munge_socket), or NULL if the file
 * or the key is missing (caller frees). */
char *config_client_get (const char *key);

#endif

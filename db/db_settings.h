/* db_settings.h - qmgr's server and queue attributes that are not columns
 * of their own (migration 0007): (scope, name) -> value text, scope "" for
 * the server, a queue's name for that queue.  Writes join the open
 * transaction.
 */
#ifndef HPCQ_DB_DB_SETTINGS_H
#define HPCQ_DB_DB_SETTINGS_H

#include "db/db.h"

int db_setting_set (struct db *db, const char *scope, const char *name,
                    const char *value);
/* Remove one (name) or every (name NULL) setting of scope.  0 or -1. */
int db_setting_delete (struct db *db, const char *scope, const char *name);
/* cb for each setting, by scope then name; a negative return from cb
 * stops and is returned.  0 or -1. */
int db_setting_foreach (struct db *db,
                        int (*cb) (const char *scope, const char *name,
                                   const char *value, void *arg),
                        void *arg);

#endif

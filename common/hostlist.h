/* hostlist.h - Slurm's compressed host lists: "node[01-03,07],gpu1".
 *
 * Slurm prints sets of hosts this way (SLURM_JOB_NODELIST, squeue's %N,
 * sinfo's NODELIST) and tools parse it; hpcq prints the same for the
 * nodes a job holds.  Names that end in digits are grouped by what comes
 * before the digits and by the digits' width, in order.
 */
#ifndef HPCQ_COMMON_HOSTLIST_H
#define HPCQ_COMMON_HOSTLIST_H

#include <stddef.h>

/* Write hosts[0..n) (duplicates dropped) compressed into buf.  Returns the
 * length the whole text needs (as snprintf), so >= len means it was cut. */
size_t hostlist_format (const char *const *hosts, int n, char *buf, size_t len);

/* The other way: call cb for each name of list ("node[01-03,07],gpu1":
 * node01 node02 node03 node07 gpu1, one bracket per name at most, numbers
 * keep the width written with leading zeros).  The number of names, or -1
 * if list is malformed, names more than max, or cb returned -1. */
int hostlist_expand (const char *list, int max, int (*cb) (const char *name, void *arg),
                     void *arg);

#endif

/* comm.h - the few collective and point-to-point operations hpcq-md needs.
 *
 * Built with MD_HAVE_MPI this wraps MPI; without it every call is the
 * one-rank identity, so the rest of the engine has no #ifdefs.
 */
#ifndef HPCQ_APPS_MD_COMM_H
#define HPCQ_APPS_MD_COMM_H

#include <stddef.h>

/* Start and stop the message layer (MPI_Init/MPI_Finalize). */
void comm_init (int *argc, char ***argv);
void comm_finalize (void);
/* Stop every rank with exit status code (MPI_Abort under MPI). */
void comm_abort (int code) __attribute__ ((noreturn));

int comm_rank (void);
int comm_size (void);
void comm_barrier (void);

/* In-place global sums, maxima and minima over n values. */
void comm_sum (double *v, int n);
void comm_sum_long (long *v, int n);
void comm_max_int (int *v, int n);
void comm_min_int (int *v, int n);
void comm_bcast (void *buf, size_t len, int root);

/* Send sendlen bytes to rank dst and receive up to recvcap bytes from rank
 * src; returns the number of bytes received.  Callers learn the size first
 * by exchanging counts with comm_sendrecv_count.
 */
size_t comm_sendrecv (const void *sendbuf, size_t sendlen, int dst, void *recvbuf,
                      size_t recvcap, int src);
long comm_sendrecv_count (long n, int dst, int src);

/* Wall-clock seconds. */
double comm_wtime (void);

#endif

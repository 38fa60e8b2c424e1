/* climate_pow.h - x^y for a run of values: the pressure's (rho theta)^gamma
 * at every edge is most of hpcq-climate's CPU arithmetic.
 *
 * Where glibc's vector maths library (libmvec) is linked and the CPU has
 * AVX2, four values go through one call of its vector pow (max error 4 ulp
 * by glibc's documentation, below 1 ulp in our measurements); elsewhere,
 * and for the odd tail, the C library's pow (correctly rounded in
 * practice).  The choice is made once per process, so a run is bitwise
 * repeatable on a given machine whatever the thread or rank count.
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_POW_H
#define HPCQ_APPS_CLIMATE_CLIMATE_POW_H

/* x[i] = pow(x[i], y) for i in [0, n). */
void climate_pow_n (double *x, int n, double y);

/* "avx2" or "scalar": the path climate_pow_n takes on this machine. */
const char *climate_pow_path (void);

#endif

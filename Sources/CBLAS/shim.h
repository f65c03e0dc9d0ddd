#ifndef COACH_CBLAS_SHIM_H
#define COACH_CBLAS_SHIM_H
#include <cblas.h>
/* OpenBLAS extensions: thread control (declared in its cblas.h on Debian). */
#endif

// Argument errors reported as the reference BLAS and CBLAS report them (Debian's libblas.so.3,
// LAPACK's CBLAS):
//   - a Fortran routine calls xerbla_(NAME, &position, 6) and returns;
//   - a CBLAS routine reports its own layout, transpose, uplo and side arguments to cblas_xerbla
//     directly; every other argument is checked on the Fortran argument list the call maps to and
//     reported through xerbla_ with CBLAS_CallFromC = 1 (and RowMajorStrg = 1 for a row-major
//     call), so that a program replacing only xerbla_ sees those reports too, as the Fortran
//     routine's name and position. The default xerbla_ hands such a report on to cblas_xerbla
//     (position + 1, the routine as "cblas_" + the name in lower case).
#ifndef INVAR_BLAS_REPORTING_H_
#define INVAR_BLAS_REPORTING_H_

#include "blas/blas_abi.h"

namespace invar::blas {

// cblas_xerbla(info, rout, form, args...) with RowMajorStrg set for the call's layout.
template <class... Args>
void report_cblas(bool row_major, int info, const char* rout, const char* form, Args... args) {
  RowMajorStrg = row_major ? 1 : 0;
  cblas_xerbla(info, rout, form, args...);
  RowMajorStrg = 0;
}

// xerbla_(name, &info, 6) as a CBLAS routine calls it: CBLAS_CallFromC and RowMajorStrg set
// while it runs. `fortran_name` is the blank-padded 6-character name ("SGEMM ").
inline void report_fortran_from_cblas(bool row_major, const char* fortran_name, int info) {
  CBLAS_CallFromC = 1;
  RowMajorStrg = row_major ? 1 : 0;
  FortranInt position = info;
  xerbla_(fortran_name, &position, 6);
  CBLAS_CallFromC = 0;
  RowMajorStrg = 0;
}

inline void report_fortran(const char* fortran_name, int info) {
  FortranInt position = info;
  xerbla_(fortran_name, &position, 6);
}

}  // namespace invar::blas

#endif  // INVAR_BLAS_REPORTING_H_

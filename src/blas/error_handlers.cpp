// The default error handlers and the CBLAS globals, weak so that a program's own xerbla_,
// cblas_xerbla, RowMajorStrg or CBLAS_CallFromC replaces them. They behave as Debian's reference
// libblas.so.3 (LAPACK's CBLAS error handling) does, in text, stream and exit status:
//   xerbla_       a report from a CBLAS call (CBLAS_CallFromC set) goes on to cblas_xerbla as
//                 position + 1 of routine "cblas_" + the name in lower case; a report from a
//                 Fortran call prints "Parameter N to routine NAME was incorrect" on stderr and
//                 returns (the routine then returns without computing).
//   cblas_xerbla  maps a row-major call's positions back to the caller's (RowMajorStrg), prints
//                 "Parameter N to routine R was incorrect" and the message on stderr, and ends the
//                 program with exit(-1) (status 255).
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "blas/blas_abi.h"

extern "C" {

__attribute__((weak, visibility("default"))) int RowMajorStrg = 0;
__attribute__((weak, visibility("default"))) int CBLAS_CallFromC = 0;

__attribute__((weak, visibility("default"))) void xerbla_(const char* name,
                                                          const invar::blas::FortranInt* info,
                                                          std::size_t name_length) {
  // The name as Fortran passes it: name_length characters, blank-padded, no terminator. A C
  // caller may pass a terminated string and a wrong length, so stop at a NUL and cap the length.
  std::size_t length = 0;
  if (name != nullptr)
    while (length < name_length && length < 32 && name[length] != '\0') ++length;
  const int position = info != nullptr ? *info : 0;
  if (CBLAS_CallFromC != 0) {
    std::string rout = "cblas_";
    for (std::size_t i = 0; i < length; ++i)
      rout += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
    cblas_xerbla(position + 1, rout.c_str(), "");
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine %.*s was incorrect\n", position,
               static_cast<int>(length), name != nullptr ? name : "");
}

__attribute__((weak, visibility("default"))) void cblas_xerbla(int info, const char* rout,
                                                               const char* form, ...) {
  // A row-major call reports the positions of the column-major call it maps to (blas_abi.h).
  if (RowMajorStrg != 0 && rout != nullptr) {
    auto swap = [&info](int x, int y) {
      if (info == x)
        info = y;
      else if (info == y)
        info = x;
    };
    if (std::strstr(rout, "gemmt") != nullptr) {
      swap(9, 11);  // lda and ldb (B and A exchanged)
    } else if (std::strstr(rout, "gemm") != nullptr) {
      swap(4, 5);  // M and N
      swap(9, 11);
    } else if (std::strstr(rout, "symm") != nullptr || std::strstr(rout, "hemm") != nullptr) {
      swap(4, 5);
    } else if (std::strstr(rout, "trmm") != nullptr || std::strstr(rout, "trsm") != nullptr) {
      swap(6, 7);
    } else if (std::strstr(rout, "gemv") != nullptr) {
      swap(3, 4);
    }
  }
  if (info != 0)
    std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info,
                 rout != nullptr ? rout : "");
  if (form != nullptr) {
    va_list args;
    va_start(args, form);
    std::vfprintf(stderr, form, args);
    va_end(args);
  }
  std::exit(-1);
}

}  // extern "C"

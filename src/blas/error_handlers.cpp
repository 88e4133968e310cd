// The default error handlers, weak so that a program's own xerbla_ or cblas_xerbla replaces
// them. They print the reference messages and end the program, as the reference handlers do
// (the reference XERBLA with a STOP; here the exit status says that it failed).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "blas/blas_abi.h"

extern "C" {

__attribute__((weak, visibility("default"))) int RowMajorStrg = 0;

__attribute__((weak, visibility("default"))) void xerbla_(const char* name,
                                                          const invar::blas::FortranInt* info,
                                                          std::size_t name_length) {
  // The name as Fortran passes it: name_length characters, blank-padded, no terminator. A C
  // caller may pass a terminated string and a wrong length, so stop at a NUL and cap the length.
  std::size_t length = 0;
  if (name != nullptr) {
    while (length < name_length && length < 32 && name[length] != '\0') ++length;
    while (length > 0 && name[length - 1] == ' ') --length;
  }
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n",
               static_cast<int>(length), name != nullptr ? name : "", info != nullptr ? *info : 0);
  std::exit(EXIT_FAILURE);
}

__attribute__((weak, visibility("default"))) void cblas_xerbla(int info, const char* rout,
                                                               const char* form, ...) {
  // A row-major GEMM reports the positions of the column-major call it maps to (blas_abi.h):
  // M and N, lda and ldb are exchanged there.
  if (RowMajorStrg != 0 && rout != nullptr && std::strstr(rout, "gemm") != nullptr) {
    switch (info) {
      case 4: info = 5; break;
      case 5: info = 4; break;
      case 9: info = 11; break;
      case 11: info = 9; break;
      default: break;
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
  std::exit(EXIT_FAILURE);
}

}  // extern "C"

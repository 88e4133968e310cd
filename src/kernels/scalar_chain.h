// The contract's chain one scalar at a time, for the few columns a vector does not fill.
//
// For each element (i, j) of an m x cols block of C, m <= kDirectMaxRows and cols <= MaxCols:
//
//   acc = +0 | C[i][j] | beta * C[i][j]                     (AccInit, ukernel.h)
//   for k = 0 .. K-1: acc = fma(alpha * op(A)[i][k], B[k][j], acc)   (alpha == 1 is exact)
//   C[i][j] = acc
//
// with op(A)[i][k] at a[i * a_rs + k * a_cs] and B[k][j] at b[k * b_rs + j * b_cs] (row-major B:
// b_cs = 1; B stored transposed: b_rs = 1). k is the outer loop, so the chains of all the block's
// elements are independent and a compiler can interleave them; the fma is the single-rounding
// builtin (one instruction where the target has one, the C library's fma otherwise), so every
// caller gets the bits of a vector lane. The direct kernels' column tails use it, and the
// portable kernels for whole blocks.
//
// Translation units built with an ISA's flags include this header, so everything in it has
// internal linkage (an anonymous namespace): each unit compiles its own copy with its own flags,
// and none can become the one the linker keeps for every caller (the ODR trap,
// tests/isa_objects_odr.sh). For the same reason it uses the compiler's builtins and no
// standard-library function.
#ifndef INVAR_KERNELS_SCALAR_CHAIN_H_
#define INVAR_KERNELS_SCALAR_CHAIN_H_

#include <cstdint>

#include "kernels/ukernel.h"

namespace invar::kernels {
namespace {

inline float fused_multiply_add(float x, float y, float acc) { return __builtin_fmaf(x, y, acc); }
inline double fused_multiply_add(double x, double y, double acc) {
  return __builtin_fma(x, y, acc);
}

// T is float or double.
template <class T, int MaxCols>
void scalar_chains(int64_t m, int64_t cols, int64_t k, T alpha, const T* a, int64_t a_rs,
                   int64_t a_cs, const T* b, int64_t b_rs, int64_t b_cs, T* c, int64_t ldc,
                   AccInit init, T beta) {
  T acc[kDirectMaxRows][MaxCols];
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      switch (init) {
        case AccInit::kZero: acc[i][j] = T(0); break;
        case AccInit::kLoad: acc[i][j] = c[i * ldc + j]; break;
        case AccInit::kScale: acc[i][j] = beta * c[i * ldc + j]; break;
      }
    }
  }
  for (int64_t p = 0; p < k; ++p) {
    const T* bp = b + p * b_rs;
    for (int64_t i = 0; i < m; ++i) {
      const T x = a[i * a_rs + p * a_cs];
      const T aip = alpha == T(1) ? x : alpha * x;
      for (int64_t j = 0; j < cols; ++j)
        acc[i][j] = fused_multiply_add(aip, bp[j * b_cs], acc[i][j]);
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = acc[i][j];
  }
}

}  // namespace
}  // namespace invar::kernels

#endif  // INVAR_KERNELS_SCALAR_CHAIN_H_

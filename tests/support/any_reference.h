// The numeric contract for every element type of the C API, as a plain loop: bf16 and f16
// operands widened exactly to f32 (a 16-bit C widened, the chain in f32, rounded once at the
// store), int8 products summed modulo 2^32, and an optional bias and relu epilogue. Elements are
// addressed through row and column strides, so one loop serves row-major and column-major
// (BLAS) layouts. It must run in the contract's floating-point mode (the test's default).
#ifndef INVAR_TESTS_SUPPORT_ANY_REFERENCE_H_
#define INVAR_TESTS_SUPPORT_ANY_REFERENCE_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "invar/invar.h"
#include "numeric/half.h"

namespace invar::test {

inline float widen_any(invar_bf16 x) { return numeric::widen(x); }
inline float widen_any(invar_f16 x) { return numeric::widen(x); }
inline float widen_any(float x) { return x; }
inline double widen_any(double x) { return x; }
inline int32_t widen_any(int8_t x) { return x; }
inline int32_t widen_any(uint8_t x) { return x; }
inline int32_t widen_any(int32_t x) { return x; }

template <class Out, class Acc>
Out store_any(Acc x) {
  if constexpr (std::is_same_v<Out, invar_bf16>)
    return numeric::round_to_bf16(x);
  else if constexpr (std::is_same_v<Out, invar_f16>)
    return numeric::round_to_f16(x);
  else
    return x;
}

// Element (i, j) of op(X) is at x[i * rs + j * cs].
struct Strides {
  int64_t rs, cs;
};
inline Strides row_major(bool trans, int64_t ld) { return trans ? Strides{1, ld} : Strides{ld, 1}; }

template <class In, class InB, class Out, class Acc>
void reference_any(int64_t m, int64_t n, int64_t k, Acc alpha, const In* a, Strides sa,
                   const InB* b, Strides sb, Acc beta, Out* c, Strides sc, int bias = 0,
                   const Acc* bias_values = nullptr, bool relu = false) {
  const bool epilogue = bias != 0 || relu;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Out& cij = c[i * sc.rs + j * sc.cs];
      Acc acc;
      if constexpr (std::is_integral_v<Acc>) {
        uint32_t sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += static_cast<uint32_t>(widen_any(a[i * sa.rs + p * sa.cs])) *
                 static_cast<uint32_t>(widen_any(b[p * sb.rs + j * sb.cs]));
        if ((k == 0 || alpha == 0) && beta == 1) continue;
        const uint32_t scaled =
            beta == 0 ? 0u : static_cast<uint32_t>(beta) * static_cast<uint32_t>(cij);
        const uint32_t product = alpha == 0 ? 0u : static_cast<uint32_t>(alpha) * sum;
        acc = static_cast<Acc>(product + scaled);
      } else {
        if (k == 0 || alpha == Acc(0)) {
          if (beta == Acc(1) && !epilogue) continue;
          acc = beta == Acc(0) ? Acc(0) : beta == Acc(1) ? widen_any(cij) : beta * widen_any(cij);
        } else {
          acc = beta == Acc(0) ? Acc(0) : beta * widen_any(cij);
          for (int64_t p = 0; p < k; ++p)
            acc = std::fma(alpha * widen_any(a[i * sa.rs + p * sa.cs]),
                           widen_any(b[p * sb.rs + j * sb.cs]), acc);
        }
        if (bias == INVAR_BIAS_ROW) acc = acc + bias_values[i];
        if (bias == INVAR_BIAS_COLUMN) acc = acc + bias_values[j];
        if (relu) acc = acc < Acc(0) ? Acc(0) : acc;
      }
      cij = store_any<Out>(acc);
    }
  }
}

}  // namespace invar::test

#endif  // INVAR_TESTS_SUPPORT_ANY_REFERENCE_H_

// The numeric contract as a plain loop (ARCHITECTURE.md section 1): the bit-exact oracle of every
// kernel, driver path and ISA. Deliberately naive; it must stay obviously correct.
#ifndef INVAR_TESTING_REFERENCE_H_
#define INVAR_TESTING_REFERENCE_H_

#include <cmath>
#include <cstdint>

namespace invar::test {

template <class T>
void reference_gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                    const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T& cij = c[i * ldc + j];
      if (k == 0 || alpha == T(0)) {
        if (beta == T(0))
          cij = T(0);
        else if (beta != T(1))
          cij = beta * cij;
        continue;
      }
      T acc = beta == T(0) ? T(0) : beta * cij;
      for (int64_t p = 0; p < k; ++p) {
        const T aip = trans_a ? a[p * lda + i] : a[i * lda + p];
        const T bpj = trans_b ? b[j * ldb + p] : b[p * ldb + j];
        acc = std::fma(alpha * aip, bpj, acc);
      }
      cij = acc;
    }
  }
}

}  // namespace invar::test

#endif  // INVAR_TESTING_REFERENCE_H_

// The portable direct kernels: kernels/scalar_chain.h over blocks of NR columns, B row-major
// (b_rs = ldb, b_cs = 1) or stored transposed (b_rs = 1, b_cs = ldb).
#include "kernels/generic/generic.h"
#include "kernels/scalar_chain.h"

namespace invar::kernels::generic {

void sgemm_generic_direct_8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                            int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                            int64_t ldc, AccInit init, float beta) {
  for (int64_t j = 0; j < n; j += kSgemmNr)
    scalar_chains<float, kSgemmNr>(m, n - j < kSgemmNr ? n - j : kSgemmNr, k, alpha, a, a_rs, a_cs,
                                   b + j, ldb, 1, c + j, ldc, init, beta);
}

void sgemm_generic_direct_t_8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                              int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                              int64_t ldc, AccInit init, float beta) {
  for (int64_t j = 0; j < n; j += kSgemmNr)
    scalar_chains<float, kSgemmNr>(m, n - j < kSgemmNr ? n - j : kSgemmNr, k, alpha, a, a_rs, a_cs,
                                   b + j * ldb, 1, ldb, c + j, ldc, init, beta);
}

void dgemm_generic_direct_4(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                            int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                            int64_t ldc, AccInit init, double beta) {
  for (int64_t j = 0; j < n; j += kDgemmNr)
    scalar_chains<double, kDgemmNr>(m, n - j < kDgemmNr ? n - j : kDgemmNr, k, alpha, a, a_rs, a_cs,
                                    b + j, ldb, 1, c + j, ldc, init, beta);
}

void dgemm_generic_direct_t_4(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                              int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                              int64_t ldc, AccInit init, double beta) {
  for (int64_t j = 0; j < n; j += kDgemmNr)
    scalar_chains<double, kDgemmNr>(m, n - j < kDgemmNr ? n - j : kDgemmNr, k, alpha, a, a_rs, a_cs,
                                    b + j * ldb, 1, ldb, c + j, ldc, init, beta);
}

}  // namespace invar::kernels::generic

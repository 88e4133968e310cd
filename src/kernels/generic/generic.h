// Portable micro-kernels: plain C++ with std::fma, built with the library's baseline flags. They
// are the path of last resort and the model every SIMD kernel must match bit for bit.
#ifndef INVAR_KERNELS_GENERIC_GENERIC_H_
#define INVAR_KERNELS_GENERIC_GENERIC_H_

#include "kernels/ukernel.h"

namespace invar::kernels::generic {

inline constexpr int kSgemmMr = 4;
inline constexpr int kSgemmNr = 8;

void sgemm_generic_4x8(int64_t kc, const float* a_panel, const float* b_panel, float* c,
                       int64_t ldc, AccInit init, float beta);

// m <= kDirectMaxRows rows x n columns from unpacked operands (ukernel.h).
void sgemm_generic_direct_8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                            int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                            int64_t ldc, AccInit init, float beta);

// The same with B stored transposed (B[k][j] at b[j * ldb + k]).
void sgemm_generic_direct_t_8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                              int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                              int64_t ldc, AccInit init, float beta);

// The decode step over bf16 (sb) and f16 (sh) operands, each value widened exactly (ukernel.h,
// WidenedDirectFn): B row-major, stored transposed, and in prepacked 16-bit panels of kSgemmNr
// columns (`ldb` the distance between panels).
void sbgemm_generic_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                           int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                           int64_t ldc, AccInit init, float beta);
void sbgemm_generic_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                             int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                             int64_t ldc, AccInit init, float beta);
void sbgemm_generic_direct_panels(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                  int64_t a_rs, int64_t a_cs, const uint16_t* panels,
                                  int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                  float beta);
void shgemm_generic_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                           int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                           int64_t ldc, AccInit init, float beta);
void shgemm_generic_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                             int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                             int64_t ldc, AccInit init, float beta);
void shgemm_generic_direct_panels(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                  int64_t a_rs, int64_t a_cs, const uint16_t* panels,
                                  int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                  float beta);

inline constexpr int kDgemmMr = 4;
inline constexpr int kDgemmNr = 4;

void dgemm_generic_4x4(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                       int64_t ldc, AccInit init, double beta);

// The f64 direct kernels, B row-major and B stored transposed.
void dgemm_generic_direct_4(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                            int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                            int64_t ldc, AccInit init, double beta);
void dgemm_generic_direct_t_4(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                              int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                              int64_t ldc, AccInit init, double beta);

// s8 x s8 and u8 x s8 -> s32 on int16 pair panels (ukernel.h): uint32_t sums, modulo 2^32.
inline constexpr int kIgemmMr = 4;
inline constexpr int kIgemmNr = 8;

void igemm_generic_4x8(int64_t kc, const int16_t* a_panel, const int16_t* b_panel, int32_t* c,
                       int64_t ldc, AccInit init, int32_t alpha, int32_t beta);

}  // namespace invar::kernels::generic

#endif  // INVAR_KERNELS_GENERIC_GENERIC_H_

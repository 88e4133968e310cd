// AArch64 Advanced SIMD micro-kernels. Only declared here.
#ifndef INVAR_KERNELS_NEON_NEON_H_
#define INVAR_KERNELS_NEON_NEON_H_

#include "kernels/ukernel.h"

namespace invar::kernels::neon {

// 8 x 12: 24 q-register accumulators (8 rows x 3 vectors of 4), A and B loaded as vectors and
// multiplied by lane (fmla by element is a fused multiply-add, one rounding, like every other
// path).
inline constexpr int kSgemmMr = 8;
inline constexpr int kSgemmNr = 12;
void sgemm_neon_8x12(int64_t kc, const float* a_panel, const float* b_panel, float* c, int64_t ldc,
                     AccInit init, float beta);

// m <= kDirectMaxRows rows x n columns from unpacked operands (ukernel.h), in blocks of up to 48
// columns (kDirectNr = 16, the block of three or four rows).
inline constexpr int kDirectNr = 16;
void sgemm_neon_direct_16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta);

// The same over prepacked 12-column panels (pack.h: K x 12, row stride 12, panel_stride floats
// apart), several panels in flight at once when m is small.
void sgemm_neon_direct_panels12(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t a_rs, int64_t a_cs, const float* panels,
                                int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                float beta);

// The same with B stored transposed (B[k][j] at b[j * ldb + k]), eight columns at a time.
inline constexpr int kDirectTNr = 8;
void sgemm_neon_direct_t8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta);

// The decode step over bf16 (sb) and f16 (sh) operands (ukernel.h, WidenedDirectFn), widened
// in registers: m <= kDirectMaxRows rows over a row-major B (direct), a transposed B (direct_t)
// and prepacked 16-bit panels of kSgemmNr columns (direct_panels12; its `ldb` is the distance
// between panels), in groups of kWidenedNr columns.
inline constexpr int kWidenedNr = 4;
void sbgemm_neon_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                        int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                        int64_t ldc, AccInit init, float beta);
void sbgemm_neon_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                          int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta);
void sbgemm_neon_direct_panels12(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                 int64_t a_rs, int64_t a_cs, const uint16_t* panels,
                                 int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                 float beta);
void shgemm_neon_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                        int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                        int64_t ldc, AccInit init, float beta);
void shgemm_neon_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                          int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta);
void shgemm_neon_direct_panels12(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                 int64_t a_rs, int64_t a_cs, const uint16_t* panels,
                                 int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                 float beta);

// 8 x 6 doubles: 24 q-register accumulators (8 rows x 3 vectors of 2), A loaded as 4 vectors
// and B as 3 per step (31 of the 32 registers), multiplied by lane.
inline constexpr int kDgemmMr = 8;
inline constexpr int kDgemmNr = 6;
void dgemm_neon_8x6(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                    int64_t ldc, AccInit init, double beta);

// s8 x s8 and u8 x s8 -> s32 on int16 pair panels (ukernel.h), 4 x 8: smlal/smlal2 multiply each
// step pair's int16 lanes into int32 lanes of their own (16 accumulators), which one addp per
// vector folds into the two steps' sum at the end.
inline constexpr int kIgemmMr = 4;
inline constexpr int kIgemmNr = 8;
void igemm_neon_4x8(int64_t kc, const int16_t* a_panel, const int16_t* b_panel, int32_t* c,
                    int64_t ldc, AccInit init, int32_t alpha, int32_t beta);

}  // namespace invar::kernels::neon

#endif  // INVAR_KERNELS_NEON_NEON_H_

// AVX2 + FMA3 micro-kernels. Compiled with -mavx2 -mfma -mf16c (cmake/InvarIsa.cmake); only
// declared here, so no AVX2 code can leak into a baseline translation unit.
#ifndef INVAR_KERNELS_AVX2_AVX2_H_
#define INVAR_KERNELS_AVX2_AVX2_H_

#include "kernels/ukernel.h"

namespace invar::kernels::avx2 {

// 6 x 16: twelve ymm accumulators (6 rows x 2 vectors of 8), two B vectors, one broadcast of A.
// Twelve independent chains cover 2 FMA pipes x 4-5 cycles of latency on Zen 2-4 and Haswell to
// Alder Lake, with 1 of the 16 registers to spare.
inline constexpr int kSgemmMr = 6;
inline constexpr int kSgemmNr = 16;
void sgemm_avx2_6x16(int64_t kc, const float* a_panel, const float* b_panel, float* c, int64_t ldc,
                     AccInit init, float beta);
// The same chains on a partial tile: rows x cols of C (1..6 x 1..16) from the same whole panels,
// C read and written under masks; nothing outside the block is touched.
void sgemm_avx2_6x16_edge(int64_t rows, int64_t cols, int64_t kc, const float* a_panel,
                          const float* b_panel, float* c, int64_t ldc, AccInit init, float beta);
// The same tiles over A in place and B in NR-column groups (ukernel.h's micro-kernel over A in
// place).
void sgemm_avx2_6x16_a_in_place(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                const float* b, int64_t ldb, int64_t gs, float* c, int64_t ldc,
                                AccInit init, float beta);

// The direct kernels below take m <= kDirectMr rows per call (ukernel.h allows more than
// kDirectMaxRows): six rows of two vectors are the tile's twelve accumulators, so a small
// product, or a narrow one over its packed B, runs the micro-kernel's chains without packing A.
inline constexpr int kDirectMr = 6;

// m <= kDirectMr rows x n columns from unpacked operands (ukernel.h).
void sgemm_avx2_direct_16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta);

// The same for any m, its arguments as one record (ukernel.h: DirectArgs), and
// over a strided batch's entries (DirectBatchFn).
void sgemm_avx2_direct_args(const DirectArgs& args);
void sgemm_avx2_direct_batch(const DirectArgs& first, int64_t count, int64_t a_stride,
                             int64_t b_stride, int64_t c_stride);

// The same over prepacked panels (pack.h: K x NR, row stride NR, panel_stride floats apart),
// several panels in flight at once when m is small: NR = 16 (this path's tile) and 32 (the
// AVX-512 tile, whose decode step is bound by memory, not by vector width). Over panels in L2,
// six rows at a time, it beats packing A for the 6 x 16 kernel up to 4 panels (one thread,
// same process, Zen 3): 512x32x512 +25 %, 4096x16x1024 +44 %, 1024x64x128 +4 %, 256x64x64
// +6 %; at 80 columns -1 %, at 128 (128^3) -3 %.
inline constexpr int kSgemmAInPlacePanels = 4;
void sgemm_avx2_direct_panels16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t a_rs, int64_t a_cs, const float* panels,
                                int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                float beta);
void sgemm_avx2_direct_panels32(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t a_rs, int64_t a_cs, const float* panels,
                                int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                float beta);

// The same with B stored transposed (B[k][j] at b[j * ldb + k]), eight columns at a time.
inline constexpr int kDirectTNr = 8;
void sgemm_avx2_direct_t8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta);
// Its direct_t_cached form: up to three rows over pairs of eight-column blocks (four as above).
void sgemm_avx2_direct_t8_pairs(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                                int64_t ldc, AccInit init, float beta);
// The same pairs streaming W from memory (software prefetch, the second block further behind):
// the direct_t_alone of the AMD Zen 5 form (kernels/sets/avx512.cpp).
void sgemm_avx2_direct_t8_pairs_streaming(int64_t m, int64_t n, int64_t k, float alpha,
                                          const float* a, int64_t a_rs, int64_t a_cs,
                                          const float* b, int64_t ldb, float* c, int64_t ldc,
                                          AccInit init, float beta);

// The decode step over bf16 (sb) and f16 (sh) operands (ukernel.h, WidenedDirectFn), widened
// in registers: m <= kDirectMaxRows rows over a row-major B (direct), a transposed B (direct_t)
// and prepacked 16-bit panels of 16 or 32 columns (direct_panels16, direct_panels32; their
// `ldb` is the distance between panels). The AVX-512 path runs them too.
void sbgemm_avx2_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                        int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                        int64_t ldc, AccInit init, float beta);
void sbgemm_avx2_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                          int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta);
void sbgemm_avx2_direct_panels16(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                 int64_t a_rs, int64_t a_cs, const uint16_t* panels,
                                 int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                 float beta);
void sbgemm_avx2_direct_panels32(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                 int64_t a_rs, int64_t a_cs, const uint16_t* panels,
                                 int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                 float beta);
void shgemm_avx2_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                        int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                        int64_t ldc, AccInit init, float beta);
void shgemm_avx2_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                          int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta);
void shgemm_avx2_direct_panels16(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                 int64_t a_rs, int64_t a_cs, const uint16_t* panels,
                                 int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                 float beta);
void shgemm_avx2_direct_panels32(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                 int64_t a_rs, int64_t a_cs, const uint16_t* panels,
                                 int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                 float beta);

// Packs an mc x kc block of alpha * op(A), A row-major (row stride lda), into 6-row panels, the
// layout of pack.h. The sb/sh forms read bf16 / f16 (their raw bits) and widen them exactly to
// f32, as the portable packer does. The a12 forms pack the 12-row panels of the AVX-512 path's
// kernel (every AVX-512 CPU runs AVX2).
void sgemm_avx2_pack_a6(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                        float* dst);
void sbgemm_avx2_pack_a6(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                         float* dst);
void shgemm_avx2_pack_a6(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                         float* dst);
void sgemm_avx2_pack_a12(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                         float* dst);
void sbgemm_avx2_pack_a12(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                          float* dst);
void shgemm_avx2_pack_a12(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                          float* dst);

// The f64 counterparts for a row-major A: 6-row panels (dgemm_avx2_6x8) and 12-row ones
// (dgemm_avx512_12x16).
void dgemm_avx2_pack_a6(int64_t mc, int64_t kc, const double* a, int64_t lda, double alpha,
                        double* dst);
void dgemm_avx2_pack_a12(int64_t mc, int64_t kc, const double* a, int64_t lda, double alpha,
                         double* dst);

// The same with A stored transposed (op(A)[i][p] = a[p * lda + i]).
void sgemm_avx2_pack_a6_t(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                          float* dst);
void sbgemm_avx2_pack_a6_t(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                           float* dst);
void shgemm_avx2_pack_a6_t(int64_t mc, int64_t kc, const uint16_t* a, int64_t lda, float alpha,
                           float* dst);

// Packs a kc x nc block of op(B) = W^T (W row-major, row stride ldw) into 16-column panels, the
// layout of pack.h; dst is 32-byte aligned (as every packed block is). bf16 / f16 as above.
void sgemm_avx2_pack_b16_t(int64_t kc, int64_t nc, const float* w, int64_t ldw, float* dst);
void sbgemm_avx2_pack_b16_t(int64_t kc, int64_t nc, const uint16_t* w, int64_t ldw, float* dst);
void shgemm_avx2_pack_b16_t(int64_t kc, int64_t nc, const uint16_t* w, int64_t ldw, float* dst);
// The same into the 32-column panels of the AVX-512 path's kernel.
void sgemm_avx2_pack_b32_t(int64_t kc, int64_t nc, const float* w, int64_t ldw, float* dst);
void sbgemm_avx2_pack_b32_t(int64_t kc, int64_t nc, const uint16_t* w, int64_t ldw, float* dst);
void shgemm_avx2_pack_b32_t(int64_t kc, int64_t nc, const uint16_t* w, int64_t ldw, float* dst);

// Packs a kc x nc block of a row-major f32 / bf16 / f16 B (row stride ldb) into 16-column f32
// panels (the _b32 forms: 32-column ones); dst is 32-byte aligned. For f32 a plain copy in ymm
// moves, where the portable packer's compiled loop ran 15-20 % slower on the Zen 4 machine.
void sgemm_avx2_pack_b16(int64_t kc, int64_t nc, const float* b, int64_t ldb, float* dst);
void sgemm_avx2_pack_b32(int64_t kc, int64_t nc, const float* b, int64_t ldb, float* dst);
void sbgemm_avx2_pack_b16(int64_t kc, int64_t nc, const uint16_t* b, int64_t ldb, float* dst);
void shgemm_avx2_pack_b16(int64_t kc, int64_t nc, const uint16_t* b, int64_t ldb, float* dst);
void sbgemm_avx2_pack_b32(int64_t kc, int64_t nc, const uint16_t* b, int64_t ldb, float* dst);
void shgemm_avx2_pack_b32(int64_t kc, int64_t nc, const uint16_t* b, int64_t ldb, float* dst);

// 6 x 8 doubles: the same register plan as the f32 tile, each ymm holding 4 doubles.
inline constexpr int kDgemmMr = 6;
inline constexpr int kDgemmNr = 8;
void dgemm_avx2_6x8(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                    int64_t ldc, AccInit init, double beta);
void dgemm_avx2_6x8_edge(int64_t rows, int64_t cols, int64_t kc, const double* a_panel,
                         const double* b_panel, double* c, int64_t ldc, AccInit init, double beta);
void dgemm_avx2_6x8_a_in_place(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                               const double* b, int64_t ldb, int64_t gs, double* c, int64_t ldc,
                               AccInit init, double beta);

// m <= kDirectMr rows x n columns of f64 from unpacked operands, B row-major.
void dgemm_avx2_direct_8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                         int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                         int64_t ldc, AccInit init, double beta);
// The same for any m, its arguments as one record (ukernel.h: DirectArgs), and
// over a strided batch's entries (DirectBatchFn).
void dgemm_avx2_direct_args(const DirectArgs& args);
void dgemm_avx2_direct_batch(const DirectArgs& first, int64_t count, int64_t a_stride,
                             int64_t b_stride, int64_t c_stride);
// The same with B stored transposed (B[k][j] at b[j * ldb + k]), eight columns at a time
// (kDirectTNr, as the f32 kernel): a row-major y = W x read in place.
void dgemm_avx2_direct_t8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                          int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                          int64_t ldc, AccInit init, double beta);
// The same over prepacked panels of 8 (AVX2) or 16 (AVX-512) doubles, panel_stride apart. Over
// panels in L2 it beats packing A for the 6 x 8 kernel at every width measured (one thread,
// Zen 3, then with the portable A packer): 4096x8x1024 2.2x, 512x16x512 +52 %, 1000x32x500
// +32 %, 512x48x256 +16 %, 128^3 +5 %. With dgemm_avx2_pack_a6 (Zen 4, limit 16 against 4
// panels): 512x48x256 +13 %, 512x64x512 +8 %, 128^3 +-0, 1000x128x500 -3 %.
inline constexpr int kDgemmAInPlacePanels = 16;
void dgemm_avx2_direct_panels8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                               int64_t a_rs, int64_t a_cs, const double* panels,
                               int64_t panel_stride, double* c, int64_t ldc, AccInit init,
                               double beta);
void dgemm_avx2_direct_panels16(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                                int64_t a_rs, int64_t a_cs, const double* panels,
                                int64_t panel_stride, double* c, int64_t ldc, AccInit init,
                                double beta);

// s8 x s8 and u8 x s8 -> s32 on int16 pair panels (ukernel.h), 6 x 16: twelve ymm accumulators
// of 8 int32, each step vpmaddwd (two k steps per lane, exact) then vpaddd.
inline constexpr int kIgemmMr = 6;
inline constexpr int kIgemmNr = 16;
void igemm_avx2_6x16(int64_t kc, const int16_t* a_panel, const int16_t* b_panel, int32_t* c,
                     int64_t ldc, AccInit init, int32_t alpha, int32_t beta);

}  // namespace invar::kernels::avx2

#endif  // INVAR_KERNELS_AVX2_AVX2_H_

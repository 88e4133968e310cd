// What is a micro-kernel?
//
// The innermost piece of the Goto/BLIS loop nest. It owns an MR x NR tile of C in registers and
// runs kc steps of rank-1 updates out of two packed micro-panels:
//
//   a_panel: kc groups of MR elements, a_panel[p * MR + i] = alpha * op(A)[i][p]
//   b_panel: kc groups of NR elements, b_panel[p * NR + j] = op(B)[p][j]
//
// Every register lane holds exactly one element's accumulator, and each step is one fused
// multiply-add per lane, so the arithmetic of element (i, j) is the chain of the numeric contract
// (ARCHITECTURE.md section 1) whatever MR, NR or the vector width are. How the accumulators start
// is the only choice the caller makes:
//
//   kZero   acc = +0            (first k-block when beta == 0; C is never read)
//   kLoad   acc = C[i][j]       (every later k-block, and the first one when beta == 1)
//   kScale  acc = beta * C[i][j] (first k-block otherwise; one rounded multiply)
//
// Storing acc to C between k-blocks and loading it back is exact, which is why k-blocking cannot
// change a bit.
//
// The packers zero-pad panels to whole tiles. A kernel with an edge form (GemmKernel::ukernel_edge)
// runs a partial tile's rows only and reads and writes C under masks; for the others the driver
// runs partial tiles on a scratch tile (see driver/gemm_driver.cpp), where the padded lanes
// compute values nobody stores.
#ifndef INVAR_KERNELS_UKERNEL_H_
#define INVAR_KERNELS_UKERNEL_H_

#include <cstdint>

#if defined(__FAST_MATH__)
#error "invar's numeric code must not be built with -ffast-math (see CMakeLists.txt)"
#endif

namespace invar::kernels {

enum class AccInit : int { kZero = 0, kLoad = 1, kScale = 2 };

// The typed f32 micro-kernel signature, shared by every ISA folder.
//   Assumptions: a_panel and b_panel hold kc * MR and kc * NR floats. The packed blocks start
//   64-byte aligned and micro-panel s starts at s * kc * NR elements, so a B micro-panel is
//   aligned to gcd(64, NR * 4) bytes: 64 for NR = 16 and 32 (aligned ymm/zmm loads are safe),
//   16 for NR = 12. A micro-panels are only element-aligned (kernels broadcast from them);
//   c addresses an MR x NR tile with row stride ldc; kc >= 1.
using SgemmUkernelFn = void (*)(int64_t kc, const float* a_panel, const float* b_panel, float* c,
                                int64_t ldc, AccInit init, float beta);

// The f32 direct kernel, for products with only a few rows (a decode step: M = 1..4), or small
// ones, and a row-major B. Packing would copy all of B to use it once, so this kernel reads the
// operands in place: an m x n block (m <= the kernel's direct_mr, at least
// kDirectMaxRows; any n >= 1) of C, with acc started as above and, for every k in increasing
// order, acc[i][j] = fma(alpha * op(A)[i][k], B[k][j], acc[i][j]): one A value broadcast, one fma
// per lane along j. The chain is the contract's.
//   a: op(A)[i][k] at a[i * a_rs + k * a_cs]; b: B[k][j] at b[k * ldb + j].
// kDirectMaxRows is also the most rows a product may have to count as "a few" (gemm_driver.h).
inline constexpr int kDirectMaxRows = 4;
using SgemmDirectFn = void (*)(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                               int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                               int64_t ldc, AccInit init, float beta);

// The direct kernel's arguments as one record, for any m (DirectArgsFn): the smallest products'
// way in (api/tiny_lane.h), where passing thirteen arguments from call to call costs more than
// their multiply-adds. It takes more rows than the direct kernel is asked for by the planner
// (kDirectMaxRows): the tiny lane runs up to kFewRowsMaxRows rows over a row-major B through
// it, and more rows over narrow columns (kFewRowsGroupsMaxBytes), rather than through the small
// path's tiles. alpha and beta point to
// scalars of C's type; a, b and c to its elements. Same contract and chains as the direct kernel.
inline constexpr int kFewRowsMaxRows = 8;
// Above kDirectMaxRows rows the tiny lane takes the record form only up to this many columns:
// wider, the small path's tiles (one pass over B, up to 16 accumulators on AVX-512) are faster
// than the few-rows passes (8 x 128 x 128 on the AVX-512 Xeon of block_sizes.h, one thread, a
// shared machine: 0.8 of libxsmm's calls per second against 1.2 with the tiles).
inline constexpr int64_t kFewRowsMaxCols = 16;
// Over more rows, the record form runs groups of them (kernels/few_rows_body.h: few_rows_groups)
// where the columns take at most this many bytes (three AVX2 vectors): faster than the small
// path's tiles there on Zen 3 (invar_bench_small's squares, one thread: f32 10^3 1.23x, 20^3
// 1.16x, 64 x 8 x 8 1.9x; f64 12^3 1.21x), level at two whole AVX2 vectors (f32 16 columns
// 0.95-1.01x), and slower over wider ones (f64 20^3: 0.7x).
inline constexpr int64_t kFewRowsGroupsMaxBytes = 96;
struct DirectArgs {
  int64_t m, n, k;
  const void* alpha;
  const void* a;
  int64_t a_rs, a_cs;
  const void* b;
  int64_t ldb;
  void* c;
  int64_t ldc;
  AccInit init;
  const void* beta;
};
using DirectArgsFn = void (*)(const DirectArgs& args);
// The record form over the `count` products of a strided batch: product i is `first` with its a,
// b and c moved on i times a_stride, b_stride and c_stride elements. The same chains as `count`
// calls of DirectArgsFn, one per entry; what a call costs whatever its size (the record read,
// the kernel's set-up) is paid once per batch.
using DirectBatchFn = void (*)(const DirectArgs& first, int64_t count, int64_t a_stride,
                               int64_t b_stride, int64_t c_stride);

// The direct kernels over bf16 and f16 operands (each value passed as its raw bits): the same
// shapes and chains as SgemmDirectFn on the operands widened exactly to f32, C in f32.
using WidenedDirectFn = void (*)(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                                 int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb,
                                 float* c, int64_t ldc, AccInit init, float beta);

// The micro-kernel over A in place: a whole m x n block of C (any m, n >= 1) in the packed kernel's
// tiles, each over all k steps with acc started as above, from A in place, row-major (row stride
// lda, alpha 1), and B in groups of NR columns (the tile's width): group g, columns g * NR..,
// starts at b + g * gs and its rows are ldb apart. A row-major B in place is gs = NR and ldb its
// row stride; packed panels (zero-padded or not) are ldb = NR and gs the panel's size. The packed
// kernel's chains, for products too small to repay packing, and for narrow ones over a packed B
// where packing A would not repay itself (gemm_driver.h). Partial tiles read and write only
// their elements, of C and of B.
using SgemmUkernelAInPlaceFn = void (*)(int64_t m, int64_t n, int64_t k, const float* a,
                                        int64_t lda, const float* b, int64_t ldb, int64_t gs,
                                        float* c, int64_t ldc, AccInit init, float beta);

// The f64 counterparts: the same layouts and chains over doubles. A B micro-panel of NR doubles
// is aligned to gcd(64, NR * 8) bytes (64 for NR = 8 and 16, 16 for NR = 6).
using DgemmUkernelFn = void (*)(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                                int64_t ldc, AccInit init, double beta);
using DgemmDirectFn = void (*)(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                               int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                               int64_t ldc, AccInit init, double beta);

// The integer micro-kernels (s8 x s8 and u8 x s8 -> s32). Each operand is widened exactly to
// int16 while packing, and k steps go in pairs so that one instruction can multiply two steps and
// add the two products into an int32 lane (x86's vpmaddwd), never saturating: |a * b| <= 255 * 128.
//
//   a_panel: for every pair q < kc / 2, MR pairs {op(A)[i][2q], op(A)[i][2q+1]} at
//            a_panel[2q * MR + 2i], [2q * MR + 2i + 1]; when kc is odd, the last step alone,
//            op(A)[i][kc-1] at a_panel[(kc-1) * MR + i]. alpha is NOT applied.
//   b_panel: the same with NR columns: {op(B)[2q][j], op(B)[2q+1][j]} at b_panel[2q * NR + 2j],
//            [2q * NR + 2j + 1]; the odd last step at b_panel[(kc-1) * NR + j].
//
// So a panel holds exactly kc * MR (kc * NR) int16 values and step p starts at element p * MR
// (p * NR) for every even p, the layout's only difference from the float panels: these kernels
// have k_unit = 2, so that rows pc.. of a prepacked B are a k-block's panel. B micro-panels
// are aligned as f32 panels of the same NR would be, halved: 32 bytes for NR = 16.
//
// Arithmetic is modulo 2^32 (in uint32_t, so no signed overflow), where addition and
// multiplication are associative, commutative and distributive: every order gives the same bits.
// The kernel computes s = sum over its kc steps of op(A)[i][p] * op(B)[p][j], then
//
//   C[i][j] = init + alpha * s      with init = 0 (kZero), C[i][j] (kLoad), beta * C[i][j] (kScale)
//
// Across k-blocks C holds init + alpha * s1 + alpha * s2 + ... = beta * C + alpha * (s1 + s2 +
// ...), which is the contract's alpha * (A . B) + beta * C modulo 2^32.
using IgemmUkernelFn = void (*)(int64_t kc, const int16_t* a_panel, const int16_t* b_panel,
                                int32_t* c, int64_t ldc, AccInit init, int32_t alpha, int32_t beta);

// The integer micro-kernels over byte quads (x86 AVX-512 VNNI: vpdpbusd multiplies four u8 by
// four s8 and adds the four products, exact, into an int32 lane, without saturating). Operands
// stay bytes, and k steps go in quads:
//
//   a_panel: for every quad q < kc / 4, MR quads {a'(i, 4q) .. a'(i, 4q+3)} at
//            a_panel[4q * MR + 4i + h]; the last kc % 4 steps (the tail) one by one,
//            a'(i, 4Q + h) at a_panel[4Q * MR + h * MR + i] with Q = kc / 4. alpha is NOT applied.
//            a' is the unsigned byte the instruction takes: op(A) itself for u8 A, and
//            op(A) + 128 (its bits with the top one flipped) for s8 A.
//   b_panel: the same with NR columns of s8: {op(B)[4q][j] .. op(B)[4q+3][j]} at
//            b_panel[4q * NR + 4j + h], the tail op(B)[4Q + h][j] at b_panel[4Q * NR + h * NR + j].
//
// A panel holds exactly kc * MR (kc * NR) bytes. Step p starts at byte p * MR (p * NR) only when
// p is a multiple of 4, so these kernels have k_unit = 4 (kernel_set.h): every k-block but the
// last is a multiple of 4 deep, and rows pc.. of a prepacked panel are a block's panel.
// For s8 A the kernel also sums 128 * op(B)[p][j] over the block's steps (one more vpdpbusd per
// B vector and quad, with 128 in every byte) and subtracts it: sum (a + 128) b - sum 128 b =
// sum a b, modulo 2^32 like everything else, so the bits are the pair kernels'.
using IgemmQuadUkernelFn = void (*)(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel,
                                    int32_t* c, int64_t ldc, AccInit init, int32_t alpha,
                                    int32_t beta);

// The integer micro-kernels over AMX tiles (x86 AMX-INT8: tdpbusd and tdpbssd multiply a tile of
// 16 rows x 64 bytes of A by one of 16 quads x 16 columns of B and add each element's 64 exact
// products into its int32, wrapping modulo 2^32, never saturating). MR = NR = 32; k steps go in
// chunks of 64, one tile product each, and the last kc % 64 steps (the remainder) in byte quads:
//
//   a_panel: for every chunk t < kc / 64, the 32 rows of its 64 steps side by side,
//            op(A)(i, 64t + h) at a_panel[2048t + 64i + h] (two A tiles of 16 rows, 64 bytes
//            apart), as op(A)'s own bytes (tdpbssd takes s8 A as it is); then the remainder at
//            a_panel + 2048 * (kc / 64) in the quad layout above with MR = 32 (s8 A as a + 128).
//   b_panel: the quad layout above with NR = 32, unchanged: a chunk's 16 quads of 32 columns
//            are two B tiles, rows 128 bytes apart, the second one 64 bytes in.
//
// A panel holds exactly kc * 32 bytes, and these kernels have k_unit = 64. The remainder's sums
// (and their s8 correction) are the quad kernels'; every sum is modulo 2^32, so the bits are
// theirs and the pair kernels'.

}  // namespace invar::kernels

#endif  // INVAR_KERNELS_UKERNEL_H_

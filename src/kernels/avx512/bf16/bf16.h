// The AVX512_BF16 kernels: bf16 x bf16 -> f32 on bf16 pair panels, with vdpbf16ps. Compiled
// with -mavx512f -mavx512bw -mavx512bf16 (cmake/InvarIsa.cmake); only declared here.
//
// vdpbf16ps adds two products of bf16 values to an f32 lane. Measured on an Intel Xeon with
// AVX512_BF16, it computes exactly acc <- fma(a[2i], b[2i], fma(a[2i+1], b[2i+1], acc)): the odd
// element (the high half of the 32-bit lane) first, then the even one, each product exact in f32
// and each step one rounding. So with step k in the high half and step k + 1 in the low half it
// computes two steps of the contract's chain, as long as nothing is subnormal: the instruction
// treats subnormal inputs (the accumulator included) as zero and flushes subnormal results.
// kernels/bf16_dot.h says when that cannot happen and checks the instruction on each CPU.
//
// Pair panels (the bf16 counterpart of ukernel.h's int16 pairs, the two steps swapped):
//   a_panel: for every pair q < kc / 2, MR 32-bit lanes, lane i = {low: alpha * op(A)[i][2q+1],
//            high: alpha * op(A)[i][2q]} at a_panel[2q * MR + 2i], [2q * MR + 2i + 1]; when kc
//            is odd, the last step alone, op(A)[i][kc-1] at a_panel[(kc-1) * MR + i].
//   b_panel: the same with NR columns of op(B); 64-byte aligned (the f32 panels' 128 bytes per
//            step halved).
// A panel holds exactly kc * MR (kc * NR) bf16 values, so the kernel has k_unit = 2. The odd
// last step runs as one fma on the values widened exactly to f32: no padding product is ever
// added, so no signed zero can change (+0 added to an accumulator of -0 would make it +0).
#ifndef INVAR_KERNELS_AVX512_BF16_BF16_H_
#define INVAR_KERNELS_AVX512_BF16_BF16_H_

#include <cstdint>

#include "kernels/ukernel.h"

namespace invar::kernels::avx512 {

inline constexpr int kSbgemmDotMr = 12;
inline constexpr int kSbgemmDotNr = 32;

// The 12 x 32 tile over pair panels: 24 zmm accumulators, one vdpbf16ps per accumulator and
// pair of steps. Each call checks its accumulators once started (from C or beta * C): when one
// is nonzero with an exponent below -103 (so not a multiple of 2^-126), the tile runs the same
// chain with one fma per step on the widened values instead (bf16_dot.h says why that bound).
void sbgemm_avx512bf16_12x32(int64_t kc, const uint16_t* a_panel, const uint16_t* b_panel, float* c,
                             int64_t ldc, AccInit init, float beta);

// The instruction alone, for the check at detection: out[l] = vdpbf16ps(acc[l], a pair l,
// b pair l) for l < lanes (a multiple of 16); a and b hold 2 * lanes bf16 values.
void sbgemm_avx512bf16_lanes(int64_t lanes, const uint16_t* a, const uint16_t* b, const float* acc,
                             float* out);

// `iterations` rounds of 24 independent vdpbf16ps (dot true) or vfmadd231ps (dot false) on zmm
// registers: the instructions' throughput, for the rate probe at detection (bf16_dot.h).
void sbgemm_avx512bf16_spin(int64_t iterations, bool dot);

// The smallest exponent field (biased, 0..255) of the nonzero values of a rows x cols block of
// bf16 (rows ld elements apart): 0 when one is subnormal, 256 when every value is a zero.
int bf16_min_exponent_field(int64_t rows, int64_t cols, const uint16_t* p, int64_t ld);

}  // namespace invar::kernels::avx512

#endif  // INVAR_KERNELS_AVX512_BF16_BF16_H_

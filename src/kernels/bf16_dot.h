// The bf16 dot-product kernel: when a bf16 product may run on vdpbf16ps, and whether it may here.
//
// A bf16 x bf16 product is the f32 product of the operands widened exactly (ARCHITECTURE.md,
// section 1), which every CPU computes with its f32 kernel on operands widened while packing
// (KernelSet::sbgemm). On a CPU with AVX512_BF16, vdpbf16ps runs two steps of the chain in one
// instruction (kernels/avx512/bf16/bf16.h): twice the f32 rate, with the same bits, on three
// conditions, each checked before the kernel is used:
//
//   1. The instruction equals the chain on this CPU. Measured so on an Intel Xeon (over 2,000,000
//      random lanes with cancellation), but an instruction whose rounding is not specified step
//      by step is trusted only after it is seen: at detection, bf16_dot_check runs it on a fixed
//      adversarial set (signed zeros, ties, cancellation, the extreme exponents the guard allows,
//      overflow, infinities and NaNs, and random lanes) against the scalar chain, and the kernel
//      is used only if every lane has the chain's bits.
//   2. Nothing in the chain can be subnormal, since the instruction flushes subnormal inputs (the
//      accumulator's too) and results to zero. No operand may be subnormal: the instruction reads
//      it as zero, while its product with a large enough value is normal. A product of bf16 values
//      with exponents ea and eb is a multiple of 2^(ea + eb - 14); a sum of multiples of 2^-126,
//      rounded to f32, is one again, and a nonzero multiple of 2^-126 is normal. So when ea_min +
//      eb_min >= -112 (the smallest exponents of a nonzero |a| and |b| over the whole product) and
//      the chain starts from 0 or from a multiple of 2^-126 (every nonzero beta * C with an
//      exponent >= -103), no operand, product, partial sum or result is subnormal.
//      sbgemm_dot_applies checks the first half on the operands before the product (one read of A
//      and B, vectorised); the kernel checks each tile's start and runs that tile's chains with one
//      fma per step where it fails. Where the operands fail, the product runs the widened f32 path.
//   3. alpha is +1 or -1, so alpha * a is exact in bf16 (a sign flip); any other alpha rounds in
//      f32 and takes the widened path.
//
// Speed is the other half of the bargain, and it is not the same on every CPU: on an Intel Xeon
// (family 6 model 207) vdpbf16ps on zmm registers sustains one instruction per two cycles,
// measured 1.23 G/s against 5.13 G/s for vfmadd231ps in the same run (24 independent chains,
// best of 200 rounds): two multiply-adds per lane at a quarter of the rate is half the f32 rate,
// and the kernel ran bf16 1024^3 at 0.65x the widened path. So detection also times both
// instructions (bf16_dot_rate: best of 8 short alternating rounds, about a millisecond) and a
// context takes the kernel only where it does at least 1.25 times the multiply-adds of fma
// (INVAR_BF16_DOT=on takes it wherever it passes the check, off never). The bits are the same
// either way; only the speed depends on the timing.
//
// The odd last step of a product runs as one fma on widened values (no padding product), so
// signed zeros come out as the chain makes them.
#ifndef INVAR_KERNELS_BF16_DOT_H_
#define INVAR_KERNELS_BF16_DOT_H_

#include <cstdint>
#include <string>

#include "kernels/kernel_set.h"

namespace invar::kernels {

// The instruction over `lanes` 32-bit lanes (a multiple of 16): out[l] from acc[l] and the bf16
// pairs a[2l], a[2l+1] and b[2l], b[2l+1] (kernels/avx512/bf16/bf16.h's sbgemm_avx512bf16_lanes).
using Bf16DotLanesFn = void (*)(int64_t lanes, const uint16_t* a, const uint16_t* b,
                                const float* acc, float* out);

struct Bf16DotCheck {
  bool passed = false;
  int64_t lanes = 0;   // how many lanes were compared
  std::string detail;  // the first lane that differs, when one does
};

// Runs `lanes` on the fixed adversarial set and compares every lane with
// fma(a[2l], b[2l], fma(a[2l+1], b[2l+1], acc)) on the widened values, bit for bit. The
// reference runs in the calling thread's floating-point mode: call it in the contract's
// (runtime/fp_mode.h). bf16_dot_status runs its check in that mode whatever the caller's.
Bf16DotCheck bf16_dot_check(Bf16DotLanesFn lanes);

struct Bf16DotStatus {
  const GemmKernel* kernel = nullptr;  // the kernel, when this build and CPU may use it
  // Multiply-adds of vdpbf16ps per multiply-add of vfmadd231ps on this CPU (measured when the
  // kernel passes its check), and whether that makes the kernel the faster path.
  double rate = 0;
  bool faster = false;
  std::string reason;  // why it is used or not, for `invar info`
};

// The minimum of rate for the kernel to be the default path: a margin for what the kernel pays
// besides its instructions (the guard's read of A and B, its packers, its tiles' start check).
// A guess: no CPU at hand runs vdpbf16ps faster than fma, so it is not measured.
inline constexpr double kBf16DotMinRate = 1.25;

// This build's and CPU's answer (detected once, thread-safe): bf16_dot_detect over the
// instruction itself.
const Bf16DotStatus& bf16_dot_status();

// The detection with `lanes` standing for the instruction: the kernel is given only where this
// build has it, the CPU has AVX512_BF16, and `lanes` passes bf16_dot_check (in the contract's
// floating-point mode); then its rate is timed. Tests pass a wrong instruction here to see the
// kernel refused.
Bf16DotStatus bf16_dot_detect(Bf16DotLanesFn lanes);

// Whether a product of bf16 operands may run the dot kernel: alpha is +-1, and the smallest
// exponents of a nonzero |op(A)| and |op(B)| add up to -112 or more (condition 2 above).
// op(A)[i][p] is element (i * a_rs + p * a_cs) of a (one of the strides 1), op(B)[p][j] element
// (p * b_rs + j * b_cs) of b. Only meaningful where bf16_dot_status().kernel is set.
bool sbgemm_dot_applies(float alpha, int64_t m, int64_t n, int64_t k, const void* a, int64_t a_rs,
                        int64_t a_cs, const void* b, int64_t b_rs, int64_t b_cs);

}  // namespace invar::kernels

#endif  // INVAR_KERNELS_BF16_DOT_H_

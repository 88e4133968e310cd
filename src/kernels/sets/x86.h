// What the AVX2 and AVX-512 sets share (avx2.cpp, avx512.cpp): the form for cores whose B blocks
// in L2, and their packers (the AVX-512 path uses the AVX2 ones too: every AVX-512 CPU runs AVX2),
// chosen per layout; the portable packer takes any layout they do not.
// All write the same bits. Src is float, or bf16 / f16 (passed to the AVX2 packers as their raw
// bits and widened exactly to f32).
//   A: a row-major A (the common case, and a gather in the portable packer) goes through the
//      transposing packer PackRows, a transposed A (MR contiguous values per step) through the
//      copying one PackT when the tile has one.
//   B: a transposed B (x * W^T: rows of W are columns of op(B)) goes through the transposing
//      packer PackT, a row-major B through PackRows when the tile has one (a row-major f32 B is a
//      plain copy, which the portable packer does at the speed of the caches).
// Typed functions, erased where a set names them (erase.h); baseline flags (sets.h).
#ifndef INVAR_KERNELS_SETS_X86_H_
#define INVAR_KERNELS_SETS_X86_H_

#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "invar/types.h"
#include "kernels/kernel_set.h"
#include "pack/pack.h"

namespace invar::kernels::sets {

template <class Src>
using Raw = std::conditional_t<std::is_same_v<Src, float>, float, uint16_t>;
template <class Src>
using AvxPackA = void (*)(int64_t, int64_t, const Raw<Src>*, int64_t, float, float*);
template <class Src>
using AvxPackB = void (*)(int64_t, int64_t, const Raw<Src>*, int64_t, float*);

template <class Src, int MR, AvxPackA<Src> PackRows, AvxPackA<Src> PackT = nullptr>
void pack_a_avx(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, float alpha,
                float* dst) {
  static_assert(sizeof(Src) == sizeof(Raw<Src>));
  const auto* a = reinterpret_cast<const Raw<Src>*>(src);
  if (cs == 1 && rs != 1) {
    PackRows(mc, kc, a, rs, alpha, dst);
  } else if (PackT != nullptr && rs == 1 && cs != 1) {
    PackT(mc, kc, a, cs, alpha, dst);
  } else {
    pack::pack_a<Src, MR>(mc, kc, src, rs, cs, alpha, dst);
  }
}

template <class Src, int NR, AvxPackB<Src> PackT, AvxPackB<Src> PackRows = nullptr>
void pack_b_avx(int64_t kc, int64_t nc, const Src* src, int64_t rs, int64_t cs, float* dst) {
  static_assert(sizeof(Src) == sizeof(Raw<Src>));
  const auto* b = reinterpret_cast<const Raw<Src>*>(src);
  if (rs == 1 && cs != 1) {
    PackT(kc, nc, b, cs, dst);
  } else if (PackRows != nullptr && cs == 1 && rs != 1) {
    PackRows(kc, nc, b, rs, dst);
  } else {
    pack::pack_b<Src, NR>(kc, nc, src, rs, cs, dst);
  }
}

// f64: a row-major A through the AVX2 transposing packer, any other layout the portable one.
template <int MR, void (*PackRows)(int64_t, int64_t, const double*, int64_t, double, double*)>
void pack_a_avx_f64(int64_t mc, int64_t kc, const double* src, int64_t rs, int64_t cs, double alpha,
                    double* dst) {
  if (cs == 1 && rs != 1) {
    PackRows(mc, kc, src, rs, alpha, dst);
  } else {
    pack::pack_a<double, MR>(mc, kc, src, rs, cs, alpha, dst);
  }
}

// Every kernel of the set with both micro-panels sized for L1 and its B block for L2
// (GemmKernel::b_block_in_l2, b_streams cleared): the x86 sets' form for every core but AMD's
// (kernel_set.cpp, compiled_kernel_set). Measured on an Intel Xeon with AMX (family 6 model 167
// as its VM reports it; L1d 48 KiB, L2 2 MiB, a 480 MiB L3 shared by the package), one thread,
// alternating runs against the L3 block: sgemm_avx2_6x16 at 2048^3 102-107 GFLOP/s against
// 68-78 (KC 512, NC 512 against 2048); the VNNI u8 x s8 kernel with both panels in L1 (KC 1024,
// NC 1024) against streaming B from L2 (KC 3413, NC 288): 2048^3 636-642 GOP/s against 601-646,
// level at 1024^3 and on two threads; the AVX-512 f32 tile's in blocking/block_sizes.h. That L3
// is the package's mesh: it does not feed a B micro-panel per A micro-panel at the pace of two
// FMA pipes, where a Zen's L3 does (b_streams, avx512.cpp).
// This form also packs each B block before its first row of tiles instead of in it (no
// ukernel_packing_b): that tile reads a 32-column strip of B down kc rows, a new page per row
// for any B of 1024 floats or wider, and on the same Xeon, one thread, it took 7.1 / 6.1 / 2.6 %
// of the samples (perf) at 1024^3 / 2048^3 / 4096^3 for about 1 % of the flops, where the
// row-by-row packer takes 1.8 / 1.2 / 0.7 %; the main tile's share went from 87.6 / 87.2 /
// 88.6 % to 92.9 / 92.1 / 90.5 %.
constexpr KernelSet with_b_block_in_l2(KernelSet set) {
  for (GemmKernel* k :
       {&set.sgemm, &set.dgemm, &set.sbgemm, &set.shgemm, &set.s8gemm, &set.u8gemm}) {
    k->b_streams = false;
    k->b_block_in_l2 = true;
    k->ukernel_packing_b = nullptr;
  }
  return set;
}

}  // namespace invar::kernels::sets

#endif  // INVAR_KERNELS_SETS_X86_H_

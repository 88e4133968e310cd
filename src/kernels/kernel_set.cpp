#include "kernels/kernel_set.h"

#include <type_traits>

#include "arch/cpu_features.h"
#include "kernels/generic/generic.h"
#include "pack/pack.h"

#if defined(INVAR_HAVE_AVX2)
#include "kernels/avx2/avx2.h"
#endif
#if defined(INVAR_HAVE_AVX512)
#include "kernels/avx512/avx512.h"
#endif
#if defined(INVAR_HAVE_NEON)
#include "kernels/neon/neon.h"
#endif

namespace invar::kernels {
namespace {

// Type erasure happens here, in a baseline-flags translation unit: each wrapper is a direct call
// into the typed function it names.
template <class T>
using UkernelFn = void (*)(int64_t, const T*, const T*, T*, int64_t, AccInit, T);
template <class T>
using DirectFn = void (*)(int64_t, int64_t, int64_t, T, const T*, int64_t, int64_t, const T*,
                          int64_t, T*, int64_t, AccInit, T);
static_assert(std::is_same_v<UkernelFn<float>, SgemmUkernelFn>);
static_assert(std::is_same_v<UkernelFn<double>, DgemmUkernelFn>);
static_assert(std::is_same_v<DirectFn<float>, SgemmDirectFn>);
static_assert(std::is_same_v<DirectFn<double>, DgemmDirectFn>);

template <class T, UkernelFn<T> F>
void erased_ukernel(int64_t kc, const void* a, const void* b, void* c, int64_t ldc, AccInit init,
                    const void* /*alpha: in the packed A*/, const void* beta) {
  F(kc, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c), ldc, init,
    *static_cast<const T*>(beta));
}

template <class T>
using SmallFn = void (*)(int64_t, int64_t, int64_t, const T*, int64_t, const T*, int64_t, int64_t,
                         T*, int64_t, AccInit, T);
static_assert(std::is_same_v<SmallFn<float>, SgemmSmallFn>);

template <class T, SmallFn<T> F>
void erased_small(int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
                  int64_t ldb, int64_t gs, void* c, int64_t ldc, AccInit init, const void* beta) {
  F(m, n, k, static_cast<const T*>(a), lda, static_cast<const T*>(b), ldb, gs, static_cast<T*>(c),
    ldc, init, *static_cast<const T*>(beta));
}

template <class T>
using EdgeUkernelFn = void (*)(int64_t, int64_t, int64_t, const T*, const T*, T*, int64_t, AccInit,
                               T);

template <class T, EdgeUkernelFn<T> F>
void erased_ukernel_edge(int64_t rows, int64_t cols, int64_t kc, const void* a, const void* b,
                         void* c, int64_t ldc, AccInit init, const void* /*alpha: in A*/,
                         const void* beta) {
  F(rows, cols, kc, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c), ldc,
    init, *static_cast<const T*>(beta));
}

template <class T, DirectFn<T> F>
void erased_direct(int64_t m, int64_t n, int64_t k, const void* alpha, const void* a, int64_t a_rs,
                   int64_t a_cs, const void* b, int64_t ldb, void* c, int64_t ldc, AccInit init,
                   const void* beta) {
  F(m, n, k, *static_cast<const T*>(alpha), static_cast<const T*>(a), a_rs, a_cs,
    static_cast<const T*>(b), ldb, static_cast<T*>(c), ldc, init, *static_cast<const T*>(beta));
}

template <class Src, int MR>
void erased_pack_a(int64_t mc, int64_t kc, const void* src, int64_t rs, int64_t cs,
                   const void* alpha, void* dst) {
  using T = pack::packed_t<Src>;
  pack::pack_a<Src, MR>(mc, kc, static_cast<const Src*>(src), rs, cs, *static_cast<const T*>(alpha),
                        static_cast<T*>(dst));
}

template <class Src, int NR>
void erased_pack_b(int64_t kc, int64_t nc, const void* src, int64_t rs, int64_t cs, void* dst) {
  pack::pack_b<Src, NR>(kc, nc, static_cast<const Src*>(src), rs, cs,
                        static_cast<pack::packed_t<Src>*>(dst));
}

// A packed kernel whose callers hold A and B as Src (float, double, or bf16 and f16, widened to
// f32 while packing); the panels, the accumulators and C are of type T.
template <class T, int MR, int NR, UkernelFn<T> F, class Src = T>
constexpr GemmKernel make_kernel(const char* name) {
  static_assert(std::is_same_v<pack::packed_t<Src>, T>);
  GemmKernel k;
  k.name = name;
  k.mr = MR;
  k.nr = NR;
  k.a_in_bytes = k.b_in_bytes = sizeof(Src);
  k.a_packed_bytes = k.b_packed_bytes = k.c_bytes = sizeof(T);
  k.pack_a = &erased_pack_a<Src, MR>;
  k.pack_b = &erased_pack_b<Src, NR>;
  k.ukernel = &erased_ukernel<T, F>;
  return k;
}

// The integer kernels: A packed unscaled from ASrc (int8_t or uint8_t), B from int8_t, both into
// int16 pair panels; C, the accumulators, alpha and beta int32.
template <IgemmUkernelFn F>
void erased_igemm(int64_t kc, const void* a, const void* b, void* c, int64_t ldc, AccInit init,
                  const void* alpha, const void* beta) {
  F(kc, static_cast<const int16_t*>(a), static_cast<const int16_t*>(b), static_cast<int32_t*>(c),
    ldc, init, *static_cast<const int32_t*>(alpha), *static_cast<const int32_t*>(beta));
}

template <class ASrc, int MR>
void erased_pack_a_pairs(int64_t mc, int64_t kc, const void* src, int64_t rs, int64_t cs,
                         const void* /*alpha*/, void* dst) {
  pack::pack_a_pairs<ASrc, MR>(mc, kc, static_cast<const ASrc*>(src), rs, cs,
                               static_cast<int16_t*>(dst));
}

template <int NR>
void erased_pack_b_pairs(int64_t kc, int64_t nc, const void* src, int64_t rs, int64_t cs,
                         void* dst) {
  pack::pack_b_pairs<int8_t, NR>(kc, nc, static_cast<const int8_t*>(src), rs, cs,
                                 static_cast<int16_t*>(dst));
}

template <class ASrc, int MR, int NR, IgemmUkernelFn F>
constexpr GemmKernel make_int_kernel(const char* name) {
  GemmKernel k;
  k.name = name;
  k.mr = MR;
  k.nr = NR;
  k.a_in_bytes = sizeof(ASrc);
  k.b_in_bytes = sizeof(int8_t);
  k.a_packed_bytes = k.b_packed_bytes = sizeof(int16_t);
  k.c_bytes = sizeof(int32_t);
  k.k_unit = 2;  // the pairs: rows pc.. of a prepacked B are a block's panel for even pc only
  k.pack_a = &erased_pack_a_pairs<ASrc, MR>;
  k.pack_b = &erased_pack_b_pairs<NR>;
  k.ukernel = &erased_igemm<F>;
  return k;
}

// The VNNI integer kernels: A from ASrc and B from int8_t packed into byte quad panels
// (ukernel.h), four k steps per group, hence k_unit 4.
template <IgemmQuadUkernelFn F>
void erased_igemm_quads(int64_t kc, const void* a, const void* b, void* c, int64_t ldc,
                        AccInit init, const void* alpha, const void* beta) {
  F(kc, static_cast<const uint8_t*>(a), static_cast<const int8_t*>(b), static_cast<int32_t*>(c),
    ldc, init, *static_cast<const int32_t*>(alpha), *static_cast<const int32_t*>(beta));
}

using IgemmQuadEdgeFn = void (*)(int64_t, int64_t, int64_t, const uint8_t*, const int8_t*, int32_t*,
                                 int64_t, AccInit, int32_t, int32_t);

template <IgemmQuadEdgeFn F>
void erased_igemm_quads_edge(int64_t rows, int64_t cols, int64_t kc, const void* a, const void* b,
                             void* c, int64_t ldc, AccInit init, const void* alpha,
                             const void* beta) {
  F(rows, cols, kc, static_cast<const uint8_t*>(a), static_cast<const int8_t*>(b),
    static_cast<int32_t*>(c), ldc, init, *static_cast<const int32_t*>(alpha),
    *static_cast<const int32_t*>(beta));
}

template <class ASrc, int MR>
void erased_pack_a_quads(int64_t mc, int64_t kc, const void* src, int64_t rs, int64_t cs,
                         const void* /*alpha*/, void* dst) {
  pack::pack_a_quads<ASrc, MR>(mc, kc, static_cast<const ASrc*>(src), rs, cs,
                               static_cast<uint8_t*>(dst));
}

template <int NR>
void erased_pack_b_quads(int64_t kc, int64_t nc, const void* src, int64_t rs, int64_t cs,
                         void* dst) {
  pack::pack_b_quads<NR>(kc, nc, static_cast<const int8_t*>(src), rs, cs,
                         static_cast<int8_t*>(dst));
}

template <class ASrc, int MR, int NR, IgemmQuadUkernelFn F>
constexpr GemmKernel make_quad_kernel(const char* name) {
  GemmKernel k;
  k.name = name;
  k.mr = MR;
  k.nr = NR;
  k.a_in_bytes = sizeof(ASrc);
  k.b_in_bytes = sizeof(int8_t);
  k.a_packed_bytes = k.b_packed_bytes = 1;
  k.c_bytes = sizeof(int32_t);
  k.k_unit = 4;
  k.pack_a = &erased_pack_a_quads<ASrc, MR>;
  k.pack_b = &erased_pack_b_quads<NR>;
  k.ukernel = &erased_igemm_quads<F>;
  return k;
}

template <class T, int MR, int NR, DirectFn<T> F>
constexpr GemmKernel with_direct(GemmKernel k) {
  static_assert(MR >= kDirectMaxRows, "every direct kernel takes a decode step's rows");
  k.direct_mr = MR;
  k.direct_nr = NR;
  k.direct = &erased_direct<T, F>;
  return k;
}

// F reads the kernel's prepacked panels (nr columns each).
// kAInPlacePanels and kTeamPanels: GemmKernel::a_in_place_panels and a_in_place_team_panels.
template <class T, DirectFn<T> F, int kAInPlacePanels = 0, int kTeamPanels = kAInPlacePanels>
constexpr GemmKernel with_direct_panels(GemmKernel k) {
  k.direct_panels = &erased_direct<T, F>;
  k.a_in_place_panels = kAInPlacePanels;
  k.a_in_place_team_panels = kTeamPanels;
  return k;
}

template <class T, EdgeUkernelFn<T> F>
constexpr GemmKernel with_edge(GemmKernel k) {
  k.ukernel_edge = &erased_ukernel_edge<T, F>;
  return k;
}

template <class T>
using PackingBFn = void (*)(int64_t, const T*, const T*, int64_t, T*, T*, int64_t, AccInit, T);

template <class T, PackingBFn<T> F>
void erased_packing_b(int64_t kc, const void* a_panel, const void* b, int64_t ldb, void* b_panel,
                      void* c, int64_t ldc, AccInit init, const void* /*alpha: in A*/,
                      const void* beta) {
  F(kc, static_cast<const T*>(a_panel), static_cast<const T*>(b), ldb, static_cast<T*>(b_panel),
    static_cast<T*>(c), ldc, init, *static_cast<const T*>(beta));
}

template <class T, PackingBFn<T> F>
constexpr GemmKernel with_packing_b(GemmKernel k) {
  k.ukernel_packing_b = &erased_packing_b<T, F>;
  return k;
}

template <class T, SmallFn<T> F>
constexpr GemmKernel with_small(GemmKernel k) {
  k.small = &erased_small<T, F>;
  return k;
}

template <class T, int NR, DirectFn<T> F>
constexpr GemmKernel with_direct_t(GemmKernel k) {
  k.direct_t_nr = NR;
  k.direct_t = &erased_direct<T, F>;
  return k;
}

// The decode step of the bf16 and f16 kernels (ukernel.h, WidenedDirectFn): A and B read in
// place as their raw 16-bit values, C and the scalars f32.
template <WidenedDirectFn F>
void erased_widened(int64_t m, int64_t n, int64_t k, const void* alpha, const void* a, int64_t a_rs,
                    int64_t a_cs, const void* b, int64_t ldb, void* c, int64_t ldc, AccInit init,
                    const void* beta) {
  F(m, n, k, *static_cast<const float*>(alpha), static_cast<const uint16_t*>(a), a_rs, a_cs,
    static_cast<const uint16_t*>(b), ldb, static_cast<float*>(c), ldc, init,
    *static_cast<const float*>(beta));
}

// Direct (row-major B, NR columns per group), direct_t (transposed B, TNR) and the direct kernel
// over 16-bit panels of the kernel's own NR.
template <int NR, int TNR, WidenedDirectFn Direct, WidenedDirectFn DirectT, WidenedDirectFn Panels>
constexpr GemmKernel with_widened_direct(GemmKernel k) {
  k.direct_mr = kDirectMaxRows;
  k.direct_nr = NR;
  k.direct = &erased_widened<Direct>;
  k.direct_t_nr = TNR;
  k.direct_t = &erased_widened<DirectT>;
  k.direct_panels16 = &erased_widened<Panels>;
  return k;
}

const KernelSet kGenericSet = {
    Isa::kGeneric,
    with_direct_t<float, generic::kSgemmNr, &generic::sgemm_generic_direct_t_8>(
        with_direct<float, kDirectMaxRows, generic::kSgemmNr, &generic::sgemm_generic_direct_8>(
            make_kernel<float, generic::kSgemmMr, generic::kSgemmNr, &generic::sgemm_generic_4x8>(
                "sgemm_generic_4x8"))),
    with_direct_t<double, generic::kDgemmNr, &generic::dgemm_generic_direct_t_4>(
        with_direct<double, kDirectMaxRows, generic::kDgemmNr, &generic::dgemm_generic_direct_4>(
            make_kernel<double, generic::kDgemmMr, generic::kDgemmNr, &generic::dgemm_generic_4x4>(
                "dgemm_generic_4x4"))),
    with_widened_direct<generic::kSgemmNr, generic::kSgemmNr, &generic::sbgemm_generic_direct,
                        &generic::sbgemm_generic_direct_t, &generic::sbgemm_generic_direct_panels>(
        make_kernel<float, generic::kSgemmMr, generic::kSgemmNr, &generic::sgemm_generic_4x8, bf16>(
            "sbgemm_generic_4x8")),
    with_widened_direct<generic::kSgemmNr, generic::kSgemmNr, &generic::shgemm_generic_direct,
                        &generic::shgemm_generic_direct_t, &generic::shgemm_generic_direct_panels>(
        make_kernel<float, generic::kSgemmMr, generic::kSgemmNr, &generic::sgemm_generic_4x8, f16>(
            "shgemm_generic_4x8")),
    make_int_kernel<int8_t, generic::kIgemmMr, generic::kIgemmNr, &generic::igemm_generic_4x8>(
        "s8s8s32_generic_4x8"),
    make_int_kernel<uint8_t, generic::kIgemmMr, generic::kIgemmNr, &generic::igemm_generic_4x8>(
        "u8s8s32_generic_4x8"),
};

#if defined(INVAR_HAVE_AVX2)
// The AVX2 packers (which the AVX-512 path uses too: every AVX-512 CPU runs AVX2), chosen per
// layout; the portable packer takes any layout they do not. All write the same bits. Src is
// float, or bf16 / f16 (passed as their raw bits and widened exactly to f32).
//   A: a row-major A (the common case, and a gather in the portable packer) goes through the
//      transposing packer PackRows, a transposed A (MR contiguous values per step) through the
//      copying one PackT when the tile has one.
//   B: a transposed B (x * W^T: rows of W are columns of op(B)) goes through the transposing
//      packer PackT, a row-major B through PackRows when the tile has one (a row-major f32 B is a
//      plain copy, which the portable packer does at the speed of the caches).
template <class Src>
using Raw = std::conditional_t<std::is_same_v<Src, float>, float, uint16_t>;
template <class Src>
using AvxPackA = void (*)(int64_t, int64_t, const Raw<Src>*, int64_t, float, float*);
template <class Src>
using AvxPackB = void (*)(int64_t, int64_t, const Raw<Src>*, int64_t, float*);

template <class Src, int MR, AvxPackA<Src> PackRows, AvxPackA<Src> PackT = nullptr>
void pack_a_avx(int64_t mc, int64_t kc, const void* src, int64_t rs, int64_t cs, const void* alpha,
                void* dst) {
  static_assert(sizeof(Src) == sizeof(Raw<Src>));
  const auto* a = static_cast<const Raw<Src>*>(src);
  const float scale = *static_cast<const float*>(alpha);
  if (cs == 1 && rs != 1) {
    PackRows(mc, kc, a, rs, scale, static_cast<float*>(dst));
  } else if (PackT != nullptr && rs == 1 && cs != 1) {
    PackT(mc, kc, a, cs, scale, static_cast<float*>(dst));
  } else {
    pack::pack_a<Src, MR>(mc, kc, static_cast<const Src*>(src), rs, cs, scale,
                          static_cast<float*>(dst));
  }
}

template <class Src, int NR, AvxPackB<Src> PackT, AvxPackB<Src> PackRows = nullptr>
void pack_b_avx(int64_t kc, int64_t nc, const void* src, int64_t rs, int64_t cs, void* dst) {
  static_assert(sizeof(Src) == sizeof(Raw<Src>));
  const auto* b = static_cast<const Raw<Src>*>(src);
  if (rs == 1 && cs != 1) {
    PackT(kc, nc, b, cs, static_cast<float*>(dst));
  } else if (PackRows != nullptr && cs == 1 && rs != 1) {
    PackRows(kc, nc, b, rs, static_cast<float*>(dst));
  } else {
    pack::pack_b<Src, NR>(kc, nc, static_cast<const Src*>(src), rs, cs, static_cast<float*>(dst));
  }
}

// f64: a row-major A through the AVX2 transposing packer, any other layout the portable one.
template <int MR, void (*PackRows)(int64_t, int64_t, const double*, int64_t, double, double*)>
void pack_a_avx_f64(int64_t mc, int64_t kc, const void* src, int64_t rs, int64_t cs,
                    const void* alpha, void* dst) {
  const double scale = *static_cast<const double*>(alpha);
  if (cs == 1 && rs != 1) {
    PackRows(mc, kc, static_cast<const double*>(src), rs, scale, static_cast<double*>(dst));
  } else {
    pack::pack_a<double, MR>(mc, kc, static_cast<const double*>(src), rs, cs, scale,
                             static_cast<double*>(dst));
  }
}

constexpr GemmKernel with_pack_a(GemmKernel k, void (*fn)(int64_t, int64_t, const void*, int64_t,
                                                          int64_t, const void*, void*)) {
  k.pack_a = fn;
  return k;
}

constexpr GemmKernel with_pack_b(GemmKernel k, void (*fn)(int64_t, int64_t, const void*, int64_t,
                                                          int64_t, void*)) {
  k.pack_b = fn;
  return k;
}

// The kernel keeps its pace with B streaming from L2/L3 (GemmKernel::b_streams). Measured on a
// Zen 4 at 2048^3, one thread, a KC sized for the A micro-panel alone in L1 against both panels'
// (blocking/block_sizes.h): sgemm_avx512_12x32 512 vs 158 (+8 %), dgemm_avx512_12x16 256 vs 128
// (+5 %), the VNNI u8 x s8 kernel 2048 vs 640 (+7 %); the model now goes deeper still for the
// first two (streaming_kc). All three read 128 bytes of B per 24 vector multiply-adds.
constexpr GemmKernel streaming_b(GemmKernel k) {
  k.b_streams = true;
  return k;
}

// Every kernel of the set with both micro-panels sized for L1 and its B block for L2
// (GemmKernel::b_block_in_l2, b_streams cleared): the x86 sets' form for every core but AMD's
// (compiled_kernel_set). Measured on an Intel Xeon with AMX (family 6 model 167 as its VM
// reports it; L1d 48 KiB, L2 2 MiB, a 480 MiB L3 shared by the package), one thread,
// alternating runs against the L3 block: sgemm_avx2_6x16 at 2048^3 102-107 GFLOP/s against
// 68-78 (KC 512, NC 512 against 2048); the VNNI u8 x s8 kernel with both panels in L1 (KC 1024,
// NC 1024) against streaming B from L2 (KC 3413, NC 288): 2048^3 636-642 GOP/s against 601-646,
// level at 1024^3 and on two threads; the AVX-512 f32 tile's in blocking/block_sizes.h. That L3
// is the package's mesh: it does not feed a B micro-panel per A micro-panel at the pace of two
// FMA pipes, where a Zen's L3 does (streaming_b above).
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

// Partial tiles of the f32 panels (f32, bf16 and f16 inputs alike) through masked kernels.
constexpr GemmKernel avx2_f32_edge(GemmKernel k) {
  return with_edge<float, &avx2::sgemm_avx2_6x16_edge>(k);
}

// The decode step of the bf16 and f16 products on the AVX2 and AVX-512 paths (the AVX2 kernels:
// reading B bounds it), over 16-bit panels of NR columns.
template <int NR>
constexpr KernelSet with_avx2_widened_direct(KernelSet set) {
  static_assert(NR == 16 || NR == 32, "the 16-bit panel kernels' widths");
  constexpr WidenedDirectFn sb_panels =
      NR == 16 ? &avx2::sbgemm_avx2_direct_panels16 : &avx2::sbgemm_avx2_direct_panels32;
  constexpr WidenedDirectFn sh_panels =
      NR == 16 ? &avx2::shgemm_avx2_direct_panels16 : &avx2::shgemm_avx2_direct_panels32;
  set.sbgemm = with_widened_direct<16, avx2::kDirectTNr, &avx2::sbgemm_avx2_direct,
                                   &avx2::sbgemm_avx2_direct_t, sb_panels>(set.sbgemm);
  set.shgemm = with_widened_direct<16, avx2::kDirectTNr, &avx2::shgemm_avx2_direct,
                                   &avx2::shgemm_avx2_direct_t, sh_panels>(set.shgemm);
  // 16-bit panels are NR wide only for a kernel of that NR (else they are widened into the
  // kernel's own panels for every product: api/packed16.cpp).
  for (GemmKernel* k : {&set.sbgemm, &set.shgemm})
    if (k->nr != NR) k->direct_panels16 = nullptr;
  return set;
}

// The f32 and f64 direct kernels' record forms (ukernel.h: DirectArgs).
template <DirectArgsFn S, DirectArgsFn D>
constexpr KernelSet with_direct_args(KernelSet set) {
  set.sgemm.direct_args = S;
  set.dgemm.direct_args = D;
  return set;
}

const KernelSet kAvx2BaseSet = with_avx2_widened_direct<avx2::kSgemmNr>({
    Isa::kAvx2,
    with_direct_panels<float, &avx2::sgemm_avx2_direct_panels16, avx2::kSgemmAInPlacePanels>(
        with_direct_t<float, avx2::kDirectTNr, &avx2::sgemm_avx2_direct_t8>(
            with_direct<float, avx2::kDirectMr, avx2::kSgemmNr, &avx2::sgemm_avx2_direct_16>(
                with_pack_a(
                    with_pack_b(with_small<float, &avx2::sgemm_avx2_6x16_small>(avx2_f32_edge(
                                    make_kernel<float, avx2::kSgemmMr, avx2::kSgemmNr,
                                                &avx2::sgemm_avx2_6x16>("sgemm_avx2_6x16"))),
                                &pack_b_avx<float, avx2::kSgemmNr, &avx2::sgemm_avx2_pack_b16_t,
                                            &avx2::sgemm_avx2_pack_b16>),
                    &pack_a_avx<float, avx2::kSgemmMr, &avx2::sgemm_avx2_pack_a6,
                                &avx2::sgemm_avx2_pack_a6_t>)))),
    with_direct_t<double, avx2::kDirectTNr, &avx2::dgemm_avx2_direct_t8>(
        with_direct_panels<double, &avx2::dgemm_avx2_direct_panels8, avx2::kDgemmAInPlacePanels>(
            with_direct<double, avx2::kDirectMr, avx2::kDgemmNr, &avx2::dgemm_avx2_direct_8>(
                with_pack_a(with_small<double, &avx2::dgemm_avx2_6x8_small>(
                                with_edge<double, &avx2::dgemm_avx2_6x8_edge>(
                                    make_kernel<double, avx2::kDgemmMr, avx2::kDgemmNr,
                                                &avx2::dgemm_avx2_6x8>("dgemm_avx2_6x8"))),
                            &pack_a_avx_f64<avx2::kDgemmMr, &avx2::dgemm_avx2_pack_a6>)))),
    with_pack_a(
        with_pack_b(avx2_f32_edge(make_kernel<float, avx2::kSgemmMr, avx2::kSgemmNr,
                                              &avx2::sgemm_avx2_6x16, bf16>("sbgemm_avx2_6x16")),
                    &pack_b_avx<bf16, avx2::kSgemmNr, &avx2::sbgemm_avx2_pack_b16_t,
                                &avx2::sbgemm_avx2_pack_b16>),
        &pack_a_avx<bf16, avx2::kSgemmMr, &avx2::sbgemm_avx2_pack_a6,
                    &avx2::sbgemm_avx2_pack_a6_t>),
    with_pack_a(
        with_pack_b(avx2_f32_edge(make_kernel<float, avx2::kSgemmMr, avx2::kSgemmNr,
                                              &avx2::sgemm_avx2_6x16, f16>("shgemm_avx2_6x16")),
                    &pack_b_avx<f16, avx2::kSgemmNr, &avx2::shgemm_avx2_pack_b16_t,
                                &avx2::shgemm_avx2_pack_b16>),
        &pack_a_avx<f16, avx2::kSgemmMr, &avx2::shgemm_avx2_pack_a6, &avx2::shgemm_avx2_pack_a6_t>),
    make_int_kernel<int8_t, avx2::kIgemmMr, avx2::kIgemmNr, &avx2::igemm_avx2_6x16>(
        "s8s8s32_avx2_6x16"),
    make_int_kernel<uint8_t, avx2::kIgemmMr, avx2::kIgemmNr, &avx2::igemm_avx2_6x16>(
        "u8s8s32_avx2_6x16"),
});

const KernelSet kAvx2Set =
    with_direct_args<&avx2::sgemm_avx2_direct_args, &avx2::dgemm_avx2_direct_args>(kAvx2BaseSet);
const KernelSet kAvx2L2Set = with_b_block_in_l2(kAvx2Set);
#endif

#if defined(INVAR_HAVE_AVX512)
// Every AVX-512 CPU also runs AVX2; the direct path over memory is bound by reading B, where
// 256-bit vectors already keep up, so the AVX-512 set reuses the AVX2 direct kernels but for up
// to kDirectMaxRows rows over a row-major B (avx512/direct_avx512.cpp: a B in cache).
#if !defined(INVAR_HAVE_AVX2)
#error "the avx512 path is built together with the avx2 path (cmake/InvarIsa.cmake)"
#endif
static_assert(avx512::kSgemmNr == 32 && avx512::kDgemmNr == 16,
              "the AVX-512 panels are those of sgemm_avx2_direct_panels32 and dgemm_..._panels16");
// The AVX-512 tile comes in two forms with the same chains and bits (avx512::Broadcast): A's
// broadcast loaded into a register once per row and step (vbroadcastss, then two fmas), or
// folded into each fma's memory operand ({1to16}, one instruction where there were two). Each
// core takes the form and the blocking it was measured faster with (compiled_kernel_set below):
//   - AMD Zen: the folded form, B streaming from L3 (streaming_b). Zen 4, one thread: +2 to +5 %
//     from 96^3 to 4096^3 over the register form; B from L3 as measured at streaming_b.
//   - Every other x86 core (Intel's): the register form, the B block sized for L2
//     (with_b_block_in_l2; blocking/block_sizes.h has that model's measurements). On an Intel
//     Xeon with AMX (family 6 model 167 as its VM reports it), one thread: the 12 x 32 tile alone
//     on panels in L1, kc 64 / 256 / 512, 163 / 172 / 175 GFLOP/s against 147 / 153 / 154 folded;
//     a bare loop of the tile's 24 fmas ran at 190 with the twelve broadcasts and no B loads,
//     at 215 with B's two loads and no broadcasts: each load costs that core issue time, and
//     the folded form loads every element twice. 2048^3, B block in L2, 141-145 against 129-133
//     folded. The f64 tile follows the f32 one.
// avx512_set<B>() is the set with B streaming from L3; the other form's blocking is
// with_b_block_in_l2's.
template <avx512::Broadcast B>
constexpr const char* avx512_name(const char* registers, const char* folded) {
  return B == avx512::Broadcast::kFolded ? folded : registers;
}

template <avx512::Broadcast B>
constexpr KernelSet avx512_set() {
  // Partial tiles of the f32 panels (f32, bf16 and f16 inputs alike) through masked kernels.
  constexpr auto f32_edge = [](GemmKernel k) {
    return with_edge<float, &avx512::sgemm_avx512_12x32_edge<B>>(k);
  };
  constexpr SgemmUkernelFn sgemm = &avx512::sgemm_avx512_12x32<B>;
  constexpr KernelSet set = with_avx2_widened_direct<avx512::kSgemmNr>({
      Isa::kAvx512,
      // B packed alone and A read in place (gemm_driver.h) up to two 32-column panels on one
      // thread, one on a team. Measured on a Zen 4 against the loop nest (alternating runs), one
      // / two threads: 4096x32x1024 +21 % / +32 %, 512x32x512 +20 % / +21 %; two panels:
      // 64x64x65536 +28 % / +-0, 1024x64x2048 +13 % / -2 %, 512x64x512 on two -8 %, 2048x64x1024
      // on two -7 %; up to eight, +3 to +6 % on one thread, -9 % on two at 256^3.
      with_direct_panels<float, &avx2::sgemm_avx2_direct_panels32, 2, 1>(
          with_direct_t<float, avx2::kDirectTNr, &avx2::sgemm_avx2_direct_t8>(
              with_direct<float, avx2::kDirectMr, avx2::kSgemmNr, &avx512::sgemm_avx512_direct_16>(
                  streaming_b(with_pack_a(
                      with_pack_b(
                          with_small<float, &avx512::sgemm_avx512_12x32_small<B>>(
                              with_packing_b<float, &avx512::sgemm_avx512_12x32_packing_b<B>>(
                                  f32_edge(make_kernel<float, avx512::kSgemmMr, avx512::kSgemmNr,
                                                       sgemm>(avx512_name<B>(
                                      "sgemm_avx512_12x32", "sgemm_avx512_12x32_membcast"))))),
                          &pack_b_avx<float, avx512::kSgemmNr, &avx2::sgemm_avx2_pack_b32_t,
                                      &avx2::sgemm_avx2_pack_b32>),
                      &pack_a_avx<float, avx512::kSgemmMr, &avx512::sgemm_avx512_pack_a12>))))),
      // Up to two 16-column panels (Zen 4, against the loop nest, 1 / 2 threads): f64 512x16x512
      // +38 % / +40 %, 1024x32x2048 +19 % / +9 %, 4096x32x1024 +14 % / +6 %; four panels lost
      // (1024x48x1024 -9 % / -12 %, 2048x64x1024 on two threads -13 %).
      with_direct_t<double, avx2::kDirectTNr, &avx2::dgemm_avx2_direct_t8>(
          with_direct_panels<double, &avx2::dgemm_avx2_direct_panels16, 2>(
              with_direct<double, avx2::kDirectMr, avx2::kDgemmNr, &avx512::dgemm_avx512_direct_8>(
                  streaming_b(with_pack_a(
                      with_small<double, &avx512::dgemm_avx512_12x16_small<B>>(
                          with_edge<double, &avx512::dgemm_avx512_12x16_edge<B>>(
                              make_kernel<double, avx512::kDgemmMr, avx512::kDgemmNr,
                                          &avx512::dgemm_avx512_12x16<B>>(avx512_name<B>(
                                  "dgemm_avx512_12x16", "dgemm_avx512_12x16_membcast")))),
                      &pack_a_avx_f64<avx512::kDgemmMr, &avx2::dgemm_avx2_pack_a12>))))),
      streaming_b(with_pack_a(
          with_pack_b(f32_edge(make_kernel<float, avx512::kSgemmMr, avx512::kSgemmNr, sgemm, bf16>(
                          avx512_name<B>("sbgemm_avx512_12x32", "sbgemm_avx512_12x32_membcast"))),
                      &pack_b_avx<bf16, avx512::kSgemmNr, &avx2::sbgemm_avx2_pack_b32_t,
                                  &avx2::sbgemm_avx2_pack_b32>),
          &pack_a_avx<bf16, avx512::kSgemmMr, &avx2::sbgemm_avx2_pack_a12>)),
      streaming_b(with_pack_a(
          with_pack_b(f32_edge(make_kernel<float, avx512::kSgemmMr, avx512::kSgemmNr, sgemm, f16>(
                          avx512_name<B>("shgemm_avx512_12x32", "shgemm_avx512_12x32_membcast"))),
                      &pack_b_avx<f16, avx512::kSgemmNr, &avx2::shgemm_avx2_pack_b32_t,
                                  &avx2::shgemm_avx2_pack_b32>),
          &pack_a_avx<f16, avx512::kSgemmMr, &avx2::shgemm_avx2_pack_a12>)),
      // Without VNNI the integer products run the AVX2 kernel, which every AVX-512 CPU also runs
      // (with_vnni below takes the byte quad kernels where the CPU has it).
      make_int_kernel<int8_t, avx2::kIgemmMr, avx2::kIgemmNr, &avx2::igemm_avx2_6x16>(
          "s8s8s32_avx2_6x16"),
      make_int_kernel<uint8_t, avx2::kIgemmMr, avx2::kIgemmNr, &avx2::igemm_avx2_6x16>(
          "u8s8s32_avx2_6x16"),
  });
  return with_direct_args<&avx512::sgemm_avx512_direct_args, &avx512::dgemm_avx512_direct_args>(
      set);
}

const KernelSet kAvx512Set = with_b_block_in_l2(avx512_set<avx512::Broadcast::kRegister>());
const KernelSet kAvx512MemBcastSet = avx512_set<avx512::Broadcast::kFolded>();

#if defined(INVAR_HAVE_AVX512_VNNI)
// The same path on a CPU with AVX-512 BW and VNNI: the integer products run on byte quads,
// row-major operands packed by the path's own packers, any other layout by the portable ones
// (the same bytes).
template <class ASrc, void (*PackRows)(int64_t, int64_t, const ASrc*, int64_t, uint8_t*)>
void pack_a_quads_vnni(int64_t mc, int64_t kc, const void* src, int64_t rs, int64_t cs,
                       const void* /*alpha*/, void* dst) {
  if (cs == 1 && rs != 1) {
    PackRows(mc, kc, static_cast<const ASrc*>(src), rs, static_cast<uint8_t*>(dst));
  } else {
    pack::pack_a_quads<ASrc, avx512::kIgemmMr>(mc, kc, static_cast<const ASrc*>(src), rs, cs,
                                               static_cast<uint8_t*>(dst));
  }
}

void pack_b_quads_vnni(int64_t kc, int64_t nc, const void* src, int64_t rs, int64_t cs, void* dst) {
  if (cs == 1 && rs != 1) {
    avx512::igemm_avx512vnni_pack_b32(kc, nc, static_cast<const int8_t*>(src), rs,
                                      static_cast<int8_t*>(dst));
  } else {
    pack::pack_b_quads<avx512::kIgemmNr>(kc, nc, static_cast<const int8_t*>(src), rs, cs,
                                         static_cast<int8_t*>(dst));
  }
}

constexpr KernelSet with_vnni(KernelSet set) {
  set.s8gemm = make_quad_kernel<int8_t, avx512::kIgemmMr, avx512::kIgemmNr,
                                &avx512::s8s8s32_avx512vnni_12x32>("s8s8s32_avx512vnni_12x32");
  set.u8gemm = make_quad_kernel<uint8_t, avx512::kIgemmMr, avx512::kIgemmNr,
                                &avx512::u8s8s32_avx512vnni_12x32>("u8s8s32_avx512vnni_12x32");
  set.s8gemm.ukernel_edge = &erased_igemm_quads_edge<&avx512::s8s8s32_avx512vnni_12x32_edge>;
  set.u8gemm.ukernel_edge = &erased_igemm_quads_edge<&avx512::u8s8s32_avx512vnni_12x32_edge>;
  set.s8gemm =
      with_pack_b(with_pack_a(streaming_b(set.s8gemm),
                              &pack_a_quads_vnni<int8_t, &avx512::s8s8s32_avx512vnni_pack_a12>),
                  &pack_b_quads_vnni);
  set.u8gemm =
      with_pack_b(with_pack_a(streaming_b(set.u8gemm),
                              &pack_a_quads_vnni<uint8_t, &avx512::u8s8s32_avx512vnni_pack_a12>),
                  &pack_b_quads_vnni);
  return set;
}
const KernelSet kAvx512VnniSet =
    with_b_block_in_l2(with_vnni(avx512_set<avx512::Broadcast::kRegister>()));
const KernelSet kAvx512MemBcastVnniSet = with_vnni(kAvx512MemBcastSet);

#if defined(INVAR_HAVE_AVX512_AMX)
// The same path on a CPU with AMX-INT8 (and the OS's leave to use its tiles): the integer
// products on 32 x 32 tiles, A packed into 64-step chunks (ukernel.h), B in the VNNI kernels'
// quads by their packer.
template <class ASrc>
void pack_a_chunks(int64_t mc, int64_t kc, const void* src, int64_t rs, int64_t cs,
                   const void* /*alpha*/, void* dst) {
  pack::pack_a_chunks<ASrc, avx512::kIgemmAmxMr>(mc, kc, static_cast<const ASrc*>(src), rs, cs,
                                                 static_cast<uint8_t*>(dst));
}

template <class ASrc, IgemmQuadUkernelFn F, IgemmQuadEdgeFn Edge>
constexpr GemmKernel amx_kernel(const char* name) {
  static_assert(avx512::kIgemmAmxNr == avx512::kIgemmNr, "B panels of the VNNI packer");
  GemmKernel k = make_quad_kernel<ASrc, avx512::kIgemmAmxMr, avx512::kIgemmAmxNr, F>(name);
  k.k_unit = 64;
  k.ukernel_edge = &erased_igemm_quads_edge<Edge>;
  k.release = &avx512::amx_release_tiles;
  k.permitted = &arch::request_tile_data;  // asked at the first integer product, not before
  k.panels_from_l2 = true;                 // blocking/block_sizes.h has the measurements
  return with_pack_b(with_pack_a(k, &pack_a_chunks<ASrc>), &pack_b_quads_vnni);
}

constexpr KernelSet with_amx(KernelSet set) {
  set.s8gemm = amx_kernel<int8_t, &avx512::s8s8s32_amx_32x32, &avx512::s8s8s32_amx_32x32_edge>(
      "s8s8s32_amx_32x32");
  set.u8gemm = amx_kernel<uint8_t, &avx512::u8s8s32_amx_32x32, &avx512::u8s8s32_amx_32x32_edge>(
      "u8s8s32_amx_32x32");
  set.fallback = &kAvx512VnniSet;  // where the OS refuses the tile data
  return set;
}
const KernelSet kAvx512AmxSet = with_b_block_in_l2(with_amx(kAvx512VnniSet));
#endif
#endif
#endif

#if defined(INVAR_HAVE_NEON)
const KernelSet kNeonSet = {
    Isa::kNeon,
    with_direct_panels<float, &neon::sgemm_neon_direct_panels12>(
        with_direct_t<float, neon::kDirectTNr, &neon::sgemm_neon_direct_t8>(
            with_direct<float, kDirectMaxRows, neon::kDirectNr, &neon::sgemm_neon_direct_16>(
                make_kernel<float, neon::kSgemmMr, neon::kSgemmNr, &neon::sgemm_neon_8x12>(
                    "sgemm_neon_8x12")))),
    make_kernel<double, neon::kDgemmMr, neon::kDgemmNr, &neon::dgemm_neon_8x6>("dgemm_neon_8x6"),
    make_kernel<float, neon::kSgemmMr, neon::kSgemmNr, &neon::sgemm_neon_8x12, bf16>(
        "sbgemm_neon_8x12"),
    make_kernel<float, neon::kSgemmMr, neon::kSgemmNr, &neon::sgemm_neon_8x12, f16>(
        "shgemm_neon_8x12"),
    make_int_kernel<int8_t, neon::kIgemmMr, neon::kIgemmNr, &neon::igemm_neon_4x8>(
        "s8s8s32_neon_4x8"),
    make_int_kernel<uint8_t, neon::kIgemmMr, neon::kIgemmNr, &neon::igemm_neon_4x8>(
        "u8s8s32_neon_4x8"),
};
#endif

// The x86 sets' form for this CPU: on AMD's cores (and Hygon's) B blocks in L3 and, on the
// AVX-512 path, the folded broadcasts; on every other core B blocks in L2 and broadcasts in
// registers.
bool amd_form() { return arch::amd_or_hygon(arch::cpu_features().vendor); }

#if defined(INVAR_HAVE_AVX512)
const KernelSet* avx512_set_for(bool amd) {
#if defined(INVAR_HAVE_AVX512_AMX)
  if (arch::cpu_features().amx_int8 && !amd) return &kAvx512AmxSet;  // no AMD core has AMX
#endif
#if defined(INVAR_HAVE_AVX512_VNNI)
  if (arch::cpu_features().avx512_vnni) return amd ? &kAvx512MemBcastVnniSet : &kAvx512VnniSet;
#endif
  return amd ? &kAvx512MemBcastSet : &kAvx512Set;
}
#endif

}  // namespace

const KernelSet* compiled_kernel_set(Isa isa) {
  switch (isa) {
    case Isa::kGeneric: return &kGenericSet;
#if defined(INVAR_HAVE_AVX2)
    case Isa::kAvx2: return amd_form() ? &kAvx2Set : &kAvx2L2Set;
#endif
#if defined(INVAR_HAVE_AVX512)
    case Isa::kAvx512: return avx512_set_for(amd_form());
#endif
#if defined(INVAR_HAVE_NEON)
    case Isa::kNeon: return &kNeonSet;
#endif
    default: return nullptr;
  }
}

std::vector<const KernelSet*> compiled_kernel_sets(Isa isa) {
#if defined(INVAR_HAVE_AVX512)
  // The AVX2 forms differ in their blocking only, so the AVX-512 path alone has two. Where the
  // AMX kernels take this CPU's integer products, a third: the same form with the VNNI kernels,
  // so that those are still held to the chain here.
  if (isa == Isa::kAvx512) {
    std::vector<const KernelSet*> sets = {avx512_set_for(amd_form()), avx512_set_for(!amd_form())};
#if defined(INVAR_HAVE_AVX512_AMX)
    if (sets.front() == &kAvx512AmxSet) sets.push_back(&kAvx512VnniSet);
#endif
    return sets;
  }
#endif
  const KernelSet* chosen = compiled_kernel_set(isa);
  if (chosen == nullptr) return {};
  return {chosen};
}

bool cpu_supports(Isa isa) {
  const arch::CpuFeatures& f = arch::cpu_features();
  switch (isa) {
    case Isa::kGeneric: return true;
    case Isa::kAvx2: return f.avx2_fma;
    case Isa::kAvx512: return f.avx512f;
    case Isa::kNeon: return f.neon;
    case Isa::kAuto: return true;
  }
  return false;
}

std::vector<Isa> available_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kNeon, Isa::kGeneric}) {
    if (compiled_kernel_set(isa) != nullptr && cpu_supports(isa)) out.push_back(isa);
  }
  return out;
}

}  // namespace invar::kernels

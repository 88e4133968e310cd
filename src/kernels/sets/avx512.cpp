// The AVX-512 path's kernels (kernels/avx512/): its tile in two forms, each core's blocking, and
// the integer kernels of the CPUs with VNNI or AMX.
#include "kernels/avx512/avx512.h"

#include <algorithm>
#include <vector>

#include "arch/cpu_features.h"
#include "kernels/avx2/avx2.h"
#include "kernels/sets/erase.h"
#include "kernels/sets/sets.h"
#include "kernels/sets/x86.h"
#include "pack/pack.h"

// Every AVX-512 CPU also runs AVX2; the direct path over memory is bound by reading B, where
// 256-bit vectors already keep up, so the AVX-512 set reuses the AVX2 direct kernels but for up
// to kDirectMaxRows rows over a row-major B (avx512/direct_avx512.cpp: a B in cache). Over a
// transposed B a sixteen-row zmm form of sgemm_avx2_direct_t8 ran 1.4x faster with W in L2 but
// lost from L3 on the Intel Xeon of block_sizes.h (x * W^T 1 x 4096 x 4096, the best peer of the
// same run: 0.76 / 0.70 of it on one / two threads where the eight-row kernel gave 0.79 / 0.80), so
// the AVX2 kernel stays.
#if !defined(INVAR_HAVE_AVX2)
#error "the avx512 path is built together with the avx2 path (cmake/InvarIsa.cmake)"
#endif

namespace invar::kernels::sets {
namespace {

using avx512::Broadcast;
using avx512::kDgemmMr;
using avx512::kDgemmNr;
using avx512::kSgemmMr;
using avx512::kSgemmNr;

static_assert(kSgemmNr == 32 && kDgemmNr == 16,
              "the AVX-512 panels are those of sgemm_avx2_direct_panels32 and dgemm_..._panels16");

// The AVX-512 tile comes in two forms with the same chains and bits (avx512::Broadcast): A's
// broadcast loaded into a register once per row and step (vbroadcastss, then two fmas), or
// folded into each fma's memory operand ({1to16}, one instruction where there were two). Each
// core takes the form and the blocking it was measured faster with (avx512_set below):
//   - AMD Zen 4, which runs each 512-bit operation on two 256-bit halves: the folded form, B
//     streaming from L3 (b_streams). One thread: +2 to +5 % from 96^3 to 4096^3 over the
//     register form; B from L3 as measured at b_streams.
//   - AMD Zen 5 (EPYC, family 0x1A model 2; 512-bit units, two fmas a cycle): the register form,
//     B streaming from L3. One thread, GFLOP/s against oneDNN 2.6's sgemm alternating in the
//     same process (invar / oneDNN, median of five): 256^3 folded 0.84, register 1.04;
//     512^3 0.92 / 1.00; 2048^3 0.83 / 0.98 (register with B blocks in L2 0.89);
//     4096x32x1024 0.89 / 1.01; 4096x4096x64 0.83 / 0.93; 64x64x65536 0.83 / 0.90. There the
//     folded form's extra loads of A (each element twice) cost issue slots the fmas need.
//   - Every other x86 core (Intel's): the register form, the B block sized for L2
//     (with_b_block_in_l2; blocking/block_sizes.h has that model's measurements). On an Intel
//     Xeon with AMX (family 6 model 167 as its VM reports it), one thread: the 12 x 32 tile alone
//     on panels in L1, kc 64 / 256 / 512, 163 / 172 / 175 GFLOP/s against 147 / 153 / 154 folded;
//     a bare loop of the tile's 24 fmas ran at 190 with the twelve broadcasts and no B loads,
//     at 215 with B's two loads and no broadcasts: each load costs that core issue time, and
//     the folded form loads every element twice. 2048^3, B block in L2, 141-145 against 129-133
//     folded. The f64 tile follows the f32 one.
// tile_set<B>() is the set with B streaming from L3 (b_streams); Intel's blocking is
// with_b_block_in_l2's.
//
// b_streams: the kernel keeps its pace with B streaming from L2/L3 (GemmKernel::b_streams).
// Measured on a Zen 4 at 2048^3, one thread, a KC sized for the A micro-panel alone in L1 against
// both panels' (blocking/block_sizes.h): sgemm_avx512_12x32 512 vs 158 (+8 %),
// dgemm_avx512_12x16 256 vs 128 (+5 %), the VNNI u8 x s8 kernel 2048 vs 640 (+7 %); the model now
// goes deeper still for the first two (streaming_kc). All three read 128 bytes of B per 24
// vector multiply-adds.
template <Broadcast B>
constexpr const char* name(const char* registers, const char* folded) {
  return B == Broadcast::kFolded ? folded : registers;
}

// What the bf16 and f16 kernels share: the f32 tile, and the column groups of the AVX2 decode-step
// kernels that widen in registers (ukernel.h, WidenedDirectFn).
template <Broadcast B>
constexpr WidenedTile widened_tile() {
  return {
      .mr = kSgemmMr,
      .nr = kSgemmNr,
      .b_streams = true,
      .ukernel = erase<&avx512::sgemm_avx512_12x32<B>>,
      .ukernel_edge = erase<&avx512::sgemm_avx512_12x32_edge<B>>,
      .direct_nr = 16,  // the widened direct kernels' column group
      .direct_t_nr = avx2::kDirectTNr,
  };
}

template <Broadcast B>
constexpr KernelSet tile_set() {
  return {
      .isa = Isa::kAvx512,
      .sgemm =
          {
              .name = name<B>("sgemm_avx512_12x32", "sgemm_avx512_12x32_membcast"),
              .mr = kSgemmMr,
              .nr = kSgemmNr,
              .a_in_bytes = sizeof(float),
              .b_in_bytes = sizeof(float),
              .a_packed_bytes = sizeof(float),
              .b_packed_bytes = sizeof(float),
              .c_bytes = sizeof(float),
              .b_streams = true,
              .pack_a = erase<&pack_a_avx<float, kSgemmMr, &avx512::sgemm_avx512_pack_a12>>,
              .pack_b = erase<&pack_b_avx<float, kSgemmNr, &avx2::sgemm_avx2_pack_b32_t,
                                          &avx2::sgemm_avx2_pack_b32>>,
              .ukernel = erase<&avx512::sgemm_avx512_12x32<B>>,
              .ukernel_edge = erase<&avx512::sgemm_avx512_12x32_edge<B>>,
              .ukernel_packing_b = erase<&avx512::sgemm_avx512_12x32_packing_b<B>>,
              .ukernel_a_in_place = erase<&avx512::sgemm_avx512_12x32_a_in_place<B>>,
              .direct_mr = avx2::kDirectMr,
              .direct_nr = avx2::kSgemmNr,
              .direct = erase<&avx512::sgemm_avx512_direct_16>,
              .direct_args = &avx512::sgemm_avx512_direct_args,
              .direct_batch = &avx512::sgemm_avx512_direct_batch,
              // B packed alone and A read in place (gemm_driver.h) up to two 32-column panels on
              // one thread, one on a team. Measured on a Zen 4 against the loop nest (alternating
              // runs), one / two threads: 4096x32x1024 +21 % / +32 %, 512x32x512 +20 % / +21 %;
              // two panels: 64x64x65536 +28 % / +-0, 1024x64x2048 +13 % / -2 %, 512x64x512 on
              // two -8 %, 2048x64x1024 on two -7 %; up to eight, +3 to +6 % on one thread, -9 %
              // on two at 256^3.
              .direct_panels = erase<&avx2::sgemm_avx2_direct_panels32>,
              .a_in_place_panels = 2,
              .a_in_place_team_panels = 1,
              .direct_t_nr = avx2::kDirectTNr,
              .direct_t = erase<&avx2::sgemm_avx2_direct_t8>,
              .direct_t_cached = erase<&avx2::sgemm_avx2_direct_t8_pairs>,
          },
      .dgemm =
          {
              .name = name<B>("dgemm_avx512_12x16", "dgemm_avx512_12x16_membcast"),
              .mr = kDgemmMr,
              .nr = kDgemmNr,
              .a_in_bytes = sizeof(double),
              .b_in_bytes = sizeof(double),
              .a_packed_bytes = sizeof(double),
              .b_packed_bytes = sizeof(double),
              .c_bytes = sizeof(double),
              .b_streams = true,
              .pack_a = erase<&pack_a_avx_f64<kDgemmMr, &avx2::dgemm_avx2_pack_a12>>,
              .pack_b = erase<&pack::pack_b<double, kDgemmNr>>,
              .ukernel = erase<&avx512::dgemm_avx512_12x16<B>>,
              .ukernel_edge = erase<&avx512::dgemm_avx512_12x16_edge<B>>,
              .ukernel_a_in_place = erase<&avx512::dgemm_avx512_12x16_a_in_place<B>>,
              .direct_mr = avx2::kDirectMr,
              .direct_nr = avx2::kDgemmNr,
              .direct = erase<&avx512::dgemm_avx512_direct_8>,
              .direct_args = &avx512::dgemm_avx512_direct_args,
              .direct_batch = &avx512::dgemm_avx512_direct_batch,
              // Up to two 16-column panels (Zen 4, against the loop nest, 1 / 2 threads): f64
              // 512x16x512 +38 % / +40 %, 1024x32x2048 +19 % / +9 %, 4096x32x1024 +14 % / +6 %;
              // four panels lost (1024x48x1024 -9 % / -12 %, 2048x64x1024 on two threads -13 %).
              .direct_panels = erase<&avx2::dgemm_avx2_direct_panels16>,
              .a_in_place_panels = 2,
              .a_in_place_team_panels = 2,
              .direct_t_nr = avx2::kDirectTNr,
              .direct_t = erase<&avx2::dgemm_avx2_direct_t8>,
          },
      // bf16 and f16 (sets.h, widened). Their decode step runs the AVX2 kernels (reading B bounds
      // it), over 16-bit panels of this tile's 32 columns.
      .sbgemm = widened<bf16>(
          widened_tile<B>(),
          {
              .name = name<B>("sbgemm_avx512_12x32", "sbgemm_avx512_12x32_membcast"),
              .pack_a = erase<&pack_a_avx<bf16, kSgemmMr, &avx2::sbgemm_avx2_pack_a12>>,
              .pack_b = erase<&pack_b_avx<bf16, kSgemmNr, &avx2::sbgemm_avx2_pack_b32_t,
                                          &avx2::sbgemm_avx2_pack_b32>>,
              .direct = erase<&avx2::sbgemm_avx2_direct>,
              .direct_t = erase<&avx2::sbgemm_avx2_direct_t>,
              .direct_panels_16bit = erase<&avx2::sbgemm_avx2_direct_panels32>,
          }),
      .shgemm =
          widened<f16>(widened_tile<B>(),
                       {
                           .name = name<B>("shgemm_avx512_12x32", "shgemm_avx512_12x32_membcast"),
                           .pack_a = erase<&pack_a_avx<f16, kSgemmMr, &avx2::shgemm_avx2_pack_a12>>,
                           .pack_b = erase<&pack_b_avx<f16, kSgemmNr, &avx2::shgemm_avx2_pack_b32_t,
                                                       &avx2::shgemm_avx2_pack_b32>>,
                           .direct = erase<&avx2::shgemm_avx2_direct>,
                           .direct_t = erase<&avx2::shgemm_avx2_direct_t>,
                           .direct_panels_16bit = erase<&avx2::shgemm_avx2_direct_panels32>,
                       }),
      // Without VNNI the integer products run the AVX2 kernel on int16 pair panels, which every
      // AVX-512 CPU also runs (with_vnni below takes the byte quad kernels where the CPU has it).
      .s8gemm =
          {
              .name = "s8s8s32_avx2_6x16",
              .mr = avx2::kIgemmMr,
              .nr = avx2::kIgemmNr,
              .a_in_bytes = sizeof(int8_t),
              .b_in_bytes = sizeof(int8_t),
              .a_packed_bytes = sizeof(int16_t),
              .b_packed_bytes = sizeof(int16_t),
              .c_bytes = sizeof(int32_t),
              .k_unit = 2,
              .pack_a = erase<&pack::pack_a_pairs<int8_t, avx2::kIgemmMr>>,
              .pack_b = erase<&pack::pack_b_pairs<int8_t, avx2::kIgemmNr>>,
              .ukernel = erase<&avx2::igemm_avx2_6x16>,
          },
      .u8gemm =
          {
              .name = "u8s8s32_avx2_6x16",
              .mr = avx2::kIgemmMr,
              .nr = avx2::kIgemmNr,
              .a_in_bytes = sizeof(uint8_t),
              .b_in_bytes = sizeof(int8_t),
              .a_packed_bytes = sizeof(int16_t),
              .b_packed_bytes = sizeof(int16_t),
              .c_bytes = sizeof(int32_t),
              .k_unit = 2,
              .pack_a = erase<&pack::pack_a_pairs<uint8_t, avx2::kIgemmMr>>,
              .pack_b = erase<&pack::pack_b_pairs<int8_t, avx2::kIgemmNr>>,
              .ukernel = erase<&avx2::igemm_avx2_6x16>,
          },
  };
}

constexpr KernelSet kAvx512Set = with_b_block_in_l2(tile_set<Broadcast::kRegister>());
// On the AMD cores with 512-bit units (Zen 5), one thread's decode step over a W streaming from
// memory reads sixteen rows at once (sgemm_avx2_direct_t8_pairs_streaming, which has the
// measurements): x * W^T 1 x 4096 x 4096 +27 %, 1 x 16384 x 4096 +12 % over the eight-row
// kernel there. Two threads, each reading sixteen rows, were level with it or slower (4096 x 4096
// 39-41 GB/s against 41-47, alternating runs), so a team keeps direct_t (direct_t_alone).
constexpr KernelSet with_streaming_pairs(KernelSet set) {
  set.sgemm.direct_t_alone = erase<&avx2::sgemm_avx2_direct_t8_pairs_streaming>;
  return set;
}
constexpr KernelSet kAvx512StreamingSet = with_streaming_pairs(tile_set<Broadcast::kRegister>());
constexpr KernelSet kAvx512MemBcastSet = tile_set<Broadcast::kFolded>();

#if defined(INVAR_HAVE_AVX512_VNNI)
// The same path on a CPU with AVX-512 BW and VNNI: the integer products run on byte quads
// (ukernel.h), four k steps per group, hence k_unit 4; row-major operands packed by the path's
// own packers, any other layout by the portable ones (the same bytes).
template <class ASrc, void (*PackRows)(int64_t, int64_t, const ASrc*, int64_t, uint8_t*)>
void pack_a_quads_vnni(int64_t mc, int64_t kc, const ASrc* src, int64_t rs, int64_t cs,
                       uint8_t* dst) {
  if (cs == 1 && rs != 1) {
    PackRows(mc, kc, src, rs, dst);
  } else {
    pack::pack_a_quads<ASrc, avx512::kIgemmMr>(mc, kc, src, rs, cs, dst);
  }
}

void pack_b_quads_vnni(int64_t kc, int64_t nc, const int8_t* src, int64_t rs, int64_t cs,
                       int8_t* dst) {
  if (cs == 1 && rs != 1) {
    avx512::igemm_avx512vnni_pack_b32(kc, nc, src, rs, dst);
  } else {
    pack::pack_b_quads<avx512::kIgemmNr>(kc, nc, src, rs, cs, dst);
  }
}

constexpr KernelSet with_vnni(KernelSet set) {
  set.s8gemm = {
      .name = "s8s8s32_avx512vnni_12x32",
      .mr = avx512::kIgemmMr,
      .nr = avx512::kIgemmNr,
      .a_in_bytes = sizeof(int8_t),
      .b_in_bytes = sizeof(int8_t),
      .a_packed_bytes = 1,
      .b_packed_bytes = 1,
      .c_bytes = sizeof(int32_t),
      .k_unit = 4,
      .b_streams = true,
      .pack_a = erase<&pack_a_quads_vnni<int8_t, &avx512::s8s8s32_avx512vnni_pack_a12>>,
      .pack_b = erase<&pack_b_quads_vnni>,
      .ukernel = erase<&avx512::s8s8s32_avx512vnni_12x32>,
      .ukernel_edge = erase<&avx512::s8s8s32_avx512vnni_12x32_edge>,
  };
  set.u8gemm = {
      .name = "u8s8s32_avx512vnni_12x32",
      .mr = avx512::kIgemmMr,
      .nr = avx512::kIgemmNr,
      .a_in_bytes = sizeof(uint8_t),
      .b_in_bytes = sizeof(int8_t),
      .a_packed_bytes = 1,
      .b_packed_bytes = 1,
      .c_bytes = sizeof(int32_t),
      .k_unit = 4,
      .b_streams = true,
      .pack_a = erase<&pack_a_quads_vnni<uint8_t, &avx512::u8s8s32_avx512vnni_pack_a12>>,
      .pack_b = erase<&pack_b_quads_vnni>,
      .ukernel = erase<&avx512::u8s8s32_avx512vnni_12x32>,
      .ukernel_edge = erase<&avx512::u8s8s32_avx512vnni_12x32_edge>,
  };
  return set;
}
constexpr KernelSet kAvx512VnniSet =
    with_b_block_in_l2(with_vnni(tile_set<Broadcast::kRegister>()));
constexpr KernelSet kAvx512StreamingVnniSet = with_vnni(kAvx512StreamingSet);
constexpr KernelSet kAvx512MemBcastVnniSet = with_vnni(kAvx512MemBcastSet);

#if defined(INVAR_HAVE_AVX512_AMX)
// The same path on a CPU with AMX-INT8 (and the OS's leave to use its tiles): the integer
// products on 32 x 32 tiles, A packed into 64-step chunks (ukernel.h), B in the VNNI kernels'
// quads by their packer. The OS's permission is asked at the first integer product, not before;
// blocking/block_sizes.h has the measurements of panels_from_l2.
static_assert(avx512::kIgemmAmxNr == avx512::kIgemmNr, "B panels of the VNNI packer");
constexpr KernelSet with_amx(KernelSet set) {
  set.s8gemm = {
      .name = "s8s8s32_amx_32x32",
      .mr = avx512::kIgemmAmxMr,
      .nr = avx512::kIgemmAmxNr,
      .a_in_bytes = sizeof(int8_t),
      .b_in_bytes = sizeof(int8_t),
      .a_packed_bytes = 1,
      .b_packed_bytes = 1,
      .c_bytes = sizeof(int32_t),
      .k_unit = 64,
      .panels_from_l2 = true,
      .pack_a = erase<&pack::pack_a_chunks<int8_t, avx512::kIgemmAmxMr>>,
      .pack_b = erase<&pack_b_quads_vnni>,
      .ukernel = erase<&avx512::s8s8s32_amx_32x32>,
      .ukernel_edge = erase<&avx512::s8s8s32_amx_32x32_edge>,
      .release = &avx512::amx_release_tiles,
      .permitted = &arch::request_tile_data,
  };
  set.u8gemm = {
      .name = "u8s8s32_amx_32x32",
      .mr = avx512::kIgemmAmxMr,
      .nr = avx512::kIgemmAmxNr,
      .a_in_bytes = sizeof(uint8_t),
      .b_in_bytes = sizeof(int8_t),
      .a_packed_bytes = 1,
      .b_packed_bytes = 1,
      .c_bytes = sizeof(int32_t),
      .k_unit = 64,
      .panels_from_l2 = true,
      .pack_a = erase<&pack::pack_a_chunks<uint8_t, avx512::kIgemmAmxMr>>,
      .pack_b = erase<&pack_b_quads_vnni>,
      .ukernel = erase<&avx512::u8s8s32_amx_32x32>,
      .ukernel_edge = erase<&avx512::u8s8s32_amx_32x32_edge>,
      .release = &avx512::amx_release_tiles,
      .permitted = &arch::request_tile_data,
  };
  set.fallback = &kAvx512VnniSet;  // where the OS refuses the tile data
  return set;
}
constexpr KernelSet kAvx512AmxSet = with_b_block_in_l2(with_amx(kAvx512VnniSet));
#endif
#endif

}  // namespace

namespace {

// The three forms (sets.h, X86Form): the folded broadcasts stream B from L3 (no core on 256-bit
// halves has B blocks in L2). With VNNI, each form's integer products run the byte-quad kernels.
const KernelSet& tile_form(X86Form form) {
#if defined(INVAR_HAVE_AVX512_VNNI)
  if (arch::cpu_features().avx512_vnni) {
    if (form.folded_broadcasts) return kAvx512MemBcastVnniSet;
    return form.b_in_l3 ? kAvx512StreamingVnniSet : kAvx512VnniSet;
  }
#endif
  if (form.folded_broadcasts) return kAvx512MemBcastSet;
  return form.b_in_l3 ? kAvx512StreamingSet : kAvx512Set;
}

}  // namespace

const KernelSet& avx512_set(X86Form form) {
#if defined(INVAR_HAVE_AVX512_AMX)
  // No core with B blocks in L3 (AMD's) has AMX.
  if (arch::cpu_features().amx_int8 && !form.b_in_l3) return kAvx512AmxSet;
#endif
  return tile_form(form);
}

std::vector<const KernelSet*> avx512_sets(X86Form form) {
  // The AVX2 forms differ in their blocking only, so the AVX-512 path alone has several: this
  // core's first, then the others. Where the AMX kernels take this CPU's integer products, the
  // same forms with the VNNI kernels stay tested too.
  std::vector<const KernelSet*> sets = {&avx512_set(form)};
  for (X86Form other : {X86Form{false, false}, X86Form{true, false}, X86Form{true, true}}) {
    const KernelSet* set = &tile_form(other);
    if (std::find(sets.begin(), sets.end(), set) == sets.end()) sets.push_back(set);
  }
  return sets;
}

}  // namespace invar::kernels::sets

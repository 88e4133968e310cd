// The AVX2 path's kernels (kernels/avx2/), in two forms with the same kernels: B blocks in L3 on
// AMD's cores, in L2 on the others' (x86.h, with_b_block_in_l2).
#include "kernels/avx2/avx2.h"

#include "kernels/sets/erase.h"
#include "kernels/sets/sets.h"
#include "kernels/sets/x86.h"
#include "pack/pack.h"

namespace invar::kernels::sets {
namespace {

using avx2::kDgemmMr;
using avx2::kDgemmNr;
using avx2::kIgemmMr;
using avx2::kIgemmNr;
using avx2::kSgemmMr;
using avx2::kSgemmNr;

// What the bf16 and f16 kernels share: the f32 tile, and the column groups of the decode-step
// kernels that widen in registers (ukernel.h, WidenedDirectFn).
constexpr WidenedTile kWidenedTile = {
    .mr = kSgemmMr,
    .nr = kSgemmNr,
    .ukernel = erase<&avx2::sgemm_avx2_6x16>,
    .ukernel_edge = erase<&avx2::sgemm_avx2_6x16_edge>,
    .direct_nr = 16,  // the widened direct kernels' column group
    .direct_t_nr = avx2::kDirectTNr,
};

constexpr KernelSet kAvx2Set = {
    .isa = Isa::kAvx2,
    .sgemm =
        {
            .name = "sgemm_avx2_6x16",
            .mr = kSgemmMr,
            .nr = kSgemmNr,
            .a_in_bytes = sizeof(float),
            .b_in_bytes = sizeof(float),
            .a_packed_bytes = sizeof(float),
            .b_packed_bytes = sizeof(float),
            .c_bytes = sizeof(float),
            .pack_a = erase<&pack_a_avx<float, kSgemmMr, &avx2::sgemm_avx2_pack_a6,
                                        &avx2::sgemm_avx2_pack_a6_t>>,
            .pack_b = erase<&pack_b_avx<float, kSgemmNr, &avx2::sgemm_avx2_pack_b16_t,
                                        &avx2::sgemm_avx2_pack_b16>>,
            .ukernel = erase<&avx2::sgemm_avx2_6x16>,
            .ukernel_edge = erase<&avx2::sgemm_avx2_6x16_edge>,
            .ukernel_a_in_place = erase<&avx2::sgemm_avx2_6x16_a_in_place>,
            .direct_mr = avx2::kDirectMr,
            .direct_nr = kSgemmNr,
            .direct = erase<&avx2::sgemm_avx2_direct_16>,
            .direct_args = &avx2::sgemm_avx2_direct_args,
            .direct_batch = &avx2::sgemm_avx2_direct_batch,
            .direct_panels = erase<&avx2::sgemm_avx2_direct_panels16>,
            .a_in_place_panels = avx2::kSgemmAInPlacePanels,
            .a_in_place_team_panels = avx2::kSgemmAInPlacePanels,
            .direct_t_nr = avx2::kDirectTNr,
            .direct_t = erase<&avx2::sgemm_avx2_direct_t8>,
            .direct_t_cached = erase<&avx2::sgemm_avx2_direct_t8_pairs>,
        },
    .dgemm =
        {
            .name = "dgemm_avx2_6x8",
            .mr = kDgemmMr,
            .nr = kDgemmNr,
            .a_in_bytes = sizeof(double),
            .b_in_bytes = sizeof(double),
            .a_packed_bytes = sizeof(double),
            .b_packed_bytes = sizeof(double),
            .c_bytes = sizeof(double),
            .pack_a = erase<&pack_a_avx_f64<kDgemmMr, &avx2::dgemm_avx2_pack_a6>>,
            .pack_b = erase<&pack::pack_b<double, kDgemmNr>>,
            .ukernel = erase<&avx2::dgemm_avx2_6x8>,
            .ukernel_edge = erase<&avx2::dgemm_avx2_6x8_edge>,
            .ukernel_a_in_place = erase<&avx2::dgemm_avx2_6x8_a_in_place>,
            .direct_mr = avx2::kDirectMr,
            .direct_nr = kDgemmNr,
            .direct = erase<&avx2::dgemm_avx2_direct_8>,
            .direct_args = &avx2::dgemm_avx2_direct_args,
            .direct_batch = &avx2::dgemm_avx2_direct_batch,
            .direct_panels = erase<&avx2::dgemm_avx2_direct_panels8>,
            .a_in_place_panels = avx2::kDgemmAInPlacePanels,
            .a_in_place_team_panels = avx2::kDgemmAInPlacePanels,
            .direct_t_nr = avx2::kDirectTNr,
            .direct_t = erase<&avx2::dgemm_avx2_direct_t8>,
        },
    // bf16 and f16 (sets.h, widened).
    .sbgemm =
        widened<bf16>(kWidenedTile,
                      {
                          .name = "sbgemm_avx2_6x16",
                          .pack_a = erase<&pack_a_avx<bf16, kSgemmMr, &avx2::sbgemm_avx2_pack_a6,
                                                      &avx2::sbgemm_avx2_pack_a6_t>>,
                          .pack_b = erase<&pack_b_avx<bf16, kSgemmNr, &avx2::sbgemm_avx2_pack_b16_t,
                                                      &avx2::sbgemm_avx2_pack_b16>>,
                          .direct = erase<&avx2::sbgemm_avx2_direct>,
                          .direct_t = erase<&avx2::sbgemm_avx2_direct_t>,
                          .direct_panels_16bit = erase<&avx2::sbgemm_avx2_direct_panels16>,
                      }),
    .shgemm =
        widened<f16>(kWidenedTile,
                     {
                         .name = "shgemm_avx2_6x16",
                         .pack_a = erase<&pack_a_avx<f16, kSgemmMr, &avx2::shgemm_avx2_pack_a6,
                                                     &avx2::shgemm_avx2_pack_a6_t>>,
                         .pack_b = erase<&pack_b_avx<f16, kSgemmNr, &avx2::shgemm_avx2_pack_b16_t,
                                                     &avx2::shgemm_avx2_pack_b16>>,
                         .direct = erase<&avx2::shgemm_avx2_direct>,
                         .direct_t = erase<&avx2::shgemm_avx2_direct_t>,
                         .direct_panels_16bit = erase<&avx2::shgemm_avx2_direct_panels16>,
                     }),
    // A (int8_t or uint8_t) packed unscaled and B (int8_t) into int16 pair panels (ukernel.h),
    // hence k_unit 2.
    .s8gemm =
        {
            .name = "s8s8s32_avx2_6x16",
            .mr = kIgemmMr,
            .nr = kIgemmNr,
            .a_in_bytes = sizeof(int8_t),
            .b_in_bytes = sizeof(int8_t),
            .a_packed_bytes = sizeof(int16_t),
            .b_packed_bytes = sizeof(int16_t),
            .c_bytes = sizeof(int32_t),
            .k_unit = 2,
            .pack_a = erase<&pack::pack_a_pairs<int8_t, kIgemmMr>>,
            .pack_b = erase<&pack::pack_b_pairs<int8_t, kIgemmNr>>,
            .ukernel = erase<&avx2::igemm_avx2_6x16>,
        },
    .u8gemm =
        {
            .name = "u8s8s32_avx2_6x16",
            .mr = kIgemmMr,
            .nr = kIgemmNr,
            .a_in_bytes = sizeof(uint8_t),
            .b_in_bytes = sizeof(int8_t),
            .a_packed_bytes = sizeof(int16_t),
            .b_packed_bytes = sizeof(int16_t),
            .c_bytes = sizeof(int32_t),
            .k_unit = 2,
            .pack_a = erase<&pack::pack_a_pairs<uint8_t, kIgemmMr>>,
            .pack_b = erase<&pack::pack_b_pairs<int8_t, kIgemmNr>>,
            .ukernel = erase<&avx2::igemm_avx2_6x16>,
        },
};

constexpr KernelSet kAvx2L2Set = with_b_block_in_l2(kAvx2Set);

}  // namespace

const KernelSet& avx2_set(bool b_in_l3) { return b_in_l3 ? kAvx2Set : kAvx2L2Set; }

}  // namespace invar::kernels::sets

// The portable path's kernels (kernels/generic/): the path of last resort on every target, and
// the model the SIMD kernels match bit for bit.
#include "kernels/generic/generic.h"

#include "kernels/sets/erase.h"
#include "kernels/sets/sets.h"
#include "pack/pack.h"

namespace invar::kernels::sets {
namespace {

using generic::kDgemmMr;
using generic::kDgemmNr;
using generic::kIgemmMr;
using generic::kIgemmNr;
using generic::kSgemmMr;
using generic::kSgemmNr;

// What the bf16 and f16 kernels share: the f32 tile, and the column groups of the decode-step
// kernels that widen in registers (ukernel.h, WidenedDirectFn).
constexpr WidenedTile kWidenedTile = {
    .mr = kSgemmMr,
    .nr = kSgemmNr,
    .ukernel = erase<&generic::sgemm_generic_4x8>,
    .direct_nr = kSgemmNr,
    .direct_t_nr = kSgemmNr,
};

constexpr KernelSet kGenericSet = {
    .isa = Isa::kGeneric,
    .sgemm =
        {
            .name = "sgemm_generic_4x8",
            .mr = kSgemmMr,
            .nr = kSgemmNr,
            .a_in_bytes = sizeof(float),
            .b_in_bytes = sizeof(float),
            .a_packed_bytes = sizeof(float),
            .b_packed_bytes = sizeof(float),
            .c_bytes = sizeof(float),
            .pack_a = erase<&pack::pack_a<float, kSgemmMr>>,
            .pack_b = erase<&pack::pack_b<float, kSgemmNr>>,
            .ukernel = erase<&generic::sgemm_generic_4x8>,
            .direct_mr = kDirectMaxRows,
            .direct_nr = kSgemmNr,
            .direct = erase<&generic::sgemm_generic_direct_8>,
            .direct_t_nr = kSgemmNr,
            .direct_t = erase<&generic::sgemm_generic_direct_t_8>,
        },
    .dgemm =
        {
            .name = "dgemm_generic_4x4",
            .mr = kDgemmMr,
            .nr = kDgemmNr,
            .a_in_bytes = sizeof(double),
            .b_in_bytes = sizeof(double),
            .a_packed_bytes = sizeof(double),
            .b_packed_bytes = sizeof(double),
            .c_bytes = sizeof(double),
            .pack_a = erase<&pack::pack_a<double, kDgemmMr>>,
            .pack_b = erase<&pack::pack_b<double, kDgemmNr>>,
            .ukernel = erase<&generic::dgemm_generic_4x4>,
            .direct_mr = kDirectMaxRows,
            .direct_nr = kDgemmNr,
            .direct = erase<&generic::dgemm_generic_direct_4>,
            .direct_t_nr = kDgemmNr,
            .direct_t = erase<&generic::dgemm_generic_direct_t_4>,
        },
    // bf16 and f16 (sets.h, widened).
    .sbgemm =
        widened<bf16>(kWidenedTile,
                      {
                          .name = "sbgemm_generic_4x8",
                          .pack_a = erase<&pack::pack_a<bf16, kSgemmMr>>,
                          .pack_b = erase<&pack::pack_b<bf16, kSgemmNr>>,
                          .direct = erase<&generic::sbgemm_generic_direct>,
                          .direct_t = erase<&generic::sbgemm_generic_direct_t>,
                          .direct_panels_16bit = erase<&generic::sbgemm_generic_direct_panels>,
                      }),
    .shgemm = widened<f16>(kWidenedTile,
                           {
                               .name = "shgemm_generic_4x8",
                               .pack_a = erase<&pack::pack_a<f16, kSgemmMr>>,
                               .pack_b = erase<&pack::pack_b<f16, kSgemmNr>>,
                               .direct = erase<&generic::shgemm_generic_direct>,
                               .direct_t = erase<&generic::shgemm_generic_direct_t>,
                               .direct_panels_16bit = erase<&generic::shgemm_generic_direct_panels>,
                           }),
    // A (int8_t or uint8_t) packed unscaled and B (int8_t) into int16 pair panels (ukernel.h),
    // hence k_unit 2: rows pc.. of a prepacked B are a block's panel for even pc only.
    .s8gemm =
        {
            .name = "s8s8s32_generic_4x8",
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
            .ukernel = erase<&generic::igemm_generic_4x8>,
        },
    .u8gemm =
        {
            .name = "u8s8s32_generic_4x8",
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
            .ukernel = erase<&generic::igemm_generic_4x8>,
        },
};

}  // namespace

const KernelSet& generic_set() { return kGenericSet; }

}  // namespace invar::kernels::sets

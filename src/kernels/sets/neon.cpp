// The AArch64 Advanced SIMD path's kernels (kernels/neon/). Partial tiles run on the driver's
// scratch tile (no edge kernels).
#include "kernels/neon/neon.h"

#include "kernels/sets/erase.h"
#include "kernels/sets/sets.h"
#include "pack/pack.h"

namespace invar::kernels::sets {
namespace {

using neon::kDgemmMr;
using neon::kDgemmNr;
using neon::kIgemmMr;
using neon::kIgemmNr;
using neon::kSgemmMr;
using neon::kSgemmNr;

// What the bf16 and f16 kernels share: the f32 tile, and the column groups of the decode-step
// kernels that widen in registers (ukernel.h, WidenedDirectFn).
constexpr WidenedTile kWidenedTile = {
    .mr = kSgemmMr,
    .nr = kSgemmNr,
    .ukernel = erase<&neon::sgemm_neon_8x12>,
    .direct_nr = neon::kWidenedNr,
    .direct_t_nr = neon::kWidenedNr,
};

constexpr KernelSet kNeonSet = {
    .isa = Isa::kNeon,
    .sgemm =
        {
            .name = "sgemm_neon_8x12",
            .mr = kSgemmMr,
            .nr = kSgemmNr,
            .a_in_bytes = sizeof(float),
            .b_in_bytes = sizeof(float),
            .a_packed_bytes = sizeof(float),
            .b_packed_bytes = sizeof(float),
            .c_bytes = sizeof(float),
            .pack_a = erase<&pack::pack_a<float, kSgemmMr>>,
            .pack_b = erase<&pack::pack_b<float, kSgemmNr>>,
            .ukernel = erase<&neon::sgemm_neon_8x12>,
            .direct_mr = kDirectMaxRows,
            .direct_nr = neon::kDirectNr,
            .direct = erase<&neon::sgemm_neon_direct_16>,
            .direct_panels = erase<&neon::sgemm_neon_direct_panels12>,
            .direct_t_nr = neon::kDirectTNr,
            .direct_t = erase<&neon::sgemm_neon_direct_t8>,
        },
    .dgemm =
        {
            .name = "dgemm_neon_8x6",
            .mr = kDgemmMr,
            .nr = kDgemmNr,
            .a_in_bytes = sizeof(double),
            .b_in_bytes = sizeof(double),
            .a_packed_bytes = sizeof(double),
            .b_packed_bytes = sizeof(double),
            .c_bytes = sizeof(double),
            .pack_a = erase<&pack::pack_a<double, kDgemmMr>>,
            .pack_b = erase<&pack::pack_b<double, kDgemmNr>>,
            .ukernel = erase<&neon::dgemm_neon_8x6>,
        },
    // bf16 and f16 (sets.h, widened).
    .sbgemm = widened<bf16>(kWidenedTile,
                            {
                                .name = "sbgemm_neon_8x12",
                                .pack_a = erase<&pack::pack_a<bf16, kSgemmMr>>,
                                .pack_b = erase<&pack::pack_b<bf16, kSgemmNr>>,
                                .direct = erase<&neon::sbgemm_neon_direct>,
                                .direct_t = erase<&neon::sbgemm_neon_direct_t>,
                                .direct_panels_16bit = erase<&neon::sbgemm_neon_direct_panels12>,
                            }),
    .shgemm = widened<f16>(kWidenedTile,
                           {
                               .name = "shgemm_neon_8x12",
                               .pack_a = erase<&pack::pack_a<f16, kSgemmMr>>,
                               .pack_b = erase<&pack::pack_b<f16, kSgemmNr>>,
                               .direct = erase<&neon::shgemm_neon_direct>,
                               .direct_t = erase<&neon::shgemm_neon_direct_t>,
                               .direct_panels_16bit = erase<&neon::shgemm_neon_direct_panels12>,
                           }),
    // A (int8_t or uint8_t) packed unscaled and B (int8_t) into int16 pair panels (ukernel.h),
    // hence k_unit 2.
    .s8gemm =
        {
            .name = "s8s8s32_neon_4x8",
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
            .ukernel = erase<&neon::igemm_neon_4x8>,
        },
    .u8gemm =
        {
            .name = "u8s8s32_neon_4x8",
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
            .ukernel = erase<&neon::igemm_neon_4x8>,
        },
};

}  // namespace

const KernelSet& neon_set() { return kNeonSet; }

}  // namespace invar::kernels::sets

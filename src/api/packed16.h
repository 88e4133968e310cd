// Products over a 16-bit prepacked B (PackedOperand::narrow_panels; api/packed16.cpp).
#ifndef INVAR_API_PACKED16_H_
#define INVAR_API_PACKED16_H_

#include "api/context_impl.h"
#include "api/packed.h"
#include "arch/cache_topology.h"
#include "driver/gemm_driver.h"

namespace invar::api {

// Runs `problem` (validated, its b_panels the 16-bit panels of `b`) on the context: the decode
// step (m <= kDirectMaxRows) reads the panels in place through kernel.direct_panels_16bit; any
// other product widens runs of panels into the kernel's own packed layout and runs on those.
// Either way the bits are those of the unpacked call.
void run_narrow_packed_b(Context::Impl& context, const kernels::GemmKernel& kernel,
                         const driver::GemmProblem& problem, const detail::PackedOperand& b,
                         const arch::CacheTopology& caches);

}  // namespace invar::api

#endif  // INVAR_API_PACKED16_H_

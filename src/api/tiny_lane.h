// The tiny lane: invar_sgemm and invar_dgemm on a product small enough for driver::run_tiny, run
// from the entry point's own frame.
//
// A 4 x 4 x 4 product is some forty multiply-add instructions; the general entry
// (c_api.cpp: gemm_entry) spent ~500 instructions around them, most of it copying the same
// arguments from record to record (the GemmCall, the driver's GemmProblem, the planner's
// request, the plan) and the type-erasing wrappers between. Here the arguments go once into the
// driver's GemmProblem, built where the caller's registers are, after the checks of
// plain_arguments (gemm_call.h), or, for a few rows over a row-major B (driver::direct_at_once),
// into the direct kernel's record (kernels::DirectArgs, where the kernel takes one) or call. The
// call is then valid, and every other case (an invalid argument and its message, a degenerate
// product, a larger one, a context or topology that cannot be made) falls through to the general
// entry untouched, which decides it as before.
//
// Nothing here locks or touches an atomic read-modify-write: the default context and the cache
// topology are found once (lane_state), and the kernel set is a pointer in the context.
//
// Not for the ISA folders' translation units (it is inline; tests/isa_objects_odr.sh).
#ifndef INVAR_API_TINY_LANE_H_
#define INVAR_API_TINY_LANE_H_

#include <cstdint>

#include "api/context_impl.h"
#include "api/gemm_call.h"
#include "arch/cache_topology.h"
#include "driver/gemm_driver.h"
#include "kernels/kernel_set.h"

namespace invar::api {

// What the lane reads of the process: the default context and the cache topology, found once
// (a function-local static: one test of its guard per call). Making it throws, and is tried
// again on the next call, when either cannot be made or the topology is unusable (a bad
// INVAR_L1D, INVAR_L2 or INVAR_L3): the general entry then reports it.
struct LaneState {
  const Context::Impl* context;
  const arch::CacheTopology* topology;
};
inline LaneState make_lane_state() {
  const Context::Impl& context = Context::default_context().impl();
  const arch::EffectiveCacheTopology& caches = arch::cache_topology();
  if (!caches.error.empty()) throw InvalidArgument(caches.error);
  return {&context, &caches.topology};
}
inline const LaneState& lane_state() {
  static const LaneState state = make_lane_state();
  return state;
}

// Runs C <- alpha * op(A) * op(B) + beta * C of f32 or f64 operands on the default context when
// the arguments are plainly valid and the product tiny: true when it ran, false (nothing read
// or written, no message set) otherwise. The caller holds the library's FP mode
// (runtime::FpModeGuard): alpha and beta are compared here.
template <class T>
inline bool run_tiny_lane(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                          const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                          int64_t ldc) noexcept {
  if (!plain_arguments(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc) ||
      !driver::tiny_shape(m, n, k))
    return false;
  try {
    const LaneState& state = lane_state();
    const Context::Impl& context = *state.context;
    if (!context.allow_direct) return false;
    const kernels::GemmKernel& kernel = kernels::kernel_for<T>(*context.kernels);
    const kernels::AccInit init = beta == T(0)   ? kernels::AccInit::kZero
                                  : beta == T(1) ? kernels::AccInit::kLoad
                                                 : kernels::AccInit::kScale;
    const int64_t a_rs = trans_a ? 1 : lda, a_cs = trans_a ? lda : 1;
    const int64_t b_rs = trans_b ? 1 : ldb, b_cs = trans_b ? ldb : 1;
    if (driver::direct_at_once(kernel, m, n, k, b_cs)) {
      if (kernel.direct_args != nullptr)
        kernel.direct_args({m, n, k, &alpha, a, a_rs, a_cs, b, b_rs, c, ldc, init, &beta});
      else
        kernel.direct(m, n, k, &alpha, a, a_rs, a_cs, b, b_rs, c, ldc, init, &beta);
      return true;
    }
    const driver::GemmProblem p{
        .m = m,
        .n = n,
        .k = k,
        .a = a,
        .a_rs = a_rs,
        .a_cs = a_cs,
        .b = b,
        .b_rs = b_rs,
        .b_cs = b_cs,
        .c = c,
        .ldc = ldc,
        .alpha = &alpha,
        .beta = &beta,
        .first_init = init,
        .unit_alpha = alpha == T(1),
        .small_fits = false,
        .allow_direct = true,
        .b_panels = nullptr,
        .a_panels = nullptr,
        .epilogue = {},
    };
    return driver::run_tiny(kernel, p, *state.topology);
  } catch (...) {  // the first use could not build the context or the topology: said below
    return false;
  }
}

}  // namespace invar::api

#endif  // INVAR_API_TINY_LANE_H_

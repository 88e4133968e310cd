// The tiny lane: invar_sgemm and invar_dgemm on a product small enough for driver::run_tiny, run
// from the entry point's own frame.
//
// A 4 x 4 x 4 product is some forty multiply-add instructions; the general entry
// (c_api.cpp: gemm_entry) spent ~500 instructions around them, most of it copying the same
// arguments from record to record (the GemmCall, the driver's GemmProblem, the planner's
// request, the plan) and the type-erasing wrappers between. Here, after the one test of
// tiny_arguments, a few rows over a row-major B (kFewRowsMaxRows of narrow ones, or any number
// over columns of at most kFewRowsGroupsMaxBytes) go into the direct kernel's record
// (kernels::DirectArgs) at once; the other tiny products make the kernel calls their plan would
// (driver::tiny_call) with the caller's arguments, or else go once into the driver's GemmProblem,
// built where the caller's registers are, for run_tiny. The call is then valid, and every other
// case (an invalid argument and its message, a degenerate product, a larger one, a context or
// topology that cannot be made) falls through to the general entry untouched, which decides it as
// before.
//
// Nothing here locks or touches an atomic read-modify-write: the default context, its f32 and
// f64 kernels and the cache topology are found once (lane_state) and read through one pointer
// (tiny_lane). The checks read alpha and beta by their bits, so the FP mode is entered only
// around the kernel, and a call the lane declines reaches the general entry with its arguments
// where the caller put them.
//
// Not for the ISA folders' translation units (it is inline; tests/isa_objects_odr.sh).
#ifndef INVAR_API_TINY_LANE_H_
#define INVAR_API_TINY_LANE_H_

#include <atomic>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "api/context_impl.h"
#include "api/gemm_call.h"
#include "api/lane_state.h"
#include "arch/cache_topology.h"
#include "blocking/block_sizes.h"
#include "driver/gemm_driver.h"
#include "kernels/kernel_set.h"
#include "runtime/fp_mode.h"

namespace invar::api {

// What the lane reads of the process, found once (a function-local static: one test of its
// guard per call): the default context's lane (Context::Impl::tiny, api/lane_state.h). Making it
// throws, and is tried again on the next call, when the context or the topology cannot be made or
// the topology is unusable (a bad INVAR_L1D, INVAR_L2 or INVAR_L3): the general entry then reports
// it.
inline LaneState make_lane_state() {
  const Context::Impl& context = Context::default_context().impl();
  const arch::EffectiveCacheTopology& caches = arch::cache_topology();
  if (!caches.error.empty()) throw InvalidArgument(caches.error);
  return context.tiny;
}
inline const LaneState& lane_state() {
  static const LaneState state = make_lane_state();
  return state;
}

// The lane as the entry points find it: nullptr until a product has run through the general
// entry (which made the default context), then lane_state(). One load, without a guard or a call
// to keep the caller's arguments in registers around.
inline constinit std::atomic<const LaneState*> g_tiny_lane{nullptr};
inline const LaneState* tiny_lane() noexcept { return g_tiny_lane.load(std::memory_order_acquire); }
// Opens the lane after a call through the general entry (c_api.cpp); a no-op once open or while
// the context or the topology cannot be made.
inline void open_tiny_lane() noexcept {
  if (tiny_lane() != nullptr) return;
  try {
    g_tiny_lane.store(&lane_state(), std::memory_order_release);
  } catch (...) {  // the general entry says why on the calls that need it
  }
}

// A scalar's bits: its comparisons with 0 and 1 without the FP unit, so outside the library's FP
// mode with the answers it gives there (no DAZ: a subnormal is not 0; -0 is 0; NaN neither).
template <class T>
inline auto scalar_bits(T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  return std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(v);
}
template <class T>
inline bool is_zero(T v) {
  return (scalar_bits(v) << 1) == 0;
}
template <class T>
inline bool is_one(T v) {
  return scalar_bits(v) == scalar_bits(T(1));
}

// Whether a call is plainly valid (plain_arguments, gemm_call.h) and tiny (driver::tiny_shape),
// by one test of the common case: true only for calls both accept (tests/api_test.cpp checks it
// against validate()), false for every other, which the general entry then decides. m, n and k
// are each 1 .. 2^20 (one less is below 2^20: 0 and negatives wrap to the top), so their product
// cannot overflow, and below kMinFlopsPerThread it bounds all three below 2^20; the leading
// dimensions are below 2^26, as in plain_arguments, and the addresses 1 .. 2^63.
// alpha is tested by its bits: any FP mode.
template <class T>
inline bool tiny_arguments(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                           const T* a, int64_t lda, const T* b, int64_t ldb, const T* c,
                           int64_t ldc) {
  constexpr int64_t kTinyFmas = static_cast<int64_t>(driver::kMinFlopsPerThread);
  static_assert(kTinyFmas < (int64_t{1} << 20), "the product bounds each extent");
  const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  const auto address = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
  // address - 1 below 2^63: 1 .. 2^63 (null wraps to the top), where a tiny span cannot reach
  // the end of the address space (validate's addressable).
  const uint64_t addresses = (address(a) - 1) | (address(b) - 1) | (address(c) - 1);
  const uint64_t out = ((u(m) - 1) | (u(n) - 1) | (u(k) - 1)) >> 20 |
                       (u(lda) | u(ldb) | u(ldc)) >> 26 | addresses >> 63 |
                       static_cast<unsigned>(trans_a | trans_b) >> 1;
  // The product in unsigned arithmetic: it is evaluated whatever `out` says (no branch), where
  // extents of any size wrap instead of overflowing; it decides only when out == 0.
  return (out == 0) & (u(m) * u(n) * u(k) < u(kTinyFmas)) & !is_zero(alpha) & (ldc >= n) &
         (lda >= (trans_a ? m : k)) & (ldb >= (trans_b ? k : n));
}

// What run_tiny_direct did.
enum class TinyLane {
  kDeclined,   // nothing: the general entry decides the call
  kRan,        // the product, on the direct kernel
  kNotDirect,  // nothing, but the call is plainly valid and tiny: run_tiny_problem's
};

// Runs C <- alpha * op(A) * op(B) + beta * C of f32 or f64 operands on the direct kernel's record
// form of the context whose lane `state` is (tiny_lane(): the default context's; nullptr: closed)
// when the lane is open to T, the arguments plainly valid, and the product one that
// driver::few_rows_at_once gives to the record form (tiny, over a row-major B, its rows and
// columns within few_rows_extents): the record (kernels::DirectArgs) is filled at once. Above
// kDirectMaxRows rows this is not the planner's way (the small path's tiles, or the direct kernel
// with alpha != 1 or a transposed A), but the chains are the same. Nothing is read or written, and
// no message set, unless it ran. The kernel runs in the library's FP mode (runtime::FpModeGuard);
// the tests before it read alpha and beta by their bits.
template <class T>
inline TinyLane run_tiny_direct(const LaneState* state, int trans_a, int trans_b, int64_t m,
                                int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                                int64_t ldb, T beta, T* c, int64_t ldc) noexcept {
  if (state == nullptr || !tiny_arguments(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, c, ldc))
    return TinyLane::kDeclined;
  const kernels::DirectArgsFn direct = state->direct<T>();
  if (direct == nullptr || trans_b != 0 || !driver::few_rows_extents(m, n, sizeof(T)))
    return state->kernel<T>() != nullptr ? TinyLane::kNotDirect : TinyLane::kDeclined;
  const kernels::AccInit init = is_zero(beta)  ? kernels::AccInit::kZero
                                : is_one(beta) ? kernels::AccInit::kLoad
                                               : kernels::AccInit::kScale;
  const kernels::DirectArgs r{m,   n, k,   &alpha, a,    trans_a ? 1 : lda, trans_a ? lda : 1, b,
                              ldb, c, ldc, init,   &beta};
  runtime::FpModeGuard fp_mode;
  direct(r);
  return TinyLane::kRan;
}

// The product run_tiny_direct found plainly valid and tiny but not for the direct kernel at once
// (kNotDirect), on the same lane's kernel, in the library's FP mode: the kernel calls plan_tiny's
// plan makes of it (driver::tiny_call: the small path's tiles over all of it, or a direct kernel
// over all of K and all columns per group of rows) made at once, else through driver::run_tiny (a B
// with neither rows nor columns contiguous, a kernel without these). True when it ran, false
// (nothing read or written) when run_tiny declines it.
template <class T>
inline bool run_tiny_problem(const LaneState& state, int trans_a, int trans_b, int64_t m, int64_t n,
                             int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
                             T beta, T* c, int64_t ldc) noexcept {
  const kernels::GemmKernel& kernel = *state.kernel<T>();
  const int64_t a_rs = trans_a ? 1 : lda, a_cs = trans_a ? lda : 1;
  const int64_t b_rs = trans_b ? 1 : ldb, b_cs = trans_b ? ldb : 1;
  const kernels::AccInit init = is_zero(beta)  ? kernels::AccInit::kZero
                                : is_one(beta) ? kernels::AccInit::kLoad
                                               : kernels::AccInit::kScale;
  const bool unit_alpha = is_one(alpha);
  switch (driver::tiny_call(kernel, state.small_budget, m, n, k, a_cs == 1, b_cs == 1, b_rs == 1,
                            unit_alpha)) {
    case driver::TinyCall::kSmall: {
      runtime::FpModeGuard fp_mode;
      kernel.ukernel_a_in_place(m, n, k, a, a_rs, b, b_rs, kernel.nr, c, ldc, init, &beta);
      return true;
    }
    case driver::TinyCall::kDirect: {
      runtime::FpModeGuard fp_mode;
      const int64_t rows = kernel.direct_mr;
      for (int64_t i = 0; i < m; i += rows) {
        kernel.direct(m - i < rows ? m - i : rows, n, k, &alpha, a + i * a_rs, a_rs, a_cs, b, b_rs,
                      c + i * ldc, ldc, init, &beta);
      }
      return true;
    }
    case driver::TinyCall::kDirectTransposed: {
      // A tiny product's W is in cache (plan_tiny).
      const auto direct_t =
          kernel.direct_t_cached != nullptr ? kernel.direct_t_cached : kernel.direct_t;
      runtime::FpModeGuard fp_mode;
      constexpr int64_t rows = kernels::kDirectMaxRows;
      for (int64_t i = 0; i < m; i += rows) {
        direct_t(m - i < rows ? m - i : rows, n, k, &alpha, a + i * a_rs, a_rs, a_cs, b, b_cs,
                 c + i * ldc, ldc, init, &beta);
      }
      return true;
    }
    case driver::TinyCall::kPlanned: break;
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
      .unit_alpha = unit_alpha,
      .small_fits = false,
      .allow_direct = true,
      .b_panels = nullptr,
      .a_panels = nullptr,
      .epilogue = {},
  };
  runtime::FpModeGuard fp_mode;
  return driver::run_tiny(*state.kernel<T>(), p, *state.topology);
}

}  // namespace invar::api

#endif  // INVAR_API_TINY_LANE_H_

// What the tiny lane (api/tiny_lane.h) reads of a context: its f32 and f64 kernels where a tiny
// product may run them at once, their direct kernels' record forms and the cache topology, found
// when the context is made (Context::Impl::tiny).
#ifndef INVAR_API_LANE_STATE_H_
#define INVAR_API_LANE_STATE_H_

#include <type_traits>

#include "arch/cache_topology.h"
#include "blocking/block_sizes.h"
#include "kernels/kernel_set.h"

namespace invar::api {

// A context's f32 and f64 kernels (nullptr, and the lane closed to that type, where the context
// runs no direct path, the kernel asks per product whether it may run (GemmKernel::permitted), or
// the topology is unusable: a bad INVAR_L1D, INVAR_L2 or INVAR_L3, which the general entry then
// reports) and the cache topology.
struct LaneState {
  const kernels::GemmKernel* sgemm = nullptr;
  const kernels::GemmKernel* dgemm = nullptr;
  // Their direct kernels' record forms (GemmKernel::direct_args), nullptr where there is none:
  // the common case's one load.
  kernels::DirectArgsFn sgemm_direct = nullptr;
  kernels::DirectArgsFn dgemm_direct = nullptr;
  const arch::CacheTopology* topology = nullptr;
  blocking::SmallBudget small_budget{};  // of *topology, for driver::tiny_call

  template <class T>
  const kernels::GemmKernel* kernel() const {
    if constexpr (std::is_same_v<T, float>)
      return sgemm;
    else
      return dgemm;
  }
  template <class T>
  kernels::DirectArgsFn direct() const {
    if constexpr (std::is_same_v<T, float>)
      return sgemm_direct;
    else
      return dgemm_direct;
  }
};

// The lane of a context running `set` (allow_direct: whether it may take a direct path).
inline LaneState lane_state_of(const kernels::KernelSet& set, bool allow_direct) {
  const arch::EffectiveCacheTopology& caches = arch::cache_topology();
  if (!caches.error.empty()) return {};
  const auto lane = [&](const kernels::GemmKernel& kernel) {
    return allow_direct && kernel.permitted == nullptr ? &kernel : nullptr;
  };
  const kernels::GemmKernel* sgemm = lane(set.sgemm);
  const kernels::GemmKernel* dgemm = lane(set.dgemm);
  return {sgemm,
          dgemm,
          sgemm != nullptr ? sgemm->direct_args : nullptr,
          dgemm != nullptr ? dgemm->direct_args : nullptr,
          &caches.topology,
          blocking::small_budget(caches.topology)};
}

}  // namespace invar::api

#endif  // INVAR_API_LANE_STATE_H_

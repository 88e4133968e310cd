// The inside of invar::Context: the chosen kernel set, thread count, block-size overrides and the
// workspace pool. Built from ContextOptions, with INVAR_* environment settings filling what the
// options leave open.
#ifndef INVAR_API_CONTEXT_IMPL_H_
#define INVAR_API_CONTEXT_IMPL_H_

#include <atomic>
#include <string>

#include "api/lane_state.h"
#include "blocking/block_sizes.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "runtime/thread_pool.h"
#include "runtime/workspace.h"

namespace invar {

struct Context::Impl {
  explicit Impl(const ContextOptions& options);  // throws InvalidArgument / Unsupported

  Isa isa = Isa::kGeneric;
  std::string isa_reason;  // why this path was chosen, for `invar info`
  const kernels::KernelSet* kernels = nullptr;
  int default_threads = 1;
  std::atomic<int> num_threads{1};
  blocking::BlockOverrides overrides;
  // false: every product runs the packed loop nest, none a direct path (same bits; for tests
  // that aim at the nest).
  bool allow_direct = true;
  // The bf16 dot-product kernel that bf16 products take where they may (kernels/bf16_dot.h), or
  // nullptr: not on this path or CPU, or turned off (INVAR_BF16_DOT=off; tests set it to compare
  // the two), and why, for `invar info`.
  const kernels::GemmKernel* sbgemm_dot = nullptr;
  std::string sbgemm_dot_reason;
  // The tiny lane's view of this context (api/tiny_lane.h), found when it is made; invar::gemm
  // reads allow_direct again on every call (tests turn it off on a context already made).
  api::LaneState tiny;
  runtime::WorkspacePool workspaces;
  // Threads start on first use, as many as a call asks for; the cap only bounds
  // set_num_threads. A call that finds the pool busy with another user thread's call, or that
  // is made inside an OpenMP parallel region, runs on its own thread alone (thread_pool.h).
  runtime::ThreadPool pool{kMaxThreads};

  static constexpr int kMaxThreads = 1024;
};

namespace api {

// Resolves which path a context uses: the requested one (which must be compiled and supported),
// else the best available. Throws Unsupported with a message naming `source` (e.g. "INVAR_ISA").
Isa resolve_isa(Isa requested, const char* source, std::string* reason);

// Parses an ISA name ("avx512", "avx2", "neon", "generic", "auto"); throws InvalidArgument.
Isa parse_isa(const std::string& name, const char* source);

}  // namespace api
}  // namespace invar

#endif  // INVAR_API_CONTEXT_IMPL_H_

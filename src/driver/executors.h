// The executors: each runs one Path of a Plan (driver/plan.h) over a GemmProblem, doing what the
// plan says and deciding nothing the plan holds. run_gemm (gemm_driver.cpp) picks one by path.
//
//   exec_direct.cpp      kDirect, kDirectTransposed, kSmall, kDirectPrepacked: no packing
//   exec_a_in_place.cpp  kAInPlace: B packed alone (or prepacked), A read in place
//   exec_loop_nest.cpp   kLoopNest: the Goto loop nest and its macro-kernel
//   prepack.cpp          operands packed ahead of time (GemmProblem::a_panels, b_panels)
#ifndef INVAR_DRIVER_EXECUTORS_H_
#define INVAR_DRIVER_EXECUTORS_H_

#include <cstdint>
#include <numeric>

#include "common/check.h"
#include "driver/gemm_driver.h"
#include "driver/plan.h"

namespace invar::driver::exec {

inline const char* at(const void* base, int64_t elements, int elem_bytes) {
  return static_cast<const char*>(base) + elements * elem_bytes;
}

// The assumptions the kernels state (ukernel.h, kernel_set.h), checked in debug builds where the
// driver hands a kernel its arguments (common/check.h), never inside the kernels:
//   - a micro-kernel's B micro-panels start aligned to gcd(64, NR * element size): packed blocks
//     start 64-byte aligned and panels lie whole panels apart;
//   - every k-block but a product's last is a whole number of the kernel's k units deep (the
//     integer kernels' pairs, quads and chunks), and none is empty;
//   - an edge tile has 1 <= rows <= MR and 1 <= cols <= NR; a direct kernel gets at most its
//     direct_mr rows (kDirectMaxRows over a transposed B) and at least one column.
inline int64_t b_panel_alignment(const kernels::GemmKernel& kern) {
  return std::gcd<int64_t>(64, static_cast<int64_t>(kern.nr) * kern.b_packed_bytes);
}

inline int64_t address_of(const void* p) {
  return static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(p));
}

inline void dcheck_k_block(const kernels::GemmKernel& kern, int64_t pc, int64_t kc, int64_t k) {
  INVAR_DCHECK_GE(kc, 1);
  INVAR_DCHECK(kc % kern.k_unit == 0 || pc + kc == k,
               "only a product's last k-block may end inside a k unit");
}

// member(me, members) on the calling thread alone, or on a team of `threads` from the pool.
template <class Member>
void run_members(runtime::ThreadPool* pool, int threads, const Member& member) {
  if (threads <= 1 || pool == nullptr) {
    member(0, 1);
  } else {
    pool->run(threads, [&](runtime::Team& team) { member(team.tid(), team.size()); });
  }
}

// member(me, members, barrier) likewise, `barrier` waiting for the other members.
template <class Member>
void run_team(runtime::ThreadPool* pool, int threads, const Member& member) {
  if (threads <= 1 || pool == nullptr) {
    member(0, 1, [] {});
  } else {
    pool->run(threads, [&](runtime::Team& team) {
      member(team.tid(), team.size(), [&team] { team.barrier(); });
    });
  }
}

void run_direct(const kernels::GemmKernel& kern, const GemmProblem& p, const Plan& plan,
                runtime::ThreadPool* pool);
void run_small(const kernels::GemmKernel& kern, const GemmProblem& p, const Plan& plan,
               runtime::ThreadPool* pool);
void run_direct_prepacked(const kernels::GemmKernel& kern, const GemmProblem& p, const Plan& plan,
                          runtime::ThreadPool* pool);
void run_a_in_place(const kernels::GemmKernel& kern, const GemmProblem& p, const Plan& plan,
                    runtime::Workspace* workspace, runtime::ThreadPool* pool);
void run_loop_nest(const kernels::GemmKernel& kern, const GemmProblem& p, const Plan& plan,
                   runtime::Workspace& workspace, runtime::ThreadPool* pool);

}  // namespace invar::driver::exec

#endif  // INVAR_DRIVER_EXECUTORS_H_

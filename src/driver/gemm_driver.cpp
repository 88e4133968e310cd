#include "driver/gemm_driver.h"

#include "driver/executors.h"

namespace invar::driver {

bool in_place_tiles(const kernels::GemmKernel& kernel, const GemmProblem& problem) {
  return in_place_tiles(kernel, request_of(problem, 1, 1));
}

bool reads_a_in_place(const kernels::GemmKernel& kernel, const GemmProblem& problem,
                      const blocking::BlockSizes& blocks, int threads) {
  return reads_a_in_place(kernel, request_of(problem, threads, threads), blocks, threads);
}

void run_gemm(const kernels::GemmKernel& kernel, const GemmProblem& problem, const Plan& plan,
              runtime::Workspace* workspace, runtime::ThreadPool* pool) {
  switch (plan.path) {
    case Path::kDirect:
    case Path::kDirectTransposed: exec::run_direct(kernel, problem, plan, pool); return;
    case Path::kSmall: exec::run_small(kernel, problem, plan, pool); return;
    case Path::kDirectPrepacked: exec::run_direct_prepacked(kernel, problem, plan, pool); return;
    case Path::kAInPlace: exec::run_a_in_place(kernel, problem, plan, workspace, pool); return;
    case Path::kLoopNest: exec::run_loop_nest(kernel, problem, plan, *workspace, pool); return;
  }
}

namespace {

// run_tiny_plan, inlined into run_tiny too (a call level costs a tiny product ~10 instructions).
inline __attribute__((always_inline)) void run_planned(const kernels::GemmKernel& kernel,
                                                       const GemmProblem& p, const Plan& plan) {
  // The executors' one-member calls (exec_direct.cpp) made here, without their set-up, when the
  // product is one call of the kernel: the small path's whole block, or a direct path's one row
  // group over all of K.
  if (plan.path == Path::kSmall) {
    kernel.ukernel_a_in_place(p.m, p.n, p.k, p.a, p.a_rs, p.b, p.b_rs, kernel.nr, p.c, p.ldc,
                              p.first_init, p.beta);
  } else if (plan.path == Path::kDirect && p.m <= plan.direct_rows && p.k <= plan.direct_kc) {
    kernel.direct(p.m, p.n, p.k, p.alpha, p.a, p.a_rs, p.a_cs, p.b, p.b_rs, p.c, p.ldc,
                  p.first_init, p.beta);
  } else {
    exec::run_direct(kernel, p, plan, nullptr);  // kDirect or kDirectTransposed
    return;
  }
  if (!p.epilogue.empty()) numeric::apply_epilogue(p.epilogue, p.c, p.ldc, p.m, p.n, 0, 0);
}

}  // namespace

void run_tiny_plan(const kernels::GemmKernel& kernel, const GemmProblem& problem,
                   const Plan& plan) {
  run_planned(kernel, problem, plan);
}

bool run_tiny(const kernels::GemmKernel& kernel, const GemmProblem& problem,
              const arch::CacheTopology& topology) {
  // direct_at_once: the kernel is called at once, the plan's records never filled.
  const GemmProblem& p = problem;
  if (p.allow_direct && p.a_panels == nullptr && p.b_panels == nullptr &&
      direct_at_once(kernel, p.m, p.n, p.k, p.b_cs)) {
    kernel.direct(p.m, p.n, p.k, p.alpha, p.a, p.a_rs, p.a_cs, p.b, p.b_rs, p.c, p.ldc,
                  p.first_init, p.beta);
    if (!p.epilogue.empty()) numeric::apply_epilogue(p.epilogue, p.c, p.ldc, p.m, p.n, 0, 0);
    return true;
  }
  Plan plan;
  if (!plan_tiny(kernel, request_of(problem, 1, 1), topology, &plan)) return false;
  run_planned(kernel, problem, plan);
  return true;
}

void run_gemm(const kernels::GemmKernel& kernel, const GemmProblem& problem,
              const blocking::BlockSizes& blocks, runtime::Workspace& workspace,
              runtime::ThreadPool* pool, int threads) {
  const int max_team = pool == nullptr ? 1 : pool->max_threads();
  const Plan plan = make_plan_with_blocks(kernel, request_of(problem, threads, max_team),
                                          problem.small_fits, blocks);
  run_gemm(kernel, problem, plan, &workspace, pool);
}

}  // namespace invar::driver

#include "api/gemm_call.h"

#include <string>

#include "api/context_impl.h"
#include "api/packed.h"
#include "arch/cache_topology.h"
#include "driver/gemm_driver.h"
#include "runtime/fp_mode.h"

namespace invar::api {
namespace {

std::string arg(const char* function, const std::string& text) {
  return std::string(function) + ": " + text;
}

// C <- beta * C, the whole of the contract when alpha == 0 or K == 0. beta == 0 writes +0 and
// never reads C; beta == 1 leaves C untouched.
template <class T>
void scale_c(const GemmCall<T>& call) {
  if (call.beta == T(1)) return;
  for (int64_t i = 0; i < call.m; ++i) {
    T* row = call.c + i * call.ldc;
    if (call.beta == T(0)) {
      for (int64_t j = 0; j < call.n; ++j) row[j] = T(0);
    } else {
      for (int64_t j = 0; j < call.n; ++j) row[j] = call.beta * row[j];
    }
  }
}

template <class T>
const kernels::GemmKernel& kernel_for(const kernels::KernelSet& set);

template <>
const kernels::GemmKernel& kernel_for<float>(const kernels::KernelSet& set) {
  return set.sgemm;
}

template <>
const kernels::GemmKernel& kernel_for<double>(const kernels::KernelSet& set) {
  return set.dgemm;
}

}  // namespace

template <class T>
std::string validate(const GemmCall<T>& c) {
  const char* f = c.function;
  if (c.trans_a != 0 && c.trans_a != 1)
    return arg(f, "ta = " + std::to_string(c.trans_a) + " is neither INVAR_NO_TRANS nor INVAR_TRANS");
  if (c.trans_b != 0 && c.trans_b != 1)
    return arg(f, "tb = " + std::to_string(c.trans_b) + " is neither INVAR_NO_TRANS nor INVAR_TRANS");
  if (c.m < 0) return arg(f, "m = " + std::to_string(c.m) + " is negative");
  if (c.n < 0) return arg(f, "n = " + std::to_string(c.n) + " is negative");
  if (c.k < 0) return arg(f, "k = " + std::to_string(c.k) + " is negative");
  if (c.packed_b != nullptr && c.packed_b->elem_bytes != static_cast<int>(sizeof(T)))
    return arg(f, std::string("b was packed in ") + (c.packed_b->elem_bytes == 4 ? "f32" : "f64") +
                      ", not in " + (sizeof(T) == 4 ? "f32" : "f64"));
  if (c.m == 0 || c.n == 0) return "";

  if (c.ldc < c.n)
    return arg(f, "ldc = " + std::to_string(c.ldc) + " is smaller than n = " + std::to_string(c.n));
  if (c.k > 0) {
    // A is stored m x k (k x m when transposed); B is stored k x n (n x k when transposed).
    const int64_t a_cols = c.trans_a ? c.m : c.k;
    const int64_t b_cols = c.trans_b ? c.k : c.n;
    if (c.lda < a_cols)
      return arg(f, "lda = " + std::to_string(c.lda) + " is smaller than " +
                        (c.trans_a ? "m = " : "k = ") + std::to_string(a_cols) +
                        (c.trans_a ? " (A is transposed, stored k x m)" : ""));
    if (c.packed_b == nullptr && c.ldb < b_cols)
      return arg(f, "ldb = " + std::to_string(c.ldb) + " is smaller than " +
                        (c.trans_b ? "k = " : "n = ") + std::to_string(b_cols) +
                        (c.trans_b ? " (B is transposed, stored n x k)" : ""));
  }
  const bool reads_ab = c.k > 0 && !(c.alpha == T(0));
  if (reads_ab && c.a == nullptr) return arg(f, "a is NULL");
  if (reads_ab && c.b == nullptr && c.packed_b == nullptr) return arg(f, "b is NULL");
  if (c.c == nullptr) return arg(f, "c is NULL");
  return "";
}

template <class T>
void execute(Context::Impl& context, const GemmCall<T>& call) {
  const arch::EffectiveCacheTopology& caches = arch::cache_topology();
  if (!caches.error.empty()) throw InvalidArgument(caches.error);  // a bad INVAR_L1D/L2/L3
  const kernels::GemmKernel& kernel = kernel_for<T>(*context.kernels);
  if (call.packed_b != nullptr && call.packed_b->kernel != &kernel)
    throw InvalidArgument(std::string(call.function) + ": b was packed for " +
                          call.packed_b->kernel->name + ", but this context runs " + kernel.name);
  if (call.m == 0 || call.n == 0) return;
  // The whole call runs in invar's mode, so that not even the bookkeeping below (thread and
  // block counts in double) raises a flag in the caller's environment. Pool workers enter the
  // mode again in the driver; on the calling thread that second guard finds it already set.
  runtime::FpModeGuard fp_mode;
  if (call.k == 0 || call.alpha == T(0)) {
    scale_c(call);
    return;
  }
  driver::GemmProblem p;
  p.m = call.m;
  p.n = call.n;
  p.k = call.k;
  p.a = call.a;
  p.a_rs = call.trans_a ? 1 : call.lda;
  p.a_cs = call.trans_a ? call.lda : 1;
  p.b = call.b;
  p.b_rs = call.trans_b ? 1 : call.ldb;
  p.b_cs = call.trans_b ? call.ldb : 1;
  p.b_panels = call.packed_b != nullptr ? call.packed_b->data.get() : nullptr;
  p.c = call.c;
  p.ldc = call.ldc;
  p.alpha = &call.alpha;
  p.beta = &call.beta;
  p.first_init = call.beta == T(0)   ? kernels::AccInit::kZero
                 : call.beta == T(1) ? kernels::AccInit::kLoad
                                     : kernels::AccInit::kScale;

  const blocking::BlockSizes blocks = blocking::choose_block_sizes(
      caches.topology, {kernel.mr, kernel.nr}, {kernel.a_packed_bytes, kernel.b_packed_bytes},
      call.m, call.n, call.k, context.overrides);
  auto workspace = context.workspaces.lease();
  const int threads = driver::useful_threads(call.m, call.n, call.k, context.num_threads.load());
  driver::run_gemm(kernel, p, blocks, *workspace, &context.pool, threads);
}

template std::string validate<float>(const GemmCall<float>&);
template void execute<float>(Context::Impl&, const GemmCall<float>&);
template std::string validate<double>(const GemmCall<double>&);
template void execute<double>(Context::Impl&, const GemmCall<double>&);

}  // namespace invar::api

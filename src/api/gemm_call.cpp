#include "api/gemm_call.h"

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>

#include "api/context_impl.h"
#include "api/extents.h"
#include "api/packed.h"
#include "api/packed16.h"
#include "api/validation.h"
#include "arch/cache_topology.h"
#include "driver/gemm_driver.h"
#include "kernels/bf16_dot.h"
#include "numeric/epilogue.h"
#include "numeric/half.h"
#include "runtime/fp_mode.h"

namespace invar::api {
namespace {

std::string arg(const char* function, const std::string& text) {
  return std::string(function) + ": " + text;
}

// An element of C as an accumulator, and back (exact for f32 and f64; bf16 and f16 widen
// exactly and round once, to nearest even).
inline float to_acc(float x) { return x; }
inline double to_acc(double x) { return x; }
inline float to_acc(bf16 x) { return numeric::widen(x); }
inline float to_acc(f16 x) { return numeric::widen(x); }
inline int32_t to_acc(int32_t x) { return x; }

// beta * x in the accumulator's arithmetic: one rounded multiply for floats, modulo 2^32 for
// int32 (taken in uint32_t, where wrapping is defined).
template <class Acc>
Acc times(Acc beta, Acc x) {
  if constexpr (std::is_integral_v<Acc>)
    return static_cast<Acc>(static_cast<uint32_t>(beta) * static_cast<uint32_t>(x));
  else
    return beta * x;
}
template <class Out, class Acc>
Out from_acc(Acc x) {
  if constexpr (std::is_same_v<Out, bf16>)
    return numeric::round_to_bf16(x);
  else if constexpr (std::is_same_v<Out, f16>)
    return numeric::round_to_f16(x);
  else
    return x;
}

// C <- beta * C, the whole of the contract when alpha == 0 or K == 0. beta == 0 writes +0 and
// never reads C; beta == 1 leaves C untouched.
// Of one triangle only, in a product of one (GemmCall::triangle).
template <class In, class Out>
void scale_c(const GemmCall<In, Out>& call) {
  using Acc = typename GemmCall<In, Out>::Acc;
  if (call.beta == Acc(1)) return;
  for (int64_t i = 0; i < call.m; ++i) {
    Out* row = call.c + i * call.ldc;
    const int64_t from = call.triangle == driver::Triangle::kUpper ? i : 0;
    const int64_t to = call.triangle == driver::Triangle::kLower ? i + 1 : call.n;
    if (call.beta == Acc(0)) {
      for (int64_t j = from; j < to; ++j) row[j] = from_acc<Out>(Acc(0));
    } else {
      for (int64_t j = from; j < to; ++j) row[j] = from_acc<Out>(times(call.beta, to_acc(row[j])));
    }
  }
}

template <class In, class Out>
numeric::Epilogue epilogue_of(const GemmCall<In, Out>& call) {
  numeric::Epilogue e;
  e.bias = static_cast<numeric::Bias>(call.bias);
  e.bias_values = call.bias_values;
  e.activation = static_cast<numeric::Activation>(call.activation);
  e.elem_bytes = sizeof(typename GemmCall<In, Out>::Acc);
  return e;
}

// The whole of the contract when alpha == 0 or K == 0 and there is an epilogue: each element is
// act(beta * C + bias), computed in the accumulator type, then stored (rounded once if C is
// narrower).
template <class In, class Out>
void scale_c_with_epilogue(const GemmCall<In, Out>& call) {
  using Acc = typename GemmCall<In, Out>::Acc;
  const numeric::Epilogue e = epilogue_of(call);
  std::unique_ptr<Acc[]> row(new Acc[static_cast<std::size_t>(call.n)]);
  for (int64_t i = 0; i < call.m; ++i) {
    Out* c = call.c + i * call.ldc;
    for (int64_t j = 0; j < call.n; ++j) {
      row[j] = call.beta == Acc(0)   ? Acc(0)
               : call.beta == Acc(1) ? to_acc(c[j])
                                     : times(call.beta, to_acc(c[j]));
    }
    numeric::apply_epilogue(e, row.get(), call.n, 1, call.n, i, 0);
    for (int64_t j = 0; j < call.n; ++j) c[j] = from_acc<Out>(row[j]);
  }
}

}  // namespace

driver::Plan plan_product(const Context::Impl& context, const kernels::GemmKernel& kernel,
                          const driver::GemmProblem& problem, const arch::CacheTopology& caches) {
  return driver::make_plan(
      kernel, driver::request_of(problem, context.num_threads.load(), context.pool.max_threads()),
      caches, context.overrides);
}

template <class In, class Out>
std::string validate(const GemmCall<In, Out>& c) {
  using Acc = typename GemmCall<In, Out>::Acc;
  const char* f = c.function;
  if (!valid_trans(c.trans_a)) return invalid_trans_message(f, "ta", c.trans_a);
  if (!valid_trans(c.trans_b)) return invalid_trans_message(f, "tb", c.trans_b);
  if (c.m < 0) return negative_extent_message(f, "m", c.m);
  if (c.n < 0) return negative_extent_message(f, "n", c.n);
  if (c.k < 0) return negative_extent_message(f, "k", c.k);
  using Side = detail::PackedOperand::Side;
  if (c.packed_b != nullptr && c.packed_b->side != Side::kB)
    return arg(f, "b is a packed A, not a packed B");
  if (c.packed_a != nullptr && c.packed_a->side != Side::kA)
    return arg(f, "a is a packed B, not a packed A");
  using InB = typename GemmCall<In, Out>::InB;
  if (c.packed_b != nullptr && c.packed_b->elem_type != detail::elem_type_of<InB>())
    return arg(f, std::string("b was packed from ") +
                      detail::elem_type_name(c.packed_b->elem_type) +
                      " elements, but this product's B is " +
                      detail::elem_type_name(detail::elem_type_of<InB>()));
  if (c.packed_a != nullptr && c.packed_a->elem_type != detail::elem_type_of<In>())
    return arg(f, std::string("a was packed from ") +
                      detail::elem_type_name(c.packed_a->elem_type) +
                      " elements, but this product's A is " +
                      detail::elem_type_name(detail::elem_type_of<In>()));
  // A handle fixes its dimensions; the call's must be the same.
  if (c.packed_a != nullptr && (c.packed_a->m != c.m || c.packed_a->k != c.k))
    return arg(f, "a was packed as " + std::to_string(c.packed_a->m) + " x " +
                      std::to_string(c.packed_a->k) + ", but op(A) is " + std::to_string(c.m) +
                      " x " + std::to_string(c.k));
  if (c.packed_b != nullptr && (c.packed_b->k != c.k || c.packed_b->n != c.n))
    return arg(f, "b was packed as " + std::to_string(c.packed_b->k) + " x " +
                      std::to_string(c.packed_b->n) + ", but op(B) is " + std::to_string(c.k) +
                      " x " + std::to_string(c.n));
  if (c.bias < 0 || c.bias > 2)
    return arg(f, "bias = " + std::to_string(c.bias) +
                      " is none of INVAR_BIAS_NONE, INVAR_BIAS_ROW, INVAR_BIAS_COLUMN");
  if (c.activation < 0 || c.activation > 3)
    return arg(f, "activation = " + std::to_string(c.activation) + " is not an invar_activation");
  if (c.m == 0 || c.n == 0) return {};
  if (c.bias != 0 && c.bias_values == nullptr) return arg(f, "bias values are NULL");
  if (std::is_integral_v<Acc> && (c.bias != 0 || c.activation != 0))
    return arg(f, "integer products take no bias or activation");

  if (c.ldc < c.n)
    return arg(f, "ldc = " + std::to_string(c.ldc) + " is smaller than n = " + std::to_string(c.n));
  if (c.k > 0) {
    // A is stored m x k (k x m when transposed); B is stored k x n (n x k when transposed).
    const int64_t a_cols = c.trans_a ? c.m : c.k;
    const int64_t b_cols = c.trans_b ? c.k : c.n;
    if (c.packed_a == nullptr && c.lda < a_cols)
      return short_ld_message(f, Operand::kA, c.lda, c.trans_a == 1, a_cols);
    if (c.packed_b == nullptr && c.ldb < b_cols)
      return short_ld_message(f, Operand::kB, c.ldb, c.trans_b == 1, b_cols);
  }
  const bool reads_ab = c.k > 0 && !(c.alpha == Acc(0));
  if (reads_ab && c.a == nullptr && c.packed_a == nullptr) return arg(f, "a is NULL");
  if (reads_ab && c.b == nullptr && c.packed_b == nullptr) return arg(f, "b is NULL");
  if (c.c == nullptr) return arg(f, "c is NULL");
  // Every address of an operand that is read or written must be formed without overflow.
  std::string error = check_span(f, "c", "ldc", c.c, c.m, c.n, c.ldc, sizeof(Out));
  if (error.empty() && reads_ab && c.packed_a == nullptr)
    error = check_span(f, "a", "lda", c.a, c.trans_a ? c.k : c.m, c.trans_a ? c.m : c.k, c.lda,
                       sizeof(In));
  if (error.empty() && reads_ab && c.packed_b == nullptr)
    error = check_span(f, "b", "ldb", c.b, c.trans_b ? c.n : c.k, c.trans_b ? c.k : c.n, c.ldb,
                       sizeof(InB));
  return error;
}

namespace {

// A C narrower than the accumulator (bf16 or f16 C over f32 chains): the chains run on an f32
// copy of C, and each result is rounded once into C at the end, never between k-blocks.
template <class In, class Out>
constexpr bool kNarrowC = !std::is_same_v<Out, typename GemmCall<In, Out>::Acc>;

// The accumulators of that copy a call needs: m x n when C is narrow and the chains run (the
// special cases work on C itself), else none.
template <class In, class Out>
std::size_t wide_elements(const GemmCall<In, Out>& call) {
  using Acc = typename GemmCall<In, Out>::Acc;
  if (!kNarrowC<In, Out> || call.m == 0 || call.n == 0 || call.k == 0 || call.alpha == Acc(0))
    return 0;
  return static_cast<std::size_t>(call.m) * static_cast<std::size_t>(call.n);
}

// The driver's view of a validated call that computes (m, n, k > 0, alpha != 0), C as the
// caller's (execute_on points it at the wide copy when C is narrow). alpha and beta are read
// from the call, which must outlive the problem.
template <class In, class Out>
inline driver::GemmProblem problem_of(const GemmCall<In, Out>& call, const Context::Impl& context) {
  using Acc = typename GemmCall<In, Out>::Acc;
  // Designated, in the members' order: each member is written once (assigning after default
  // initialization wrote most of them twice, a tenth of a tiny product's fixed cost).
  return driver::GemmProblem{
      .m = call.m,
      .n = call.n,
      .k = call.k,
      .a = call.a,
      .a_rs = call.trans_a ? 1 : call.lda,
      .a_cs = call.trans_a ? call.lda : 1,
      .b = call.b,
      .b_rs = call.trans_b ? 1 : call.ldb,
      .b_cs = call.trans_b ? call.ldb : 1,
      .c = call.c,
      .ldc = call.ldc,
      .alpha = &call.alpha,
      .beta = &call.beta,
      .first_init = call.beta == Acc(0)   ? kernels::AccInit::kZero
                    : call.beta == Acc(1) ? kernels::AccInit::kLoad
                                          : kernels::AccInit::kScale,
      .unit_alpha = call.alpha == Acc(1),
      .allow_direct = context.allow_direct && call.triangle == driver::Triangle::kNone,
      .b_panels = call.packed_b != nullptr ? call.packed_b->data.get() : nullptr,
      .a_panels = call.packed_a != nullptr ? call.packed_a->data.get() : nullptr,
      .epilogue = epilogue_of(call),
      .triangle = call.triangle,
  };
}

// execute() on a caller's copy of C: `wide` holds wide_elements(call) accumulators, contents
// unspecified.
template <class In, class Out>
void execute_on(Context::Impl& context, const GemmCall<In, Out>& call,
                typename GemmCall<In, Out>::Acc* wide) {
  using Acc = typename GemmCall<In, Out>::Acc;
  const arch::EffectiveCacheTopology& caches = arch::cache_topology();
  if (!caches.error.empty()) throw InvalidArgument(caches.error);  // a bad INVAR_L1D/L2/L3
  // An empty call runs no kernel, and so asks nothing of the OS (kernel_for may: the AMX tiles'
  // permission); packed operands are still checked against this context's kernel.
  const bool empty = call.m == 0 || call.n == 0;
  if (empty && call.packed_a == nullptr && call.packed_b == nullptr) return;
  const kernels::GemmKernel& kernel = kernels::kernel_for<In>(*context.kernels);
  if (call.packed_b != nullptr && call.packed_b->kernel != &kernel)
    throw InvalidArgument(std::string(call.function) + ": b was packed for " +
                          call.packed_b->kernel->name + ", but this context runs " + kernel.name);
  if (call.packed_a != nullptr && call.packed_a->kernel != &kernel)
    throw InvalidArgument(std::string(call.function) + ": a was packed for " +
                          call.packed_a->kernel->name + ", but this context runs " + kernel.name);
  if (empty) return;
  // The caller (execute, execute_batch) holds the library's FP mode on this thread; pool
  // workers enter it again in the driver.
  if (call.k == 0 || call.alpha == Acc(0)) {
    if (call.bias == 0 && call.activation == 0)
      scale_c(call);
    else
      scale_c_with_epilogue(call);
    return;
  }
  driver::GemmProblem p = problem_of(call, context);
  // A narrow C: the copy holds beta * C widened exactly (nothing is read when beta == 0).
  if constexpr (kNarrowC<In, Out>) {
    if (call.beta != Acc(0)) {
      for (int64_t i = 0; i < call.m; ++i)
        for (int64_t j = 0; j < call.n; ++j)
          wide[i * call.n + j] = to_acc(call.c[i * call.ldc + j]);
    }
    p.c = wide;
    p.ldc = call.n;
  }

  // bf16 operands run the dot-product kernel where it gives the same bits (kernels/bf16_dot.h),
  // else the f32 kernel on widened operands. The decode step (a direct path for B's layout)
  // stays on the widened kernel, which reads B once where the dot kernel would scan it for its
  // exponent check and then pack it.
  const kernels::GemmKernel* runs = &kernel;
  if constexpr (std::is_same_v<In, bf16>) {
    const bool decode =
        p.allow_direct && p.m <= kernels::kDirectMaxRows &&
        ((p.b_cs == 1 && kernel.direct != nullptr) || (p.b_rs == 1 && kernel.direct_t != nullptr));
    if (context.sbgemm_dot != nullptr && p.a_panels == nullptr && p.b_panels == nullptr &&
        !decode &&
        kernels::sbgemm_dot_applies(call.alpha, p.m, p.n, p.k, p.a, p.a_rs, p.a_cs, p.b, p.b_rs,
                                    p.b_cs))
      runs = context.sbgemm_dot;
  }
  if (call.packed_b != nullptr && call.packed_b->narrow_panels) {
    run_narrow_packed_b(context, kernel, p, *call.packed_b, caches.topology);  // 16-bit panels
  } else if (!driver::run_tiny(*runs, p, caches.topology)) {
    // The smallest products are planned and run at once (run_tiny); the others planned whole.
    const driver::Plan plan = plan_product(context, *runs, p, caches.topology);
    if (plan.workspace_bytes == 0) {
      driver::run_gemm(*runs, p, plan, nullptr, &context.pool);
    } else {
      auto workspace = context.workspaces.lease();
      driver::run_gemm(*runs, p, plan, &*workspace, &context.pool);
    }
  }
  if constexpr (kNarrowC<In, Out>) {
    for (int64_t i = 0; i < call.m; ++i)
      for (int64_t j = 0; j < call.n; ++j)
        call.c[i * call.ldc + j] = from_acc<Out>(wide[i * call.n + j]);
  }
}

// Accumulators for `count` copies of `elements` each; none when elements == 0.
template <class Acc>
std::unique_ptr<Acc[]> wide_copies(std::size_t elements, int count) {
  if (elements == 0) return nullptr;
  return std::unique_ptr<Acc[]>(new Acc[elements * static_cast<std::size_t>(count)]);
}

}  // namespace

template <class In, class Out>
void execute(Context::Impl& context, const GemmCall<In, Out>& call) {
  using Acc = typename GemmCall<In, Out>::Acc;
  const std::unique_ptr<Acc[]> wide = wide_copies<Acc>(wide_elements(call), 1);
  execute_on(context, call, wide.get());
}

// Whether entry e differs from `first` only in the addresses of its operands (what a strided
// batch's entries do; a batch of views may also differ in leading dimensions).
template <class In, class Out>
bool same_but_addresses(const GemmCall<In, Out>& e, const GemmCall<In, Out>& first) {
  return e.trans_a == first.trans_a && e.trans_b == first.trans_b && e.lda == first.lda &&
         e.ldb == first.ldb && e.ldc == first.ldc && e.beta == first.beta && e.bias == first.bias &&
         e.bias_values == first.bias_values && e.activation == first.activation &&
         e.packed_a == nullptr && e.packed_b == nullptr;
}

// Entry i of a strided batch whose entry 0 is p: its operands `i` strides further.
template <class In, class InB, class Out>
struct StridedOperands {
  const In* a;
  const InB* b;
  Out* c;
  int64_t sa, sb, sc;
  const In* a_at(int64_t i) const { return a + i * sa; }
  const InB* b_at(int64_t i) const { return b + i * sb; }
  Out* c_at(int64_t i) const { return c + i * sc; }
};

// Entries begin .. end - 1 of a strided batch whose first entry is the tiny product p with its
// plan: the kernel call the plan makes, over each entry's operands, with nothing else per entry.
// A product of a few rows over a row-major B (driver::few_rows_at_once, as the C API's tiny lane
// runs it) is one call of the direct kernel's batch form over the first entry's record
// (kernels::DirectArgs) and the three strides; one on the small path, the kernel's tiles over A and
// B in place; any other runs its plan (run_tiny_plan).
template <class In, class InB, class Out>
void run_strided(const kernels::GemmKernel& kernel, driver::GemmProblem p, const driver::Plan& plan,
                 const StridedOperands<In, InB, Out>& at, int64_t begin, int64_t end) {
  if (!p.epilogue.empty()) {
    for (int64_t i = begin; i < end; ++i) {
      p.a = at.a_at(i);
      p.b = at.b_at(i);
      p.c = at.c_at(i);
      driver::run_tiny_plan(kernel, p, plan);
    }
    return;
  }
  if (driver::few_rows_at_once(kernel, p.m, p.n, p.k, p.b_cs, sizeof(In))) {
    kernels::DirectArgs r{p.m,
                          p.n,
                          p.k,
                          p.alpha,
                          at.a_at(begin),
                          p.a_rs,
                          p.a_cs,
                          at.b_at(begin),
                          p.b_rs,
                          at.c_at(begin),
                          p.ldc,
                          p.first_init,
                          p.beta};
    kernel.direct_batch(r, end - begin, at.sa, at.sb, at.sc);  // offered with direct_args
    return;
  }
  if (plan.path == driver::Path::kSmall) {
    for (int64_t i = begin; i < end; ++i)
      kernel.ukernel_a_in_place(p.m, p.n, p.k, at.a_at(i), p.a_rs, at.b_at(i), p.b_rs, kernel.nr,
                                at.c_at(i), p.ldc, p.first_init, p.beta);
    return;
  }
  for (int64_t i = begin; i < end; ++i) {
    p.a = at.a_at(i);
    p.b = at.b_at(i);
    p.c = at.c_at(i);
    driver::run_tiny_plan(kernel, p, plan);
  }
}

// Entries begin .. end - 1 of a batch, on this thread. When the first of them is a tiny product
// (driver::plan_tiny) it is planned once, and every entry that differs from it only in its
// operands' addresses runs that plan over its own A, B and C: the plan depends on nothing else,
// and the checks execute_on makes (the caches, the kernel, the special cases) hold for all of
// them. Any other entry, and every entry of another batch, runs alone.
template <class In, class Out>
void run_entries(Context::Impl& context, const BatchEntries<In, Out>& entries, int64_t begin,
                 int64_t end, typename GemmCall<In, Out>::Acc* wide) {
  using Acc = typename GemmCall<In, Out>::Acc;
  if (begin >= end) return;
  const GemmCall<In, Out> first = entries.at(entries.self, begin);
  const arch::EffectiveCacheTopology& caches = arch::cache_topology();
  driver::Plan plan;
  const bool computes = first.m > 0 && first.n > 0 && first.k > 0 && !(first.alpha == Acc(0)) &&
                        first.packed_a == nullptr && first.packed_b == nullptr;
  if (kNarrowC<In, Out> || !computes || !caches.error.empty()) {
    for (int64_t i = begin; i < end; ++i) execute_on(context, entries.at(entries.self, i), wide);
    return;
  }
  const kernels::GemmKernel& kernel = kernels::kernel_for<In>(*context.kernels);
  driver::GemmProblem p = problem_of(first, context);
  if (!driver::plan_tiny(kernel, driver::request_of(p, 1, 1), caches.topology, &plan)) {
    for (int64_t i = begin; i < end; ++i) execute_on(context, entries.at(entries.self, i), wide);
    return;
  }
  if (const int64_t* strides = entries.strides) {
    // A strided batch: each entry's operands found from the first's, with nothing to compare.
    const StridedOperands<In, typename GemmCall<In, Out>::InB, Out> at{
        first.a, first.b, first.c, strides[0], strides[1], strides[2]};
    run_strided(kernel, p, plan, at, 0, end - begin);
    return;
  }
  for (int64_t i = begin; i < end; ++i) {
    const GemmCall<In, Out> e = entries.at(entries.self, i);
    if (!same_but_addresses(e, first)) {
      execute_on(context, e, wide);
      continue;
    }
    p.a = e.a;
    p.b = e.b;
    p.c = e.c;
    driver::run_tiny_plan(kernel, p, plan);
  }
}

template <class In, class Out>
void execute_batch(Context::Impl& context, const BatchEntries<In, Out>& entries, int64_t count) {
  using Acc = typename GemmCall<In, Out>::Acc;
  if (count <= 0) return;
  const GemmCall<In, Out> first = entries.at(entries.self, 0);
  const int members =
      driver::batch_members(first.m, first.n, first.k, context.num_threads.load(), count);
  // A narrow C: one f32 copy of C per member, reused for each of its products and allocated
  // before any product runs (if that fails, no C has been written). Every entry has the first's
  // shape and alpha, so the first's size serves them all.
  const std::size_t elements = wide_elements(first);
  const std::unique_ptr<Acc[]> wide = wide_copies<Acc>(elements, members);
  if (members == 1) {
    run_entries(context, entries, 0, count, wide.get());
    return;
  }
  // A call from inside a pool task runs on its caller alone, so each member's products are
  // single-threaded here. The team may be smaller than asked, never larger. Each member runs
  // consecutive entries (no two members write the cache lines of neighbouring small Cs).
  context.pool.run(members, [&](runtime::Team& team) {
    runtime::FpModeGuard fp_mode;  // a pool worker's mode (the caller's thread has it already)
    Acc* own = wide ? wide.get() + elements * static_cast<std::size_t>(team.tid()) : nullptr;
    const int64_t share = count / team.size(), extra = count % team.size(), t = team.tid();
    const int64_t begin = t * share + std::min<int64_t>(t, extra);
    const int64_t end = begin + share + (t < extra ? 1 : 0);
    run_entries(context, entries, begin, end, own);
  });
}

template <class In, class Out>
void execute_batch(Context::Impl& context, const GemmCall<In, Out>* calls, int64_t count) {
  const BatchEntries<In, Out> entries{calls, [](const void* self, int64_t i) {
                                        return static_cast<const GemmCall<In, Out>*>(self)[i];
                                      }};
  execute_batch(context, entries, count);
}

#define INVAR_GEMM_CALL(In, Out)                                                           \
  template std::string validate<In, Out>(const GemmCall<In, Out>&);                        \
  template void execute<In, Out>(Context::Impl&, const GemmCall<In, Out>&);                \
  template void execute_batch<In, Out>(Context::Impl&, const GemmCall<In, Out>*, int64_t); \
  template void execute_batch<In, Out>(Context::Impl&, const BatchEntries<In, Out>&, int64_t);
INVAR_GEMM_CALL(float, float)
INVAR_GEMM_CALL(double, double)
INVAR_GEMM_CALL(bf16, float)
INVAR_GEMM_CALL(bf16, bf16)
INVAR_GEMM_CALL(f16, float)
INVAR_GEMM_CALL(f16, f16)
INVAR_GEMM_CALL(int8_t, int32_t)
INVAR_GEMM_CALL(uint8_t, int32_t)
#undef INVAR_GEMM_CALL

}  // namespace invar::api

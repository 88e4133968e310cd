// One GEMM call as the API layer sees it, before and after validation. The C and C++ front ends
// both describe their arguments as a GemmCall, so validation and the special cases of the
// contract (empty products, alpha == 0, K == 0, beta == 0 or 1) live in one place.
#ifndef INVAR_API_GEMM_CALL_H_
#define INVAR_API_GEMM_CALL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "driver/gemm_driver.h"
#include "invar/invar.hpp"

namespace invar::api {

// The accumulator type of an input element type: itself for f32 and f64, f32 for bf16 and f16,
// int32 for int8 and uint8.
template <class In>
struct AccOf {
  using type = In;
};
template <>
struct AccOf<bf16> {
  using type = float;
};
template <>
struct AccOf<f16> {
  using type = float;
};
// int8 inputs accumulate in int32, modulo 2^32.
template <>
struct AccOf<int8_t> {
  using type = int32_t;
};
template <>
struct AccOf<uint8_t> {
  using type = int32_t;
};

// The element type of B for an A of type In: the same, except int8 B for a uint8 A (u8 x s8).
template <class In>
struct BOf {
  using type = In;
};
template <>
struct BOf<uint8_t> {
  using type = int8_t;
};

// A holds In and B holds BOf<In>; C holds Out, which is the accumulator type or, for bf16 and f16
// inputs, the input type (the f32 result rounded once, at the end). alpha and beta are accumulator
// scalars.
template <class In, class Out = typename AccOf<In>::type>
struct GemmCall {
  using Acc = typename AccOf<In>::type;
  using InB = typename BOf<In>::type;
  // Every member by name: g++ zeroes an object whose members have default initializers with
  // rep stos before storing the caller's values over them, a start-up of tens of cycles and
  // loads of those members that wait on it, about a tenth of a tiny product's time.
  GemmCall() noexcept
      : function(""),
        trans_a(0),
        trans_b(0),
        m(0),
        n(0),
        k(0),
        alpha(),
        a(nullptr),
        lda(0),
        b(nullptr),
        ldb(0),
        beta(),
        c(nullptr),
        ldc(0),
        packed_b(nullptr),
        packed_a(nullptr),
        bias(0),
        bias_values(nullptr),
        activation(0) {}
  const char* function;  // named in error messages
  int trans_a;           // 0 or 1; anything else is invalid
  int trans_b;
  int64_t m, n, k;
  Acc alpha;
  const In* a;
  int64_t lda;
  const InB* b;
  int64_t ldb;
  Acc beta;
  Out* c;
  int64_t ldc;
  // A prepacked op(B) instead of b, ldb and trans_b; k and n are then the handle's.
  const detail::PackedOperand* packed_b;
  // A prepacked alpha * op(A) instead of a, lda and trans_a; m, k and alpha are the handle's.
  const detail::PackedOperand* packed_a;
  // Bias and activation applied to each result (numeric/epilogue.h); bias values are of type
  // Acc. bias and activation hold the caller's raw enum values until validated.
  int bias;
  const Acc* bias_values;
  int activation;
};

// "" when the call is valid, else a message naming the function and the argument.
template <class In, class Out>
std::string validate(const GemmCall<In, Out>& call);

// Runs a validated call on the context, on a thread in the library's FP mode
// (runtime::FpModeGuard: the entry points enter it before they validate). Throws
// std::bad_alloc when workspace runs out.
template <class In, class Out>
void execute(Context::Impl& context, const GemmCall<In, Out>& call);

// Runs `count` validated calls, likewise in the library's FP mode: one after another, each on all
// of the context's threads, when one product is enough to occupy them; otherwise the products are
// dealt round-robin to the threads, each running its products alone. Either way every product has
// its single-call bits. A bf16 or f16 C is computed, as in execute(), on an f32 copy: one per
// member of the batch, allocated once before any product runs.
template <class In, class Out>
void execute_batch(Context::Impl& context, const GemmCall<In, Out>* calls, int64_t count);

// The calls of a batch made on demand, entry i as at(self, i), so that a batch of any size
// needs no memory per entry. Every entry has the first's m, n, k and alpha, and was validated.
template <class In, class Out>
struct BatchEntries {
  const void* self;
  GemmCall<In, Out> (*at)(const void* self, int64_t i);
};
template <class In, class Out>
void execute_batch(Context::Impl& context, const BatchEntries<In, Out>& entries, int64_t count);

// The plan of a validated, non-degenerate problem on this context: the one make_plan call
// execute() makes over the caches it found (`invar info --shape` prints it).
driver::Plan plan_product(const Context::Impl& context, const kernels::GemmKernel& kernel,
                          const driver::GemmProblem& problem, const arch::CacheTopology& caches);

}  // namespace invar::api

#endif  // INVAR_API_GEMM_CALL_H_

// One GEMM call as the API layer sees it, before and after validation. The C and C++ front ends
// both describe their arguments as a GemmCall, so validation and the special cases of the
// contract (empty products, alpha == 0, K == 0, beta == 0 or 1) live in one place.
#ifndef INVAR_API_GEMM_CALL_H_
#define INVAR_API_GEMM_CALL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

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
        activation(0),
        triangle(driver::Triangle::kNone) {}
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
  // One triangle of a square C only (invar_sgemmt; m == n, plain operands, no epilogue).
  driver::Triangle triangle;
};

// "" when the call is valid, else a message naming the function and the argument.
template <class In, class Out>
std::string validate(const GemmCall<In, Out>& call);

// Whether the call is valid by a few comparisons, without validate()'s messages: true only for
// calls validate() accepts (tests/api_test.cpp checks the two agree), false for every invalid call
// and for the valid ones outside the common case (an empty product, k == 0, alpha == 0, a
// prepacked operand, an extent or leading dimension of 2^26 or more), which validate() then
// decides. A tiny product's whole validation: every entry point asks this first.
//
// Why it is enough: with m, n, k >= 1 and every extent and leading dimension below 2^26, an
// operand spans at most 2^52 elements, 2^55 bytes (under kMaxSpanBytes, extents.h), so no
// extent overflows; and an operand at a non-null address below 2^63 (every user-space address
// on x86-64 and aarch64) ends below 2^64, so none wraps around the address space.
// plainly_valid's test of the plain arguments, without a prepacked operand or an epilogue: the
// whole validation of a tiny product (api/tiny_lane.h), called in the library's FP mode (it
// compares alpha with 0).
template <class In, class InB, class Out, class Acc>
inline bool plain_arguments(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, Acc alpha,
                            const In* a, int64_t lda, const InB* b, int64_t ldb, const Out* c,
                            int64_t ldc) {
  constexpr uint64_t kExtentBound = uint64_t{1} << 26;
  // Negative values are huge as unsigned: one comparison bounds all six from both sides.
  const uint64_t extents = static_cast<uint64_t>(m) | static_cast<uint64_t>(n) |
                           static_cast<uint64_t>(k) | static_cast<uint64_t>(lda) |
                           static_cast<uint64_t>(ldb) | static_cast<uint64_t>(ldc);
  const auto address = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
  const bool in_range = extents < kExtentBound && m != 0 && n != 0 && k != 0 &&
                        ((address(a) | address(b) | address(c)) >> 63) == 0 && a != nullptr &&
                        b != nullptr && c != nullptr;
  const bool plain = static_cast<unsigned>(trans_a) <= 1 && static_cast<unsigned>(trans_b) <= 1 &&
                     !(alpha == Acc(0));
  return in_range && plain && ldc >= n && lda >= (trans_a ? m : k) && ldb >= (trans_b ? k : n);
}

template <class In, class Out>
inline bool plainly_valid(const GemmCall<In, Out>& c) {
  using Acc = typename GemmCall<In, Out>::Acc;
  const bool epilogue =
      (c.bias == 0 && c.activation == 0) ||
      (!std::is_integral_v<Acc> && static_cast<unsigned>(c.bias) <= 2 &&
       static_cast<unsigned>(c.activation) <= 3 && (c.bias == 0 || c.bias_values != nullptr));
  return plain_arguments(c.trans_a, c.trans_b, c.m, c.n, c.k, c.alpha, c.a, c.lda, c.b, c.ldb, c.c,
                         c.ldc) &&
         c.packed_a == nullptr && c.packed_b == nullptr && epilogue;
}

// Runs a validated call on the context, on a thread in the library's FP mode
// (runtime::FpModeGuard: the entry points enter it before they validate). Throws
// std::bad_alloc when workspace runs out.
template <class In, class Out>
void execute(Context::Impl& context, const GemmCall<In, Out>& call);

// Runs `count` validated calls, likewise in the library's FP mode: one after another, each on all
// of the context's threads, when one product is enough to occupy them; otherwise the products are
// dealt to the threads in consecutive runs, each running its products alone (a strided batch of
// tiny products validated and planned once, then one kernel call per product: run_strided in
// gemm_call.cpp). Either way every product has
// its single-call bits. A bf16 or f16 C is computed, as in execute(), on an f32 copy: one per
// member of the batch, allocated once before any product runs.
template <class In, class Out>
void execute_batch(Context::Impl& context, const GemmCall<In, Out>* calls, int64_t count);

// The calls of a batch made on demand, entry i as at(self, i), so that a batch of any size
// needs no memory per entry. Every entry has the first's m, n, k and alpha, and was validated.
// `strides`, when set, says the batch is strided: entry i is entry 0 with its A, B and C
// strides[0], strides[1] and strides[2] elements further per entry, and nothing else differs.
template <class In, class Out>
struct BatchEntries {
  const void* self;
  GemmCall<In, Out> (*at)(const void* self, int64_t i);
  const int64_t* strides = nullptr;
};
template <class In, class Out>
void execute_batch(Context::Impl& context, const BatchEntries<In, Out>& entries, int64_t count);

// The plan of a validated, non-degenerate problem on this context: the one make_plan call
// execute() makes over the caches it found (`invar info --shape` prints it).
driver::Plan plan_product(const Context::Impl& context, const kernels::GemmKernel& kernel,
                          const driver::GemmProblem& problem, const arch::CacheTopology& caches);

}  // namespace invar::api

#endif  // INVAR_API_GEMM_CALL_H_

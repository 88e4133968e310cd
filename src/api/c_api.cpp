// The C API: validation first (C untouched on any failure), then the default context. No
// exception crosses this boundary.
#include <cstring>
#include <new>
#include <string>
#include <type_traits>

#include "api/c_guard.h"
#include "api/context_impl.h"
#include "api/extents.h"
#include "api/gemm_call.h"
#include "api/last_error.h"
#include "api/packed.h"
#include "api/tiny_lane.h"
#include "invar/invar.h"
#include "runtime/fp_mode.h"

namespace {

using invar::api::guarded;

// The integer a C caller passed for an enum parameter. C allows any int there; reading it
// through the C++ enum type would be undefined for values outside the enumerators, so copy the
// bytes. The entry points hand their enum parameters on by reference (never loading them as the
// enum type) until they reach this.
template <class E>
int raw_enum(const E& e) noexcept {
  std::underlying_type_t<E> raw;
  std::memcpy(&raw, &e, sizeof raw);
  return static_cast<int>(raw);
}

// The GemmCall of one product. A holds In and B holds InB; C holds Out; alpha and beta are Acc,
// which must be the GemmCall's own types (no conversion of a scalar or an operand).
template <class In, class InB, class Out, class Acc>
invar::api::GemmCall<In, Out> make_call(const char* function, int trans_a, int trans_b, int64_t m,
                                        int64_t n, int64_t k, Acc alpha, const In* a, int64_t lda,
                                        const InB* b, int64_t ldb, Acc beta, Out* c, int64_t ldc) {
  using Call = invar::api::GemmCall<In, Out>;
  static_assert(std::is_same_v<InB, typename Call::InB> && std::is_same_v<Acc, typename Call::Acc>);
  Call call;
  call.function = function;
  call.trans_a = trans_a;
  call.trans_b = trans_b;
  call.m = m;
  call.n = n;
  call.k = k;
  call.alpha = alpha;
  call.a = a;
  call.lda = lda;
  call.b = b;
  call.ldb = ldb;
  call.beta = beta;
  call.c = c;
  call.ldc = ldc;
  return call;
}

// A call's validation (its message set on failure) and its run on the default context, inside
// guarded(): every product entry's last step.
template <class In, class Out>
invar_status validate_and_execute(const invar::api::GemmCall<In, Out>& call) {
  if (!invar::api::plainly_valid(call)) {
    std::string error = invar::api::validate(call);
    if (!error.empty()) {
      invar::api::set_last_error(std::move(error));
      return INVAR_EINVAL;
    }
  }
  invar::api::execute(invar::Context::default_context().impl(), call);
  return INVAR_OK;
}

// Every element type: one validation, one engine. trans_a and trans_b are the caller's raw
// enum values (raw_enum).
template <class In, class InB, class Out, class Acc>
invar_status gemm_entry(const char* function, int trans_a, int trans_b, int64_t m, int64_t n,
                        int64_t k, Acc alpha, const In* a, int64_t lda, const InB* b, int64_t ldb,
                        Acc beta, Out* c, int64_t ldc, const invar_packed* packed = nullptr,
                        int bias = 0, const Acc* bias_values = nullptr, int activation = 0,
                        const invar_packed* packed_a = nullptr) {
  invar::api::clear_last_error();
  // Copies only (no comparison of a scalar), so outside the library's FP mode; the lambda takes
  // the call whole, not each argument (a capture per argument costs a store per argument).
  auto call = make_call(function, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  call.bias = bias;
  call.bias_values = bias_values;
  call.activation = activation;
  return guarded(function, [&call, packed, packed_a] {
    if (packed != nullptr) call.packed_b = &invar::api::operand_of(packed, call.function, "b");
    if (packed_a != nullptr) call.packed_a = &invar::api::operand_of(packed_a, call.function, "a");
    return validate_and_execute(call);
  });
}

// invar_sgemmt and invar_dgemmt: one triangle of a square C, through gemm_entry's validation
// and engine (the call's m is n).
template <class T>
invar_status gemmt_entry(int uplo, int trans_a, int trans_b, int64_t n, int64_t k, T alpha,
                         const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                         int64_t ldc) {
  const char* function = std::is_same_v<T, float> ? "invar_sgemmt" : "invar_dgemmt";
  invar::api::clear_last_error();
  auto call = make_call(function, trans_a, trans_b, n, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  call.triangle =
      uplo == INVAR_UPPER ? invar::driver::Triangle::kUpper : invar::driver::Triangle::kLower;
  return guarded(function, [&call, uplo] {
    // Named before validate() would name them: uplo is the triangle's own, and n stands for m.
    std::string error;
    if (uplo != INVAR_UPPER && uplo != INVAR_LOWER)
      error = std::string(call.function) + ": uplo = " + std::to_string(uplo) +
              " is neither INVAR_UPPER nor INVAR_LOWER";
    else if (call.n < 0)
      error = std::string(call.function) + ": n = " + std::to_string(call.n) + " is negative";
    if (!error.empty()) {
      invar::api::set_last_error(std::move(error));
      return INVAR_EINVAL;
    }
    return validate_and_execute(call);
  });
}

// gemm_entry out of line, with invar_sgemm's and invar_dgemm's own parameters: the tiny lane
// declines a call by a jump here with the arguments where the caller put them, and its frame
// saves and restores nothing for the general way.
template <class T>
__attribute__((noinline)) invar_status general_entry(int trans_a, int trans_b, int64_t m, int64_t n,
                                                     int64_t k, T alpha, const T* a, int64_t lda,
                                                     const T* b, int64_t ldb, T beta, T* c,
                                                     int64_t ldc) {
  const char* function = std::is_same_v<T, float> ? "invar_sgemm" : "invar_dgemm";
  const invar_status status =
      gemm_entry(function, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (status == INVAR_OK) invar::api::open_tiny_lane();
  return status;
}

// A tiny product the direct kernel does not take at once (more than kDirectMaxRows rows, a
// transposed B), with invar_sgemm's parameters too: reached by a jump.
template <class T>
__attribute__((noinline)) invar_status tiny_problem_entry(int trans_a, int trans_b, int64_t m,
                                                          int64_t n, int64_t k, T alpha, const T* a,
                                                          int64_t lda, const T* b, int64_t ldb,
                                                          T beta, T* c, int64_t ldc) {
  if (invar::api::run_tiny_problem(*invar::api::tiny_lane(), trans_a, trans_b, m, n, k, alpha, a,
                                   lda, b, ldb, beta, c, ldc)) {
    invar::api::clear_last_error();
    return INVAR_OK;
  }
  return general_entry(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// invar_sgemm and invar_dgemm: a tiny product through the tiny lane (api/tiny_lane.h), which
// holds the library's FP mode around the kernel; anything else through gemm_entry, which
// validates and reports. The calls the direct kernel does not take leave by a jump, so this
// frame keeps nothing for them.
template <class T>
inline __attribute__((always_inline)) invar_status plain_entry(int trans_a, int trans_b, int64_t m,
                                                               int64_t n, int64_t k, T alpha,
                                                               const T* a, int64_t lda, const T* b,
                                                               int64_t ldb, T beta, T* c,
                                                               int64_t ldc) {
  switch (invar::api::run_tiny_direct(invar::api::tiny_lane(), trans_a, trans_b, m, n, k, alpha, a,
                                      lda, b, ldb, beta, c, ldc)) {
    case invar::api::TinyLane::kRan: invar::api::clear_last_error(); return INVAR_OK;
    case invar::api::TinyLane::kNotDirect:
      return tiny_problem_entry(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    case invar::api::TinyLane::kDeclined: break;
  }
  return general_entry(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// AIn: the A element type whose kernel the panels are for (T itself but for the int8 B).
template <class T, class AIn = T>
invar_status pack_b_entry(const char* function, const invar_trans& tb, int64_t k, int64_t n,
                          const T* b, int64_t ldb, invar_packed** out) {
  invar::api::clear_last_error();
  const int trans_b = raw_enum(tb);
  return guarded(function, [&] {
    if (out == nullptr) {
      invar::api::set_last_error(std::string(function) + ": out is NULL");
      return INVAR_EINVAL;
    }
    auto impl = invar::api::pack_b<T, AIn>(invar::Context::default_context().impl(), function,
                                           trans_b, k, n, b, ldb);
    *out = invar::api::new_handle(std::move(impl));
    return INVAR_OK;
  });
}

template <class T>
invar_status pack_a_entry(const char* function, const invar_trans& ta, int64_t m, int64_t k,
                          T alpha, const T* a, int64_t lda, invar_packed** out) {
  invar::api::clear_last_error();
  const int trans_a = raw_enum(ta);
  return guarded(function, [&] {
    if (out == nullptr) {
      invar::api::set_last_error(std::string(function) + ": out is NULL");
      return INVAR_EINVAL;
    }
    auto impl = invar::api::pack_a(invar::Context::default_context().impl(), function, trans_a, m,
                                   k, alpha, a, lda);
    *out = invar::api::new_handle(std::move(impl));
    return INVAR_OK;
  });
}

// A prepacked A, with B unpacked or (b_packed) prepacked too.
template <class T>
invar_status packed_a_entry(const char* function, const invar_packed* a, const invar_trans& tb,
                            int64_t n, const T* b, int64_t ldb, const invar_packed* b_packed,
                            T beta, T* c, int64_t ldc) {
  invar::api::clear_last_error();
  invar::runtime::FpModeGuard fp_mode;  // the handle's alpha is converted in the library's mode
  const invar::detail::PackedOperand* pa = nullptr;
  const invar_status s = guarded(function, [&] {
    pa = &invar::api::operand_of(a, function, "a");
    if (b_packed != nullptr) n = invar::api::operand_of(b_packed, function, "b").n;
    return INVAR_OK;
  });
  if (s != INVAR_OK) return s;
  // The alpha the panels were packed with (exact: it was a T); validation refuses another type.
  const T alpha = pa->elem_bytes == static_cast<int>(sizeof(T)) ? static_cast<T>(pa->alpha) : T(1);
  return gemm_entry(function, INVAR_NO_TRANS, raw_enum(tb), pa->m, n, pa->k, alpha,
                    static_cast<const T*>(nullptr), 0, b, ldb, beta, c, ldc, b_packed, 0,
                    static_cast<const T*>(nullptr), 0, a);
}

// op(A) times a prepacked B. Acc: the element type of alpha and beta; Out: that of C (Acc, or
// bf16 and f16 for a 16-bit C); the B the handle was packed from is int8 for the integer
// products, else In.
template <class In, class Acc, class Out>
invar_status packed_entry(const char* function, const invar_trans& ta, int64_t m, Acc alpha,
                          const In* a, int64_t lda, const invar_packed* b, Acc beta, Out* c,
                          int64_t ldc, int bias = 0, const Acc* bias_values = nullptr,
                          int activation = 0) {
  using InB = std::conditional_t<std::is_integral_v<In>, int8_t, In>;
  invar::api::clear_last_error();
  const invar::detail::PackedOperand* pb = nullptr;
  const invar_status s = guarded(function, [&] {
    pb = &invar::api::operand_of(b, function, "b");
    return INVAR_OK;
  });
  if (s != INVAR_OK) return s;
  return gemm_entry(function, raw_enum(ta), INVAR_NO_TRANS, m, pb->n, pb->k, alpha, a, lda,
                    static_cast<const InB*>(nullptr), 0, beta, c, ldc, b, bias, bias_values,
                    activation);
}

template <class Call>
struct EntriesOf;
template <class In, class Out>
struct EntriesOf<invar::api::GemmCall<In, Out>> {
  using type = invar::api::BatchEntries<In, Out>;
};

// Validates every entry before any is computed, so that on an error no C is touched, then runs
// them. `entry(i)` returns the i-th call: the shared arguments with this entry's matrices. Entry
// 0 is validated first, so that a batch whose shared arguments are invalid is refused before
// anything else; with `each` false it stands for every entry (a strided batch whose matrices
// were checked as ranges). No memory is taken per entry: calls are made again when they run.
template <class Entry>
invar_status run_batch(const char* function, int64_t batch, Entry&& entry, bool each = true,
                       const int64_t* strides = nullptr) {
  if (batch < 0) {
    invar::api::set_last_error(std::string(function) + ": batch = " + std::to_string(batch) +
                               " is negative");
    return INVAR_EINVAL;
  }
  if (batch == 0) return INVAR_OK;
  for (int64_t i = 0; i < (each ? batch : 1); ++i) {
    const auto call = entry(i);
    if (invar::api::plainly_valid(call)) continue;
    std::string error = invar::api::validate(call);
    if (!error.empty()) {
      invar::api::set_last_error(error + " (batch entry " + std::to_string(i) + ")");
      return INVAR_EINVAL;
    }
  }
  using Fn = std::remove_reference_t<Entry>;
  const typename EntriesOf<std::invoke_result_t<Entry&, int64_t>>::type entries{
      &entry, [](const void* self, int64_t i) { return (*static_cast<const Fn*>(self))(i); },
      strides};
  invar::api::execute_batch(invar::Context::default_context().impl(), entries, batch);
  return INVAR_OK;
}

template <class In, class InB, class Out, class Acc>
invar_status batch_strided_entry(const char* function, const invar_trans& ta, const invar_trans& tb,
                                 int64_t m, int64_t n, int64_t k, Acc alpha, const In* a,
                                 int64_t lda, int64_t stride_a, const InB* b, int64_t ldb,
                                 int64_t stride_b, Acc beta, Out* c, int64_t ldc, int64_t stride_c,
                                 int64_t batch) {
  invar::api::clear_last_error();
  const int trans_a = raw_enum(ta), trans_b = raw_enum(tb);
  return guarded(function, [&] {
    if (batch <= 0 || m == 0 || n == 0) {
      // Nothing is computed: one entry stands for all (a negative batch is refused there).
      return run_batch(function, batch > 0 ? 1 : batch, [&](int64_t) {
        return make_call(function, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      });
    }
    // Each matrix the batch reads or writes, over every entry, must be addressable without
    // overflow before any entry's pointers are formed; A and B are not read when alpha == 0 or
    // k == 0, and then their strides are not used.
    const bool reads_ab = k > 0 && !(alpha == Acc(0));
    std::string error;
    auto check = [&](const char* name, const char* stride_name, const void* base, int64_t rows,
                     int64_t cols, int64_t ld, int64_t stride, std::size_t elem_bytes) {
      // Negative extents, a short leading dimension or a NULL matrix are left to run_batch.
      if (!error.empty() || base == nullptr || rows <= 0 || cols <= 0 || ld < cols) return;
      const int64_t span = invar::api::span_elements(rows, cols, ld, elem_bytes);
      int64_t low = 0, high = 0;
      if (span < 0) return;  // run_batch names the leading dimension
      if (!invar::api::strided_range(span, stride, batch, elem_bytes, &low, &high) ||
          !invar::api::addressable(base, low, high, elem_bytes))
        error = std::string(function) + ": " + stride_name + " = " + std::to_string(stride) +
                " over batch = " + std::to_string(batch) + " makes the " + name +
                " matrices span more memory than a process can address";
    };
    check("C", "stride_c", c, m, n, ldc, stride_c, sizeof(Out));
    if (reads_ab) {
      check("A", "stride_a", a, trans_a == 1 ? k : m, trans_a == 1 ? m : k, lda, stride_a,
            sizeof(In));
      check("B", "stride_b", b, trans_b == 1 ? n : k, trans_b == 1 ? k : n, ldb, stride_b,
            sizeof(InB));
    }
    if (!error.empty()) {
      invar::api::set_last_error(std::move(error));
      return INVAR_EINVAL;
    }
    // Entries may share A or B (a stride of 0) but never write the same C. The span is known to
    // fit int64_t when the leading dimension is valid; otherwise run_batch reports it.
    const int64_t c_span = ldc >= n ? invar::api::span_elements(m, n, ldc, sizeof(Out)) : -1;
    const uint64_t c_step =
        stride_c < 0 ? 0 - static_cast<uint64_t>(stride_c) : static_cast<uint64_t>(stride_c);
    if (batch > 1 && c_span > 0 && c_step < static_cast<uint64_t>(c_span)) {
      invar::api::set_last_error(
          std::string(function) + ": stride_c = " + std::to_string(stride_c) +
          " makes the C matrices overlap (one C spans " + std::to_string(c_span) + " elements)");
      return INVAR_EINVAL;
    }
    // The i-th matrices; pointers are only formed for matrices that are read or written.
    auto at = [](auto* base, int64_t stride, int64_t i, bool used) {
      return base == nullptr || !used ? base : base + stride * i;
    };
    // Entry 0 stands for all: the others differ only in addresses, checked above as ranges
    // (and when A and B are read, only by the strides, which the engine may then apply itself).
    const int64_t strides[3] = {stride_a, stride_b, stride_c};
    return run_batch(
        function, batch,
        [&](int64_t i) {
          return make_call(function, trans_a, trans_b, m, n, k, alpha, at(a, stride_a, i, reads_ab),
                           lda, at(b, stride_b, i, reads_ab), ldb, beta, at(c, stride_c, i, true),
                           ldc);
        },
        /*each=*/false, reads_ab ? strides : nullptr);
  });
}

template <class In, class InB, class Out, class Acc>
invar_status batch_entry(const char* function, const invar_trans& ta, const invar_trans& tb,
                         int64_t m, int64_t n, int64_t k, Acc alpha, const In* const* a,
                         int64_t lda, const InB* const* b, int64_t ldb, Acc beta, Out* const* c,
                         int64_t ldc, int64_t batch) {
  invar::api::clear_last_error();
  const int trans_a = raw_enum(ta), trans_b = raw_enum(tb);
  return guarded(function, [&] {
    if (batch > 0 && (a == nullptr || b == nullptr || c == nullptr)) {
      invar::api::set_last_error(std::string(function) + ": an array of matrix pointers is NULL");
      return INVAR_EINVAL;
    }
    return run_batch(function, batch, [&](int64_t i) {
      return make_call(function, trans_a, trans_b, m, n, k, alpha, a[i], lda, b[i], ldb, beta, c[i],
                       ldc);
    });
  });
}

}  // namespace

extern "C" {

invar_status invar_sgemm(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                         float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                         float beta, float* c, int64_t ldc) {
  return plain_entry(raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

invar_status invar_dgemm(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                         double alpha, const double* a, int64_t lda, const double* b, int64_t ldb,
                         double beta, double* c, int64_t ldc) {
  return plain_entry(raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

invar_status invar_sgemmt(invar_uplo uplo, invar_trans ta, invar_trans tb, int64_t n, int64_t k,
                          float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                          float beta, float* c, int64_t ldc) {
  return gemmt_entry(raw_enum(uplo), raw_enum(ta), raw_enum(tb), n, k, alpha, a, lda, b, ldb, beta,
                     c, ldc);
}

invar_status invar_dgemmt(invar_uplo uplo, invar_trans ta, invar_trans tb, int64_t n, int64_t k,
                          double alpha, const double* a, int64_t lda, const double* b, int64_t ldb,
                          double beta, double* c, int64_t ldc) {
  return gemmt_entry(raw_enum(uplo), raw_enum(ta), raw_enum(tb), n, k, alpha, a, lda, b, ldb, beta,
                     c, ldc);
}

invar_status invar_sgemm_epilogue(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                  float alpha, const float* a, int64_t lda, const float* b,
                                  int64_t ldb, float beta, float* c, int64_t ldc, invar_bias bias,
                                  const float* bias_values, invar_activation activation) {
  return gemm_entry("invar_sgemm_epilogue", raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc, static_cast<const invar_packed*>(nullptr), raw_enum(bias),
                    bias_values, raw_enum(activation));
}

invar_status invar_dgemm_epilogue(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                  double alpha, const double* a, int64_t lda, const double* b,
                                  int64_t ldb, double beta, double* c, int64_t ldc, invar_bias bias,
                                  const double* bias_values, invar_activation activation) {
  return gemm_entry("invar_dgemm_epilogue", raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc, static_cast<const invar_packed*>(nullptr), raw_enum(bias),
                    bias_values, raw_enum(activation));
}

invar_status invar_sgemm_batch_strided(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                       int64_t k, float alpha, const float* a, int64_t lda,
                                       int64_t stride_a, const float* b, int64_t ldb,
                                       int64_t stride_b, float beta, float* c, int64_t ldc,
                                       int64_t stride_c, int64_t batch) {
  return batch_strided_entry("invar_sgemm_batch_strided", ta, tb, m, n, k, alpha, a, lda, stride_a,
                             b, ldb, stride_b, beta, c, ldc, stride_c, batch);
}

invar_status invar_dgemm_batch_strided(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                       int64_t k, double alpha, const double* a, int64_t lda,
                                       int64_t stride_a, const double* b, int64_t ldb,
                                       int64_t stride_b, double beta, double* c, int64_t ldc,
                                       int64_t stride_c, int64_t batch) {
  return batch_strided_entry("invar_dgemm_batch_strided", ta, tb, m, n, k, alpha, a, lda, stride_a,
                             b, ldb, stride_b, beta, c, ldc, stride_c, batch);
}

invar_status invar_sgemm_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                               float alpha, const float* const* a, int64_t lda,
                               const float* const* b, int64_t ldb, float beta, float* const* c,
                               int64_t ldc, int64_t batch) {
  return batch_entry("invar_sgemm_batch", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                     batch);
}

invar_status invar_dgemm_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                               double alpha, const double* const* a, int64_t lda,
                               const double* const* b, int64_t ldb, double beta, double* const* c,
                               int64_t ldc, int64_t batch) {
  return batch_entry("invar_dgemm_batch", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                     batch);
}

invar_status invar_gemm_bf16bf16f32(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                    float alpha, const invar_bf16* a, int64_t lda,
                                    const invar_bf16* b, int64_t ldb, float beta, float* c,
                                    int64_t ldc) {
  return gemm_entry("invar_gemm_bf16bf16f32", raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc);
}

invar_status invar_gemm_bf16bf16bf16(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                     int64_t k, float alpha, const invar_bf16* a, int64_t lda,
                                     const invar_bf16* b, int64_t ldb, float beta, invar_bf16* c,
                                     int64_t ldc) {
  return gemm_entry("invar_gemm_bf16bf16bf16", raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda,
                    b, ldb, beta, c, ldc);
}

invar_status invar_gemm_f16f16f32(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                  float alpha, const invar_f16* a, int64_t lda, const invar_f16* b,
                                  int64_t ldb, float beta, float* c, int64_t ldc) {
  return gemm_entry("invar_gemm_f16f16f32", raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc);
}

invar_status invar_gemm_f16f16f16(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                  float alpha, const invar_f16* a, int64_t lda, const invar_f16* b,
                                  int64_t ldb, float beta, invar_f16* c, int64_t ldc) {
  return gemm_entry("invar_gemm_f16f16f16", raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc);
}

invar_status invar_gemm_s8s8s32(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                int32_t alpha, const int8_t* a, int64_t lda, const int8_t* b,
                                int64_t ldb, int32_t beta, int32_t* c, int64_t ldc) {
  return gemm_entry("invar_gemm_s8s8s32", raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc);
}

invar_status invar_gemm_u8s8s32(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                int32_t alpha, const uint8_t* a, int64_t lda, const int8_t* b,
                                int64_t ldb, int32_t beta, int32_t* c, int64_t ldc) {
  return gemm_entry("invar_gemm_u8s8s32", raw_enum(ta), raw_enum(tb), m, n, k, alpha, a, lda, b,
                    ldb, beta, c, ldc);
}

invar_status invar_gemm_bf16bf16f32_batch_strided(
    invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
    const invar_bf16* a, int64_t lda, int64_t stride_a, const invar_bf16* b, int64_t ldb,
    int64_t stride_b, float beta, float* c, int64_t ldc, int64_t stride_c, int64_t batch) {
  return batch_strided_entry("invar_gemm_bf16bf16f32_batch_strided", ta, tb, m, n, k, alpha, a, lda,
                             stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
}

invar_status invar_gemm_bf16bf16f32_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                          int64_t k, float alpha, const invar_bf16* const* a,
                                          int64_t lda, const invar_bf16* const* b, int64_t ldb,
                                          float beta, float* const* c, int64_t ldc, int64_t batch) {
  return batch_entry("invar_gemm_bf16bf16f32_batch", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                     c, ldc, batch);
}

invar_status invar_gemm_bf16bf16bf16_batch_strided(
    invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
    const invar_bf16* a, int64_t lda, int64_t stride_a, const invar_bf16* b, int64_t ldb,
    int64_t stride_b, float beta, invar_bf16* c, int64_t ldc, int64_t stride_c, int64_t batch) {
  return batch_strided_entry("invar_gemm_bf16bf16bf16_batch_strided", ta, tb, m, n, k, alpha, a,
                             lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
}

invar_status invar_gemm_bf16bf16bf16_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                           int64_t k, float alpha, const invar_bf16* const* a,
                                           int64_t lda, const invar_bf16* const* b, int64_t ldb,
                                           float beta, invar_bf16* const* c, int64_t ldc,
                                           int64_t batch) {
  return batch_entry("invar_gemm_bf16bf16bf16_batch", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                     c, ldc, batch);
}

invar_status invar_gemm_f16f16f32_batch_strided(invar_trans ta, invar_trans tb, int64_t m,
                                                int64_t n, int64_t k, float alpha,
                                                const invar_f16* a, int64_t lda, int64_t stride_a,
                                                const invar_f16* b, int64_t ldb, int64_t stride_b,
                                                float beta, float* c, int64_t ldc, int64_t stride_c,
                                                int64_t batch) {
  return batch_strided_entry("invar_gemm_f16f16f32_batch_strided", ta, tb, m, n, k, alpha, a, lda,
                             stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
}

invar_status invar_gemm_f16f16f32_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                        int64_t k, float alpha, const invar_f16* const* a,
                                        int64_t lda, const invar_f16* const* b, int64_t ldb,
                                        float beta, float* const* c, int64_t ldc, int64_t batch) {
  return batch_entry("invar_gemm_f16f16f32_batch", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                     ldc, batch);
}

invar_status invar_gemm_f16f16f16_batch_strided(invar_trans ta, invar_trans tb, int64_t m,
                                                int64_t n, int64_t k, float alpha,
                                                const invar_f16* a, int64_t lda, int64_t stride_a,
                                                const invar_f16* b, int64_t ldb, int64_t stride_b,
                                                float beta, invar_f16* c, int64_t ldc,
                                                int64_t stride_c, int64_t batch) {
  return batch_strided_entry("invar_gemm_f16f16f16_batch_strided", ta, tb, m, n, k, alpha, a, lda,
                             stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
}

invar_status invar_gemm_f16f16f16_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                        int64_t k, float alpha, const invar_f16* const* a,
                                        int64_t lda, const invar_f16* const* b, int64_t ldb,
                                        float beta, invar_f16* const* c, int64_t ldc,
                                        int64_t batch) {
  return batch_entry("invar_gemm_f16f16f16_batch", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                     ldc, batch);
}

invar_status invar_gemm_s8s8s32_batch_strided(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                              int64_t k, int32_t alpha, const int8_t* a,
                                              int64_t lda, int64_t stride_a, const int8_t* b,
                                              int64_t ldb, int64_t stride_b, int32_t beta,
                                              int32_t* c, int64_t ldc, int64_t stride_c,
                                              int64_t batch) {
  return batch_strided_entry("invar_gemm_s8s8s32_batch_strided", ta, tb, m, n, k, alpha, a, lda,
                             stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
}

invar_status invar_gemm_s8s8s32_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                      int64_t k, int32_t alpha, const int8_t* const* a, int64_t lda,
                                      const int8_t* const* b, int64_t ldb, int32_t beta,
                                      int32_t* const* c, int64_t ldc, int64_t batch) {
  return batch_entry("invar_gemm_s8s8s32_batch", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                     ldc, batch);
}

invar_status invar_gemm_u8s8s32_batch_strided(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                              int64_t k, int32_t alpha, const uint8_t* a,
                                              int64_t lda, int64_t stride_a, const int8_t* b,
                                              int64_t ldb, int64_t stride_b, int32_t beta,
                                              int32_t* c, int64_t ldc, int64_t stride_c,
                                              int64_t batch) {
  return batch_strided_entry("invar_gemm_u8s8s32_batch_strided", ta, tb, m, n, k, alpha, a, lda,
                             stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
}

invar_status invar_gemm_u8s8s32_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                      int64_t k, int32_t alpha, const uint8_t* const* a,
                                      int64_t lda, const int8_t* const* b, int64_t ldb,
                                      int32_t beta, int32_t* const* c, int64_t ldc, int64_t batch) {
  return batch_entry("invar_gemm_u8s8s32_batch", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                     ldc, batch);
}

invar_status invar_sgemm_pack_b(invar_trans tb, int64_t k, int64_t n, const float* b, int64_t ldb,
                                invar_packed** out) {
  return pack_b_entry("invar_sgemm_pack_b", tb, k, n, b, ldb, out);
}

invar_status invar_dgemm_pack_b(invar_trans tb, int64_t k, int64_t n, const double* b, int64_t ldb,
                                invar_packed** out) {
  return pack_b_entry("invar_dgemm_pack_b", tb, k, n, b, ldb, out);
}

invar_status invar_sgemm_packed(invar_trans ta, int64_t m, float alpha, const float* a, int64_t lda,
                                const invar_packed* b, float beta, float* c, int64_t ldc) {
  return packed_entry("invar_sgemm_packed", ta, m, alpha, a, lda, b, beta, c, ldc);
}

invar_status invar_dgemm_packed(invar_trans ta, int64_t m, double alpha, const double* a,
                                int64_t lda, const invar_packed* b, double beta, double* c,
                                int64_t ldc) {
  return packed_entry("invar_dgemm_packed", ta, m, alpha, a, lda, b, beta, c, ldc);
}

invar_status invar_sgemm_pack_a(invar_trans ta, int64_t m, int64_t k, float alpha, const float* a,
                                int64_t lda, invar_packed** out) {
  return pack_a_entry("invar_sgemm_pack_a", ta, m, k, alpha, a, lda, out);
}

invar_status invar_dgemm_pack_a(invar_trans ta, int64_t m, int64_t k, double alpha, const double* a,
                                int64_t lda, invar_packed** out) {
  return pack_a_entry("invar_dgemm_pack_a", ta, m, k, alpha, a, lda, out);
}

invar_status invar_sgemm_packed_a(const invar_packed* a, invar_trans tb, int64_t n, const float* b,
                                  int64_t ldb, float beta, float* c, int64_t ldc) {
  return packed_a_entry<float>("invar_sgemm_packed_a", a, tb, n, b, ldb, nullptr, beta, c, ldc);
}

invar_status invar_dgemm_packed_a(const invar_packed* a, invar_trans tb, int64_t n, const double* b,
                                  int64_t ldb, double beta, double* c, int64_t ldc) {
  return packed_a_entry<double>("invar_dgemm_packed_a", a, tb, n, b, ldb, nullptr, beta, c, ldc);
}

invar_status invar_sgemm_packed_ab(const invar_packed* a, const invar_packed* b, float beta,
                                   float* c, int64_t ldc) {
  if (b == nullptr) {
    invar::api::clear_last_error();
    invar::api::set_last_error("invar_sgemm_packed_ab: b is NULL");
    return INVAR_EINVAL;
  }
  return packed_a_entry<float>("invar_sgemm_packed_ab", a, INVAR_NO_TRANS, 0, nullptr, 0, b, beta,
                               c, ldc);
}

invar_status invar_dgemm_packed_ab(const invar_packed* a, const invar_packed* b, double beta,
                                   double* c, int64_t ldc) {
  if (b == nullptr) {
    invar::api::clear_last_error();
    invar::api::set_last_error("invar_dgemm_packed_ab: b is NULL");
    return INVAR_EINVAL;
  }
  return packed_a_entry<double>("invar_dgemm_packed_ab", a, INVAR_NO_TRANS, 0, nullptr, 0, b, beta,
                                c, ldc);
}

invar_status invar_sgemm_packed_epilogue(invar_trans ta, int64_t m, float alpha, const float* a,
                                         int64_t lda, const invar_packed* b, float beta, float* c,
                                         int64_t ldc, invar_bias bias, const float* bias_values,
                                         invar_activation activation) {
  return packed_entry("invar_sgemm_packed_epilogue", ta, m, alpha, a, lda, b, beta, c, ldc,
                      raw_enum(bias), bias_values, raw_enum(activation));
}

invar_status invar_dgemm_packed_epilogue(invar_trans ta, int64_t m, double alpha, const double* a,
                                         int64_t lda, const invar_packed* b, double beta, double* c,
                                         int64_t ldc, invar_bias bias, const double* bias_values,
                                         invar_activation activation) {
  return packed_entry("invar_dgemm_packed_epilogue", ta, m, alpha, a, lda, b, beta, c, ldc,
                      raw_enum(bias), bias_values, raw_enum(activation));
}

invar_status invar_gemm_bf16bf16f32_pack_b(invar_trans tb, int64_t k, int64_t n,
                                           const invar_bf16* b, int64_t ldb, invar_packed** out) {
  return pack_b_entry("invar_gemm_bf16bf16f32_pack_b", tb, k, n, b, ldb, out);
}

invar_status invar_gemm_f16f16f32_pack_b(invar_trans tb, int64_t k, int64_t n, const invar_f16* b,
                                         int64_t ldb, invar_packed** out) {
  return pack_b_entry("invar_gemm_f16f16f32_pack_b", tb, k, n, b, ldb, out);
}

invar_status invar_gemm_bf16bf16f32_packed(invar_trans ta, int64_t m, float alpha,
                                           const invar_bf16* a, int64_t lda, const invar_packed* b,
                                           float beta, float* c, int64_t ldc) {
  return packed_entry("invar_gemm_bf16bf16f32_packed", ta, m, alpha, a, lda, b, beta, c, ldc);
}

invar_status invar_gemm_bf16bf16bf16_packed(invar_trans ta, int64_t m, float alpha,
                                            const invar_bf16* a, int64_t lda, const invar_packed* b,
                                            float beta, invar_bf16* c, int64_t ldc) {
  return packed_entry("invar_gemm_bf16bf16bf16_packed", ta, m, alpha, a, lda, b, beta, c, ldc);
}

invar_status invar_gemm_f16f16f32_packed(invar_trans ta, int64_t m, float alpha, const invar_f16* a,
                                         int64_t lda, const invar_packed* b, float beta, float* c,
                                         int64_t ldc) {
  return packed_entry("invar_gemm_f16f16f32_packed", ta, m, alpha, a, lda, b, beta, c, ldc);
}

invar_status invar_gemm_f16f16f16_packed(invar_trans ta, int64_t m, float alpha, const invar_f16* a,
                                         int64_t lda, const invar_packed* b, float beta,
                                         invar_f16* c, int64_t ldc) {
  return packed_entry("invar_gemm_f16f16f16_packed", ta, m, alpha, a, lda, b, beta, c, ldc);
}

invar_status invar_gemm_s8s8s32_pack_b(invar_trans tb, int64_t k, int64_t n, const int8_t* b,
                                       int64_t ldb, invar_packed** out) {
  return pack_b_entry<int8_t, int8_t>("invar_gemm_s8s8s32_pack_b", tb, k, n, b, ldb, out);
}

invar_status invar_gemm_u8s8s32_pack_b(invar_trans tb, int64_t k, int64_t n, const int8_t* b,
                                       int64_t ldb, invar_packed** out) {
  return pack_b_entry<int8_t, uint8_t>("invar_gemm_u8s8s32_pack_b", tb, k, n, b, ldb, out);
}

invar_status invar_gemm_s8s8s32_packed(invar_trans ta, int64_t m, int32_t alpha, const int8_t* a,
                                       int64_t lda, const invar_packed* b, int32_t beta, int32_t* c,
                                       int64_t ldc) {
  return packed_entry("invar_gemm_s8s8s32_packed", ta, m, alpha, a, lda, b, beta, c, ldc);
}

invar_status invar_gemm_u8s8s32_packed(invar_trans ta, int64_t m, int32_t alpha, const uint8_t* a,
                                       int64_t lda, const invar_packed* b, int32_t beta, int32_t* c,
                                       int64_t ldc) {
  return packed_entry("invar_gemm_u8s8s32_packed", ta, m, alpha, a, lda, b, beta, c, ldc);
}

size_t invar_packed_bytes(const invar_packed* p) {
  invar::api::clear_last_error();
  std::size_t bytes = 0;
  if (p == nullptr) return 0;
  (void)guarded("invar_packed_bytes", [&] {
    bytes = invar::api::operand_of(p, "invar_packed_bytes", "p").bytes;
    return INVAR_OK;
  });
  return bytes;
}

void invar_packed_free(invar_packed* p) {
  invar::api::clear_last_error();
  if (p != nullptr && !invar::api::free_handle(p))
    invar::api::set_last_error(
        "invar_packed_free: p is not a live packed operand (freed already, or not made by a "
        "pack function); nothing was freed");
}

const char* invar_last_error(void) { return invar::api::last_error(); }

const char* invar_version(void) { return invar::version(); }

const char* invar_isa(void) {
  invar::api::clear_last_error();
  const char* name = nullptr;
  (void)guarded("invar_isa", [&] {
    name = invar::isa_name(invar::Context::default_context().isa());
    return INVAR_OK;
  });
  return name;
}

}  // extern "C"

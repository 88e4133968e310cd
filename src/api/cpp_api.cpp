#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "api/context_impl.h"
#include "api/gemm_call.h"
#include "api/packed.h"
#include "api/tiny_lane.h"
#include "invar/invar.hpp"
#include "invar/invar_version.h"
#include "runtime/fp_mode.h"

namespace invar {
namespace {

std::string dims(int64_t rows, int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// Every entry point validates and computes in the library's floating-point mode (a subnormal
// alpha is not zero under the caller's DAZ), and gives the caller back its whole MXCSR.
template <class In, class Out>
void run(const api::GemmCall<In, Out>& call, Context& context) {
  runtime::FpModeGuard fp_mode;
  if (!api::plainly_valid(call)) {
    const std::string error = api::validate(call);
    if (!error.empty()) throw InvalidArgument(error);
  }
  try {
    api::execute(context.impl(), call);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("invar::gemm: out of memory for packing workspace");
  }
}

// The GemmCall of one product, its shapes checked against each other.
template <class In, class InB, class Out, class Acc>
api::GemmCall<In, Out> make_call(Acc alpha, Op op_a, const MatrixView<const In>& a, Op op_b,
                                 const MatrixView<const InB>& b, Acc beta, const MatrixView<Out>& c,
                                 const char* function = "invar::gemm") {
  const bool ta = op_a == Op::kTrans;
  const bool tb = op_b == Op::kTrans;
  if ((op_a != Op::kNoTrans && !ta) || (op_b != Op::kNoTrans && !tb))
    throw InvalidArgument(std::string(function) + ": invalid Op value");
  const int64_t m = ta ? a.cols() : a.rows();
  const int64_t k = ta ? a.rows() : a.cols();
  const int64_t kb = tb ? b.cols() : b.rows();
  const int64_t n = tb ? b.rows() : b.cols();
  if (k != kb || c.rows() != m || c.cols() != n)
    throw InvalidArgument(std::string(function) + ": op(A) is " + dims(m, k) + ", op(B) is " +
                          dims(kb, n) + " and C is " + dims(c.rows(), c.cols()));

  api::GemmCall<In, Out> call;
  call.function = function;
  call.trans_a = ta;
  call.trans_b = tb;
  call.m = m;
  call.n = n;
  call.k = k;
  call.alpha = alpha;
  call.a = a.data();
  call.lda = a.ld();
  call.b = b.data();
  call.ldb = b.ld();
  call.beta = beta;
  call.c = c.data();
  call.ldc = c.ld();
  return call;
}

// An f32 or f64 product through the context's tiny lane (api/tiny_lane.h) when it is plainly
// valid and tiny, as invar_sgemm runs one on the default context: true when it ran. Anything else
// (shapes that disagree, invalid arguments, a larger product, a context without a direct path)
// is left untouched to make_call and run, which decide it.
template <class T>
bool run_tiny(T alpha, Op op_a, const MatrixView<const T>& a, Op op_b, const MatrixView<const T>& b,
              T beta, const MatrixView<T>& c, Context& context) {
  const Context::Impl& impl = context.impl();
  if (!impl.allow_direct) return false;
  const int ta = static_cast<int>(op_a), tb = static_cast<int>(op_b);
  const int64_t m = ta == 1 ? a.cols() : a.rows(), k = ta == 1 ? a.rows() : a.cols();
  const int64_t kb = tb == 1 ? b.cols() : b.rows(), n = tb == 1 ? b.rows() : b.cols();
  if (k != kb || c.rows() != m || c.cols() != n) return false;
  switch (api::run_tiny_direct(&impl.tiny, ta, tb, m, n, k, alpha, a.data(), a.ld(), b.data(),
                               b.ld(), beta, c.data(), c.ld())) {
    case api::TinyLane::kRan: return true;
    case api::TinyLane::kNotDirect:
      return api::run_tiny_problem(impl.tiny, ta, tb, m, n, k, alpha, a.data(), a.ld(), b.data(),
                                   b.ld(), beta, c.data(), c.ld());
    case api::TinyLane::kDeclined: break;
  }
  return false;
}

template <class In, class InB, class Out, class Acc>
void gemm_impl(Acc alpha, Op op_a, const MatrixView<const In>& a, Op op_b,
               const MatrixView<const InB>& b, Acc beta, const MatrixView<Out>& c,
               Context& context) {
  constexpr bool kFloat = std::is_same_v<In, float> || std::is_same_v<In, double>;
  constexpr bool kOneType =
      std::is_same_v<InB, In> && std::is_same_v<Out, In> && std::is_same_v<Acc, In>;
  if constexpr (kFloat && kOneType) {
    if (run_tiny(alpha, op_a, a, op_b, b, beta, c, context)) return;
  }
  run(make_call(alpha, op_a, a, op_b, b, beta, c), context);
}

template <class In, class InB, class Out, class Acc>
void gemm_batch_impl(Acc alpha, Op op_a, const MatrixView<const In>* a, Op op_b,
                     const MatrixView<const InB>* b, Acc beta, const MatrixView<Out>* c,
                     std::size_t batch, Context& context) {
  if (batch == 0) return;
  runtime::FpModeGuard fp_mode;
  if (a == nullptr || b == nullptr || c == nullptr)
    throw InvalidArgument("invar::gemm_batch: an array of views is null");
  std::vector<api::GemmCall<In, Out>> calls;
  calls.reserve(batch);
  for (std::size_t i = 0; i < batch; ++i) {
    calls.push_back(make_call(alpha, op_a, a[i], op_b, b[i], beta, c[i]));
    const api::GemmCall<In, Out>& call = calls.back();
    if (call.m != calls[0].m || call.n != calls[0].n || call.k != calls[0].k)
      throw InvalidArgument("invar::gemm_batch: entry " + std::to_string(i) +
                            " differs in shape from entry 0");
    if (api::plainly_valid(call)) continue;
    const std::string error = api::validate(call);
    if (!error.empty()) throw InvalidArgument(error + " (batch entry " + std::to_string(i) + ")");
  }
  try {
    api::execute_batch(context.impl(), calls.data(), static_cast<int64_t>(batch));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("invar::gemm_batch: out of memory for packing workspace");
  }
}

template <class T>
void set_epilogue(api::GemmCall<T>& call, const Epilogue<T>& e) {
  call.bias = static_cast<int>(e.bias);
  call.bias_values = e.bias_values;
  call.activation = static_cast<int>(e.activation);
}

// op(A) times a prepacked B: the call, checked against the handle's dimensions. Acc is the
// element type of alpha and beta (T for the floating-point types, int32_t for int8), Out that of
// C (Acc, or bf16 and f16 for a 16-bit C).
template <class In, class Acc = typename api::GemmCall<In>::Acc, class Out = Acc>
api::GemmCall<In, Out> packed_b_call(Acc alpha, Op op_a, const MatrixView<const In>& a,
                                     const PackedB& b, Acc beta, const MatrixView<Out>& c) {
  const bool ta = op_a == Op::kTrans;
  if (op_a != Op::kNoTrans && !ta) throw InvalidArgument("invar::gemm: invalid Op value");
  const int64_t m = ta ? a.cols() : a.rows();
  const int64_t k = ta ? a.rows() : a.cols();
  if (k != b.k() || c.rows() != m || c.cols() != b.n())
    throw InvalidArgument("invar::gemm: op(A) is " + dims(m, k) + ", the packed B is " +
                          dims(b.k(), b.n()) + " and C is " + dims(c.rows(), c.cols()));
  api::GemmCall<In, Out> call;
  call.function = "invar::gemm";
  call.trans_a = ta;
  call.m = m;
  call.n = b.n();
  call.k = k;
  call.alpha = alpha;
  call.a = a.data();
  call.lda = a.ld();
  call.beta = beta;
  call.c = c.data();
  call.ldc = c.ld();
  call.packed_b = &b.impl();
  return call;
}

template <class T>
void gemm_packed_impl(T alpha, Op op_a, const MatrixView<const T>& a, const PackedB& b, T beta,
                      const MatrixView<T>& c, Context& context, const Epilogue<T>& epilogue = {}) {
  api::GemmCall<T> call = packed_b_call(alpha, op_a, a, b, beta, c);
  set_epilogue(call, epilogue);
  run(call, context);
}

// AIn: the A element type whose kernel the panels are for (T itself but for the int8 B).
template <class T, class AIn = T>
PackedB pack_b_impl(const char* function, Op op_b, const MatrixView<const T>& b, Context& context) {
  const bool tb = op_b == Op::kTrans;
  if (op_b != Op::kNoTrans && !tb)
    throw InvalidArgument(std::string(function) + ": invalid Op value");
  try {
    return PackedB(api::pack_b<T, AIn>(context.impl(), function, tb, tb ? b.cols() : b.rows(),
                                       tb ? b.rows() : b.cols(), b.data(), b.ld()));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(std::string(function) + ": out of memory");
  }
}

template <class T>
PackedA pack_a_impl(T alpha, Op op_a, const MatrixView<const T>& a, Context& context) {
  runtime::FpModeGuard fp_mode;
  const bool ta = op_a == Op::kTrans;
  if (op_a != Op::kNoTrans && !ta) throw InvalidArgument("invar::pack_a: invalid Op value");
  try {
    return PackedA(api::pack_a(context.impl(), "invar::pack_a", ta, ta ? a.cols() : a.rows(),
                               ta ? a.rows() : a.cols(), alpha, a.data(), a.ld()));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("invar::pack_a: out of memory");
  }
}

// A prepacked A times op(B), or times a prepacked B when `packed_b` is set.
template <class T>
void gemm_packed_a_impl(const PackedA& a, Op op_b, const MatrixView<const T>& b,
                        const PackedB* packed_b, T beta, const MatrixView<T>& c, Context& context) {
  runtime::FpModeGuard fp_mode;  // the handle's alpha is converted in the library's mode
  const bool tb = op_b == Op::kTrans;
  if (op_b != Op::kNoTrans && !tb) throw InvalidArgument("invar::gemm: invalid Op value");
  if (a.impl().elem_type != detail::elem_type_of<T>())
    throw InvalidArgument(std::string("invar::gemm: a was packed from ") +
                          detail::elem_type_name(a.impl().elem_type) +
                          " elements, but this product's A is " +
                          detail::elem_type_name(detail::elem_type_of<T>()));
  const int64_t k = packed_b ? packed_b->k() : tb ? b.cols() : b.rows();
  const int64_t n = packed_b ? packed_b->n() : tb ? b.rows() : b.cols();
  if (k != a.k() || c.rows() != a.m() || c.cols() != n)
    throw InvalidArgument("invar::gemm: the packed A is " + dims(a.m(), a.k()) + ", " +
                          (packed_b ? "the packed B is " : "op(B) is ") + dims(k, n) +
                          " and C is " + dims(c.rows(), c.cols()));
  api::GemmCall<T> call;
  call.function = "invar::gemm";
  call.trans_b = tb;
  call.m = a.m();
  call.n = n;
  call.k = k;
  call.alpha = static_cast<T>(a.impl().alpha);  // exact: it was a T
  call.packed_a = &a.impl();
  call.b = b.data();
  call.ldb = b.ld();
  if (packed_b != nullptr) call.packed_b = &packed_b->impl();
  call.beta = beta;
  call.c = c.data();
  call.ldc = c.ld();
  run(call, context);
}

}  // namespace

PackedA pack_a(float alpha, Op op_a, const MatrixView<const float>& a, Context& context) {
  return pack_a_impl(alpha, op_a, a, context);
}

PackedA pack_a(double alpha, Op op_a, const MatrixView<const double>& a, Context& context) {
  return pack_a_impl(alpha, op_a, a, context);
}

void gemm(const PackedA& a, Op op_b, const MatrixView<const float>& b, float beta,
          const MatrixView<float>& c, Context& context) {
  gemm_packed_a_impl(a, op_b, b, nullptr, beta, c, context);
}

void gemm(const PackedA& a, Op op_b, const MatrixView<const double>& b, double beta,
          const MatrixView<double>& c, Context& context) {
  gemm_packed_a_impl(a, op_b, b, nullptr, beta, c, context);
}

void gemm(const PackedA& a, const PackedB& b, float beta, const MatrixView<float>& c,
          Context& context) {
  gemm_packed_a_impl(a, Op::kNoTrans, MatrixView<const float>(nullptr, 0, 0), &b, beta, c, context);
}

void gemm(const PackedA& a, const PackedB& b, double beta, const MatrixView<double>& c,
          Context& context) {
  gemm_packed_a_impl(a, Op::kNoTrans, MatrixView<const double>(nullptr, 0, 0), &b, beta, c,
                     context);
}

void gemm(float alpha, Op op_a, const MatrixView<const float>& a, Op op_b,
          const MatrixView<const float>& b, float beta, const MatrixView<float>& c,
          Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

void gemm(double alpha, Op op_a, const MatrixView<const double>& a, Op op_b,
          const MatrixView<const double>& b, double beta, const MatrixView<double>& c,
          Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

template <class T>
void gemmt_impl(Uplo uplo, T alpha, Op op_a, const MatrixView<const T>& a, Op op_b,
                const MatrixView<const T>& b, T beta, const MatrixView<T>& c, Context& context) {
  if (uplo != Uplo::kUpper && uplo != Uplo::kLower)
    throw InvalidArgument("invar::gemmt: invalid Uplo value");
  if (c.rows() != c.cols())
    throw InvalidArgument("invar::gemmt: C is " + dims(c.rows(), c.cols()) + ", not square");
  auto call = make_call(alpha, op_a, a, op_b, b, beta, c, "invar::gemmt");
  call.triangle = uplo == Uplo::kUpper ? driver::Triangle::kUpper : driver::Triangle::kLower;
  run(call, context);
}

void gemmt(Uplo uplo, float alpha, Op op_a, const MatrixView<const float>& a, Op op_b,
           const MatrixView<const float>& b, float beta, const MatrixView<float>& c,
           Context& context) {
  gemmt_impl(uplo, alpha, op_a, a, op_b, b, beta, c, context);
}

void gemmt(Uplo uplo, double alpha, Op op_a, const MatrixView<const double>& a, Op op_b,
           const MatrixView<const double>& b, double beta, const MatrixView<double>& c,
           Context& context) {
  gemmt_impl(uplo, alpha, op_a, a, op_b, b, beta, c, context);
}

PackedB pack_b(Op op_b, const MatrixView<const float>& b, Context& context) {
  return pack_b_impl("invar::pack_b", op_b, b, context);
}

PackedB pack_b(Op op_b, const MatrixView<const double>& b, Context& context) {
  return pack_b_impl("invar::pack_b", op_b, b, context);
}

void gemm(float alpha, Op op_a, const MatrixView<const float>& a, const PackedB& b, float beta,
          const MatrixView<float>& c, Context& context) {
  gemm_packed_impl(alpha, op_a, a, b, beta, c, context);
}

void gemm(double alpha, Op op_a, const MatrixView<const double>& a, const PackedB& b, double beta,
          const MatrixView<double>& c, Context& context) {
  gemm_packed_impl(alpha, op_a, a, b, beta, c, context);
}

PackedB pack_b(Op op_b, const MatrixView<const bf16>& b, Context& context) {
  return pack_b_impl("invar::pack_b", op_b, b, context);
}

PackedB pack_b(Op op_b, const MatrixView<const f16>& b, Context& context) {
  return pack_b_impl("invar::pack_b", op_b, b, context);
}

void gemm(float alpha, Op op_a, const MatrixView<const bf16>& a, const PackedB& b, float beta,
          const MatrixView<float>& c, Context& context) {
  run(packed_b_call(alpha, op_a, a, b, beta, c), context);
}

void gemm(float alpha, Op op_a, const MatrixView<const bf16>& a, const PackedB& b, float beta,
          const MatrixView<bf16>& c, Context& context) {
  run(packed_b_call(alpha, op_a, a, b, beta, c), context);
}

void gemm(float alpha, Op op_a, const MatrixView<const f16>& a, const PackedB& b, float beta,
          const MatrixView<float>& c, Context& context) {
  run(packed_b_call(alpha, op_a, a, b, beta, c), context);
}

void gemm(float alpha, Op op_a, const MatrixView<const f16>& a, const PackedB& b, float beta,
          const MatrixView<f16>& c, Context& context) {
  run(packed_b_call(alpha, op_a, a, b, beta, c), context);
}

void gemm(float alpha, Op op_a, const MatrixView<const bf16>& a, Op op_b,
          const MatrixView<const bf16>& b, float beta, const MatrixView<float>& c,
          Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

void gemm(float alpha, Op op_a, const MatrixView<const bf16>& a, Op op_b,
          const MatrixView<const bf16>& b, float beta, const MatrixView<bf16>& c,
          Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

void gemm(float alpha, Op op_a, const MatrixView<const f16>& a, Op op_b,
          const MatrixView<const f16>& b, float beta, const MatrixView<float>& c,
          Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

void gemm(float alpha, Op op_a, const MatrixView<const f16>& a, Op op_b,
          const MatrixView<const f16>& b, float beta, const MatrixView<f16>& c, Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

void gemm_batch(float alpha, Op op_a, const MatrixView<const float>* a, Op op_b,
                const MatrixView<const float>* b, float beta, const MatrixView<float>* c,
                std::size_t batch, Context& context) {
  gemm_batch_impl(alpha, op_a, a, op_b, b, beta, c, batch, context);
}

void gemm_batch(double alpha, Op op_a, const MatrixView<const double>* a, Op op_b,
                const MatrixView<const double>* b, double beta, const MatrixView<double>* c,
                std::size_t batch, Context& context) {
  gemm_batch_impl(alpha, op_a, a, op_b, b, beta, c, batch, context);
}

void gemm_batch(float alpha, Op op_a, const MatrixView<const bf16>* a, Op op_b,
                const MatrixView<const bf16>* b, float beta, const MatrixView<float>* c,
                std::size_t batch, Context& context) {
  gemm_batch_impl(alpha, op_a, a, op_b, b, beta, c, batch, context);
}

void gemm_batch(float alpha, Op op_a, const MatrixView<const bf16>* a, Op op_b,
                const MatrixView<const bf16>* b, float beta, const MatrixView<bf16>* c,
                std::size_t batch, Context& context) {
  gemm_batch_impl(alpha, op_a, a, op_b, b, beta, c, batch, context);
}

void gemm_batch(float alpha, Op op_a, const MatrixView<const f16>* a, Op op_b,
                const MatrixView<const f16>* b, float beta, const MatrixView<float>* c,
                std::size_t batch, Context& context) {
  gemm_batch_impl(alpha, op_a, a, op_b, b, beta, c, batch, context);
}

void gemm_batch(float alpha, Op op_a, const MatrixView<const f16>* a, Op op_b,
                const MatrixView<const f16>* b, float beta, const MatrixView<f16>* c,
                std::size_t batch, Context& context) {
  gemm_batch_impl(alpha, op_a, a, op_b, b, beta, c, batch, context);
}

void gemm_batch(int32_t alpha, Op op_a, const MatrixView<const int8_t>* a, Op op_b,
                const MatrixView<const int8_t>* b, int32_t beta, const MatrixView<int32_t>* c,
                std::size_t batch, Context& context) {
  gemm_batch_impl(alpha, op_a, a, op_b, b, beta, c, batch, context);
}

void gemm_batch(int32_t alpha, Op op_a, const MatrixView<const uint8_t>* a, Op op_b,
                const MatrixView<const int8_t>* b, int32_t beta, const MatrixView<int32_t>* c,
                std::size_t batch, Context& context) {
  gemm_batch_impl(alpha, op_a, a, op_b, b, beta, c, batch, context);
}

void gemm(float alpha, Op op_a, const MatrixView<const float>& a, Op op_b,
          const MatrixView<const float>& b, float beta, const MatrixView<float>& c,
          const Epilogue<float>& epilogue, Context& context) {
  auto call = make_call(alpha, op_a, a, op_b, b, beta, c);
  set_epilogue(call, epilogue);
  run(call, context);
}

void gemm(double alpha, Op op_a, const MatrixView<const double>& a, Op op_b,
          const MatrixView<const double>& b, double beta, const MatrixView<double>& c,
          const Epilogue<double>& epilogue, Context& context) {
  auto call = make_call(alpha, op_a, a, op_b, b, beta, c);
  set_epilogue(call, epilogue);
  run(call, context);
}

void gemm(float alpha, Op op_a, const MatrixView<const float>& a, const PackedB& b, float beta,
          const MatrixView<float>& c, const Epilogue<float>& epilogue, Context& context) {
  gemm_packed_impl(alpha, op_a, a, b, beta, c, context, epilogue);
}

void gemm(double alpha, Op op_a, const MatrixView<const double>& a, const PackedB& b, double beta,
          const MatrixView<double>& c, const Epilogue<double>& epilogue, Context& context) {
  gemm_packed_impl(alpha, op_a, a, b, beta, c, context, epilogue);
}

void gemm(int32_t alpha, Op op_a, const MatrixView<const int8_t>& a, Op op_b,
          const MatrixView<const int8_t>& b, int32_t beta, const MatrixView<int32_t>& c,
          Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

void gemm(int32_t alpha, Op op_a, const MatrixView<const uint8_t>& a, Op op_b,
          const MatrixView<const int8_t>& b, int32_t beta, const MatrixView<int32_t>& c,
          Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

PackedB pack_b_s8s8s32(Op op_b, const MatrixView<const int8_t>& b, Context& context) {
  return pack_b_impl<int8_t, int8_t>("invar::pack_b_s8s8s32", op_b, b, context);
}

PackedB pack_b_u8s8s32(Op op_b, const MatrixView<const int8_t>& b, Context& context) {
  return pack_b_impl<int8_t, uint8_t>("invar::pack_b_u8s8s32", op_b, b, context);
}

void gemm(int32_t alpha, Op op_a, const MatrixView<const int8_t>& a, const PackedB& b, int32_t beta,
          const MatrixView<int32_t>& c, Context& context) {
  run(packed_b_call(alpha, op_a, a, b, beta, c), context);
}

void gemm(int32_t alpha, Op op_a, const MatrixView<const uint8_t>& a, const PackedB& b,
          int32_t beta, const MatrixView<int32_t>& c, Context& context) {
  run(packed_b_call(alpha, op_a, a, b, beta, c), context);
}

const char* version() { return INVAR_VERSION_STRING; }

}  // namespace invar

#include <new>
#include <string>

#include "api/context_impl.h"
#include "api/gemm_call.h"
#include "invar/invar.hpp"
#include "invar_version.h"

namespace invar {
namespace {

std::string dims(int64_t rows, int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

template <class T>
void gemm_impl(T alpha, Op op_a, MatrixView<const T> a, Op op_b, MatrixView<const T> b, T beta,
               MatrixView<T> c, Context& context) {
  const bool ta = op_a == Op::kTrans;
  const bool tb = op_b == Op::kTrans;
  if ((op_a != Op::kNoTrans && !ta) || (op_b != Op::kNoTrans && !tb))
    throw InvalidArgument("invar::gemm: invalid Op value");
  const int64_t m = ta ? a.cols() : a.rows();
  const int64_t k = ta ? a.rows() : a.cols();
  const int64_t kb = tb ? b.cols() : b.rows();
  const int64_t n = tb ? b.rows() : b.cols();
  if (k != kb || c.rows() != m || c.cols() != n)
    throw InvalidArgument("invar::gemm: op(A) is " + dims(m, k) + ", op(B) is " + dims(kb, n) +
                          " and C is " + dims(c.rows(), c.cols()));

  api::GemmCall<T> call;
  call.function = "invar::gemm";
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
  const std::string error = api::validate(call);
  if (!error.empty()) throw InvalidArgument(error);
  try {
    api::execute(context.impl(), call);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("invar::gemm: out of memory for packing workspace");
  }
}

}  // namespace

void gemm(float alpha, Op op_a, MatrixView<const float> a, Op op_b, MatrixView<const float> b,
          float beta, MatrixView<float> c, Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

void gemm(double alpha, Op op_a, MatrixView<const double> a, Op op_b, MatrixView<const double> b,
          double beta, MatrixView<double> c, Context& context) {
  gemm_impl(alpha, op_a, a, op_b, b, beta, c, context);
}

const char* version() { return INVAR_VERSION_STRING; }

}  // namespace invar

// The results `invar fingerprint` hashes (tools/fingerprint.cpp), computed through the C API in
// the same order: invar.fingerprint() hashes these bytes with SHA-256 and so prints the command's
// string. The inputs come from testing/seeded_data.h, the generator the command uses.
#include "python/src/fingerprint.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "invar/invar.h"
#include "testing/seeded_data.h"

namespace invar::python {
namespace {

struct Problem {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
};

std::vector<Problem> problems() {
  const float scalars[] = {1.0f, 0.0f, -1.0f, 0.5f, 2.0f, 3.7f};
  const int64_t shapes[][3] = {{1, 1, 1},      {3, 5, 7},      {6, 16, 8},    {13, 17, 29},
                               {12, 32, 64},   {31, 33, 65},   {1, 257, 300}, {64, 64, 257},
                               {100, 37, 513}, {130, 97, 1025}};
  std::vector<Problem> out;
  int s = 0;
  for (const auto& shape : shapes) {
    for (int t = 0; t < 4; ++t, ++s) {
      out.push_back({shape[0], shape[1], shape[2], (t & 1) != 0, (t & 2) != 0, scalars[s % 6],
                     scalars[(s / 6 + s) % 6]});
    }
  }
  return out;
}

void check(invar_status status) {
  if (status != INVAR_OK) throw std::runtime_error(invar_last_error());
}

invar_status call(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
                  const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c) {
  return invar_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, n);
}
invar_status call(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, double alpha,
                  const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                  double* c) {
  return invar_dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, n);
}
invar_status call_epilogue(int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                           float* c, const float* bias, invar_activation act) {
  return invar_sgemm_epilogue(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, c,
                              n, INVAR_BIAS_COLUMN, bias, act);
}
invar_status call_epilogue(int64_t m, int64_t n, int64_t k, const double* a, const double* b,
                           double* c, const double* bias, invar_activation act) {
  return invar_dgemm_epilogue(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0, a, k, b, n, 0.0, c, n,
                              INVAR_BIAS_COLUMN, bias, act);
}

template <class T>
void append(std::string* out, const std::vector<T>& v) {
  out->append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
void products(std::string* out) {
  uint64_t seed = 1;
  for (const Problem& p : problems()) {
    const int64_t a_rows = p.ta ? p.k : p.m, a_cols = p.ta ? p.m : p.k;
    const int64_t b_rows = p.tb ? p.n : p.k, b_cols = p.tb ? p.k : p.n;
    const auto a = test::random_values<T>(a_rows * a_cols, seed++);
    const auto b = test::random_values<T>(b_rows * b_cols, seed++);
    auto c = test::random_values<T>(p.m * p.n, seed++);
    check(call(p.ta ? INVAR_TRANS : INVAR_NO_TRANS, p.tb ? INVAR_TRANS : INVAR_NO_TRANS, p.m, p.n,
               p.k, static_cast<T>(p.alpha), a.data(), a_cols, b.data(), b_cols,
               static_cast<T>(p.beta), c.data()));
    append(out, c);
  }
}

template <class T>
void epilogues(std::string* out) {
  const int64_t m = 37, n = 45, k = 129;
  const auto a = test::random_values<T>(m * k, 1001);
  auto b = test::random_values<T>(k * n, 1002);
  for (T& x : b) x = x * T(4);
  const auto bias = test::random_values<T>(n, 1003);
  for (invar_activation act : {INVAR_ACT_RELU, INVAR_ACT_GELU_TANH, INVAR_ACT_SILU}) {
    std::vector<T> c(m * n);
    check(call_epilogue(m, n, k, a.data(), b.data(), c.data(), bias.data(), act));
    append(out, c);
  }
}

}  // namespace

std::string fingerprint_results() {
  std::string out;
  products<float>(&out);
  products<double>(&out);
  epilogues<float>(&out);
  epilogues<double>(&out);
  return out;
}

}  // namespace invar::python

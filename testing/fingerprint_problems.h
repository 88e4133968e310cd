// The fixed seeded problems behind `invar fingerprint` and invar.fingerprint() (Python): tile
// edges of every kernel shape in use (sizes 1..17 and around 32 and 64), k around unrolls and
// block depths, both transposes, the alpha/beta special values, f32 and f64, and the fused
// epilogues (a column bias and each activation, so the exp, tanh and division sequences are
// compared across machines too). Both hash the results' little-endian bytes in this order (all
// supported targets are little-endian), so they print the same string.
#ifndef INVAR_TESTING_FINGERPRINT_PROBLEMS_H_
#define INVAR_TESTING_FINGERPRINT_PROBLEMS_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "invar/invar.hpp"
#include "testing/seeded_data.h"

namespace invar::test {

// Calls visit(label, result) for every problem's result (a std::vector<float> or <double>), in
// the fingerprint's order; label describes the problem in one line.
template <class Visit>
void fingerprint_results(Visit&& visit) {
  struct Problem {
    int64_t m, n, k;
    bool ta, tb;
    float alpha, beta;
  };
  std::vector<Problem> problems;
  const float scalars[] = {1.0f, 0.0f, -1.0f, 0.5f, 2.0f, 3.7f};
  const int64_t shapes[][3] = {{1, 1, 1},      {3, 5, 7},      {6, 16, 8},    {13, 17, 29},
                               {12, 32, 64},   {31, 33, 65},   {1, 257, 300}, {64, 64, 257},
                               {100, 37, 513}, {130, 97, 1025}};
  int s = 0;
  for (const auto& shape : shapes)
    for (int t = 0; t < 4; ++t, ++s)
      problems.push_back({shape[0], shape[1], shape[2], (t & 1) != 0, (t & 2) != 0, scalars[s % 6],
                          scalars[(s / 6 + s) % 6]});

  auto products = [&](auto zero, const char* type) {
    using T = decltype(zero);
    uint64_t seed = 1;
    for (const Problem& p : problems) {
      const int64_t a_rows = p.ta ? p.k : p.m, a_cols = p.ta ? p.m : p.k;
      const int64_t b_rows = p.tb ? p.n : p.k, b_cols = p.tb ? p.k : p.n;
      const auto a = random_values<T>(a_rows * a_cols, seed++);
      const auto b = random_values<T>(b_rows * b_cols, seed++);
      auto c = random_values<T>(p.m * p.n, seed++);
      gemm(static_cast<T>(p.alpha), p.ta ? Op::kTrans : Op::kNoTrans,
           MatrixView<const T>(a.data(), a_rows, a_cols), p.tb ? Op::kTrans : Op::kNoTrans,
           MatrixView<const T>(b.data(), b_rows, b_cols), static_cast<T>(p.beta),
           MatrixView<T>(c.data(), p.m, p.n));
      char label[128];
      std::snprintf(label, sizeof label, "%s %c%c %4lld x %4lld x %4lld alpha %-4g beta %-4g", type,
                    p.ta ? 'T' : 'N', p.tb ? 'T' : 'N', static_cast<long long>(p.m),
                    static_cast<long long>(p.n), static_cast<long long>(p.k), p.alpha, p.beta);
      visit(std::string(label), c);
    }
  };
  auto epilogues = [&](auto zero, const char* type) {
    using T = decltype(zero);
    const int64_t m = 37, n = 45, k = 129;
    const auto a = random_values<T>(m * k, 1001);
    auto b = random_values<T>(k * n, 1002);
    for (T& x : b) x = x * T(4);  // results spread over the activations' interesting range
    const auto bias = random_values<T>(n, 1003);
    for (Activation act : {Activation::kRelu, Activation::kGeluTanh, Activation::kSilu}) {
      std::vector<T> c(m * n);
      gemm(T(1), Op::kNoTrans, MatrixView<const T>(a.data(), m, k), Op::kNoTrans,
           MatrixView<const T>(b.data(), k, n), T(0), MatrixView<T>(c.data(), m, n),
           Epilogue<T>{Bias::kPerColumn, bias.data(), act}, Context::default_context());
      char label[128];
      std::snprintf(label, sizeof label, "%s NN %4lld x %4lld x %4lld column bias, activation %d",
                    type, static_cast<long long>(m), static_cast<long long>(n),
                    static_cast<long long>(k), static_cast<int>(act));
      visit(std::string(label), c);
    }
  };
  products(0.0f, "f32");
  products(0.0, "f64");
  epilogues(0.0f, "f32");
  epilogues(0.0, "f64");
}

}  // namespace invar::test

#endif  // INVAR_TESTING_FINGERPRINT_PROBLEMS_H_

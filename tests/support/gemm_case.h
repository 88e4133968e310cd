// One differential check: a seeded problem run through invar and through the reference on
// identical data, compared with memcmp over all of C, padding columns included (so a view that
// writes outside its columns fails too).
#ifndef INVAR_TESTS_SUPPORT_GEMM_CASE_H_
#define INVAR_TESTS_SUPPORT_GEMM_CASE_H_

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "invar/invar.hpp"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {

struct GemmCase {
  bool trans_a = false;
  bool trans_b = false;
  int64_t m = 1, n = 1, k = 1;
  double alpha = 1.0;  // converted to the element type of the check (exact for the test values)
  double beta = 0.0;
  int64_t pad_a = 0, pad_b = 0, pad_c = 0;  // ld = stored columns + pad
  uint64_t seed = 1;

  std::string describe() const {
    std::ostringstream os;
    os << (trans_a ? "T" : "N") << (trans_b ? "T" : "N") << " m=" << m << " n=" << n << " k=" << k
       << " alpha=" << alpha << " beta=" << beta << " pads=" << pad_a << "," << pad_b << ","
       << pad_c << " seed=" << seed;
    return os.str();
  }
};

// "" when invar's C equals the reference's bit for bit, else a description of the mismatch.
// T is the element type (float: invar_sgemm's engine, double: invar_dgemm's).
template <class T = float>
std::string check_case(const GemmCase& g, Context& context) {
  const int64_t a_rows = g.trans_a ? g.k : g.m, a_cols = g.trans_a ? g.m : g.k;
  const int64_t b_rows = g.trans_b ? g.n : g.k, b_cols = g.trans_b ? g.k : g.n;
  const int64_t lda = a_cols + g.pad_a, ldb = b_cols + g.pad_b, ldc = g.n + g.pad_c;
  const std::vector<T> a = random_values<T>(static_cast<std::size_t>(a_rows * lda), g.seed * 3 + 0);
  const std::vector<T> b = random_values<T>(static_cast<std::size_t>(b_rows * ldb), g.seed * 3 + 1);
  std::vector<T> c = random_values<T>(static_cast<std::size_t>(g.m * ldc), g.seed * 3 + 2);
  std::vector<T> expected = c;
  const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);

  reference_gemm<T>(g.trans_a, g.trans_b, g.m, g.n, g.k, alpha, a.data(), lda, b.data(), ldb, beta,
                    expected.data(), ldc);
  gemm(alpha, g.trans_a ? Op::kTrans : Op::kNoTrans,
       MatrixView<const T>(a.data(), a_rows, a_cols, lda), g.trans_b ? Op::kTrans : Op::kNoTrans,
       MatrixView<const T>(b.data(), b_rows, b_cols, ldb), beta,
       MatrixView<T>(c.data(), g.m, g.n, ldc), context);

  const int64_t at = first_difference(c.data(), expected.data(), c.size());
  if (at < 0) return "";
  std::ostringstream os;
  os.precision(sizeof(T) == 4 ? 9 : 17);
  os << g.describe() << ": first difference at C[" << at / ldc << "][" << at % ldc << "]: got "
     << c[at] << ", expected " << expected[at];
  return os.str();
}

}  // namespace invar::test

#endif  // INVAR_TESTS_SUPPORT_GEMM_CASE_H_

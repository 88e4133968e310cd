// `invar fingerprint`: a SHA-256 over the outputs of fixed seeded problems, in f32 then f64,
// then fused epilogues in both. The inputs are built from integers (testing/seeded_data.h), so
// they are the same bits everywhere; by the numeric contract so are the outputs, whatever the ISA, thread count, blocking or machine. Two machines
// that print different strings disagree on at least one bit of at least one product.
#include <openssl/evp.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "invar/invar.hpp"
#include "testing/seeded_data.h"
#include "tools/commands.h"

namespace invar::tool {
namespace {

struct Problem {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
};

// Tile edges of every kernel shape in use (sizes 1..17 and around 32 and 64), k around unrolls
// and block depths, both transposes, and the alpha/beta special values.
std::vector<Problem> problems() {
  const float scalars[] = {1.0f, 0.0f, -1.0f, 0.5f, 2.0f, 3.7f};
  const int64_t shapes[][3] = {{1, 1, 1},     {3, 5, 7},      {6, 16, 8},    {13, 17, 29},
                               {12, 32, 64},  {31, 33, 65},   {1, 257, 300}, {64, 64, 257},
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

std::string hex(const unsigned char* digest, unsigned len) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) {
    s += digits[digest[i] >> 4];
    s += digits[digest[i] & 15];
  }
  return s;
}

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (ctx_ == nullptr || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("SHA-256 unavailable");
  }
  ~Sha256() { EVP_MD_CTX_free(ctx_); }
  void update(const void* data, std::size_t bytes) { EVP_DigestUpdate(ctx_, data, bytes); }
  std::string finish() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx_, digest, &len);
    return hex(digest, len);
  }

 private:
  EVP_MD_CTX* ctx_;
};

}  // namespace

namespace {

// Every problem in element type T, hashed into `all`.
template <class T>
void hash_products(Sha256& all, bool verbose, const char* type) {
  uint64_t seed = 1;
  for (const Problem& p : problems()) {
    const int64_t a_rows = p.ta ? p.k : p.m, a_cols = p.ta ? p.m : p.k;
    const int64_t b_rows = p.tb ? p.n : p.k, b_cols = p.tb ? p.k : p.n;
    const auto a = test::random_values<T>(a_rows * a_cols, seed++);
    const auto b = test::random_values<T>(b_rows * b_cols, seed++);
    auto c = test::random_values<T>(p.m * p.n, seed++);
    gemm(static_cast<T>(p.alpha), p.ta ? Op::kTrans : Op::kNoTrans,
         MatrixView<const T>(a.data(), a_rows, a_cols), p.tb ? Op::kTrans : Op::kNoTrans,
         MatrixView<const T>(b.data(), b_rows, b_cols), static_cast<T>(p.beta),
         MatrixView<T>(c.data(), p.m, p.n));
    // Hash the little-endian bytes of every result (all supported targets are little-endian).
    all.update(c.data(), c.size() * sizeof(T));
    if (verbose) {
      Sha256 one;
      one.update(c.data(), c.size() * sizeof(T));
      std::printf("%s %c%c %4lld x %4lld x %4lld alpha %-4g beta %-4g %s\n", type,
                  p.ta ? 'T' : 'N', p.tb ? 'T' : 'N', static_cast<long long>(p.m),
                  static_cast<long long>(p.n), static_cast<long long>(p.k), p.alpha, p.beta,
                  one.finish().c_str());
    }
  }
}

// Fused epilogues: a column bias and each activation, so the exp, tanh and division sequences
// are compared across machines too.
template <class T>
void hash_epilogues(Sha256& all, bool verbose, const char* type) {
  const int64_t m = 37, n = 45, k = 129;
  const auto a = test::random_values<T>(m * k, 1001);
  auto b = test::random_values<T>(k * n, 1002);
  for (T& x : b) x = x * T(4);  // results spread over the activations' interesting range
  const auto bias = test::random_values<T>(n, 1003);
  for (Activation act : {Activation::kRelu, Activation::kGeluTanh, Activation::kSilu}) {
    std::vector<T> c(m * n);
    gemm(T(1), Op::kNoTrans, MatrixView<const T>(a.data(), m, k), Op::kNoTrans,
         MatrixView<const T>(b.data(), k, n), T(0), MatrixView<T>(c.data(), m, n),
         Epilogue<T>{Bias::kPerColumn, bias.data(), act}, Context::default_context());
    all.update(c.data(), c.size() * sizeof(T));
    if (verbose) {
      Sha256 one;
      one.update(c.data(), c.size() * sizeof(T));
      std::printf("%s NN %4lld x %4lld x %4lld column bias, activation %d %s\n", type,
                  static_cast<long long>(m), static_cast<long long>(n),
                  static_cast<long long>(k), static_cast<int>(act), one.finish().c_str());
    }
  }
}

}  // namespace

int run_fingerprint(const FingerprintOptions& options) {
  Sha256 all;
  hash_products<float>(all, options.verbose, "f32");
  hash_products<double>(all, options.verbose, "f64");
  hash_epilogues<float>(all, options.verbose, "f32");
  hash_epilogues<double>(all, options.verbose, "f64");
  std::printf("%s\n", all.finish().c_str());
  return 0;
}

}  // namespace invar::tool

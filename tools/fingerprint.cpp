// `invar fingerprint`: a SHA-256 over the outputs of fixed seeded problems, in f32 then f64,
// then fused epilogues in both. The inputs are built from integers (testing/seeded_data.h), so
// they are the same bits everywhere; by the numeric contract so are the outputs, whatever the ISA,
// thread count, blocking or machine. Two machines that print different strings disagree on at least
// one bit of at least one product.
#include <openssl/evp.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "invar/invar.hpp"
#include "testing/fingerprint_problems.h"
#include "tools/commands.h"

namespace invar::tool {
namespace {

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

int run_fingerprint(const FingerprintOptions& options) {
  Sha256 all;
  test::fingerprint_results([&](const std::string& label, const auto& c) {
    const std::size_t bytes = c.size() * sizeof(c[0]);
    all.update(c.data(), bytes);
    if (options.verbose) {
      Sha256 one;
      one.update(c.data(), bytes);
      std::printf("%s %s\n", label.c_str(), one.finish().c_str());
    }
  });
  std::printf("%s\n", all.finish().c_str());
  return 0;
}

}  // namespace invar::tool

// An inference engine's two phases: prefill runs all T tokens through y = x * W^T at once, decode
// runs one token at a time (M = 1). With invar both give the same bits for every token.
#include <cstdio>
#include <cstring>
#include <invar/invar.hpp>
#include <vector>

int main() {
  const int64_t tokens = 9, d_in = 300, d_out = 128;
  std::vector<float> w(d_out * d_in), x(tokens * d_in);
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>((i * 7919) % 1000) / 997.0f - 0.5f;
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((i * 104729) % 1000) / 991.0f - 0.5f;

  using invar::MatrixView;
  using invar::Op;
  std::vector<float> prefill(tokens * d_out), decode(tokens * d_out);
  invar::gemm(1.0f, Op::kNoTrans, MatrixView<const float>(x.data(), tokens, d_in), Op::kTrans,
              MatrixView<const float>(w.data(), d_out, d_in), 0.0f,
              MatrixView<float>(prefill.data(), tokens, d_out));
  for (int64_t t = 0; t < tokens; ++t) {
    invar::gemm(1.0f, Op::kNoTrans, MatrixView<const float>(x.data() + t * d_in, 1, d_in),
                Op::kTrans, MatrixView<const float>(w.data(), d_out, d_in), 0.0f,
                MatrixView<float>(decode.data() + t * d_out, 1, d_out));
  }
  const bool same = std::memcmp(prefill.data(), decode.data(), prefill.size() * sizeof(float)) == 0;
  std::printf("prefill (M = %lld) and decode (M = 1, %lld calls): %s\n",
              static_cast<long long>(tokens), static_cast<long long>(tokens),
              same ? "identical bits" : "DIFFERENT");
  try {
    invar::gemm(MatrixView<const float>(x.data(), tokens, d_in),
                MatrixView<const float>(w.data(), d_out, d_in),
                MatrixView<float>(prefill.data(), tokens, d_out));
  } catch (const invar::InvalidArgument& e) {
    std::printf("refused: %s\n", e.what());
  }
  return same ? 0 : 1;
}

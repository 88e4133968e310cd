// A quantized linear layer, y = x * W^T with uint8 activations, int8 weights and int32 sums: the
// weight is packed once, and the decode steps (M = 1) over it give each token's prefill row.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <invar/invar.hpp>
#include <vector>

int main() {
  const int64_t tokens = 7, d_in = 600, d_out = 96;
  std::vector<int8_t> w(d_out * d_in);  // d_out x d_in, as a layer stores it
  std::vector<uint8_t> x(tokens * d_in);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>((i * 7919) % 255 - 127);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>((i * 104729) % 256);

  using invar::MatrixView;
  using invar::Op;
  const invar::PackedB packed =
      invar::pack_b_u8s8s32(Op::kTrans, MatrixView<const int8_t>(w.data(), d_out, d_in));
  std::vector<int32_t> prefill(tokens * d_out), decode(tokens * d_out);
  invar::gemm(1, Op::kNoTrans, MatrixView<const uint8_t>(x.data(), tokens, d_in), packed, 0,
              MatrixView<int32_t>(prefill.data(), tokens, d_out));
  for (int64_t t = 0; t < tokens; ++t) {
    invar::gemm(1, Op::kNoTrans, MatrixView<const uint8_t>(x.data() + t * d_in, 1, d_in), packed, 0,
                MatrixView<int32_t>(decode.data() + t * d_out, 1, d_out));
  }
  // The first output, summed here in the order of k.
  int32_t y00 = 0;
  for (int64_t p = 0; p < d_in; ++p) y00 += static_cast<int32_t>(x[p]) * w[p];
  const bool same =
      std::memcmp(prefill.data(), decode.data(), prefill.size() * sizeof(int32_t)) == 0 &&
      prefill[0] == y00;
  std::printf("int8 layer, W packed once (%zu bytes): prefill (M = %lld) and decode (M = 1): %s\n",
              packed.bytes(), static_cast<long long>(tokens),
              same ? "identical bits" : "DIFFERENT");
  return same ? 0 : 1;
}

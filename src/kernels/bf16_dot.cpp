#include "kernels/bf16_dot.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "arch/cpu_features.h"
#include "kernels/sets/erase.h"
#include "pack/pack.h"
#include "runtime/fp_mode.h"

#if defined(INVAR_HAVE_AVX512_BF16)
#include "kernels/avx512/bf16/bf16.h"
#endif

namespace invar::kernels {
namespace {

float widen(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// bf16 values by sign, exponent (unbiased) and the 7 stored fraction bits.
uint16_t bf(int sign, int exponent, int fraction) {
  return static_cast<uint16_t>((sign << 15) | ((exponent + 127) << 7) | (fraction & 0x7f));
}

// The adversarial lanes: step k is the pair's odd (high) element, step k + 1 its even one.
struct LaneSet {
  std::vector<uint16_t> a, b;
  std::vector<float> acc;
  // k: a_k * b_k first, then k1: a_k1 * b_k1.
  void add(uint16_t a_k, uint16_t b_k, uint16_t a_k1, uint16_t b_k1, float start) {
    a.push_back(a_k1);
    a.push_back(a_k);
    b.push_back(b_k1);
    b.push_back(b_k);
    acc.push_back(start);
  }
};

// A fixed linear congruential generator: the same set on every machine.
struct Lcg {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  int range(int lo, int hi) {
    return lo + static_cast<int>(next() % static_cast<uint32_t>(hi - lo + 1));
  }
};

LaneSet adversarial_lanes() {
  LaneSet set;
  const uint16_t kPos0 = 0x0000, kNeg0 = 0x8000, kOne = 0x3f80, kMinusOne = 0xbf80;
  const uint16_t kInf = 0x7f80, kMinusInf = 0xff80;
  // Signed zeros: every sign of zero products against accumulators of +-0 and +-1.
  const uint16_t as[] = {kPos0, kNeg0, kOne, kMinusOne};
  const uint16_t zs[] = {kPos0, kNeg0};
  const float starts[] = {0.0f, -0.0f, 1.0f, -1.0f};
  for (uint16_t ak : as)
    for (uint16_t ak1 : as)
      for (uint16_t bk : zs)
        for (uint16_t bk1 : zs)
          for (float s : starts) set.add(ak, bk, ak1, bk1, s);
  // x - x with the other step zero: the sign of an exact zero sum depends on the order.
  set.add(kOne, kOne, kMinusOne, kOne, -0.0f);
  set.add(kOne, kOne, kNeg0, kOne, -1.0f);
  set.add(kNeg0, kOne, kOne, kOne, -1.0f);
  // Ties: 1 + 2^-24 rounds to 1 (even), twice; the two products summed first would give
  // 1 + 2^-23. And from 1 + 2^-23 (odd) a tie rounds up. Every sign.
  for (int s = 0; s < 2; ++s) {
    const float one = s ? -1.0f : 1.0f;
    const uint16_t tiny = bf(s, -24, 0);
    set.add(tiny, kOne, tiny, kOne, one);
    set.add(tiny, kOne, bf(s, -25, 0), kOne, one);
    set.add(tiny, kOne, tiny, kOne, from_bits(bits(one) + 1));
    set.add(bf(s, -24, 0x40), kOne, tiny, kOne, one);  // 1.5 * 2^-24: above the tie
    set.add(bf(s, 23, 0), kOne, bf(s, 0, 0), kOne, s ? -8388608.5f : 8388608.5f);
  }
  // The guard's extremes: products of 2^-112 with every fraction, partial sums near 2^-126
  // from starts of 2^-103, and cancellation down to the smallest multiple.
  for (int f = 0; f < 128; f += 9) {
    set.add(bf(0, -56, f), bf(0, -56, 127 - f), bf(1, -56, f), bf(0, -56, 127 - f), 0.0f);
    set.add(bf(0, -56, f), bf(1, -56, f), bf(0, -50, 0), bf(0, -62, f), from_bits(24u << 23));
    set.add(bf(1, -40, f), bf(0, -72, 3), bf(0, -41, f), bf(0, -71, 1),
            from_bits((24u << 23) | static_cast<uint32_t>(f) << 16));
  }
  // The other end: products beyond the largest float (2^128) that the next step brings back,
  // sums that overflow, and the largest values.
  set.add(bf(0, 64, 0), bf(0, 64, 0), kPos0, kOne, -from_bits(0x7f000000));
  set.add(bf(0, 64, 0), bf(0, 64, 0), bf(1, 64, 0), bf(0, 63, 0), 0.0f);
  set.add(bf(0, 127, 127), bf(0, 0, 127), bf(1, 127, 127), bf(0, 0, 127), 1.0f);
  set.add(bf(0, 127, 127), kOne, bf(0, 127, 127), kOne, from_bits(0x7f7fffff));
  set.add(bf(1, 127, 127), bf(0, 127, 127), kOne, kOne, -from_bits(0x7f7fffff));
  // Infinities and NaNs (quiet and signalling, with payloads, of both signs).
  const uint16_t specials[] = {kInf, kMinusInf, 0x7fc1, 0xffc5, 0x7f81, 0x7fa2, kOne, kPos0};
  for (uint16_t x : specials)
    for (uint16_t y : specials) set.add(x, kOne, y, kOne, 1.0f);
  const float special_starts[] = {INFINITY, -INFINITY, from_bits(0x7fc00003), from_bits(0x7f800011),
                                  from_bits(0xffc00000)};
  for (float s : special_starts) {
    set.add(kOne, kOne, kOne, kOne, s);
    set.add(kInf, kOne, kOne, kOne, s);
    set.add(0x7fc1, kOne, kOne, kOne, s);
  }
  // Random lanes in the guarded range, with cancellation: the second product near minus the
  // first, starts near +-either.
  Lcg rng;
  for (int l = 0; l < 4096; ++l) {
    const int e1 = rng.range(-56, 50), e2 = rng.range(-56, 50);
    const uint16_t ak = bf(rng.range(0, 1), e1, rng.range(0, 127));
    const uint16_t bk = bf(rng.range(0, 1), e2, rng.range(0, 127));
    const int shift = rng.range(-1, 1);
    const uint16_t ak1 =
        bf(((ak >> 15) ^ 1) ^ (rng.range(0, 3) == 0), e1 + shift, rng.range(0, 127));
    const uint16_t bk1 = bf(bk >> 15, e2 - shift, rng.range(0, 127));
    const float p = widen(ak) * widen(bk);
    float start = 0.0f;
    switch (rng.range(0, 3)) {
      case 0: start = -p * (1.0f + static_cast<float>(rng.range(-64, 64)) * 0x1p-10f); break;
      case 1: start = p; break;
      case 2: start = from_bits(bits(p) ^ (rng.next() & 0xffff)); break;
      default: start = 0.0f; break;
    }
    if (std::fabs(start) < 0x1p-103f) start = 0.0f;
    set.add(ak, bk, ak1, bk1, start);
  }
  while (set.acc.size() % 16 != 0) set.add(kPos0, kPos0, kPos0, kPos0, 0.0f);
  return set;
}

#if defined(INVAR_HAVE_AVX512_BF16)
// A is packed with alpha's sign (the kernel takes alpha = +-1 only: sbgemm_dot_applies).
void pack_a_pairs(int64_t mc, int64_t kc, const uint16_t* src, int64_t rs, int64_t cs, float alpha,
                  uint16_t* dst) {
  pack::pack_a_bf16_pairs<avx512::kSbgemmDotMr>(mc, kc, src, rs, cs, alpha < 0, dst);
}

// The kernel, with the blocking flags of the AVX-512 set's bf16 kernel for this CPU (the same
// tile shape; its KC, MC and NC then hold twice the steps, the panels being half the bytes).
GemmKernel make_dot_kernel() {
  GemmKernel k;
  if (const KernelSet* set = compiled_kernel_set(Isa::kAvx512)) {
    k.b_streams = set->sbgemm.b_streams;
    k.b_block_in_l2 = set->sbgemm.b_block_in_l2;
    k.panels_from_l2 = set->sbgemm.panels_from_l2;
  }
  k.name = "sbgemm_avx512bf16_12x32";
  k.mr = avx512::kSbgemmDotMr;
  k.nr = avx512::kSbgemmDotNr;
  k.a_in_bytes = k.b_in_bytes = 2;
  k.a_packed_bytes = k.b_packed_bytes = 2;
  k.c_bytes = 4;
  k.k_unit = 2;
  k.pack_a = sets::erase<&pack_a_pairs>;
  k.pack_b = sets::erase<&pack::pack_b_bf16_pairs<avx512::kSbgemmDotNr>>;
  k.ukernel = sets::erase<&avx512::sbgemm_avx512bf16_12x32>;
  return k;
}

// Multiply-adds per second of vdpbf16ps (two per lane) over those of vfmadd231ps (one), from
// the best of 8 alternating rounds of 96,000 instructions each.
double dot_rate() {
  using clock = std::chrono::steady_clock;
  double best[2] = {1e30, 1e30};
  for (int round = 0; round < 8; ++round) {
    for (int dot = 0; dot < 2; ++dot) {
      const auto t0 = clock::now();
      avx512::sbgemm_avx512bf16_spin(4000, dot == 1);
      const double t = std::chrono::duration<double>(clock::now() - t0).count();
      best[dot] = std::min(best[dot], t);
    }
  }
  return 2.0 * best[0] / best[1];
}

int min_exponent(int64_t rows, int64_t cols, const void* p, int64_t rs, int64_t cs) {
  const auto* x = static_cast<const uint16_t*>(p);
  if (cs == 1) return avx512::bf16_min_exponent_field(rows, cols, x, rs);
  return avx512::bf16_min_exponent_field(cols, rows, x, cs);  // rs == 1: stored transposed
}
#endif

}  // namespace

// The check and the rate run in the contract's floating-point mode (runtime/fp_mode.h), whatever
// mode the first caller's thread is in: the answer is the CPU's, not the caller's.
Bf16DotStatus bf16_dot_detect([[maybe_unused]] Bf16DotLanesFn lanes) {
  Bf16DotStatus s;
#if defined(INVAR_HAVE_AVX512_BF16)
  const runtime::FpModeGuard mode;
  if (!arch::cpu_features().avx512_bf16) {
    s.reason = "the CPU lacks AVX512_BF16";
    return s;
  }
  const Bf16DotCheck check = bf16_dot_check(lanes);
  if (!check.passed) {
    s.reason = "vdpbf16ps differs from the chain on this CPU (" + check.detail + ")";
    return s;
  }
  static const GemmKernel kernel = make_dot_kernel();
  s.kernel = &kernel;
  s.rate = dot_rate();
  s.faster = s.rate >= kBf16DotMinRate;
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.2f", s.rate);
  s.reason = "vdpbf16ps equals the chain on all " + std::to_string(check.lanes) +
             " lanes of the check, and does " + rate + " multiply-adds per fma's here (" +
             (s.faster ? "faster" : "slower") + " than the widened f32 path)";
#else
  s.reason = "not compiled into this build";
#endif
  return s;
}

Bf16DotCheck bf16_dot_check(Bf16DotLanesFn lanes) {
  const LaneSet set = adversarial_lanes();
  const int64_t n = static_cast<int64_t>(set.acc.size());
  std::vector<float> out(set.acc.size());
  lanes(n, set.a.data(), set.b.data(), set.acc.data(), out.data());
  Bf16DotCheck check;
  check.lanes = n;
  for (int64_t l = 0; l < n; ++l) {
    const float first = std::fma(widen(set.a[2 * l + 1]), widen(set.b[2 * l + 1]), set.acc[l]);
    const float want = std::fma(widen(set.a[2 * l]), widen(set.b[2 * l]), first);
    if (bits(out[l]) != bits(want)) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "lane %lld: a {%04x, %04x}, b {%04x, %04x}, acc %08x gave %08x, the chain %08x",
                    static_cast<long long>(l), set.a[2 * l + 1], set.a[2 * l], set.b[2 * l + 1],
                    set.b[2 * l], bits(set.acc[l]), bits(out[l]), bits(want));
      check.detail = buf;
      return check;
    }
  }
  check.passed = true;
  return check;
}

const Bf16DotStatus& bf16_dot_status() {
#if defined(INVAR_HAVE_AVX512_BF16)
  static const Bf16DotStatus status = bf16_dot_detect(&avx512::sbgemm_avx512bf16_lanes);
#else
  static const Bf16DotStatus status = bf16_dot_detect(nullptr);
#endif
  return status;
}

bool sbgemm_dot_applies(float alpha, int64_t m, int64_t n, int64_t k, const void* a, int64_t a_rs,
                        int64_t a_cs, const void* b, int64_t b_rs, int64_t b_cs) {
#if defined(INVAR_HAVE_AVX512_BF16)
  if (alpha != 1.0f && alpha != -1.0f) return false;
  // Biased fields: ea - 127 + eb - 127 >= -112. A zero operand (256) passes whatever the other
  // (its products are zeros, signed as the chain's); a subnormal one (field 0) never does, since
  // the instruction reads it as zero while its product with a large enough value is normal.
  const int ea = min_exponent(m, k, a, a_rs, a_cs);
  if (ea == 256) return true;
  if (ea == 0) return false;
  const int eb = min_exponent(k, n, b, b_rs, b_cs);
  if (eb == 256) return true;
  if (eb == 0) return false;
  return ea + eb >= 2 * 127 - 112;
#else
  (void)alpha, (void)m, (void)n, (void)k, (void)a, (void)a_rs, (void)a_cs, (void)b, (void)b_rs,
      (void)b_cs;
  return false;
#endif
}

}  // namespace invar::kernels

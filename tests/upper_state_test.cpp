// Every call returns with the upper halves of the vector registers clean (vzeroupper), so that
// the caller's SSE code after it runs at full speed: on Intel cores each legacy SSE instruction
// after 256- or 512-bit code that left them dirty pays a transition or a merge, and a scalar
// libm call per element ran some 40 times slower after such a call. XGETBV with ECX = 1 reads
// which state components are in use; bit 2 is the upper halves of ymm0..15 (bits 6 and 7, the
// zmm uppers, do not touch SSE code and are not checked). The AMX tiles' state is checked too.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "testing/seeded_data.h"

namespace invar {
namespace {

#if defined(__x86_64__)
// Whether XGETBV takes ECX = 1 (CPUID.(EAX=0DH, ECX=1):EAX bit 2).
bool has_xinuse() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(0xD, 1, &a, &b, &c, &d) && (a & (1u << 2)) != 0;
}

uint64_t xinuse() {
  uint32_t lo = 0, hi = 0;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (uint64_t{hi} << 32) | lo;
}

constexpr uint64_t kYmmUpper = 1u << 2;
// Bits 17 and 18: the AMX tile configuration and tile data, which every call leaves released
// (GemmKernel::release), so that the OS need not save them and the caller's own use of the
// tiles meets none of our state.
constexpr uint64_t kTiles = (uint64_t{1} << 17) | (uint64_t{1} << 18);

enum class Kind { kF32, kF64, kU8S8 };

// C = A * B for an m x n x k product of `kind` on `context`, on operands made for it.
void product(Kind kind, int64_t m, int64_t n, int64_t k, Context& context) {
  if (kind == Kind::kU8S8) {
    const std::vector<uint8_t> a(m * k, 200);
    const std::vector<int8_t> b(k * n, -3);
    std::vector<int32_t> c(m * n, 0);
    gemm(1, Op::kNoTrans, MatrixView<const uint8_t>(a.data(), m, k), Op::kNoTrans,
         MatrixView<const int8_t>(b.data(), k, n), 0, MatrixView<int32_t>(c.data(), m, n), context);
    EXPECT_EQ(c[0], 200 * -3 * k);
    return;
  }
  const std::vector<double> a = test::random_values<double>(m * k, 1 + m);
  const std::vector<double> b = test::random_values<double>(k * n, 2 + n);
  if (kind == Kind::kF64) {
    std::vector<double> c(m * n, 0.0);
    gemm(1.0, Op::kNoTrans, MatrixView<const double>(a.data(), m, k), Op::kNoTrans,
         MatrixView<const double>(b.data(), k, n), 0.0, MatrixView<double>(c.data(), m, n),
         context);
  } else {
    std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), cf(m * n, 0.0f);
    gemm(1.0f, Op::kNoTrans, MatrixView<const float>(af.data(), m, k), Op::kNoTrans,
         MatrixView<const float>(bf.data(), k, n), 0.0f, MatrixView<float>(cf.data(), m, n),
         context);
  }
}

TEST(UpperState, EveryPathReturnsWithTheYmmUppersCleanAndTilesReleased) {
  if (!has_xinuse() || !kernels::cpu_supports(Isa::kAvx2)) GTEST_SKIP() << "no XGETBV(1) or AVX";
  int checked = 0;
  for (Isa isa : kernels::available_isas()) {
    for (int threads : {1, 2}) {
      ContextOptions o;
      o.isa = isa;
      o.num_threads = threads;
      Context context(o);
      // Shapes for each route through the library: the direct kernel (M <= 4), the tiles over A in
      // place (the AVX2 wide and three-vector ones too: 16 and 20 rows), A read in place, the loop
      // nest with partial tiles, a product on two threads; for the AMX tiles, k with and without a
      // remainder past their 64-step chunks, several k-blocks.
      for (const auto& [m, n, k] : std::vector<std::array<int64_t, 3>>{{1, 64, 64},
                                                                       {4, 37, 19},
                                                                       {7, 9, 5},
                                                                       {16, 64, 64},
                                                                       {20, 28, 28},
                                                                       {64, 64, 64},
                                                                       {64, 64, 128},
                                                                       {100, 40, 70},
                                                                       {300, 32, 200},
                                                                       {130, 300, 260},
                                                                       {256, 256, 256},
                                                                       {130, 300, 2100}}) {
        for (Kind kind : {Kind::kF32, Kind::kF64, Kind::kU8S8}) {
          asm volatile("vzeroupper");
          ASSERT_EQ(xinuse() & kYmmUpper, 0u);
          ASSERT_EQ(xinuse() & kTiles, 0u) << "the tiles were in use before the call";
          product(kind, m, n, k, context);
          const char* name = kind == Kind::kF32 ? "f32" : kind == Kind::kF64 ? "f64" : "u8s8";
          EXPECT_EQ(xinuse() & kYmmUpper, 0u) << isa_name(isa) << " " << threads << " thread(s) "
                                              << name << " " << m << " x " << n << " x " << k;
          EXPECT_EQ(xinuse() & kTiles, 0u) << isa_name(isa) << " " << threads << " thread(s) "
                                           << name << " " << m << " x " << n << " x " << k;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}
#else
TEST(UpperState, EveryPathReturnsWithTheYmmUppersCleanAndTilesReleased) {
  GTEST_SKIP() << "x86-64 only";
}
#endif

}  // namespace
}  // namespace invar

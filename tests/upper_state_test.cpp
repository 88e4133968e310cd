// Every call returns with the upper halves of the vector registers clean (vzeroupper), so that
// the caller's SSE code after it runs at full speed: on Intel cores each legacy SSE instruction
// after 256- or 512-bit code that left them dirty pays a transition or a merge, and a scalar
// libm call per element ran some 40 times slower after such a call. XGETBV with ECX = 1 reads
// which state components are in use; bit 2 is the upper halves of ymm0..15 (bits 6 and 7, the
// zmm uppers, do not touch SSE code and are not checked).
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

TEST(UpperState, EveryPathReturnsWithTheYmmUppersClean) {
  if (!has_xinuse() || !kernels::cpu_supports(Isa::kAvx2)) GTEST_SKIP() << "no XGETBV(1) or AVX";
  int checked = 0;
  for (Isa isa : kernels::available_isas()) {
    for (int threads : {1, 2}) {
      ContextOptions o;
      o.isa = isa;
      o.num_threads = threads;
      Context context(o);
      // Shapes for each route through the library: the direct kernel (M <= 4), the small kernel,
      // A read in place, the loop nest with partial tiles, a product on two threads.
      for (const auto& [m, n, k] : std::vector<std::array<int64_t, 3>>{
               {1, 64, 64}, {4, 37, 19}, {7, 9, 5}, {64, 64, 64}, {100, 40, 70},
               {300, 32, 200}, {130, 300, 260}, {256, 256, 256}}) {
        for (bool f64 : {false, true}) {
          const std::vector<double> a = test::random_values<double>(m * k, 1 + m);
          const std::vector<double> b = test::random_values<double>(k * n, 2 + n);
          std::vector<double> c(m * n, 0.0);
          std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), cf(m * n, 0.0f);
          asm volatile("vzeroupper");
          ASSERT_EQ(xinuse() & kYmmUpper, 0u);
          if (f64) {
            gemm(1.0, Op::kNoTrans, MatrixView<const double>(a.data(), m, k), Op::kNoTrans,
                 MatrixView<const double>(b.data(), k, n), 0.0, MatrixView<double>(c.data(), m, n),
                 context);
          } else {
            gemm(1.0f, Op::kNoTrans, MatrixView<const float>(af.data(), m, k), Op::kNoTrans,
                 MatrixView<const float>(bf.data(), k, n), 0.0f,
                 MatrixView<float>(cf.data(), m, n), context);
          }
          EXPECT_EQ(xinuse() & kYmmUpper, 0u)
              << isa_name(isa) << " " << threads << " thread(s) " << (f64 ? "f64 " : "f32 ") << m
              << " x " << n << " x " << k;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// The integer products too, and the AMX kernels' tiles: bits 17 and 18 of XINUSE are the tile
// configuration and the tile data, which a call leaves released (GemmKernel::release) so that
// the OS need not save them and the caller's own use of the tiles meets none of our state.
constexpr uint64_t kTiles = (uint64_t{1} << 17) | (uint64_t{1} << 18);

TEST(UpperState, IntegerProductsReturnWithYmmUppersCleanAndTilesReleased) {
  if (!has_xinuse() || !kernels::cpu_supports(Isa::kAvx2)) GTEST_SKIP() << "no XGETBV(1) or AVX";
  int checked = 0;
  for (Isa isa : kernels::available_isas()) {
    for (int threads : {1, 2}) {
      ContextOptions o;
      o.isa = isa;
      o.num_threads = threads;
      Context context(o);
      // Whole and partial tiles, k with and without a remainder past the AMX tiles' 64-step
      // chunks, one k-block and several.
      for (const auto& [m, n, k] : std::vector<std::array<int64_t, 3>>{
               {1, 64, 64}, {7, 9, 5}, {64, 64, 128}, {100, 40, 70}, {130, 300, 2100}}) {
        const std::vector<uint8_t> a(m * k, 200);
        const std::vector<int8_t> b(k * n, -3);
        std::vector<int32_t> c(m * n, 0);
        asm volatile("vzeroupper");
        ASSERT_EQ(xinuse() & kYmmUpper, 0u);
        gemm(1, Op::kNoTrans, MatrixView<const uint8_t>(a.data(), m, k), Op::kNoTrans,
             MatrixView<const int8_t>(b.data(), k, n), 0, MatrixView<int32_t>(c.data(), m, n),
             context);
        EXPECT_EQ(c[0], 200 * -3 * k);
        EXPECT_EQ(xinuse() & kYmmUpper, 0u)
            << isa_name(isa) << " " << threads << " thread(s) u8s8 " << m << " x " << n << " x "
            << k;
        EXPECT_EQ(xinuse() & kTiles, 0u)
            << isa_name(isa) << " " << threads << " thread(s) u8s8 " << m << " x " << n << " x "
            << k;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}
#else
TEST(UpperState, EveryPathReturnsWithTheYmmUppersClean) { GTEST_SKIP() << "x86-64 only"; }
TEST(UpperState, IntegerProductsReturnWithYmmUppersCleanAndTilesReleased) {
  GTEST_SKIP() << "x86-64 only";
}
#endif

}  // namespace
}  // namespace invar

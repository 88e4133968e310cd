// Every compiled micro-kernel the CPU can run, alone: whole tiles from packed panels against the
// contract's chain computed from the same panels, for k around the unroll, every accumulator
// start and a strided C; a kernel's edge form alone on every partial tile, and its B-packing
// tile alone; then through the driver on every partial tile shape m = 1..MR, n = 1..NR+1.
// Compared with memcmp, padding of C included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "arch/cpu_features.h"
#include "driver/gemm_driver.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "kernels/sets/sets.h"
#include "numeric/half.h"
#include "support/driver_problem.h"
#include "support/guarded_buffer.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

using kernels::AccInit;

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using AlignedValues = std::unique_ptr<T[], AlignedFree>;

template <class T>
AlignedValues<T> aligned_values(std::size_t n, uint64_t seed) {
  const std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
  AlignedValues<T> p(static_cast<T*>(std::aligned_alloc(64, bytes)));
  Rng rng(seed);
  for (std::size_t i = 0; i < n; ++i) p[i] = rng.symmetric_value<T>();
  return p;
}

// The f32 and f64 kernels of a set.
template <class T>
const kernels::GemmKernel& kernel_of(const kernels::KernelSet& set) {
  return kernels::kernel_for<T>(set);
}

// Every test runs over the f32 kernels and over the f64 kernels.
template <class T>
class Ukernel : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Ukernel, ElementTypes);

// The reference's beta for a kernel's accumulator start: 0 (from zero, C not read), 1 (from C)
// or beta (from beta * C).
template <class T>
T start_beta(AccInit init, T beta) {
  return init == AccInit::kZero ? T(0) : init == AccInit::kLoad ? T(1) : beta;
}

// Every form of every path this CPU runs (the AVX-512 path has two, kernels/sets/avx512.cpp), so
// that each kernel is held to the chain here whichever form the CPU's vendor picks.
std::vector<const kernels::KernelSet*> runnable_sets() {
  std::vector<const kernels::KernelSet*> sets;
  for (Isa isa : kernels::available_isas()) {
    for (const kernels::KernelSet* set : kernels::compiled_kernel_sets(isa)) sets.push_back(set);
  }
  return sets;
}

// Every set compiled into this build, whether or not this CPU runs it (its fields are only read),
// with the fallbacks: each kernel has the fields it needs and the ones that go together
// (kernels/sets/sets.h, well_formed).
TEST(KernelSets, EveryCompiledSetIsWellFormed) {
  int checked = 0;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kNeon, Isa::kGeneric}) {
    for (const kernels::KernelSet* set : kernels::compiled_kernel_sets(isa)) {
      for (; set != nullptr; set = set->fallback) {
        EXPECT_TRUE(kernels::sets::well_formed(*set)) << isa_name(isa) << " " << set->sgemm.name;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// Every AVX-512 form is compiled together and runs on any AVX-512 CPU, this core's first.
TEST(KernelSets, EveryFormOfThePathIsListedAndTheChosenOneFirst) {
  const arch::CpuFeatures& cpu = arch::cpu_features();
  for (Isa isa : kernels::available_isas()) {
    const std::vector<const kernels::KernelSet*> sets = kernels::compiled_kernel_sets(isa);
    ASSERT_FALSE(sets.empty()) << isa_name(isa);
    EXPECT_EQ(sets.front(), kernels::compiled_kernel_set(isa)) << isa_name(isa);
    // A form is its f32 and integer kernels and where its B blocks live.
    std::vector<std::string> forms;
    for (const kernels::KernelSet* set : sets) {
      EXPECT_EQ(set->isa, isa);
      forms.push_back(std::string(set->sgemm.name) + " " + set->u8gemm.name +
                      (set->sgemm.b_block_in_l2 ? " L2" : " L3"));
    }
    EXPECT_EQ(std::set<std::string>(forms.begin(), forms.end()).size(), forms.size())
        << isa_name(isa) << ": one form listed twice";
    // The x86 sets size the B block for L3 on AMD's cores and for L2 on the others.
    const bool amd = arch::amd_or_hygon(cpu.vendor);
    if (isa == Isa::kAvx2 || isa == Isa::kAvx512) {
      const kernels::KernelSet& chosen = *sets.front();
      for (const kernels::GemmKernel* k : {&chosen.sgemm, &chosen.dgemm, &chosen.sbgemm,
                                           &chosen.shgemm, &chosen.s8gemm, &chosen.u8gemm})
        EXPECT_EQ(k->b_block_in_l2, !amd) << k->name;
    }
    if (isa == Isa::kAvx512) {
      // Three tile forms (register broadcasts with B in L2 or L3, folded with B in L3), and a
      // fourth where the AMX kernels take the integer products: the VNNI ones stay tested.
      const bool amx = std::string(sets.front()->u8gemm.name).find("_amx_") != std::string::npos;
      EXPECT_EQ(amx, INVAR_TEST_HAVE_AMX && cpu.amx_int8 && !amd);
      ASSERT_EQ(sets.size(), amx ? 4u : 3u);
      EXPECT_EQ(std::string(sets.front()->sgemm.name), arch::avx512_on_256bit_halves(cpu)
                                                           ? "sgemm_avx512_12x32_membcast"
                                                           : "sgemm_avx512_12x32");
    } else {
      EXPECT_EQ(sets.size(), 1u) << isa_name(isa);
    }
  }
}

// The cores on 256-bit halves, by family and model (CPUID leaf 1 as the vendors fold it).
TEST(KernelSets, CoresOn256BitHalvesAreZen4AndZen5Mobile) {
  const auto halves = [](const char* vendor, int family, int model) {
    arch::CpuFeatures cpu;
    cpu.vendor = vendor;
    cpu.family = family;
    cpu.model = model;
    return arch::avx512_on_256bit_halves(cpu);
  };
  EXPECT_TRUE(halves("AuthenticAMD", 0x19, 0x11));   // Zen 4 EPYC (Genoa)
  EXPECT_TRUE(halves("AuthenticAMD", 0x19, 0x61));   // Zen 4 Ryzen
  EXPECT_FALSE(halves("AuthenticAMD", 0x1A, 0x02));  // Zen 5 EPYC (Turin)
  EXPECT_FALSE(halves("AuthenticAMD", 0x1A, 0x44));  // Zen 5 Ryzen desktop
  EXPECT_TRUE(halves("AuthenticAMD", 0x1A, 0x24));   // Zen 5 mobile
  EXPECT_TRUE(halves("AuthenticAMD", 0x1A, 0x70));
  EXPECT_FALSE(halves("GenuineIntel", 0x6, 0xCF));  // Xeon (Emerald Rapids)
  EXPECT_FALSE(halves("GenuineIntel", 0x19, 0x11));
}

TYPED_TEST(Ukernel, WholeTilesMatchTheChainOnPackedPanels) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    const int mr = kern.mr, nr = kern.nr;
    const int64_t ldc = nr + 3;
    for (int64_t kc : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 257}) {
      const AlignedValues<T> a = aligned_values<T>(kc * mr, 10 + kc);
      const AlignedValues<T> b = aligned_values<T>(kc * nr, 20 + kc);
      for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
        const T beta = init == AccInit::kScale ? T(-3.7) : T(0);
        std::vector<T> c = random_values<T>(mr * ldc, 30 + kc);
        if (init == AccInit::kZero) {
          for (int i = 0; i < mr; ++i)
            for (int j = 0; j < nr; ++j) c[i * ldc + j] = nan;  // must never be read
        }
        std::vector<T> expected = c;
        for (int i = 0; i < mr; ++i) {
          for (int j = 0; j < nr; ++j) {
            T& e = expected[i * ldc + j];
            T acc = init == AccInit::kZero ? T(0) : init == AccInit::kLoad ? e : beta * e;
            for (int64_t p = 0; p < kc; ++p) acc = std::fma(a[p * mr + i], b[p * nr + j], acc);
            e = acc;
          }
        }
        // alpha is already in the packed A: the kernel must not apply it again.
        const T alpha_in_a = T(2.5);
        kern.ukernel(kc, a.get(), b.get(), c.data(), ldc, init, &alpha_in_a, &beta);
        ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
            << kern.name << " kc=" << kc << " init=" << static_cast<int>(init);
      }
    }
  }
}

// The tile that packs B on its way: over a row-major B in place (rows ldb apart) it computes the
// whole tile's chains and leaves exactly the micro-panel pack_b makes from that B.
TYPED_TEST(Ukernel, PackingBTilesMatchTheChainAndLeaveThePanel) {
  using T = TypeParam;
  int tested = 0;
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    if (kern.ukernel_packing_b == nullptr) continue;
    ++tested;
    const int mr = kern.mr, nr = kern.nr;
    const int64_t ldc = nr + 3, ldb = nr + 5;
    for (int64_t kc : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 257}) {
      const AlignedValues<T> a = aligned_values<T>(kc * mr, 40 + kc);
      const std::vector<T> b = random_values<T>(kc * ldb, 50 + kc);
      AlignedValues<T> packed = aligned_values<T>(kc * nr, 60 + kc);
      kern.pack_b(kc, nr, b.data(), ldb, 1, packed.get());
      for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
        const T beta = init == AccInit::kScale ? T(-3.7) : T(0);
        std::vector<T> c = random_values<T>(mr * ldc, 70 + kc);
        std::vector<T> expected = c;
        const T alpha_in_a = T(2.5);
        kern.ukernel(kc, a.get(), packed.get(), expected.data(), ldc, init, &alpha_in_a, &beta);
        AlignedValues<T> panel = aligned_values<T>(kc * nr, 80 + kc);
        for (int64_t i = 0; i < kc * nr; ++i) panel[i] = std::numeric_limits<T>::quiet_NaN();
        kern.ukernel_packing_b(kc, a.get(), b.data(), ldb, panel.get(), c.data(), ldc, init,
                               &alpha_in_a, &beta);
        ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
            << kern.name << " kc=" << kc << " init=" << static_cast<int>(init);
        ASSERT_EQ(std::memcmp(panel.get(), packed.get(), kc * nr * sizeof(T)), 0)
            << kern.name << " kc=" << kc;
      }
    }
  }
  // The AVX-512 f32 kernel has one; a machine with AVX-512 must have run it.
  if (std::is_same_v<T, float> && kernels::cpu_supports(Isa::kAvx512) &&
      kernels::compiled_kernel_set(Isa::kAvx512) != nullptr)
    EXPECT_GT(tested, 0);
}

// A kernel's edge form alone, on every partial tile shape (rows 1..MR, cols 1..NR) from whole
// padded panels: the block's elements get the contract's chains from the same panels, and no
// other element of C is read or written. The C block ends at a guard page (ldc = cols, so the
// last row's last element is the buffer's last), or has three sentinel columns after each row
// (ldc = cols + 3) that must keep their bits; C starts as NaN where the accumulators start from
// zero.
TYPED_TEST(Ukernel, EdgeKernelsTouchOnlyTheirBlock) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  int tested = 0;
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    if (kern.ukernel_edge == nullptr) continue;
    ++tested;
    const int mr = kern.mr, nr = kern.nr;
    for (int64_t kc : {1, 3, 17}) {
      const AlignedValues<T> a = aligned_values<T>(kc * mr, 40 + kc);
      const AlignedValues<T> b = aligned_values<T>(kc * nr, 50 + kc);
      for (int64_t rows = 1; rows <= mr; ++rows) {
        for (int64_t cols = 1; cols <= nr; ++cols) {
          for (int64_t pad : {0, 3}) {
            for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
              const T beta = init == AccInit::kScale ? T(0.75) : T(0);
              const int64_t ldc = cols + pad;
              GuardedBuffer<T> c(static_cast<std::size_t>(rows * ldc));
              const std::vector<T> start = random_values<T>(c.size(), rows * 100 + cols + kc);
              std::memcpy(c.data(), start.data(), c.size() * sizeof(T));
              if (init == AccInit::kZero) {
                for (int64_t i = 0; i < rows; ++i)
                  for (int64_t j = 0; j < cols; ++j) c.data()[i * ldc + j] = nan;
              }
              std::vector<T> expected(c.data(), c.data() + c.size());
              for (int64_t i = 0; i < rows; ++i) {
                for (int64_t j = 0; j < cols; ++j) {
                  T& e = expected[i * ldc + j];
                  T acc = init == AccInit::kZero ? T(0) : init == AccInit::kLoad ? e : beta * e;
                  for (int64_t p = 0; p < kc; ++p)
                    acc = std::fma(a[p * mr + i], b[p * nr + j], acc);
                  e = acc;
                }
              }
              const T alpha_in_a = T(2.5);
              kern.ukernel_edge(rows, cols, kc, a.get(), b.get(), c.data(), ldc, init, &alpha_in_a,
                                &beta);
              ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
                  << kern.name << " rows=" << rows << " cols=" << cols << " kc=" << kc
                  << " ldc=" << ldc << " init=" << static_cast<int>(init);
            }
          }
        }
      }
    }
  }
  // The AVX-512 kernels have an edge form; a machine with AVX-512 must have run them.
  if (kernels::cpu_supports(Isa::kAvx512) && kernels::compiled_kernel_set(Isa::kAvx512) != nullptr)
    EXPECT_GT(tested, 0);
}

TYPED_TEST(Ukernel, EveryPartialTileThroughTheDriver) {
  using T = TypeParam;
  runtime::Workspace workspace;
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    for (int64_t m = 1; m <= kern.mr; ++m) {
      for (int64_t n = 1; n <= kern.nr + 1; ++n) {
        for (int64_t k : {1, 5, 8, 13}) {
          for (T beta : {T(0), T(1), T(0.5)}) {
            const T alpha = n % 2 ? T(1) : T(2);
            const int64_t ldc = n + 2;
            const auto a = random_values<T>(m * k, m * 100 + n);
            const auto b = random_values<T>(k * n, k * 100 + n);
            auto c = random_values<T>(m * ldc, m + n + k);
            if (beta == T(0)) {
              for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j)
                  c[i * ldc + j] = std::numeric_limits<T>::quiet_NaN();
            }
            auto expected = c;
            reference_gemm<T>(false, false, m, n, k, alpha, a.data(), k, b.data(), n, beta,
                              expected.data(), ldc);
            const AccInit init = beta == T(0)   ? AccInit::kZero
                                 : beta == T(1) ? AccInit::kLoad
                                                : AccInit::kScale;
            driver::GemmProblem p = driver_problem<T>(m, n, k, false, a.data(), k, false, b.data(),
                                                      n, c.data(), ldc, &alpha, &beta, init);
            p.allow_direct = false;  // every partial tile of the packed path
            driver::run_gemm(kern, p, {kern.mr, 4, kern.nr}, workspace);
            ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
                << kern.name << " m=" << m << " n=" << n << " k=" << k << " beta=" << beta;
          }
        }
      }
    }
  }
}

TYPED_TEST(Ukernel, DirectKernelsMatchTheChainOnUnpackedOperands) {
  using T = TypeParam;
  int with_args = 0;
  bool avx2 = false;
  for (const kernels::KernelSet* set : runnable_sets()) {
    avx2 = avx2 || set->isa == Isa::kAvx2;
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    if (kern.direct == nullptr) continue;
    // Widths around the few-rows blocks too (kernels/few_rows_body.h: 12 vectors over 1 row
    // down to 3 over 4; one vector, or half of one, whole or masked), and depths around its
    // buffer's chunks (256 k steps).
    const int64_t dnr = kern.direct_nr;
    for (int64_t nr : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}, int64_t{8}, dnr - 1, dnr + 1,
                       int64_t{25}, int64_t{47}, int64_t{101}, 9 * dnr + 5}) {
      const int64_t ldb = nr + 5, ldc = nr + 3;
      // Rows up to direct_mr for the direct kernel; for its record form every row count up to
      // 10, then groups of rows of balanced splits (few_rows_groups) and past its table (64).
      for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 16, 25, 70}) {
        for (int64_t k : {1, 2, 3, 7, 16, 33, 256, 257, 300, 600}) {
          for (bool trans_a : {false, true}) {
            for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
              const T alpha = k % 2 ? T(1) : T(-0.5);
              const T beta = init == AccInit::kScale ? T(3.7) : T(0);
              const int64_t a_rs = trans_a ? 1 : k, a_cs = trans_a ? m : 1;
              const auto a = random_values<T>(m * k, 40 + k + m);
              const auto b = random_values<T>(k * ldb, 50 + k);
              auto c = random_values<T>(m * ldc, 60 + k + m);
              if (init == AccInit::kZero) {
                for (int64_t i = 0; i < m; ++i)
                  for (int64_t j = 0; j < nr; ++j)
                    c[i * ldc + j] = std::numeric_limits<T>::quiet_NaN();
              }
              auto expected = c;
              reference_gemm<T>(trans_a, false, m, nr, k, alpha, a.data(), trans_a ? m : k,
                                b.data(), ldb, start_beta(init, beta), expected.data(), ldc);
              const auto c0 = c;
              if (m <= kern.direct_mr) {
                kern.direct(m, nr, k, &alpha, a.data(), a_rs, a_cs, b.data(), ldb, c.data(), ldc,
                            init, &beta);
                ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
                    << kern.name << " direct m=" << m << " n=" << nr << " k=" << k
                    << " trans_a=" << trans_a;
              }
              // The record form (the tiny lane's), for any rows.
              if (kern.direct_args == nullptr) continue;
              c = c0;
              kern.direct_args({m, nr, k, &alpha, a.data(), a_rs, a_cs, b.data(), ldb, c.data(),
                                ldc, init, &beta});
              ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
                  << kern.name << " direct_args m=" << m << " n=" << nr << " k=" << k
                  << " trans_a=" << trans_a;
              ++with_args;
            }
          }
        }
      }
    }
  }
  // The AVX2 and AVX-512 sets offer the record form: it must have been tested where they run.
  if (avx2) EXPECT_GT(with_args, 0);
}

// The record form over a strided batch (GemmKernel::direct_batch) against the chain, entry by
// entry: every row count it takes, widths around one and two vectors of either ISA's lanes (8 and
// 16 f32, 4 and 8 f64: its blocks' instances) and past them (the per-entry form), alpha 1 with A
// in place and alpha != 1 or a transposed A (through few_rows' buffer). The entries lie in one
// buffer per operand, a gap of NaN between them; B's rows hold exactly n values (ldb == n) and
// its last entry ends at a guard page, as does A's, so a read past an entry's columns or a step
// too many faults or shows; C's two padding columns and the gaps must come back unchanged.
TYPED_TEST(Ukernel, DirectBatchMatchesTheChainPerEntry) {
  using T = TypeParam;
  int tested = 0;
  bool offered = false;
  for (const kernels::KernelSet* set : runnable_sets()) {
    offered = offered || set->isa == Isa::kAvx2 || set->isa == Isa::kAvx512;
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    if (kern.direct_batch == nullptr) continue;
    ASSERT_NE(kern.direct_args, nullptr) << kern.name;
    ++tested;
    const int64_t count = 3;
    for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13}) {
      for (int64_t n : {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33}) {
        for (int64_t k : {1, 2, 5, 17}) {
          for (bool trans_a : {false, true}) {
            for (T alpha : {T(1), T(-0.5)}) {
              for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
                const T beta = init == AccInit::kScale ? T(-0.75) : T(0);
                const int64_t ldc = n + 2;
                const int64_t sa = m * k + 1, sb = k * n + 1, sc = m * ldc + 1;
                const T nan = std::numeric_limits<T>::quiet_NaN();
                GuardedBuffer<T> a(static_cast<std::size_t>((count - 1) * sa + m * k));
                GuardedBuffer<T> b(static_cast<std::size_t>((count - 1) * sb + k * n));
                const auto av = random_values<T>(a.size(), 30 + m + k);
                const auto bv = random_values<T>(b.size(), 31 + n + k);
                std::memcpy(a.data(), av.data(), a.size() * sizeof(T));
                std::memcpy(b.data(), bv.data(), b.size() * sizeof(T));
                for (int64_t e = 1; e < count; ++e) {
                  a.data()[e * sa - 1] = nan;
                  b.data()[e * sb - 1] = nan;
                }
                auto c = random_values<T>((count - 1) * sc + m * ldc, 32 + m + n + k);
                if (init == AccInit::kZero) {
                  for (int64_t e = 0; e < count; ++e)
                    for (int64_t i = 0; i < m; ++i)
                      for (int64_t j = 0; j < n; ++j) c[e * sc + i * ldc + j] = nan;
                }
                auto expected = c;
                const int64_t a_rs = trans_a ? 1 : k, a_cs = trans_a ? m : 1;
                for (int64_t e = 0; e < count; ++e)
                  reference_gemm<T>(trans_a, false, m, n, k, alpha, a.data() + e * sa,
                                    trans_a ? m : k, b.data() + e * sb, n, start_beta(init, beta),
                                    expected.data() + e * sc, ldc);
                kern.direct_batch({m, n, k, &alpha, a.data(), a_rs, a_cs, b.data(), n, c.data(),
                                   ldc, init, &beta},
                                  count, sa, sb, sc);
                ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
                    << kern.name << " direct_batch m=" << m << " n=" << n << " k=" << k
                    << " trans_a=" << trans_a << " alpha=" << alpha;
              }
            }
          }
        }
      }
    }
  }
  // The AVX2 and AVX-512 sets offer it: it must have been tested where they run.
  if (offered) EXPECT_GT(tested, 0);
}

// The micro-kernels over A in place (alpha 1) against the chain, over row and column counts around
// their tiles (and the AVX2 tiles' forms: blocks of two groups, 2 * NR columns, one or two blocks
// and a rest of each width; three vectors, 3 * NR / 2 columns, whole or partial), k around the
// unroll, every accumulator start and padded leading dimensions, with B in place (row-major,
// groups NR apart) and as packed panels (groups gs apart, here with a gap of one row between
// panels so that a wrong group stride reads the wrong values). A and B end at guard pages (the
// last row of an in-place B holds exactly n values when ldb == n), so a partial tile that read
// past its columns, or a row past the last, would fault; C's padding keeps its bits.
TYPED_TEST(Ukernel, SmallKernelsMatchTheChainInPlace) {
  using T = TypeParam;
  int tested = 0;
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    if (kern.ukernel_a_in_place == nullptr) continue;
    ++tested;
    const int64_t mr = kern.mr, nr = kern.nr;
    for (int64_t m : {int64_t{1}, int64_t{2}, int64_t{5}, mr, mr + 1, 2 * mr + 3}) {
      for (int64_t n : {int64_t{1}, nr / 2, nr - 1, nr, nr + 1, 3 * nr / 2, 2 * nr - 1, 2 * nr,
                        2 * nr + 5, 2 * nr + 3 * nr / 2 - 1, 4 * nr + 3}) {
        for (int64_t k : {1, 4, 7, 33}) {
          for (int64_t pad : {0, 3}) {
            for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
              for (bool panels : {false, true}) {
                const T beta = init == AccInit::kScale ? T(-0.75) : T(0);
                const int64_t lda = k + pad, ldb = n + pad, ldc = n + 2;
                GuardedBuffer<T> a(static_cast<std::size_t>(m * lda));
                GuardedBuffer<T> b(static_cast<std::size_t>(k * ldb));
                const auto av = random_values<T>(a.size(), 70 + m + k);
                const auto bv = random_values<T>(b.size(), 80 + n + k);
                std::memcpy(a.data(), av.data(), a.size() * sizeof(T));
                std::memcpy(b.data(), bv.data(), b.size() * sizeof(T));
                // The panels: group g's rows NR apart, zero-padded past n; groups (k + 1) * NR
                // apart, the row between them NaN (a step too many would show).
                const int64_t groups = (n + nr - 1) / nr, gs = (k + 1) * nr;
                GuardedBuffer<T> packed(static_cast<std::size_t>((groups - 1) * gs + k * nr));
                std::fill(packed.data(), packed.data() + packed.size(),
                          std::numeric_limits<T>::quiet_NaN());
                for (int64_t g = 0; g < groups; ++g)
                  for (int64_t p = 0; p < k; ++p)
                    for (int64_t j = g * nr; j < (g + 1) * nr; ++j)
                      packed.data()[g * gs + p * nr + j - g * nr] =
                          j < n ? b.data()[p * ldb + j] : T(0);
                auto c = random_values<T>(m * ldc, 90 + m + n + k);
                if (init == AccInit::kZero) {
                  for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = 0; j < n; ++j)
                      c[i * ldc + j] = std::numeric_limits<T>::quiet_NaN();
                }
                auto expected = c;
                reference_gemm<T>(false, false, m, n, k, T(1), a.data(), lda, b.data(), ldb,
                                  start_beta(init, beta), expected.data(), ldc);
                if (panels) {
                  kern.ukernel_a_in_place(m, n, k, a.data(), lda, packed.data(), nr, gs, c.data(),
                                          ldc, init, &beta);
                } else {
                  kern.ukernel_a_in_place(m, n, k, a.data(), lda, b.data(), ldb, nr, c.data(), ldc,
                                          init, &beta);
                }
                ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
                    << kern.name << " small m=" << m << " n=" << n << " k=" << k << " pad=" << pad
                    << " init=" << static_cast<int>(init) << " panels=" << panels;
              }
            }
          }
        }
      }
    }
  }
  if (kernels::cpu_supports(Isa::kAvx2) && kernels::compiled_kernel_set(Isa::kAvx2) != nullptr)
    EXPECT_GT(tested, 0);
}

// B stored transposed (x * W^T): the direct_t kernels, and their direct_t_cached and
// direct_t_alone forms, against the chain, over column counts around their groups (and pairs of
// groups) and k around the in-register transposes (8 and 16 steps), their tails and the pairs'
// skews (32 and 64 steps).
TYPED_TEST(Ukernel, TransposedDirectKernelsMatchTheChain) {
  using T = TypeParam;
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    if (kern.direct_t == nullptr) continue;
    const int64_t w = kern.direct_t_nr;
    for (const auto fn : {kern.direct_t, kern.direct_t_cached, kern.direct_t_alone}) {
      if (fn == nullptr) continue;
      const char* form = fn == kern.direct_t          ? " direct_t"
                         : fn == kern.direct_t_cached ? " direct_t_cached"
                                                      : " direct_t_alone";
      for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{9}, w - 1, w, w + 1, 2 * w,
                        2 * w + 1, 3 * w + 13, 4 * w + 9}) {
        for (int64_t m = 1; m <= kernels::kDirectMaxRows; ++m) {
          for (int64_t k : {1, 7, 8, 9, 15, 16, 17, 23, 32, 39, 40, 47, 64, 72, 79, 301}) {
            const int64_t ldb = k + 3, ldc = n + 2;
            for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
              const bool trans_a = (n + k) % 2;
              const T alpha = k % 2 ? T(1) : T(-0.3);
              const T beta = init == AccInit::kScale ? T(3.7) : T(0);
              const int64_t a_rs = trans_a ? 1 : k, a_cs = trans_a ? m : 1;
              const auto a = random_values<T>(m * k, 70 + k + m);
              const auto b = random_values<T>(n * ldb, 80 + k + n);  // n x k, row stride ldb
              auto c = random_values<T>(m * ldc, 90 + k + m);
              if (init == AccInit::kZero) {
                for (int64_t i = 0; i < m; ++i)
                  for (int64_t j = 0; j < n; ++j)
                    c[i * ldc + j] = std::numeric_limits<T>::quiet_NaN();
              }
              auto expected = c;
              reference_gemm<T>(trans_a, true, m, n, k, alpha, a.data(), trans_a ? m : k, b.data(),
                                ldb, start_beta(init, beta), expected.data(), ldc);
              fn(m, n, k, &alpha, a.data(), a_rs, a_cs, b.data(), ldb, c.data(), ldc, init, &beta);
              ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
                  << kern.name << form << " m=" << m << " n=" << n << " k=" << k
                  << " init=" << static_cast<int>(init);
            }
          }
        }
      }
    }
  }
}

// The direct kernels over prepacked panels (K x NR, panel after panel) against the chain, over
// column counts that cover runs of several panels, single panels and a partial last one. The
// AVX-512 set's direct kernels are AVX2 code (kernels/sets/avx512.cpp), so its 32-column variant
// is tested wherever AVX2 runs.
TYPED_TEST(Ukernel, PanelDirectKernelsMatchTheChainOnPrepackedPanels) {
  using T = TypeParam;
  int tested = 0;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kNeon, Isa::kGeneric}) {
    const kernels::KernelSet* set = kernels::compiled_kernel_set(isa);
    if (set == nullptr) continue;
    const bool runs =
        kernels::cpu_supports(isa) || (isa == Isa::kAvx512 && kernels::cpu_supports(Isa::kAvx2));
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    if (!runs || kern.direct_panels == nullptr) continue;
    ++tested;
    const int64_t nr = kern.nr;
    for (int64_t n : {int64_t{1}, nr - 1, nr + 3, 4 * nr, 9 * nr + 5}) {
      for (int64_t m = 1; m <= kern.direct_mr; ++m) {
        for (int64_t k : {1, 7, 33}) {
          const int64_t panels = (n + nr - 1) / nr, ldc = n + 2;
          const auto b = random_values<T>(k * n, 110 + k + n);  // k x n, row-major
          const AlignedValues<T> packed = aligned_values<T>(panels * nr * k, 3);
          kern.pack_b(k, n, b.data(), n, 1, packed.get());
          for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
            const T alpha = k % 2 ? T(1) : T(-0.3);
            const T beta = init == AccInit::kScale ? T(3.7) : T(0);
            const auto a = random_values<T>(m * k, 120 + k + m);
            auto c = random_values<T>(m * ldc, 130 + k + m);
            if (init == AccInit::kZero) {
              for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j)
                  c[i * ldc + j] = std::numeric_limits<T>::quiet_NaN();
            }
            auto expected = c;
            reference_gemm<T>(false, false, m, n, k, alpha, a.data(), k, b.data(), n,
                              start_beta(init, beta), expected.data(), ldc);
            kern.direct_panels(m, n, k, &alpha, a.data(), k, 1, packed.get(), k * nr, c.data(), ldc,
                               init, &beta);
            ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(T)), 0)
                << kern.name << " direct_panels m=" << m << " n=" << n << " k=" << k
                << " init=" << static_cast<int>(init);
          }
        }
      }
    }
  }
#if defined(__x86_64__)
  if (kernels::cpu_supports(Isa::kAvx2)) EXPECT_GT(tested, 0) << "no panel kernel was exercised";
#elif defined(__aarch64__)
  if (std::is_same_v<T, float>) EXPECT_GT(tested, 0) << "no panel kernel was exercised";
#endif
}

// Every kernel's B packer against the portable one, for a transposed source (the layout ISA
// packers may special-case) and a row-major one, over panel and k edges.
TEST(Ukernel, EveryBPackerWritesThePortableLayout) {
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = set->sgemm;
    const int64_t nr = kern.nr;
    for (int64_t nc : {int64_t{1}, nr - 1, nr, 3 * nr + 5}) {
      for (int64_t kc : {1, 7, 8, 9, 31}) {
        for (bool transposed : {false, true}) {
          const int64_t ld = (transposed ? kc : nc) + 3;
          const auto src = random_floats((transposed ? nc : kc) * ld, 7 * nc + kc);
          const int64_t rs = transposed ? 1 : ld, cs = transposed ? ld : 1;
          const int64_t panels = (nc + nr - 1) / nr;
          const AlignedValues<float> got = aligned_values<float>(panels * nr * kc, 1);
          const AlignedValues<float> want = aligned_values<float>(panels * nr * kc, 2);
          kern.pack_b(kc, nc, src.data(), rs, cs, got.get());
          // The portable layout, element by element (pack.h).
          for (int64_t s = 0; s < panels; ++s)
            for (int64_t p = 0; p < kc; ++p)
              for (int64_t j = 0; j < nr; ++j)
                want[(s * kc + p) * nr + j] =
                    s * nr + j < nc ? src[p * rs + (s * nr + j) * cs] : 0.0f;
          ASSERT_EQ(std::memcmp(got.get(), want.get(), panels * nr * kc * sizeof(float)), 0)
              << kern.name << " nc=" << nc << " kc=" << kc << " transposed=" << transposed;
        }
      }
    }
  }
}

// Every kernel's A packer against the portable layout, for a row-major source (the layout ISA
// packers special-case) and a transposed one, alpha 1 and not, over panel and k edges.
TYPED_TEST(Ukernel, EveryAPackerWritesThePortableLayout) {
  using T = TypeParam;
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = kernel_of<T>(*set);
    const int64_t mr = kern.mr;
    for (int64_t mc : {int64_t{1}, mr - 1, mr, 3 * mr + 5}) {
      // Around the AVX2 packers' 8 steps and the AVX-512 one's 16.
      for (int64_t kc : {1, 7, 8, 9, 15, 16, 17, 31, 48, 50}) {
        for (bool transposed : {false, true}) {
          for (T alpha : {T(1), T(-0.3)}) {
            const int64_t ld = (transposed ? mc : kc) + 3;
            const auto floats = random_floats((transposed ? kc : mc) * ld, 9 * mc + kc);
            const std::vector<T> src(floats.begin(), floats.end());
            const int64_t rs = transposed ? 1 : ld, cs = transposed ? ld : 1;
            const int64_t panels = (mc + mr - 1) / mr;
            // One panel more than needed: nothing may be written past the block.
            const AlignedValues<T> got = aligned_values<T>((panels + 1) * mr * kc, 1);
            const AlignedValues<T> want = aligned_values<T>((panels + 1) * mr * kc, 1);
            kern.pack_a(mc, kc, src.data(), rs, cs, &alpha, got.get());
            // The portable layout, element by element (pack.h).
            for (int64_t r = 0; r < panels; ++r)
              for (int64_t p = 0; p < kc; ++p)
                for (int64_t i = 0; i < mr; ++i)
                  want[(r * kc + p) * mr + i] =
                      r * mr + i < mc ? alpha * src[(r * mr + i) * rs + p * cs] : T(0);
            ASSERT_EQ(std::memcmp(got.get(), want.get(), (panels + 1) * mr * kc * sizeof(T)), 0)
                << kern.name << " mc=" << mc << " kc=" << kc << " transposed=" << transposed
                << " alpha=" << alpha;
          }
        }
      }
    }
  }
}

// Every bf16 and f16 kernel's packers (ISA packers widen eight values per instruction) against
// the portable widening (numeric/half.h), element by element: sources of raw bits drawn over all
// 65536 patterns, so NaNs with payloads, infinities, signed zeros and f16 subnormals all occur;
// row-major and transposed sources, alpha 1 and not, over panel and k edges.
template <class Src>
void check_narrow_packers(const kernels::GemmKernel& kern) {
  const int64_t mr = kern.mr, nr = kern.nr;
  Rng rng(77);
  // op(X) is `rows` x `cols`, stored row-major or transposed with a padded leading dimension;
  // returns the source and sets the strides of op(X)[r][c] = src[r * rs + c * cs].
  auto source = [&rng](int64_t rows, int64_t cols, bool transposed, int64_t* rs, int64_t* cs) {
    const int64_t ld = (transposed ? rows : cols) + 3;
    *rs = transposed ? 1 : ld;
    *cs = transposed ? ld : 1;
    std::vector<Src> src(static_cast<std::size_t>((transposed ? cols : rows) * ld));
    for (Src& x : src) x.bits = static_cast<uint16_t>(rng.next());
    return src;
  };
  for (int64_t extent : {int64_t{1}, int64_t{6}, 3 * std::max(mr, nr) + 5}) {
    for (int64_t kc : {1, 7, 8, 9, 31}) {
      for (bool transposed : {false, true}) {
        int64_t rs = 0, cs = 0;
        const std::vector<Src> b = source(kc, extent, transposed, &rs, &cs);
        const int64_t panels_b = (extent + nr - 1) / nr;
        // One panel more than needed: nothing may be written past the block.
        const std::size_t count_b = static_cast<std::size_t>((panels_b + 1) * nr * kc);
        const AlignedValues<float> got_b = aligned_values<float>(count_b, 3);
        const AlignedValues<float> want_b = aligned_values<float>(count_b, 3);
        kern.pack_b(kc, extent, b.data(), rs, cs, got_b.get());
        for (int64_t s = 0; s < panels_b; ++s)
          for (int64_t p = 0; p < kc; ++p)
            for (int64_t j = 0; j < nr; ++j)
              want_b[(s * kc + p) * nr + j] =
                  s * nr + j < extent ? numeric::widen(b[p * rs + (s * nr + j) * cs]) : 0.0f;
        ASSERT_EQ(std::memcmp(got_b.get(), want_b.get(), count_b * sizeof(float)), 0)
            << kern.name << " pack_b nc=" << extent << " kc=" << kc << " transposed=" << transposed;

        const std::vector<Src> a = source(extent, kc, transposed, &rs, &cs);
        const int64_t panels_a = (extent + mr - 1) / mr;
        const std::size_t count_a = static_cast<std::size_t>((panels_a + 1) * mr * kc);
        for (float alpha : {1.0f, -0.3f}) {
          const AlignedValues<float> got_a = aligned_values<float>(count_a, 4);
          const AlignedValues<float> want_a = aligned_values<float>(count_a, 4);
          kern.pack_a(extent, kc, a.data(), rs, cs, &alpha, got_a.get());
          for (int64_t r = 0; r < panels_a; ++r)
            for (int64_t p = 0; p < kc; ++p)
              for (int64_t i = 0; i < mr; ++i)
                want_a[(r * kc + p) * mr + i] =
                    r * mr + i < extent ? alpha * numeric::widen(a[(r * mr + i) * rs + p * cs])
                                        : 0.0f;
          ASSERT_EQ(std::memcmp(got_a.get(), want_a.get(), count_a * sizeof(float)), 0)
              << kern.name << " pack_a mc=" << extent << " kc=" << kc
              << " transposed=" << transposed << " alpha=" << alpha;
        }
      }
    }
  }
}

TEST(Ukernel, EveryNarrowPackerWidensAsThePortableOne) {
  for (const kernels::KernelSet* set : runnable_sets()) {
    check_narrow_packers<bf16>(set->sbgemm);
    check_narrow_packers<f16>(set->shgemm);
  }
}

TEST(Ukernel, ForcedPathIsTheOneInUse) {
  const char* forced = std::getenv("INVAR_ISA");
  if (forced == nullptr || *forced == '\0') GTEST_SKIP() << "INVAR_ISA not set";
  EXPECT_STREQ(isa_name(Context().isa()), forced);
}

}  // namespace
}  // namespace invar::test

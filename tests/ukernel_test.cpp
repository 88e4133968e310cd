// Every compiled micro-kernel the CPU can run, alone: whole tiles from packed panels against the
// contract's chain computed from the same panels, for k around the unroll, every accumulator
// start and a strided C; then through the driver on every partial tile shape m = 1..MR,
// n = 1..NR+1. Compared with memcmp, padding of C included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "driver/gemm_driver.h"
#include "kernels/kernel_set.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

using kernels::AccInit;

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using AlignedFloats = std::unique_ptr<float[], AlignedFree>;

AlignedFloats aligned_floats(std::size_t n, uint64_t seed) {
  const std::size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  AlignedFloats p(static_cast<float*>(std::aligned_alloc(64, bytes)));
  Rng rng(seed);
  for (std::size_t i = 0; i < n; ++i) p[i] = rng.symmetric();
  return p;
}

std::vector<const kernels::KernelSet*> runnable_sets() {
  std::vector<const kernels::KernelSet*> sets;
  for (Isa isa : kernels::available_isas()) sets.push_back(kernels::compiled_kernel_set(isa));
  return sets;
}

TEST(Ukernel, WholeTilesMatchTheChainOnPackedPanels) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = set->sgemm;
    const int mr = kern.mr, nr = kern.nr;
    const int64_t ldc = nr + 3;
    for (int64_t kc : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 257}) {
      const AlignedFloats a = aligned_floats(kc * mr, 10 + kc);
      const AlignedFloats b = aligned_floats(kc * nr, 20 + kc);
      for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
        const float beta = init == AccInit::kScale ? -3.7f : 0.0f;
        std::vector<float> c = random_floats(mr * ldc, 30 + kc);
        if (init == AccInit::kZero) {
          for (int i = 0; i < mr; ++i)
            for (int j = 0; j < nr; ++j) c[i * ldc + j] = nan;  // must never be read
        }
        std::vector<float> expected = c;
        for (int i = 0; i < mr; ++i) {
          for (int j = 0; j < nr; ++j) {
            float& e = expected[i * ldc + j];
            float acc = init == AccInit::kZero ? 0.0f : init == AccInit::kLoad ? e : beta * e;
            for (int64_t p = 0; p < kc; ++p) acc = std::fma(a[p * mr + i], b[p * nr + j], acc);
            e = acc;
          }
        }
        kern.ukernel(kc, a.get(), b.get(), c.data(), ldc, init, &beta);
        ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(float)), 0)
            << kern.name << " kc=" << kc << " init=" << static_cast<int>(init);
      }
    }
  }
}

TEST(Ukernel, EveryPartialTileThroughTheDriver) {
  runtime::Workspace workspace;
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = set->sgemm;
    for (int64_t m = 1; m <= kern.mr; ++m) {
      for (int64_t n = 1; n <= kern.nr + 1; ++n) {
        for (int64_t k : {1, 5, 8, 13}) {
          for (float beta : {0.0f, 1.0f, 0.5f}) {
            const float alpha = n % 2 ? 1.0f : 2.0f;
            const int64_t ldc = n + 2;
            const auto a = random_floats(m * k, m * 100 + n);
            const auto b = random_floats(k * n, k * 100 + n);
            auto c = random_floats(m * ldc, m + n + k);
            if (beta == 0.0f) {
              for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = std::nanf("");
            }
            auto expected = c;
            reference_gemm<float>(false, false, m, n, k, alpha, a.data(), k, b.data(), n, beta,
                                  expected.data(), ldc);
            driver::GemmProblem p;
            p.m = m;
            p.n = n;
            p.k = k;
            p.a = a.data();
            p.a_rs = k;
            p.a_cs = 1;
            p.b = b.data();
            p.b_rs = n;
            p.b_cs = 1;
            p.c = c.data();
            p.ldc = ldc;
            p.alpha = &alpha;
            p.beta = &beta;
            p.allow_direct = false;  // every partial tile of the packed path
            p.first_init = beta == 0.0f   ? AccInit::kZero
                           : beta == 1.0f ? AccInit::kLoad
                                          : AccInit::kScale;
            driver::run_gemm(kern, p, {kern.mr, 4, kern.nr}, workspace);
            ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(float)), 0)
                << kern.name << " m=" << m << " n=" << n << " k=" << k << " beta=" << beta;
          }
        }
      }
    }
  }
}

TEST(Ukernel, DirectKernelsMatchTheChainOnUnpackedOperands) {
  for (const kernels::KernelSet* set : runnable_sets()) {
    const kernels::GemmKernel& kern = set->sgemm;
    if (kern.direct == nullptr) continue;
    for (int64_t nr : {int64_t{1}, int64_t{kern.direct_nr} - 1, 9 * int64_t{kern.direct_nr} + 5}) {
      const int64_t ldb = nr + 5, ldc = nr + 3;
      for (int64_t m = 1; m <= kernels::kDirectMaxRows; ++m) {
        for (int64_t k : {1, 2, 3, 7, 16, 33, 300}) {
          for (bool trans_a : {false, true}) {
            for (AccInit init : {AccInit::kZero, AccInit::kLoad, AccInit::kScale}) {
              const float alpha = k % 2 ? 1.0f : -0.5f;
              const float beta = init == AccInit::kScale ? 3.7f : 0.0f;
              const int64_t a_rs = trans_a ? 1 : k, a_cs = trans_a ? m : 1;
              const auto a = random_floats(m * k, 40 + k + m);
              const auto b = random_floats(k * ldb, 50 + k);
              auto c = random_floats(m * ldc, 60 + k + m);
              if (init == AccInit::kZero) {
                for (int64_t i = 0; i < m; ++i)
                  for (int64_t j = 0; j < nr; ++j) c[i * ldc + j] = std::nanf("");
              }
              auto expected = c;
              for (int64_t i = 0; i < m; ++i) {
                for (int64_t j = 0; j < nr; ++j) {
                  float& e = expected[i * ldc + j];
                  float acc = init == AccInit::kZero ? 0.0f : init == AccInit::kLoad ? e : beta * e;
                  for (int64_t p = 0; p < k; ++p)
                    acc = std::fma(alpha * a[i * a_rs + p * a_cs], b[p * ldb + j], acc);
                  e = acc;
                }
              }
              kern.direct(m, nr, k, &alpha, a.data(), a_rs, a_cs, b.data(), ldb, c.data(), ldc,
                          init, &beta);
              ASSERT_EQ(std::memcmp(c.data(), expected.data(), c.size() * sizeof(float)), 0)
                  << kern.name << " direct m=" << m << " n=" << nr << " k=" << k
                  << " trans_a=" << trans_a;
            }
          }
        }
      }
    }
  }
}

TEST(Ukernel, ForcedPathIsTheOneInUse) {
  const char* forced = std::getenv("INVAR_ISA");
  if (forced == nullptr || *forced == '\0') GTEST_SKIP() << "INVAR_ISA not set";
  EXPECT_STREQ(isa_name(Context().isa()), forced);
}

}  // namespace
}  // namespace invar::test

// Calls from inside an OpenMP parallel region run on their OpenMP thread alone: the context's
// pool starts no thread for them, and every result has the reference bits. Outside the region
// the same call uses the pool. Built only where the compiler has OpenMP (and not under
// ThreadSanitizer, which does not see inside an uninstrumented OpenMP runtime).
#include <gtest/gtest.h>
#include <omp.h>

#include <string>
#include <vector>

#include "api/context_impl.h"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "runtime/thread_pool.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

constexpr int64_t kM = 192, kN = 160, kK = 224;  // large enough for a team of two

// One product through the C++ API on `context` (or the C API's default context when null),
// compared with the reference; returns "" or what differed.
std::string check_product(Context* context, uint64_t seed) {
  const auto a = random_values<float>(kM * kK, seed);
  const auto b = random_values<float>(kK * kN, seed + 1);
  auto c = random_values<float>(kM * kN, seed + 2);
  auto expected = c;
  if (context != nullptr) {
    gemm(0.5f, Op::kNoTrans, MatrixView<const float>(a.data(), kM, kK), Op::kNoTrans,
         MatrixView<const float>(b.data(), kK, kN), 2.0f, MatrixView<float>(c.data(), kM, kN),
         *context);
  } else if (invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, kM, kN, kK, 0.5f, a.data(), kK, b.data(),
                         kN, 2.0f, c.data(), kN) != INVAR_OK) {
    return invar_last_error();
  }
  reference_gemm<float>(false, false, kM, kN, kK, 0.5f, a.data(), kK, b.data(), kN, 2.0f,
                        expected.data(), kN);
  return same_bits(c, expected)
             ? ""
             : "bits differ from the reference (seed " + std::to_string(seed) + ")";
}

TEST(OpenMpCallers, CallsInAParallelRegionRunOnTheirOwnThread) {
  EXPECT_FALSE(runtime::ThreadPool::in_openmp_parallel());
  ContextOptions options;
  options.num_threads = 2;
  Context context(options);
  const int saved = invar_get_num_threads();
  invar_set_num_threads(2);

  constexpr int kCalls = 8;
  std::vector<std::string> failures(2);
  std::vector<int> saw_region(2, 0);
  int team = 0;
#pragma omp parallel num_threads(2)
  {
    const int t = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    saw_region[t] = runtime::ThreadPool::in_openmp_parallel() ? 1 : 0;
    for (int call = 0; call < kCalls && failures[t].empty(); ++call) {
      failures[t] = check_product(&context, 100 * t + call);
      if (failures[t].empty()) failures[t] = check_product(nullptr, 5000 + 100 * t + call);
    }
  }
  invar_set_num_threads(saved);
  if (team != 2) GTEST_SKIP() << "the OpenMP runtime gave a team of " << team;
  EXPECT_EQ(saw_region, (std::vector<int>{1, 1}));
  for (const auto& f : failures) EXPECT_EQ(f, "");
  // No call inside the region used the context's pool...
  EXPECT_EQ(context.impl().pool.started_threads(), 0);
  // ...while the same call outside it does.
  EXPECT_EQ(check_product(&context, 42), "");
  EXPECT_EQ(context.impl().pool.started_threads(), 1);
}

}  // namespace
}  // namespace invar::test

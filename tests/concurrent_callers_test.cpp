// Several user threads multiplying at once on the default context (the C API): each call gets
// the reference bits, whether it ran on the pool's team or, finding the pool busy with another
// caller, on its own thread alone.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "invar/invar.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

TEST(ConcurrentCallers, EveryCallerGetsTheReferenceBitsOnTheDefaultContext) {
  const int saved = invar_get_num_threads();
  ASSERT_GE(invar_set_num_threads(2), 2) << invar_last_error();  // a team to be busy with
  constexpr int kCallers = 4, kCalls = 12;
  std::vector<std::string> failures(kCallers);
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      for (int call = 0; call < kCalls && failures[t].empty(); ++call) {
        // Large enough to run on a team (not the small path), different per caller and call.
        const int64_t m = 97 + 13 * t + call, n = 150 - 7 * t, k = 131 + call;
        const bool trans_b = (t + call) % 2 == 1;
        const uint64_t seed = 9000 + 100 * t + call;
        const auto a = random_values<float>(m * k, seed);
        const auto b = random_values<float>(k * n, seed + 1);
        auto c = random_values<float>(m * n, seed + 2);
        auto expected = c;
        const float alpha = 0.5f, beta = call % 3 == 0 ? 0.0f : 2.0f;
        const int64_t ldb = trans_b ? k : n;
        if (invar_sgemm(INVAR_NO_TRANS, trans_b ? INVAR_TRANS : INVAR_NO_TRANS, m, n, k, alpha,
                        a.data(), k, b.data(), ldb, beta, c.data(), n) != INVAR_OK) {
          failures[t] = invar_last_error();
          break;
        }
        reference_gemm<float>(false, trans_b, m, n, k, alpha, a.data(), k, b.data(), ldb, beta,
                              expected.data(), n);
        if (!same_bits(c, expected))
          failures[t] = "caller " + std::to_string(t) + " call " + std::to_string(call) +
                        ": bits differ from the reference";
      }
    });
  }
  for (auto& c : callers) c.join();
  for (const auto& f : failures) EXPECT_EQ(f, "");
  invar_set_num_threads(saved);
}

}  // namespace
}  // namespace invar::test

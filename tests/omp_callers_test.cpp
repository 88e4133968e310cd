// Calls from inside an OpenMP parallel region run on their OpenMP thread alone: the context's
// pool starts no thread for them, and every result has the reference bits. Outside the region
// the same call uses the pool. Built only where the compiler has OpenMP (and not under
// ThreadSanitizer, which does not see inside an uninstrumented OpenMP runtime).
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <cstdlib>
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

// Wraps a context's runner and records, for each member, whether it ran inside an OpenMP
// parallel region and on which OpenMP thread.
struct Recorder {
  runtime::TeamRunner inner;
  std::atomic<int> teams{0};
  std::atomic<int> outside_region{0};
  std::atomic<unsigned> thread_ids{0};  // bit t: a member ran on OpenMP thread t

  struct Call {
    Recorder* self;
    void (*member)(void*, int, int);
    void* team;
  };
  static void member(void* data, int id, int size) {
    auto* call = static_cast<Call*>(data);
    if (omp_in_parallel() == 0) call->self->outside_region += 1;
    call->self->thread_ids.fetch_or(1u << omp_get_thread_num());
    call->member(call->team, id, size);
  }
  static int run(void* user, int n, void (*m)(void*, int, int), void* team) {
    auto* self = static_cast<Recorder*>(user);
    Call call{self, m, team};
    const int ran = self->inner.run(self->inner.user, n, &Recorder::member, &call);
    if (ran == n) self->teams += 1;
    return ran;
  }
};

TEST(OpenMpThreads, ProductsRunOnTheOpenMpRuntimesThreads) {
  omp_set_num_threads(2);
  ContextOptions options;
  options.num_threads = 2;
  Context context(options);
  const std::string library = context.use_openmp_threads();  // libgomp.so.1 with GCC
  EXPECT_NE(library.find("omp"), std::string::npos) << library;
  Recorder recorder{context.impl().pool.team_runner()};
  ASSERT_NE(recorder.inner.run, nullptr);
  context.set_team_runner(&Recorder::run, &recorder);
  for (uint64_t seed = 0; seed < 4; ++seed) EXPECT_EQ(check_product(&context, 700 + seed), "");
  EXPECT_EQ(recorder.teams.load(), 4);
  EXPECT_EQ(recorder.outside_region.load(), 0);
  EXPECT_EQ(recorder.thread_ids.load(), 3u);  // OpenMP threads 0 and 1
  EXPECT_EQ(context.impl().pool.started_threads(), 0);

  // Inside the program's own parallel region the runtime gives a team of one: the call runs
  // alone, on the calling thread.
  const runtime::TeamRunner runner = recorder.inner;
  int ran = -1;
  int calls = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    ran = runner.run(
        runner.user, 2, [](void* c, int id, int size) { *static_cast<int*>(c) += 1 + id + size; },
        &calls);
  }
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(calls, 2);  // one call: id 0 of a team of 1

  // The runtime's own thread count for the caller bounds the team (torch.set_num_threads sets
  // it through omp_set_num_threads).
  const int max_threads = omp_get_max_threads();
  omp_set_num_threads(1);
  std::atomic<int> members{0};
  ran = runner.run(
      runner.user, 2, [](void* c, int, int) { *static_cast<std::atomic<int>*>(c) += 1; }, &members);
  omp_set_num_threads(max_threads);
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(members.load(), 1);

  context.use_own_threads();
  EXPECT_EQ(check_product(&context, 800), "");
  EXPECT_EQ(recorder.teams.load(), 4);
  EXPECT_EQ(context.impl().pool.started_threads(), 1);
}

TEST(OpenMpThreads, TheEnvironmentCanAskForThem) {
  setenv("INVAR_THREADS_ON", "openmp", 1);
  ContextOptions options;
  options.num_threads = 2;
  Context context(options);
  unsetenv("INVAR_THREADS_ON");
  EXPECT_EQ(context.team_runner().rfind("OpenMP (", 0), 0u) << context.team_runner();
  EXPECT_EQ(check_product(&context, 950), "");
  EXPECT_EQ(context.impl().pool.started_threads(), 0);
}

TEST(OpenMpThreads, TheCApiSwitchesTheDefaultContext) {
  const int saved = invar_get_num_threads();
  invar_set_num_threads(2);
  ASSERT_EQ(invar_use_openmp_threads(1), INVAR_OK) << invar_last_error();
  runtime::ThreadPool& pool = Context::default_context().impl().pool;
  EXPECT_NE(pool.team_runner().run, nullptr);
  EXPECT_EQ(check_product(nullptr, 900), "");
  ASSERT_EQ(invar_use_openmp_threads(0), INVAR_OK);
  EXPECT_EQ(pool.team_runner().run, nullptr);
  invar_set_num_threads(saved);
}

}  // namespace
}  // namespace invar::test

// Threads never change a bit: the product on 1..16 threads equals the reference, with partitions
// whose last cell is partial; concurrent user threads, nested calls and fork() are safe.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "api/context_impl.h"
#include "driver/gemm_driver.h"
#include "runtime/thread_pool.h"
#include "support/driver_problem.h"
#include "support/gemm_case.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

template <class T>
const kernels::GemmKernel& kernel_of(Context& context) {
  return kernels::kernel_for<T>(*context.impl().kernels);
}

// Runs the driver directly with an explicit team size (the API would pick fewer threads for
// products this small) and small blocks, so every loop has partial last cells; with
// allow_direct, products a direct path takes (small, few rows) take it.
template <class T>
std::vector<T> run_with_threads(runtime::ThreadPool& pool, int threads, const GemmCase& g,
                                const blocking::BlockSizes& blocks, bool allow_direct) {
  Context context;
  const auto& kern = kernel_of<T>(context);
  const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);
  const auto a = random_values<T>(g.m * g.k, g.seed * 3);
  const auto b = random_values<T>(g.k * g.n, g.seed * 3 + 1);
  auto c = random_values<T>(g.m * g.n, g.seed * 3 + 2);
  driver::GemmProblem p = driver_problem<T>(
      g.m, g.n, g.k, g.trans_a, a.data(), g.trans_a ? g.m : g.k, g.trans_b, b.data(),
      g.trans_b ? g.k : g.n, c.data(), g.n, &alpha, &beta, kernels::AccInit::kScale);
  p.allow_direct = allow_direct;
  runtime::Workspace workspace;
  driver::run_gemm(kern, p, blocks, workspace, &pool, threads);

  auto expected = random_values<T>(g.m * g.n, g.seed * 3 + 2);
  reference_gemm<T>(g.trans_a, g.trans_b, g.m, g.n, g.k, alpha, a.data(), g.trans_a ? g.m : g.k,
                    b.data(), g.trans_b ? g.k : g.n, beta, expected.data(), g.n);
  EXPECT_TRUE(same_bits(c, expected))
      << g.describe() << " threads=" << threads << " allow_direct=" << allow_direct;
  return c;
}

template <class T>
void any_thread_count_gives_the_reference_bits() {
  runtime::ThreadPool pool(16);
  Context context;
  const auto& kern = kernel_of<T>(context);
  const int64_t mr = kern.mr, nr = kern.nr;
  uint64_t seed = 1;
  // Tall (rows split), short (columns split) and square-ish, with ragged edges.
  const int64_t shapes[][3] = {{7 * mr + 3, 5 * nr + 1, 37},
                               {mr - 1, 9 * nr + 5, 29},
                               {2 * mr + 1, 3 * nr - 1, 70},
                               {1, 4 * nr + 3, 16}};
  for (const auto& s : shapes) {
    GemmCase g;
    g.m = s[0];
    g.n = s[1];
    g.k = s[2];
    g.alpha = 0.5;
    g.beta = 3.7;
    g.trans_a = seed % 2;
    g.trans_b = seed % 3 == 0;
    g.seed = seed++;
    // Without a budget for B blocks a rows split shares one packed block; with a large one
    // every member packs its own.
    for (int64_t b_budget : {int64_t{0}, int64_t{1} << 30}) {
      blocking::BlockSizes blocks{2 * mr, 16, 3 * nr};
      blocks.b_block_budget = b_budget;
      for (bool allow_direct : {false, true}) {
        const auto one = run_with_threads<T>(pool, 1, g, blocks, allow_direct);
        for (int threads : {2, 3, 4, 7, 16}) {
          const auto many = run_with_threads<T>(pool, threads, g, blocks, allow_direct);
          ASSERT_TRUE(same_bits(one, many))
              << g.describe() << " threads=" << threads << " allow_direct=" << allow_direct
              << " b_budget=" << b_budget;
        }
      }
    }
  }
}

TEST(Parallel, MemberRowsAreContiguousNearEqualRuns) {
  for (int members = 1; members <= 9; ++members) {
    for (int64_t unit : {1, 12}) {
      for (int64_t m = 1; m <= 600; ++m) {
        int64_t next = 0;
        for (int i = 0; i < members; ++i) {
          int64_t lo = -1, hi = -1;
          driver::member_rows(m, unit, i, members, &lo, &hi);
          // Contiguous, in order, covering [0, m).
          ASSERT_EQ(lo, next) << "m=" << m << " member " << i << " of " << members;
          ASSERT_LE(lo, hi) << "m=" << m << " member " << i << " of " << members;
          next = hi;
          // Each boundary is a multiple of unit (or m), near the even boundary.
          const double even = static_cast<double>(m) * (i + 1) / members;
          if (i + 1 < members) {
            ASSERT_TRUE(hi % unit == 0 || hi == m) << "m=" << m << " boundary " << i + 1;
            ASSERT_LE(std::abs(static_cast<double>(hi) - even), unit / 2.0 + 1.0)
                << "m=" << m << " boundary " << i + 1 << " of " << members << " unit " << unit;
          }
        }
        ASSERT_EQ(next, m) << "m=" << m << " members=" << members;
        if (unit == 1) {
          // Runs differ by at most one row.
          int64_t lo = 0, hi = 0, shortest = m, longest = 0;
          for (int i = 0; i < members; ++i) {
            driver::member_rows(m, unit, i, members, &lo, &hi);
            shortest = std::min(shortest, hi - lo);
            longest = std::max(longest, hi - lo);
          }
          ASSERT_LE(longest - shortest, 1) << "m=" << m << " members=" << members;
        }
      }
    }
  }
  int64_t lo = 0, hi = 0;
  // 512 rows on two members: 256 + 256; on whole 12-row tiles, 252 + 260.
  driver::member_rows(512, 1, 0, 2, &lo, &hi);
  EXPECT_EQ(hi, 256);
  driver::member_rows(512, 12, 0, 2, &lo, &hi);
  EXPECT_EQ(hi, 252);
}

TEST(Parallel, AnyThreadCountGivesTheReferenceBits) {
  any_thread_count_gives_the_reference_bits<float>();
}

TEST(Parallel, AnyThreadCountGivesTheReferenceBitsF64) {
  any_thread_count_gives_the_reference_bits<double>();
}

TEST(Parallel, ContextThreadCountsAgreeThroughTheApi) {
  // Large enough that the API really uses the threads it is given.
  GemmCase g;
  g.m = 203;
  g.n = 187;
  g.k = 301;
  g.alpha = -1.0f;
  g.beta = 0.5f;
  g.pad_c = 3;
  g.seed = 99;
  for (int threads : {1, 2, 3}) {
    ContextOptions o;
    o.num_threads = threads;
    Context context(o);
    ASSERT_EQ(check_case(g, context), "") << "threads=" << threads;
    ASSERT_EQ(check_case<double>(g, context), "") << "f64 threads=" << threads;
  }
}

TEST(Parallel, ManyUserThreadsOnOneContext) {
  ContextOptions o;
  o.num_threads = 2;
  Context shared(o);
  std::vector<std::string> results(8);
  std::vector<std::thread> users;
  for (int t = 0; t < 8; ++t) {
    users.emplace_back([&, t] {
      GemmCase g;
      g.m = 60 + t;
      g.n = 150 - t;
      g.k = 200 + 3 * t;
      g.beta = 1.0f;
      g.seed = 500 + t;
      for (int rep = 0; rep < 3 && results[t].empty(); ++rep) results[t] = check_case(g, shared);
    });
  }
  for (auto& u : users) u.join();
  for (const auto& r : results) EXPECT_EQ(r, "");
}

TEST(Parallel, NestedCallFromAPoolTaskRunsSerially) {
  runtime::ThreadPool pool(2);
  std::vector<std::string> results(2);
  pool.run(2, [&](runtime::Team& team) {
    ContextOptions o;
    o.num_threads = 2;
    Context inner(o);
    GemmCase g;
    g.m = 150;
    g.n = 140;
    g.k = 220;
    g.seed = 700 + team.tid();
    results[team.tid()] = check_case(g, inner);
  });
  EXPECT_EQ(results[0], "");
  EXPECT_EQ(results[1], "");
}

// A process that cannot start threads (here: an address-space limit too small for a thread's
// stack) still multiplies, on the calling thread alone, with the same bits. In a child process,
// so the limit stays there.
TEST(Parallel, CallRunsOnTheCallerWhenThreadsCannotStart) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the sanitizers' shadow memory does not fit under an address-space limit";
#endif
  GemmCase g;
  g.m = 150;
  g.n = 160;
  g.k = 200;
  g.seed = 900;
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ContextOptions o;
    o.num_threads = 4;
    Context context(o);
    // Room for the product's buffers and workspace, not for a thread's stack: new threads ask
    // for 1 GiB stacks (so that none of the stacks glibc keeps from earlier threads fits).
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, size_t{1} << 30) != 0 ||
        pthread_setattr_default_np(&attr) != 0)
      _exit(5);
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    if (pages <= 0) _exit(3);
    const rlim_t limit = static_cast<rlim_t>(pages) * sysconf(_SC_PAGESIZE) + (4u << 20);
    const rlimit lim{limit, limit};
    if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(4);
    if (!check_case(g, context).empty()) _exit(1);
    // The pool really could not start a thread.
    _exit(context.impl().pool.started_threads() == 0 ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Parallel, ChildCanMultiplyAfterFork) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer kills children that start threads after a fork";
#endif
  ContextOptions o;
  o.num_threads = 2;
  Context context(o);
  GemmCase g;
  g.m = 150;
  g.n = 160;
  g.k = 200;
  g.seed = 800;
  ASSERT_EQ(check_case(g, context), "");  // the pool's threads exist now
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    g.seed = 801;
    _exit(check_case(g, context).empty() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace invar::test

// The runtime's thread pool (teams, barriers, exceptions, concurrent and nested callers, fork).
#include "runtime/thread_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#if defined(__SANITIZE_THREAD__)
#define INVAR_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define INVAR_TEST_TSAN 1
#endif
#endif

namespace invar::test {
namespace {

using runtime::Team;
using runtime::ThreadPool;

// Runs a team of n and returns how often each tid ran; checks every member saw the same size.
std::vector<int> tid_counts(ThreadPool& pool, int n, int* size_out) {
  std::vector<std::atomic<int>> counts(static_cast<std::size_t>(n));
  std::atomic<int> wrong_size{0};
  std::atomic<int> seen_size{0};
  const int size = pool.run(n, [&](Team& team) {
    counts[static_cast<std::size_t>(team.tid())].fetch_add(1);
    seen_size.store(team.size());
    if (team.tid() < 0 || team.tid() >= team.size()) wrong_size.fetch_add(1);
  });
  EXPECT_EQ(wrong_size.load(), 0);
  EXPECT_EQ(seen_size.load(), size);
  *size_out = size;
  std::vector<int> result;
  for (auto& c : counts) result.push_back(c.load());
  return result;
}

TEST(ThreadPool, EachTidRunsExactlyOnce) {
  ThreadPool pool(16);
  for (int n : {1, 2, 3, 4, 7, 16, 4, 1, 16}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    int size = 0;
    const std::vector<int> counts = tid_counts(pool, n, &size);
    EXPECT_EQ(size, n);
    for (int tid = 0; tid < n; ++tid) EXPECT_EQ(counts[static_cast<std::size_t>(tid)], 1) << tid;
  }
}

TEST(ThreadPool, TidZeroIsTheCaller) {
  ThreadPool pool(3);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> tid0_on_caller{0}, others_on_caller{0};
  pool.run(3, [&](Team& team) {
    const bool on_caller = std::this_thread::get_id() == caller;
    if (team.tid() == 0)
      tid0_on_caller += on_caller;
    else
      others_on_caller += on_caller;
  });
  EXPECT_EQ(tid0_on_caller.load(), 1);
  EXPECT_EQ(others_on_caller.load(), 0);
}

TEST(ThreadPool, StartsThreadsLazilyAndClampsToMaxThreads) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.max_threads(), 4);
  EXPECT_EQ(pool.started_threads(), 0);
  int size = 0;
  tid_counts(pool, 1, &size);
  EXPECT_EQ(pool.started_threads(), 0);
  tid_counts(pool, 3, &size);
  EXPECT_EQ(pool.started_threads(), 2);
  const std::vector<int> counts = tid_counts(pool, 9, &size);
  EXPECT_EQ(size, 4);
  EXPECT_EQ(pool.started_threads(), 3);
  for (int tid = 0; tid < 4; ++tid) EXPECT_EQ(counts[static_cast<std::size_t>(tid)], 1);
  for (int tid = 4; tid < 9; ++tid) EXPECT_EQ(counts[static_cast<std::size_t>(tid)], 0);
  tid_counts(pool, 2, &size);
  EXPECT_EQ(size, 2);
  EXPECT_EQ(pool.started_threads(), 3);

  EXPECT_EQ(ThreadPool(0).max_threads(), 1);
  EXPECT_EQ(ThreadPool(-5).run(4, [](Team& team) { EXPECT_EQ(team.size(), 1); }), 1);
}

// Every phase: each member writes its own slot (plain memory) and bumps a shared counter; after
// the barrier every member must see all slots and the full count.
void check_phases(ThreadPool& pool, int n, int phases) {
  std::vector<int> slots(static_cast<std::size_t>(n), -1);
  std::atomic<int> counter{0};
  std::atomic<int> errors{0};
  const int size = pool.run(n, [&](Team& team) {
    for (int phase = 0; phase < phases; ++phase) {
      slots[static_cast<std::size_t>(team.tid())] = phase;
      counter.fetch_add(1, std::memory_order_relaxed);
      team.barrier();
      if (counter.load(std::memory_order_relaxed) != (phase + 1) * team.size()) errors += 1;
      for (int t = 0; t < team.size(); ++t)
        if (slots[static_cast<std::size_t>(t)] != phase) errors += 1;
      team.barrier();
    }
  });
  EXPECT_EQ(size, n);
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(counter.load(), phases * size);
}

TEST(ThreadPool, BarriersSeparatePhases) {
  ThreadPool pool(16);
  for (int n : {2, 3, 4}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    check_phases(pool, n, 300);
  }
  for (int n : {7, 16}) {  // more threads than this machine may have cores: fewer phases
    SCOPED_TRACE("n = " + std::to_string(n));
    check_phases(pool, n, 20);
  }
}

TEST(ThreadPool, MemberThatReturnsLeavesTheTeam) {
  ThreadPool pool(4);
  std::atomic<int> barriers{0};
  pool.run(4, [&](Team& team) {
    // Member t takes part in t * 10 barriers, then returns.
    for (int i = 0; i < team.tid() * 10; ++i) {
      team.barrier();
      barriers += 1;
    }
  });
  EXPECT_EQ(barriers.load(), 10 + 20 + 30);
}

TEST(ThreadPool, RethrowsTheTaskExceptionOnTheCaller) {
  ThreadPool pool(4);
  for (int thrower : {0, 2}) {
    SCOPED_TRACE("thrower = " + std::to_string(thrower));
    std::atomic<int> finished{0};
    try {
      pool.run(4, [&](Team& team) {
        if (team.tid() == thrower) throw std::runtime_error("from tid " + std::to_string(thrower));
        finished += 1;
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "from tid " + std::to_string(thrower));
    }
    EXPECT_EQ(finished.load(), 3);
  }
  int size = 0;
  const std::vector<int> counts = tid_counts(pool, 4, &size);  // still usable
  EXPECT_EQ(size, 4);
  for (int c : counts) EXPECT_EQ(c, 1);
}

TEST(ThreadPool, ExceptionCancelsMembersWaitingAtBarriers) {
  ThreadPool pool(4);
  std::atomic<int> cancelled{0};
  EXPECT_THROW(pool.run(4,
                        [&](Team& team) {
                          if (team.tid() == 1) throw std::logic_error("member 1 failed");
                          try {
                            for (int i = 0; i < 1000; ++i) team.barrier();
                          } catch (const runtime::TeamCancelled&) {
                            cancelled += 1;
                            throw;
                          }
                        }),
               std::logic_error);
  EXPECT_EQ(cancelled.load(), 3);
  check_phases(pool, 4, 10);  // the next team's barriers are fresh
}

TEST(ThreadPool, SerialTeamOfOne) {
  ThreadPool pool(4);
  int calls = 0;
  EXPECT_EQ(pool.run(1,
                     [&](Team& team) {
                       EXPECT_EQ(team.tid(), 0);
                       EXPECT_EQ(team.size(), 1);
                       EXPECT_TRUE(ThreadPool::in_task());
                       team.barrier();  // no-op
                       ++calls;
                     }),
            1);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(ThreadPool::in_task());
  EXPECT_THROW(pool.run(1, [](Team&) { throw std::out_of_range("serial"); }), std::out_of_range);
  EXPECT_FALSE(ThreadPool::in_task());
  EXPECT_EQ(pool.started_threads(), 0);
}

TEST(ThreadPool, NestedRunIsSerial) {
  ThreadPool outer(4), other(4);
  std::atomic<int> inner_calls{0}, bad{0};
  const int size = outer.run(4, [&](Team& team) {
    if (!ThreadPool::in_task()) bad += 1;
    for (ThreadPool* pool : {&outer, &other}) {
      const int inner = pool->run(4, [&](Team& nested) {
        if (nested.size() != 1 || nested.tid() != 0) bad += 1;
        nested.barrier();
        inner_calls += 1;
      });
      if (inner != 1) bad += 1;
    }
    team.barrier();
    if (!ThreadPool::in_task()) bad += 1;  // still inside the outer task
  });
  EXPECT_EQ(size, 4);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(inner_calls.load(), 8);
  EXPECT_FALSE(ThreadPool::in_task());
  EXPECT_EQ(other.started_threads(), 0);
}

TEST(ThreadPool, ConcurrentCallersFromManyThreads) {
  ThreadPool pool(4);
  constexpr int kCallers = 8, kRuns = 40;
  std::atomic<int> errors{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRuns; ++r) {
        const int n = 2 + (c + r) % 3;
        std::vector<int> slots(static_cast<std::size_t>(n), 0);
        const int size = pool.run(n, [&](Team& team) {
          slots[static_cast<std::size_t>(team.tid())] += 1;
          team.barrier();
          if (team.tid() == 0)
            for (int t = 0; t < team.size(); ++t)
              if (slots[static_cast<std::size_t>(t)] != 1) errors += 1;
        });
        // The whole team, or the caller alone when another caller's team held the pool.
        if (size != n && size != 1) errors += 1;
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(errors.load(), 0);
}

// A caller that finds the pool serving another caller's team runs its task alone, at once,
// instead of waiting: here the first team cannot finish until the second call has returned.
TEST(ThreadPool, CallerRunsAloneWhileThePoolServesAnother) {
  ThreadPool pool(2);
  std::atomic<bool> first_running{false}, release{false};
  int first_size = 0;
  std::thread first([&] {
    first_size = pool.run(2, [&](Team& team) {
      if (team.tid() != 0) return;
      first_running = true;
      while (!release) std::this_thread::yield();
    });
  });
  while (!first_running) std::this_thread::yield();
  std::atomic<int> members{0};
  std::atomic<bool> second_done{false};
  int second_size = 0;
  std::thread second([&] {
    second_size = pool.run(2, [&](Team& team) {
      members += 1;
      team.barrier();  // a team of one: returns at once
    });
    second_done = true;
  });
  // A second call that queued for the pool would wait here until the first team ends; the
  // first team is released after 10 s in that case, so the test fails instead of hanging.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!second_done && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_TRUE(second_done.load()) << "the second caller waited for the busy pool";
  release = true;
  second.join();
  first.join();
  EXPECT_EQ(second_size, 1);
  EXPECT_EQ(members.load(), 1);
  EXPECT_EQ(first_size, 2);
  int size = 0;
  EXPECT_EQ(tid_counts(pool, 2, &size), (std::vector<int>{1, 1}));  // free again: whole team
  EXPECT_EQ(size, 2);
}

TEST(ThreadPool, NoOpenMpRegionWithoutOpenMp) { EXPECT_FALSE(ThreadPool::in_openmp_parallel()); }

TEST(ThreadPool, WorkersBlockAsynchronousSignals) {
  ThreadPool pool(2);
  std::atomic<int> blocked{-1};
  pool.run(2, [&](Team& team) {
    if (team.tid() != 1) return;
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    blocked = sigismember(&mask, SIGINT) == 1 && sigismember(&mask, SIGTERM) == 1 &&
              sigismember(&mask, SIGSEGV) == 0;
  });
  EXPECT_EQ(blocked.load(), 1);
  sigset_t mine;
  pthread_sigmask(SIG_BLOCK, nullptr, &mine);
  EXPECT_EQ(sigismember(&mine, SIGINT), 0);  // the caller's mask is restored
}

TEST(ThreadPool, DestroysWhileIdle) {
  { ThreadPool never_used(8); }
  for (int i = 0; i < 10; ++i) {
    ThreadPool spinning(3);
    int size = 0;
    tid_counts(spinning, 3, &size);  // destroyed while its workers still spin
  }
  ThreadPool sleeping(3);
  int size = 0;
  tid_counts(sleeping, 3, &size);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the spin: workers sleep
  tid_counts(sleeping, 3, &size);                             // and wake up again
  EXPECT_EQ(size, 3);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// A pool with static storage duration is destroyed by exit(), its workers awake or asleep. The
// check runs in a fresh process ("threadsafe" death tests re-execute the test binary).
TEST(ThreadPool, StaticPoolIsDestroyedAtExit) {
  const std::string style = GTEST_FLAG_GET(death_test_style);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int sleep_ms : {0, 5}) {
    EXPECT_EXIT(
        {
          alarm(20);  // a hang in the destructor becomes SIGALRM
          static ThreadPool pool(3);
          pool.run(3, [](Team& team) { team.barrier(); });
          std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
          std::exit(0);
        },
        testing::ExitedWithCode(0), "")
        << "sleep " << sleep_ms << " ms";
  }
  GTEST_FLAG_SET(death_test_style, style);
}

TEST(ThreadPool, UsableInForkedChild) {
#if defined(INVAR_TEST_TSAN)
  const char* tsan_options = std::getenv("TSAN_OPTIONS");
  if (tsan_options == nullptr || std::strstr(tsan_options, "die_after_fork=0") == nullptr)
    GTEST_SKIP() << "ThreadSanitizer kills a child of a multi-threaded fork that starts threads; "
                    "run with TSAN_OPTIONS=die_after_fork=0 to include this test";
#endif
  ThreadPool pool(4);
  auto other = std::make_unique<ThreadPool>(3);
  int size = 0;
  tid_counts(pool, 4, &size);
  tid_counts(*other, 3, &size);
  ASSERT_EQ(pool.started_threads(), 3);

  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    alarm(20);  // a hang becomes SIGALRM, which the parent sees
    int code = 0;
    std::atomic<int> counts[4] = {};
    std::atomic<int> phases_ok{0};
    const int child_size = pool.run(4, [&](Team& team) {
      counts[team.tid()] += 1;
      team.barrier();
      if (counts[0] + counts[1] + counts[2] + counts[3] == 4) phases_ok += 1;
    });
    if (child_size != 4) code |= 1;
    for (auto& c : counts)
      if (c != 1) code |= 2;
    if (phases_ok != 4) code |= 4;
    if (pool.started_threads() != 3) code |= 8;
    other.reset();  // the parent's threads are not joined here
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bits: 1 size, 2 tid counts, 4 barrier, 8 threads";

  tid_counts(pool, 4, &size);  // the parent's pool is unaffected
  EXPECT_EQ(size, 4);
}

// A TeamRunner over std::thread: member 0 on the caller, the others on threads started per
// team, each thread first put in a floating-point mode the contract forbids (FTZ and DAZ on
// x86). Counts the teams it ran and the threads members ran on.
struct ThreadRunner {
  std::atomic<int> teams{0};
  std::atomic<int> refuse{0};   // nonzero: run nothing and return 0
  std::atomic<int> at_most{0};  // nonzero: teams of at most this many
  std::mutex mu;
  std::vector<std::pair<int, std::thread::id>> member_threads;  // (id, thread) as they ran

  static int run(void* user, int n, void (*member)(void*, int, int), void* team) {
    auto* self = static_cast<ThreadRunner*>(user);
    if (self->refuse.load() != 0) return 0;
    if (self->at_most.load() != 0 && self->at_most.load() < n) n = self->at_most.load();
    self->teams += 1;
    const auto body = [self, member, team, n](int id) {
      {
        std::lock_guard<std::mutex> lock(self->mu);
        self->member_threads.emplace_back(id, std::this_thread::get_id());
      }
#if defined(__x86_64__) || defined(__i386__)
      const unsigned saved = _mm_getcsr();
      _mm_setcsr(saved | 0x8040u);  // FTZ | DAZ
      member(team, id, n);
      EXPECT_EQ(_mm_getcsr() & 0xFFC0u, (saved | 0x8040u) & 0xFFC0u) << "mode not restored";
      _mm_setcsr(saved);
#else
      member(team, id, n);
#endif
    };
    std::vector<std::thread> threads;
    for (int id = 1; id < n; ++id) threads.emplace_back(body, id);
    body(0);
    for (auto& t : threads) t.join();
    return n;
  }
  runtime::TeamRunner runner() { return runtime::TeamRunner{&ThreadRunner::run, this}; }
};

TEST(TeamRunner, RunsTheTeamOnTheRunnersThreads) {
  ThreadPool pool(4);
  ThreadRunner runner;
  pool.set_team_runner(runner.runner());
  EXPECT_EQ(pool.team_runner().user, &runner);
  int size = 0;
  const std::vector<int> counts = tid_counts(pool, 3, &size);
  EXPECT_EQ(size, 3);
  for (int c : counts) EXPECT_EQ(c, 1);
  check_phases(pool, 3, 50);
  check_phases(pool, 4, 50);
  EXPECT_EQ(runner.teams.load(), 1 + 1 + 1);
  EXPECT_EQ(pool.started_threads(), 0);  // none of the pool's own
  {
    std::lock_guard<std::mutex> lock(runner.mu);
    ASSERT_EQ(runner.member_threads.size(), 3u + 3u + 4u);
    std::vector<std::thread::id> first;  // the first team's threads
    for (int i = 0; i < 3; ++i) {
      const auto& [id, thread] = runner.member_threads[static_cast<std::size_t>(i)];
      if (id == 0) EXPECT_EQ(thread, std::this_thread::get_id());
      first.push_back(thread);
    }
    std::sort(first.begin(), first.end());
    EXPECT_EQ(std::unique(first.begin(), first.end()), first.end()) << "members shared a thread";
  }
  // Teams of one and nested calls never reach the runner.
  EXPECT_EQ(pool.run(1, [](Team&) {}), 1);
  pool.run(2, [&](Team& team) {
    if (team.tid() == 0) EXPECT_EQ(pool.run(2, [](Team& inner) { EXPECT_EQ(inner.size(), 1); }), 1);
  });
  EXPECT_EQ(runner.teams.load(), 4);

  pool.set_team_runner(runtime::TeamRunner{});  // back to the pool's threads
  tid_counts(pool, 3, &size);
  EXPECT_EQ(size, 3);
  EXPECT_EQ(runner.teams.load(), 4);
  EXPECT_EQ(pool.started_threads(), 2);
}

TEST(TeamRunner, MembersComputeInTheContractsMode) {
#if defined(__x86_64__) || defined(__i386__)
  ThreadPool pool(2);
  ThreadRunner runner;
  pool.set_team_runner(runner.runner());
  std::atomic<int> wrong{0};
  pool.run(2, [&](Team& team) {
    // The caller (member 0) is in whatever mode its own caller set: only the runner's threads.
    if (team.tid() != 0 && (_mm_getcsr() & 0xFFC0u) != 0x1F80u) wrong += 1;
  });
  EXPECT_EQ(runner.teams.load(), 1);
  EXPECT_EQ(wrong.load(), 0);
#else
  GTEST_SKIP() << "the mode is checked through MXCSR";
#endif
}

TEST(TeamRunner, ARunnerThatRunsNothingLeavesTheTaskToTheCaller) {
  ThreadPool pool(4);
  ThreadRunner runner;
  runner.refuse = 1;
  pool.set_team_runner(runner.runner());
  int calls = 0;
  std::thread::id where;
  EXPECT_EQ(pool.run(4,
                     [&](Team& team) {
                       calls += 1;
                       where = std::this_thread::get_id();
                       EXPECT_EQ(team.size(), 1);
                       team.barrier();
                     }),
            1);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(where, std::this_thread::get_id());
  EXPECT_EQ(pool.started_threads(), 0);
}

TEST(TeamRunner, ARunnerMayGiveAnySmallerTeam) {
  ThreadPool pool(8);
  ThreadRunner runner;
  pool.set_team_runner(runner.runner());
  for (int at_most : {1, 2, 3}) {
    SCOPED_TRACE("at most " + std::to_string(at_most));
    runner.at_most = at_most;
    int size = 0;
    const std::vector<int> counts = tid_counts(pool, 6, &size);
    EXPECT_EQ(size, at_most);
    for (int t = 0; t < 6; ++t) EXPECT_EQ(counts[static_cast<std::size_t>(t)], t < at_most ? 1 : 0);
    // Barriers count the members the runner gave, and a member that returns early leaves.
    std::atomic<int> barriers{0};
    EXPECT_EQ(pool.run(6,
                       [&](Team& team) {
                         for (int i = 0; i < team.tid() * 10; ++i) {
                           team.barrier();
                           barriers += 1;
                         }
                       }),
              at_most);
    EXPECT_EQ(barriers.load(), at_most == 1 ? 0 : at_most == 2 ? 10 : 10 + 20);
  }
  EXPECT_EQ(pool.started_threads(), 0);
}

TEST(TeamRunner, ExceptionsCancelTheTeamAndReachTheCaller) {
  ThreadPool pool(4);
  ThreadRunner runner;
  pool.set_team_runner(runner.runner());
  std::atomic<int> cancelled{0};
  try {
    pool.run(4, [&](Team& team) {
      if (team.tid() == 2) throw std::runtime_error("member 2 failed");
      try {
        for (int i = 0; i < 1000; ++i) team.barrier();
      } catch (const runtime::TeamCancelled&) {
        cancelled += 1;
        throw;
      }
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "member 2 failed");
  }
  EXPECT_EQ(cancelled.load(), 3);
  check_phases(pool, 4, 10);
}

}  // namespace
}  // namespace invar::test

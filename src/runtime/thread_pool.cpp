#include "runtime/thread_pool.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/fp_mode.h"

// The OpenMP runtime's omp_in_parallel, if one is in the process (weak: null otherwise). ELF
// only: a weak undefined function is an ELF feature.
#if defined(__ELF__)
extern "C" int omp_in_parallel(void) __attribute__((weak, visibility("default")));
#endif

namespace invar::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// How long a thread spins before it sleeps; see the header.
constexpr Clock::duration kIdleSpin = std::chrono::microseconds(500);
constexpr Clock::duration kTeamSpin = std::chrono::microseconds(100);

// The job word packs the epoch of the current job with its team size.
constexpr int kSizeBits = 16;
constexpr uint64_t kSizeMask = (uint64_t{1} << kSizeBits) - 1;
constexpr int kMaxThreads = 1 << 15;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

// Spins until pred() holds or `budget` has passed; returns pred()'s last value. The clock is read
// every 64 rounds only: a pause is 10–150 cycles, a clock read about 20 ns.
//
// Past the first few hundred rounds (a few microseconds) the thread also yields every 64 rounds:
// when there are more runnable threads than cores, the member everyone waits for may be queued
// behind this one on the same core. With a core to itself, a yield returns at once.
template <class Pred>
bool spin_until(const Pred& pred, Clock::duration budget) {
  const Clock::time_point start = Clock::now();
  for (unsigned round = 1;; ++round) {
    if (pred()) return true;
    cpu_relax();
    if (round % 64 == 0) {
      if (Clock::now() - start > budget) return pred();
      if (round >= 512) std::this_thread::yield();
    }
  }
}

thread_local bool t_in_task = false;

class InTaskScope {
 public:
  InTaskScope() : saved_(t_in_task) { t_in_task = true; }
  ~InTaskScope() { t_in_task = saved_; }
  InTaskScope(const InTaskScope&) = delete;
  InTaskScope& operator=(const InTaskScope&) = delete;

 private:
  bool saved_;
};

// Incremented in every child process right after fork(). A pool state remembers the value it
// was made under; a different value means its threads belong to an ancestor process.
std::atomic<uint64_t> g_fork_generation{0};

void on_fork_child() { g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

void register_fork_handler() {
  static const int registered = pthread_atfork(nullptr, nullptr, &on_fork_child);
  (void)registered;
}

// Blocks asynchronous signals on the calling thread for its lifetime, restoring the mask after.
// Threads started meanwhile inherit the blocked mask. Signals raised by a faulting instruction
// stay unblocked so that crash handlers still run on workers.
class AsyncSignalsBlocked {
 public:
  AsyncSignalsBlocked() {
    sigset_t set;
    sigfillset(&set);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS})
      sigdelset(&set, sig);
    ok_ = pthread_sigmask(SIG_BLOCK, &set, &saved_) == 0;
  }
  ~AsyncSignalsBlocked() {
    if (ok_) pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  AsyncSignalsBlocked(const AsyncSignalsBlocked&) = delete;
  AsyncSignalsBlocked& operator=(const AsyncSignalsBlocked&) = delete;

 private:
  sigset_t saved_;
  bool ok_ = false;
};

}  // namespace

namespace detail {

struct Worker {
  std::thread thread;
  std::condition_variable wake;  // the worker sleeps here, under PoolState::mu
};

struct PoolState {
  PoolState(int max, uint64_t generation) : max_threads(max), fork_generation(generation) {
    workers.reserve(static_cast<std::size_t>(max - 1));
  }

  int ensure_workers(int wanted);
  void worker_main(Worker* self, int tid, uint64_t seen_epoch);
  void run_member(int tid, int size);
  static void runner_member(void* team, int id, int size);
  void cancel(std::exception_ptr e);
  void barrier_wait();
  void leave_barrier();
  void release_barrier(uint32_t active, uint32_t generation);
  static int run_serial(void (*invoke)(void*, Team&), void* task);

  const int max_threads;
  const uint64_t fork_generation;
  PoolState* next_abandoned = nullptr;

  std::mutex run_mu;                             // held by the caller for a whole parallel run
  std::vector<std::unique_ptr<Worker>> workers;  // guarded by run_mu; workers[i] has tid i + 1

  // The current job. Written by the caller before it publishes `job_word` and read by the
  // members after they have loaded it; `error` is written by the first member that throws and
  // read by the caller once all members are done.
  void (*invoke)(void*, Team&) = nullptr;
  void* task = nullptr;
  std::exception_ptr error;

  // epoch << kSizeBits | team size. A worker with tid < size runs the job whose epoch differs
  // from the last one it ran. A new job is published only once the previous one is complete.
  alignas(64) std::atomic<uint64_t> job_word{0};
  std::atomic<bool> stop{false};
  alignas(64) std::atomic<int> remaining{0};  // workers still in the current job
  // Members still in their task << 32 | members waiting at the current barrier.
  alignas(64) std::atomic<uint64_t> barrier{0};
  alignas(64) std::atomic<uint32_t> barrier_generation{0};
  std::atomic<bool> cancelled{false};

  std::mutex mu;                            // for sleeping only: the waits below and Worker::wake
  std::condition_variable done;             // the caller: `remaining` reached 0
  std::condition_variable barrier_release;  // members: barrier released or team cancelled
};

// Starts workers until there are `wanted` or one cannot be started; returns how many exist.
// Called with run_mu held.
int PoolState::ensure_workers(int wanted) {
  if (static_cast<int>(workers.size()) >= wanted) return static_cast<int>(workers.size());
  AsyncSignalsBlocked blocked;
  while (static_cast<int>(workers.size()) < wanted) {
    const int tid = static_cast<int>(workers.size()) + 1;
    // The current job is complete and the new worker is not part of it.
    const uint64_t seen = job_word.load(std::memory_order_relaxed) >> kSizeBits;
    try {
      auto worker = std::make_unique<Worker>();
      worker->thread = std::thread(&PoolState::worker_main, this, worker.get(), tid, seen);
      workers.push_back(std::move(worker));  // capacity reserved: does not throw
    } catch (...) {
      break;  // std::system_error (EAGAIN: thread or memory limits) or std::bad_alloc
    }
  }
  return static_cast<int>(workers.size());
}

void PoolState::worker_main(Worker* self, int tid, uint64_t seen_epoch) {
#if defined(__linux__)
  char name[16];
  std::snprintf(name, sizeof name, "invar-w%d", tid);
  pthread_setname_np(pthread_self(), name);
#endif
  // A worker runs nothing but invar's computations, so it enters the contract's floating-point
  // mode once, for its whole life (a new thread starts with its creator's, which may be anything).
  const FpModeGuard fp_mode;
  for (;;) {
    uint64_t word = 0;
    const auto ready = [&] {
      if (stop.load(std::memory_order_acquire)) return true;
      word = job_word.load(std::memory_order_acquire);
      return (word >> kSizeBits) != seen_epoch && static_cast<int>(word & kSizeMask) > tid;
    };
    if (!spin_until(ready, kIdleSpin)) {
      std::unique_lock<std::mutex> lock(mu);
      self->wake.wait(lock, ready);
    }
    if (stop.load(std::memory_order_acquire)) return;
    seen_epoch = word >> kSizeBits;
    run_member(tid, static_cast<int>(word & kSizeMask));
    // After this decrement the caller may return and start the next job: nothing of this job
    // is touched below.
    if (remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      { std::lock_guard<std::mutex> lock(mu); }
      done.notify_all();
    }
  }
}

void PoolState::run_member(int tid, int size) {
  Team team(this, tid, size);
  {
    InTaskScope scope;
    try {
      invoke(task, team);
    } catch (const TeamCancelled&) {
    } catch (...) {
      cancel(std::current_exception());
    }
  }
  leave_barrier();
}

// A member on a TeamRunner's thread, which may be in any floating-point mode (the pool's own
// threads enter the contract's once for their life). The team's size is known only to its
// members: the first to arrive sets the barrier's count of members from the 0 the caller left.
// It cannot be 0 again before every member has arrived (each leaves only after arriving), so a
// later member finds it set.
void PoolState::runner_member(void* team, int id, int size) {
  auto* state = static_cast<PoolState*>(team);
  uint64_t unset = 0;
  state->barrier.compare_exchange_strong(unset, uint64_t(size) << 32, std::memory_order_acq_rel,
                                         std::memory_order_acquire);
  const FpModeGuard fp_mode;
  state->run_member(id, size);
}

// Runs the task as a team of one on the calling thread; exceptions propagate unchanged.
int PoolState::run_serial(void (*invoke)(void*, Team&), void* task) {
  Team team(nullptr, 0, 1);
  InTaskScope scope;
  invoke(task, team);
  return 1;
}

void PoolState::cancel(std::exception_ptr e) {
  if (!cancelled.exchange(true, std::memory_order_acq_rel)) error = std::move(e);
  { std::lock_guard<std::mutex> lock(mu); }
  barrier_release.notify_all();
}

// The barrier counts arrivals against the members still in their task. The arrival that
// completes the count resets it and advances the generation the others wait on. While a barrier
// is incomplete no member can leave (all are either waiting or still to arrive), and once it is
// complete every member waits for the generation to change, so the reset never races with
// another update.
void PoolState::barrier_wait() {
  if (cancelled.load(std::memory_order_acquire)) throw TeamCancelled();
  const uint32_t generation = barrier_generation.load(std::memory_order_acquire);
  const uint64_t before = barrier.fetch_add(1, std::memory_order_acq_rel);
  const uint32_t active = static_cast<uint32_t>(before >> 32);
  const uint32_t arrived = static_cast<uint32_t>(before) + 1;
  if (arrived == active) {
    release_barrier(active, generation);
  } else {
    const auto released = [&] {
      return barrier_generation.load(std::memory_order_acquire) != generation ||
             cancelled.load(std::memory_order_acquire);
    };
    if (!spin_until(released, kTeamSpin)) {
      std::unique_lock<std::mutex> lock(mu);
      barrier_release.wait(lock, released);
    }
  }
  if (cancelled.load(std::memory_order_acquire)) throw TeamCancelled();
}

// A member whose task has returned stops counting; if everyone left is already waiting, this
// completes their barrier.
void PoolState::leave_barrier() {
  const uint64_t before = barrier.fetch_sub(uint64_t{1} << 32, std::memory_order_acq_rel);
  const uint32_t active = static_cast<uint32_t>(before >> 32) - 1;
  const uint32_t arrived = static_cast<uint32_t>(before);
  if (active > 0 && arrived == active)
    release_barrier(active, barrier_generation.load(std::memory_order_acquire));
}

void PoolState::release_barrier(uint32_t active, uint32_t generation) {
  barrier.store(uint64_t{active} << 32, std::memory_order_relaxed);
  barrier_generation.store(generation + 1, std::memory_order_release);
  { std::lock_guard<std::mutex> lock(mu); }
  barrier_release.notify_all();
}

}  // namespace detail

namespace {

// States left behind by fork(): their threads do not exist in this process and their locks may
// be held forever, so they are never destroyed. Keeping them reachable from here keeps leak
// checkers quiet.
std::atomic<detail::PoolState*> g_abandoned{nullptr};

void abandon(detail::PoolState* state) {
  detail::PoolState* head = g_abandoned.load(std::memory_order_relaxed);
  do {
    state->next_abandoned = head;
  } while (!g_abandoned.compare_exchange_weak(head, state, std::memory_order_release,
                                              std::memory_order_relaxed));
}

}  // namespace

void Team::barrier_wait() { state_->barrier_wait(); }

ThreadPool::ThreadPool(int max_threads)
    : max_threads_(max_threads < 1             ? 1
                   : max_threads > kMaxThreads ? kMaxThreads
                                               : max_threads) {
  register_fork_handler();
  state_.store(
      new detail::PoolState(max_threads_, g_fork_generation.load(std::memory_order_relaxed)),
      std::memory_order_release);
}

ThreadPool::~ThreadPool() {
  detail::PoolState* state = state_.load(std::memory_order_acquire);
  if (state->fork_generation != g_fork_generation.load(std::memory_order_relaxed)) {
    abandon(state);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(state->mu);
    state->stop.store(true, std::memory_order_release);
  }
  for (auto& worker : state->workers) worker->wake.notify_all();
  for (auto& worker : state->workers) worker->thread.join();
  delete state;
}

bool ThreadPool::in_task() { return t_in_task; }

bool ThreadPool::in_openmp_parallel() {
#if defined(__ELF__)
  return omp_in_parallel != nullptr && omp_in_parallel() != 0;
#else
  return false;
#endif
}

detail::PoolState* ThreadPool::live_state() {
  detail::PoolState* state = state_.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t generation = g_fork_generation.load(std::memory_order_relaxed);
    if (state->fork_generation == generation) return state;
    auto fresh = std::make_unique<detail::PoolState>(max_threads_, generation);
    if (state_.compare_exchange_strong(state, fresh.get(), std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
      abandon(state);
      return fresh.release();
    }
    // Another thread of this child replaced it first; `state` now holds its choice.
  }
}

int ThreadPool::started_threads() {
  detail::PoolState* state = live_state();
  std::lock_guard<std::mutex> lock(state->run_mu);
  return static_cast<int>(state->workers.size());
}

void ThreadPool::set_team_runner(const TeamRunner& runner) {
  detail::PoolState* state = live_state();
  std::lock_guard<std::mutex> lock(state->run_mu);
  runner_ = runner;
}

TeamRunner ThreadPool::team_runner() {
  detail::PoolState* state = live_state();
  std::lock_guard<std::mutex> lock(state->run_mu);
  return runner_;
}

// Called with the state's run_mu held by `run_lock`.
int ThreadPool::run_on_runner(detail::PoolState* state, int n, void (*invoke)(void*, Team&),
                              void* task) {
  state->invoke = invoke;
  state->task = task;
  state->error = nullptr;
  state->cancelled.store(false, std::memory_order_relaxed);
  state->barrier.store(0, std::memory_order_relaxed);  // set by the first member (runner_member)
  // The runner returns after every member has: its own synchronisation orders their writes
  // before what follows.
  const int size = runner_.run(runner_.user, n, &detail::PoolState::runner_member, state);
  std::exception_ptr error = std::move(state->error);
  state->error = nullptr;
  state->invoke = nullptr;
  state->task = nullptr;
  if (error) std::rethrow_exception(error);
  return size;
}

int ThreadPool::run_erased(int n, void (*invoke)(void*, Team&), void* task) {
  if (n > max_threads_) n = max_threads_;
  if (n <= 1 || t_in_task || in_openmp_parallel())
    return detail::PoolState::run_serial(invoke, task);

  detail::PoolState* state = live_state();
  // Busy with another caller's team: run alone rather than wait (see the header).
  std::unique_lock<std::mutex> run_lock(state->run_mu, std::try_to_lock);
  if (!run_lock.owns_lock()) return detail::PoolState::run_serial(invoke, task);
  if (runner_.run != nullptr) {
    const int size = run_on_runner(state, n, invoke, task);
    run_lock.unlock();
    return size > 0 ? size : detail::PoolState::run_serial(invoke, task);
  }
  const int available = state->ensure_workers(n - 1) + 1;
  const int size = available < n ? available : n;
  if (size <= 1) {
    run_lock.unlock();
    return detail::PoolState::run_serial(invoke, task);
  }

  state->invoke = invoke;
  state->task = task;
  state->error = nullptr;
  state->cancelled.store(false, std::memory_order_relaxed);
  state->barrier.store(uint64_t(size) << 32, std::memory_order_relaxed);
  state->remaining.store(size - 1, std::memory_order_relaxed);
  const uint64_t epoch = (state->job_word.load(std::memory_order_relaxed) >> kSizeBits) + 1;
  state->job_word.store(epoch << kSizeBits | static_cast<uint64_t>(size),
                        std::memory_order_release);
  // A worker about to sleep checks job_word under `mu`: taking `mu` here orders that check
  // either before this store (it will be notified) or after it (it sees the job).
  { std::lock_guard<std::mutex> lock(state->mu); }
  for (int i = 0; i < size - 1; ++i) state->workers[static_cast<std::size_t>(i)]->wake.notify_one();

  state->run_member(0, size);

  const auto finished = [&] { return state->remaining.load(std::memory_order_acquire) == 0; };
  if (!spin_until(finished, kTeamSpin)) {
    std::unique_lock<std::mutex> lock(state->mu);
    state->done.wait(lock, finished);
  }
  std::exception_ptr error = std::move(state->error);
  state->error = nullptr;
  state->invoke = nullptr;
  state->task = nullptr;
  run_lock.unlock();
  if (error) std::rethrow_exception(error);
  return size;
}

}  // namespace invar::runtime

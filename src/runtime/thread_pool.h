// A persistent pool of worker threads that runs one team task at a time.
//
// pool.run(n, task) calls task(team) on up to n threads at once and returns when every one has
// returned. The calling thread is member 0 of the team and does its share; members 1 … size−1
// are pool threads. Those are started by the first run() that needs them and then kept, so a
// stream of calls pays for thread creation once. Members synchronise with team.barrier():
//
//   pool.run(n, [&](Team& team) {
//     for (each phase) {
//       do this member's share of the phase, partitioned by team.tid() and team.size();
//       team.barrier();                 // every member's writes above are visible after this
//     }
//   });
//
// Team size. The team can be smaller than n, and team.size() is the only truth: a task must
// partition its work by team.size(), never by the n it asked for, and must be correct for any
// size from 1 to n. The team is the caller alone (size() == 1, barrier() does nothing) when
//   - n <= 1;
//   - the caller is itself running a task of any pool (a nested call): the outer team already
//     occupies the threads, and waiting for a busy pool from inside one of its tasks could
//     deadlock;
//   - the caller is inside an active OpenMP parallel region (omp_in_parallel()): the program's
//     own threads already occupy the cores;
//   - the pool is busy with another caller's team (see below);
//   - no worker thread could be created. If only some could, the team is as large as the threads
//     that exist.
// n larger than max_threads() is clamped to it. run() returns the team size it used.
//
// Concurrent callers. The pool serves one team at a time: run() holds a mutex for the whole
// parallel call, and a caller that finds it held (the pool busy with another user thread's team)
// does not wait but runs its task alone on its own thread, as MKL does with concurrent callers.
// Queueing instead made each caller wait for every other caller's product in turn, while the
// pool's workers and the callers' threads competed for the cores: 2 OpenMP threads each making
// 4000 calls of a 96^3 sgemm took 2.8 times as long on a 2-thread pool as on one thread each
// (Intel Xeon VM, 2 cores). A task gives the same bits on any team size, so this never changes a
// result. Calls that run serially take no lock and never wait for the pool.
//
// OpenMP is detected without linking it: omp_in_parallel is a weak reference, resolved when an
// OpenMP runtime is in the process's global scope at the time the library is loaded (linked into
// the program or one of its libraries, or loaded with RTLD_GLOBAL before it), and null otherwise.
// A runtime loaded later or privately (RTLD_LOCAL) is not seen; callers in its parallel regions
// still take the busy-pool path above whenever they overlap.
//
// Barriers. barrier() returns once every member that is still running its task has reached it.
// A member whose task returns leaves the team; later barriers wait only for the others, so a
// member with no work in the remaining phases may simply return.
//
// Exceptions. An exception escaping a task cancels the team: each other member's next (or
// current) barrier() throws TeamCancelled, which the pool swallows. Once all members have
// returned, run() rethrows the first exception on the caller. A task must let TeamCancelled
// propagate (a catch (...) must rethrow it); swallowing it cannot deadlock, but the task would
// keep working on a team whose members have left.
//
// Waiting. An idle worker spins about 500 µs on an atomic before it sleeps on a condition
// variable, so back-to-back calls (a decode step's chain of small products) find it awake and do
// not pay the 10–50 µs of a futex wake-up, while an idle process burns no CPU for long. The
// spin must outlast the gap between calls as a worker sees it, which starts when its share is
// done and so includes the rest of the caller's: at 50 µs a worker of a 512^3 product on two
// threads often slept between calls (Zen 4 VM: it started 14-37 µs after the call on average,
// against 1-2 µs with a 300 or 1000 µs spin), and against 50 µs, 500 µs ran 512^3 2.2 % faster
// (median; 2.6 % in the mean) and 160^3 5.8 %, with 96^3, 256^3, 768^3, 1000^3 and the decode
// step 1 x 4096 x 4096 level (alternating runs, two threads). OpenMP runtimes spin longer by
// default (GOMP_SPINCOUNT 300000 rounds, KMP_BLOCKTIME 200 ms). Barrier and completion waits
// spin about 100 µs before sleeping: members of a well-partitioned phase arrive within that
// window, and the bound limits the damage when there are more threads than cores.
// After the first few microseconds a spinning thread also yields now and then, so that when the
// machine is oversubscribed the member everyone waits for can get the core.
//
// Worker threads block asynchronous signals (they are delivered to the application's own
// threads) and are named "invar-w<tid>". They inherit the floating-point mode of the thread that
// created them and keep whatever a task leaves behind, so a task sets the mode it needs itself.
//
// fork(). Only the forking thread exists in the child. The child may use the pool: its first
// run() notices the fork, abandons the parent's threads and their state (never touching their
// locks, which a parent thread may have held at the moment of the fork) and starts new threads.
// Destroying the pool in the child neither joins nor frees the parent's threads' state. Forking
// from inside a task is not supported.
//
// Team runners. A pool can have its teams run on threads another runtime owns instead of its
// own: an OpenMP runtime's (openmp_runner.h), so that a program alternating its own parallel
// regions with invar's products keeps one set of threads busy rather than two sets fighting over
// the cores (an OpenMP thread spins for a while after each region, just when the pool's workers
// want the core). runner.run(user, n, member, team) chooses a team size s in [1, n], calls
// member(team, id, s) once for each id in [0, s), all s at once on different threads (members
// wait for each other at barriers), and returns s once every call has returned; or it calls
// nothing and returns 0, and the task then runs on the calling thread alone. member neither
// throws nor needs anything of the thread it runs on: it sets the floating-point mode it computes
// in and restores the thread's own. Everything else above holds as for the pool's own threads:
// the mutex (a caller finding the pool busy runs alone), nested calls, cancellation, a team
// smaller than asked for.
//
// The destructor stops and joins the workers. It must not run concurrently with run() or from
// inside one of the pool's tasks. A pool with static storage duration is destroyed at exit like
// any other; if other threads may still be calling run() then, leak the pool instead.
#ifndef INVAR_RUNTIME_THREAD_POOL_H_
#define INVAR_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <memory>
#include <type_traits>

namespace invar::runtime {

namespace detail {
struct PoolState;
}

// Thrown by Team::barrier() in the other members once a member's task has thrown. Only the
// runtime creates it; run() catches it.
class TeamCancelled {
 private:
  TeamCancelled() = default;
  friend struct detail::PoolState;
};

// One member's view of the team running a task.
class Team {
 public:
  int tid() const { return tid_; }
  int size() const { return size_; }

  // Waits for every member still in its task. Acts as a full memory fence between the members:
  // what any member wrote before its barrier() is visible to all after theirs. Throws
  // TeamCancelled if another member's task has thrown.
  void barrier() {
    if (size_ > 1) barrier_wait();
  }

  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

 private:
  friend class ThreadPool;
  friend struct detail::PoolState;
  Team(detail::PoolState* state, int tid, int size) : state_(state), tid_(tid), size_(size) {}
  void barrier_wait();

  detail::PoolState* state_;
  int tid_;
  int size_;
};

struct TeamRunner {
  int (*run)(void* user, int n, void (*member)(void* team, int id, int size), void* team) = nullptr;
  void* user = nullptr;
  const char* name = "";  // for `invar info`, e.g. "OpenMP (libgomp.so.1)"
};

class ThreadPool {
 public:
  // A pool of at most max_threads threads counting the caller (values below 1 mean 1). No
  // thread is started here.
  explicit ThreadPool(int max_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int max_threads() const { return max_threads_; }

  // Runs task(team) as described above; F is callable as void(Team&). Returns the team size.
  template <class F>
  int run(int n, F&& task) {
    using Fn = std::remove_reference_t<F>;
    return run_erased(
        n, [](void* f, Team& team) { (*static_cast<Fn*>(f))(team); },
        const_cast<void*>(static_cast<const void*>(std::addressof(task))));
  }

  // Runs later teams on runner's threads (run == nullptr: on the pool's own). Waits for a team
  // in progress to finish. Not from inside a task.
  void set_team_runner(const TeamRunner& runner);
  TeamRunner team_runner();

  // The number of worker threads running now (not counting callers). Not from inside a task.
  int started_threads();

  // Whether the calling thread is running a task of some pool (a run() from here is serial).
  static bool in_task();

  // Whether the calling thread is inside an active OpenMP parallel region, as far as the OpenMP
  // runtime of the process's global scope says (false without one; see above).
  static bool in_openmp_parallel();

 private:
  int run_erased(int n, void (*invoke)(void*, Team&), void* task);
  detail::PoolState* live_state();

  int run_on_runner(detail::PoolState* state, int n, void (*invoke)(void*, Team&), void* task);

  int max_threads_;
  std::atomic<detail::PoolState*> state_;
  TeamRunner runner_;  // guarded by the live state's run_mu
};

}  // namespace invar::runtime

#endif  // INVAR_RUNTIME_THREAD_POOL_H_

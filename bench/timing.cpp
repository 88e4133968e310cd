// The timing loop (see timing.h for what is timed and under which cache conditions).
#include "timing.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

namespace invar_bench {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// `count` calls back to back; false (and t.error) when one failed.
bool run_calls(const TimedCall& call, int64_t count, Timing& t) {
  std::string error;
  for (int64_t i = 0; i < count; ++i) {
    if (!call(&error)) {
      t.error = error.empty() ? "call failed" : error;
      return false;
    }
  }
  return true;
}

// One timed sample of t.batch calls appended to `t`; its wall time, or -1 when a call failed.
double timed_sample(const TimedCall& call, Timing& t) {
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = Clock::now();
  const bool ok = run_calls(call, t.batch, t);
  const double s = since(t0);
  const double cpu = thread_cpu_seconds() - cpu0;
  if (!ok) return -1;
  t.seconds.push_back(s / double(t.batch));
  t.cpu_seconds.push_back(cpu / double(t.batch));
  return s;
}

// The first sample of a row on a shape: one timed call, kept if it is long enough; otherwise the
// batch doubles (untimed warm-up) until a batch lasts kMinSampleSeconds.
void choose_batch(const TimedCall& call, Timing& t) {
  t.batch = 1;
  const double s = timed_sample(call, t);
  if (s < 0 || s >= kMinSampleSeconds) return;
  t.seconds.clear();
  t.cpu_seconds.clear();
  for (int64_t n = 2; n <= (int64_t(1) << 26); n *= 2) {
    const auto t0 = Clock::now();
    if (!run_calls(call, n, t)) return;
    t.batch = n;
    if (since(t0) >= kMinSampleSeconds) return;
  }
}

double median_of(std::vector<double> s) {
  if (s.empty()) return 0;
  const size_t mid = s.size() / 2;
  std::nth_element(s.begin(), s.begin() + mid, s.end());
  if (s.size() % 2 == 1) return s[mid];
  return (s[mid] + *std::max_element(s.begin(), s.begin() + mid)) / 2;
}

}  // namespace

void time_calls(const TimedCall& call, int count, Timing* t) {
  if (t->batch == 0) t->batch = 1;
  for (int i = 0; i < count && t->error.empty(); ++i)
    if (timed_sample(call, *t) < 0) break;
}

double Timing::median() const { return median_of(seconds); }

double Timing::median_cpu() const { return median_of(cpu_seconds); }

double Timing::best() const {
  return seconds.empty() ? 0 : *std::min_element(seconds.begin(), seconds.end());
}

double Timing::cpu_share() const {
  const double wall = std::accumulate(seconds.begin(), seconds.end(), 0.0);
  const double cpu = std::accumulate(cpu_seconds.begin(), cpu_seconds.end(), 0.0);
  return wall > 0 ? std::min(1.0, cpu / wall) : 0;
}

Turn local_turn(std::function<void()> activate, TimedCall call) {
  return [activate = std::move(activate), call = std::move(call)](double seconds, int min_samples,
                                                                  Timing* t) {
    if (activate) activate();
    if (t->batch == 0) {
      choose_batch(call, *t);
    } else if (!t->seconds.empty() && t->best() * double(t->batch) < 0.1 * seconds) {
      // Untimed: brings this row's operands and workspace back to cache.
      if (!run_calls(call, t->batch, *t)) return;
    }
    const auto start = Clock::now();
    int done = 0;
    while (t->error.empty() && (done < min_samples || since(start) < seconds)) {
      if (timed_sample(call, *t) < 0) return;
      ++done;
    }
  };
}

std::vector<Timing> time_in_turns(const std::vector<Turn>& turns, double seconds_per_call,
                                  int rounds, int min_reps, double settle_seconds) {
  std::vector<Timing> timings(turns.size());
  const double slice = seconds_per_call / std::max(rounds, 1);
  auto settle = [&] {
    if (settle_seconds > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(settle_seconds));
  };
  for (int round = 0; round < rounds; ++round)
    for (size_t i = 0; i < turns.size(); ++i)
      if (timings[i].error.empty()) {
        settle();
        turns[i](slice, 1, &timings[i]);
      }
  for (size_t i = 0; i < turns.size(); ++i) {
    const int missing = min_reps - int(timings[i].seconds.size());
    if (timings[i].error.empty() && missing > 0) {
      settle();
      turns[i](0, missing, &timings[i]);
    }
  }
  return timings;
}

}  // namespace invar_bench

// The timing loop (see timing.h for what is timed and under which cache conditions).
#include "timing.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <numeric>

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

// One timed call appended to `t`; false when it failed.
bool timed_call(const TimedCall& call, Timing& t) {
  std::string error;
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = Clock::now();
  const bool ok = call(&error);
  const double s = since(t0);
  const double cpu = thread_cpu_seconds() - cpu0;
  if (!ok) {
    t.error = error.empty() ? "call failed" : error;
    return false;
  }
  t.seconds.push_back(s);
  t.cpu_seconds.push_back(cpu);
  return true;
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
  for (int i = 0; i < count && t->error.empty(); ++i)
    if (!timed_call(call, *t)) break;
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

std::vector<Timing> time_in_turns(const std::vector<TimedCall>& calls, double seconds_per_call,
                                  int rounds, int min_reps) {
  std::vector<Timing> timings(calls.size());
  const double slice = seconds_per_call / std::max(rounds, 1);
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < calls.size(); ++i) {
      Timing& t = timings[i];
      if (!t.error.empty()) continue;
      if (!t.seconds.empty() && t.best() < 0.1 * slice) {
        std::string ignored;
        calls[i](&ignored);  // untimed: brings this row's operands and workspace back to cache
      }
      const auto start = Clock::now();
      do {
        if (!timed_call(calls[i], t)) break;
      } while (since(start) < slice);
    }
  }
  for (size_t i = 0; i < calls.size(); ++i)
    while (timings[i].error.empty() && int(timings[i].seconds.size()) < min_reps)
      if (!timed_call(calls[i], timings[i])) break;
  return timings;
}

}  // namespace invar_bench

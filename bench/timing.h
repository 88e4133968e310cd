// The one timing loop of the benchmark. For one shape, every row takes `rounds` turns; in each
// turn it repeats its call for seconds/rounds and every call is timed on its own (steady_clock
// around the call only: no allocation, data generation or checking inside the timed region).
// Taking turns spreads slow phases of a shared, noisy machine over all rows alike. Cache state:
// the operands stay where the row's previous repetition left them (warm); a turn whose calls are
// short starts with one untimed call, so the row does not pay for the cache state another row
// left behind. Operands larger than the last-level cache stream from memory as they would in use.
// The thread's CPU time is read around each timed call too: on a shared machine, a call whose
// thread was descheduled shows a CPU share below 1, which flags a noisy measurement, and the
// median CPU time per call is a figure that such descheduling does not inflate.
#ifndef INVAR_BENCH_TIMING_H_
#define INVAR_BENCH_TIMING_H_

#include <functional>
#include <string>
#include <vector>

namespace invar_bench {

struct Timing {
  std::vector<double> seconds;      // wall time of each timed call
  std::vector<double> cpu_seconds;  // the calling thread's CPU time during each timed call
  std::string error;                // set when a call failed; the row then stops for this shape
  double median() const;
  double best() const;
  double median_cpu() const;
  double cpu_share() const;  // total CPU time / total wall time: 1 = never descheduled
};

// A call returns false (and fills its argument) on failure.
using TimedCall = std::function<bool(std::string* error)>;

std::vector<Timing> time_in_turns(const std::vector<TimedCall>& calls, double seconds_per_call,
                                  int rounds, int min_reps);

// Exactly `count` timed calls appended to *t (fewer if one fails: t->error is then set).
void time_calls(const TimedCall& call, int count, Timing* t);

}  // namespace invar_bench

#endif  // INVAR_BENCH_TIMING_H_

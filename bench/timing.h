// The one timing loop of the benchmark. For one shape, every row takes `rounds` turns; in each
// turn it repeats timed samples for seconds/rounds. A sample is one call, or for calls shorter
// than kMinSampleSeconds (small matrices) a batch of back-to-back calls timed together, so the
// clock's own cost stays below 1% of what it measures; the batch is chosen on the row's first
// turn for the shape and kept. Only the calls are timed (steady_clock around the sample): no
// allocation, data generation or checking inside the timed region. Taking turns spreads slow
// phases of a shared, noisy machine over all rows alike. Before each turn the row is activated
// (untimed: e.g. its library is set to the row's thread count). Cache state: the operands stay
// where the row's previous sample left them (warm); a turn whose samples are short starts with
// one untimed sample, so the row does not pay for the cache state another row left behind.
// Operands larger than the last-level cache stream from memory as they would in use.
// The thread's CPU time is read around each sample too: on a shared machine, a sample whose
// thread was descheduled shows a CPU share below 1, which flags a noisy measurement, and the
// median CPU time per call is a figure that such descheduling does not inflate.
#ifndef INVAR_BENCH_TIMING_H_
#define INVAR_BENCH_TIMING_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace invar_bench {

constexpr double kMinSampleSeconds = 200e-6;

struct Timing {
  std::vector<double> seconds;      // wall time per call of each sample (sample time / batch)
  std::vector<double> cpu_seconds;  // the calling thread's CPU time per call of each sample
  int64_t batch = 0;                // calls per sample; 0 = not chosen yet
  std::string error;                // set when a call failed; the row then stops for this shape
  double median() const;
  double best() const;
  double median_cpu() const;
  double cpu_share() const;  // total CPU time / total wall time: 1 = never descheduled
  int64_t calls() const { return int64_t(seconds.size()) * batch; }
};

// A call returns false (and fills its argument) on failure.
using TimedCall = std::function<bool(std::string* error)>;

// One turn of a row: adds samples to *t for about `seconds` and at least `min_samples` of them.
using Turn = std::function<void(double seconds, int min_samples, Timing* t)>;

// The turn of a row called in this process: `activate` (may be empty), then samples of `call`.
Turn local_turn(std::function<void()> activate, TimedCall call);

// Exactly `count` timed samples of one call each appended to *t (fewer if one fails: t->error is
// then set).
void time_calls(const TimedCall& call, int count, Timing* t);

// The rows' turns, round after round. Before each turn the process sleeps `settle_seconds`: a
// library's worker threads spin for a while after its call returns (MKL's OpenMP for
// KMP_BLOCKTIME, OpenBLAS's for 2^OPENBLAS_THREAD_TIMEOUT cycles), and on a machine with as many
// cores as threads they would take a core from the next row's threads.
std::vector<Timing> time_in_turns(const std::vector<Turn>& turns, double seconds_per_call,
                                  int rounds, int min_reps, double settle_seconds);

}  // namespace invar_bench

#endif  // INVAR_BENCH_TIMING_H_

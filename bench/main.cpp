// invar_bench: GEMM throughput (f32, f32 x * W^T, f64, bf16 inputs, uint8 x int8 -> int32) of
// invar's instruction-set paths against the BLAS libraries found on this machine (and numpy, in a
// process of its own), in one run, next to the core's measured FMA peak and memory bandwidth, with
// the optimization ladder (plain loops up to invar on every thread) as rows of the same run. For
// each shape and thread count every row of that count is checked (see check.h), then timed in
// turns (see timing.h: warm operands, only the calls timed, median and best). Optionally the
// cache-blocking sweep follows (blocking_sweep.h). Results go to results/<timestamp>/ (report.h).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <set>

#include "blocking_sweep.h"
#include "check.h"
#include "machine.h"
#include "options.h"
#include "report.h"
#include "rows.h"
#include "testing/seeded_data.h"
#include "timing.h"

namespace invar_bench {
namespace {

// Variables that steer the libraries' threads and kernels.
constexpr const char* kSteering[] = {"OPENBLAS_NUM_THREADS",
                                     "OMP_NUM_THREADS",
                                     "MKL_NUM_THREADS",
                                     "BLIS_NUM_THREADS",
                                     "KMP_BLOCKTIME",
                                     "OPENBLAS_THREAD_TIMEOUT",
                                     "OPENBLAS_CORETYPE",
                                     "OPENBLAS_L2_SIZE",
                                     "MKL_DEBUG_CPU_TYPE",
                                     "MKL_ENABLE_INSTRUCTIONS",
                                     "BLIS_ARCH_TYPE",
                                     "DNNL_MAX_CPU_ISA",
                                     "INVAR_ISA",
                                     "INVAR_MC",
                                     "INVAR_KC",
                                     "INVAR_NC"};

// The libraries that read a thread count at load time get the largest one through their variable,
// before anything is loaded; each row then sets its own count through the library's API.
// Idle workers spin before they sleep: MKL's for KMP_BLOCKTIME (200 ms by default), OpenBLAS's
// for 2^OPENBLAS_THREAD_TIMEOUT cycles (2^28, about 80 ms). Both are bounded here, unless the
// caller set them, to 40 ms and 2^24 cycles (about 5 ms): far longer than the gap between two
// calls of a timed sample, far shorter than kSettleSeconds between rows.
constexpr double kSettleSeconds = 0.06;
void set_thread_variables(const std::vector<int>& threads) {
  const std::string n = std::to_string(*std::max_element(threads.begin(), threads.end()));
  for (const char* name :
       {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"})
    setenv(name, n.c_str(), 1);
  setenv("KMP_BLOCKTIME", "40", 0);
  setenv("OPENBLAS_THREAD_TIMEOUT", "24", 0);
}

std::vector<std::string> steering_environment() {
  std::vector<std::string> env;
  for (const char* name : kSteering)
    env.push_back(std::string(name) + "=" + (std::getenv(name) ? std::getenv(name) : "(unset)"));
  return env;
}

std::string timestamp_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", std::localtime(&now));
  return text;
}

std::vector<GemmRow> build_rows(const Options& o, const Machine& machine, SkipNotes* skips) {
  std::vector<GemmRow> rows;
  if (o.sweep_only) return rows;
  add_invar_rows(o.threads, o.generic_max, o.ladder, &rows, skips);
  add_invar_blas(INVAR_BENCH_BLAS_LIBRARY, o.threads, &rows, skips);
  if (o.ladder) add_ladder_rows(&rows);
  if (o.peers) {
    const std::set<std::string> only(o.only.begin(), o.only.end());
    auto wanted = [&](const char* name) { return only.empty() || only.count(name) > 0; };
    const PeerPaths& p = o.paths;
    // The distribution's OpenBLAS loads with the environment as it is; the current build
    // without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE. MKL last (see peer_mkl.cpp).
    if (wanted("openblas")) add_openblas("openblas", p.openblas, false, o.threads, &rows, skips);
    if (wanted("openblas-current"))
      add_openblas("openblas-current", p.openblas_current, true, o.threads, &rows, skips);
    if (wanted("blis")) add_blis(p.blis, o.threads, &rows, skips);
    if (wanted("onednn")) add_onednn(p.onednn, o.threads, &rows, skips);
    if (wanted("eigen") || wanted("eigen-avx512"))
      add_eigen(machine, p.eigen_dir, o.threads, &rows, skips);
    if (wanted("numpy"))
      add_numpy(p.numpy, p.numpy_script.empty() ? INVAR_BENCH_NUMPY_SCRIPT : p.numpy_script,
                o.threads, &rows, skips);
    if (wanted("mkl")) add_mkl(p.mkl, o.threads, &rows, skips);
  } else {
    skips->push_back("peers: not run (--no-peers)");
  }
  if (!o.only.empty()) {
    const std::set<std::string> only(o.only.begin(), o.only.end());
    std::vector<GemmRow> kept;
    for (auto& row : rows)
      if (only.count(row.name)) kept.push_back(std::move(row));
    rows = std::move(kept);
  }
  SkipNotes unique;  // one note per reason, however many thread counts gave it
  for (auto& note : *skips)
    if (std::find(unique.begin(), unique.end(), note) == unique.end()) unique.push_back(note);
  *skips = std::move(unique);
  return rows;
}

// The roof of a shape: the roofline from memory bandwidth, except for small squares, whose
// operands stay in L1 between calls and so are held to the FMA peak. Integer products have none
// (0): no integer peak is measured (row_peak).
double shape_roof(const Shape& s, double peak, const Machine& machine) {
  if (s.integer()) return 0;
  return s.small ? peak : roofline_gflops(s, peak, machine.bandwidth());
}

// A shape's operands, of its kind: f32 A and B (B is W, n x k, for x * W^T), f64, bf16, or
// uint8 A and int8 B.
struct Operands {
  std::vector<float> a, b;
  std::vector<double> a64, b64;
  std::vector<uint16_t> a16, b16;
  std::vector<uint8_t> a8;
  std::vector<int8_t> b8;
};

// bf16 operands: seeded f32 values rounded to the nearest bf16 (ties to even; no NaNs here).
std::vector<uint16_t> random_bf16(size_t count, uint64_t seed) {
  const auto f = invar::test::random_floats(count, seed);
  std::vector<uint16_t> out(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &f[i], sizeof bits);
    out[i] = uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
  }
  return out;
}

// Seeded bytes over their type's whole range (uint8 0..255, int8 -128..127): sums of products
// near the extremes are where 16-bit intermediate sums would saturate.
template <class T>
std::vector<T> random_bytes(size_t count, uint64_t seed) {
  invar::test::Rng rng(seed);
  std::vector<T> out(count);
  for (T& x : out) x = T(uint8_t(rng.next() >> 56));
  return out;
}

Operands make_operands(const Shape& s) {
  Operands o;
  const size_t na = size_t(s.m * s.k), nb = s.syrk() ? 0 : size_t(s.k * s.n);
  switch (s.kind) {
    case Kind::kF32:
    case Kind::kF32Bt:
    case Kind::kSgemv:
    case Kind::kSgemvT:
    case Kind::kSsyrk:
      o.a = invar::test::random_floats(na, 1);
      o.b = invar::test::random_floats(nb, 2);
      break;
    case Kind::kF64:
    case Kind::kDgemv:
    case Kind::kDgemvT:
    case Kind::kDsyrk:
      o.a64 = invar::test::random_doubles(na, 1);
      o.b64 = invar::test::random_doubles(nb, 2);
      break;
    case Kind::kBf16:
      o.a16 = random_bf16(na, 1);
      o.b16 = random_bf16(nb, 2);
      break;
    case Kind::kU8S8:
      o.a8 = random_bytes<uint8_t>(na, 1);
      o.b8 = random_bytes<int8_t>(nb, 2);
      break;
  }
  return o;
}

// C of one call: f32, f64 for f64 shapes, int32 for integer ones.
struct Result {
  std::vector<float> c;
  std::vector<double> c64;
  std::vector<int32_t> c32;
  // Before a checked call: NaN, or for int32 a value far beyond these shapes' sums, so a C the
  // row did not write cannot pass.
  void fill_nan() {
    std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
    std::fill(c64.begin(), c64.end(), std::numeric_limits<double>::quiet_NaN());
    std::fill(c32.begin(), c32.end(), std::numeric_limits<int32_t>::min());
  }
};

// One call of the row on the shape's operands into *c.
bool call_row(const GemmRow& row, const Shape& s, const Operands& o, Result* c,
              std::string* error) {
  switch (s.kind) {
    case Kind::kF32: return row.sgemm(s.m, s.n, s.k, o.a.data(), o.b.data(), c->c.data(), error);
    case Kind::kF32Bt:
      return row.sgemm_bt(s.m, s.n, s.k, o.a.data(), o.b.data(), c->c.data(), error);
    case Kind::kF64:
      return row.dgemm(s.m, s.n, s.k, o.a64.data(), o.b64.data(), c->c64.data(), error);
    case Kind::kBf16:
      return row.gemm_bf16(s.m, s.n, s.k, o.a16.data(), o.b16.data(), c->c.data(), error);
    case Kind::kU8S8:
      return row.gemm_u8s8(s.m, s.n, s.k, o.a8.data(), o.b8.data(), c->c32.data(), error);
    case Kind::kSgemv: return row.sgemv(s.m, s.n, s.k, o.a.data(), o.b.data(), c->c.data(), error);
    case Kind::kSgemvT:
      return row.sgemv_t(s.m, s.n, s.k, o.a.data(), o.b.data(), c->c.data(), error);
    case Kind::kSsyrk: return row.ssyrk(s.m, s.n, s.k, o.a.data(), nullptr, c->c.data(), error);
    case Kind::kDgemv:
      return row.dgemv(s.m, s.n, s.k, o.a64.data(), o.b64.data(), c->c64.data(), error);
    case Kind::kDgemvT:
      return row.dgemv_t(s.m, s.n, s.k, o.a64.data(), o.b64.data(), c->c64.data(), error);
    case Kind::kDsyrk: return row.dsyrk(s.m, s.n, s.k, o.a64.data(), nullptr, c->c64.data(), error);
  }
  return false;
}

// Where a shape's rows are compared: the first row's C, and whether it came from invar.
struct Reference {
  Result c;
  std::string name;
  bool is_invar = false;
  bool empty() const { return c.c.empty() && c.c64.empty() && c.c32.empty(); }
};

// Rows of C the oracle computes for invar's first row: all of a small product, else the first 8.
constexpr int64_t kOracleRows = 8;

Check check_first(const Shape& s, const Operands& o, const Result& c) {
  const int64_t rows = s.flop() <= 2.0 * 512 * 512 * 512 ? s.m : kOracleRows;
  switch (s.kind) {
    case Kind::kF32:
    case Kind::kF32Bt:
    case Kind::kSgemv:
    case Kind::kSgemvT:
      return check_against_oracle(c.c.data(), o.a.data(), o.b.data(), s.b_transposed(), s.m, s.n,
                                  s.k, rows);
    case Kind::kSsyrk:  // the mirrored triangle against A * A^T
      return check_against_oracle(c.c.data(), o.a.data(), o.a.data(), true, s.m, s.n, s.k, rows);
    case Kind::kF64:
    case Kind::kDgemv:
    case Kind::kDgemvT:
      return check_against_oracle(c.c64.data(), o.a64.data(), o.b64.data(), s.b_transposed(), s.m,
                                  s.n, s.k, rows);
    case Kind::kDsyrk:
      return check_against_oracle(c.c64.data(), o.a64.data(), o.a64.data(), true, s.m, s.n, s.k,
                                  rows);
    case Kind::kBf16:
      return check_bf16_against_oracle(c.c.data(), o.a16.data(), o.b16.data(), s.m, s.n, s.k, rows);
    case Kind::kU8S8:
      return check_u8s8_against_oracle(c.c32.data(), o.a8.data(), o.b8.data(), s.m, s.n, s.k, rows);
  }
  return {false, "unknown kind"};
}

// A syrk row writes the upper triangle of C only: the lower one is copied from it before the
// check (with alpha = 1, element (j, i) of A * A^T is element (i, j) bit for bit).
void mirror_upper(int64_t n, float* c, double* c64) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      if (c != nullptr) c[j * n + i] = c[i * n + j];
      if (c64 != nullptr) c64[j * n + i] = c64[i * n + j];
    }
}

// The row's first call on this shape (untimed) and the check of its C.
void first_call_and_check(const GemmRow& row, const Shape& s, const Operands& o, Result& c,
                          Reference& ref, Measurement& m) {
  if (row.remote_start) {
    if (!row.remote_start(s, &m.check.ok, &m.check.text, &m.timing.error) && m.timing.error.empty())
      m.timing.error = "call failed";
    return;
  }
  c.fill_nan();
  if (!call_row(row, s, o, &c, &m.timing.error)) {
    if (m.timing.error.empty()) m.timing.error = "call failed";
    return;
  }
  const bool f64 = s.f64();
  if (s.syrk()) mirror_upper(s.n, f64 ? nullptr : c.c.data(), f64 ? c.c64.data() : nullptr);
  if (ref.empty()) {
    ref = Reference{c, row.name, row.is_invar};
    m.check = row.is_invar ? check_first(s, o, c) : Check{true, "reference for the others"};
  } else if (s.integer()) {
    // Exact arithmetic: peers too must give the reference's bits.
    m.check = check_same_bits(c.c32.data(), ref.c.c32.data(), c.c32.size(), ref.name);
  } else if (row.is_invar && ref.is_invar) {
    m.check = f64 ? check_same_bits(c.c64.data(), ref.c.c64.data(), c.c64.size(), ref.name)
                  : check_same_bits(c.c.data(), ref.c.c.data(), c.c.size(), ref.name);
  } else {
    m.check = f64 ? check_close(c.c64.data(), ref.c.c64.data(), c.c64.size(), ref.name)
                  : check_close(c.c.data(), ref.c.c.data(), c.c.size(), ref.name);
  }
}

// Checks every row of this thread count on this shape, then times them in turns. `ref` carries the
// first row's C from one thread count to the next: invar's rows must give the same bits at all.
void measure_shape(Run& run, const Shape& s, int threads, const Operands& o, Reference& ref,
                   bool* all_ok) {
  const Options& opt = run.options;
  std::printf("%s, %d thread(s):\n", s.label().c_str(), threads);
  std::fflush(stdout);
  Result c;
  if (s.f64())
    c.c64.resize(size_t(s.m * s.n));
  else if (s.integer())
    c.c32.resize(size_t(s.m * s.n));
  else
    c.c.resize(size_t(s.m * s.n));
  std::vector<Measurement> results;
  std::vector<Turn> turns;
  for (size_t r = 0; r < run.rows.size(); ++r) {
    const GemmRow& row = run.rows[r];
    if (row.requested_threads != threads || !row.offers(s.kind)) continue;
    if (row.max_dim > 0 && (s.m > row.max_dim || s.n > row.max_dim || s.k > row.max_dim)) continue;
    Measurement m;
    m.shape = s;
    m.row = r;
    m.peak = row_peak(run.machine, row, s);
    m.roof = shape_roof(s, m.peak, run.machine);
    if (row.activate) row.activate();
    first_call_and_check(row, s, o, c, ref, m);
    *all_ok &= m.check.ok;
    if (m.timing.error.empty()) {
      if (row.remote_turn) {
        turns.push_back(row.remote_turn);
      } else {
        const GemmRow* rp = &row;
        Result* cp = &c;
        turns.push_back(local_turn(row.activate, [rp, s, &o, cp](std::string* error) {
          return call_row(*rp, s, o, cp, error);
        }));
      }
    }
    results.push_back(std::move(m));
  }
  // Multi-threaded turns wait for the previous row's spinning workers to sleep (timing.h); the
  // idle spins are bounded in set_thread_variables.
  const double settle = threads > 1 ? kSettleSeconds : 0.0;
  const auto timings = time_in_turns(turns, opt.seconds_per_cell, opt.rounds, opt.min_reps, settle);
  size_t t = 0;
  for (auto& m : results) {
    if (m.timing.error.empty()) m.timing = timings[t++];
    const GemmRow& row = run.rows[m.row];
    if (!m.timing.error.empty()) {
      std::printf("  %-12s %-18s error: %s\n", s.label().c_str(), row.name.c_str(),
                  m.timing.error.c_str());
      *all_ok = false;
    } else if (s.integer()) {  // GOP/s, and no roof to compare with
      std::printf(
          "  %-12s %d thr %-18s %6.1f GOP/s   median %6.1f best %-13s %7lld calls cpu %3.0f%%  "
          "%s\n",
          s.label().c_str(), threads, row.name.c_str(), m.gflops_median(), m.gflops_best(),
          "(no roof)", static_cast<long long>(m.timing.calls()), 100 * m.timing.cpu_share(),
          m.check.text.c_str());
    } else {
      std::printf(
          "  %-12s %d thr %-18s %6.1f GFLOP/s median %6.1f best %5.1f%% of %s %7lld calls "
          "cpu %3.0f%%  %s\n",
          s.label().c_str(), threads, row.name.c_str(), m.gflops_median(), m.gflops_best(),
          100 * m.gflops_median() / m.roof, m.memory_bound() ? "roof" : "peak",
          static_cast<long long>(m.timing.calls()), 100 * m.timing.cpu_share(),
          m.check.text.c_str());
    }
    std::fflush(stdout);
    if (row.release) row.release();
    run.results.push_back(std::move(m));
  }
}

int run_bench(int argc, char** argv) {
  Run run;
  run.options = parse_options(argc, argv);
  const Options& o = run.options;
  run.timestamp = timestamp_now();
  set_thread_variables(o.threads);

  std::printf("invar_bench: measuring the FMA peak and memory bandwidth...\n");
  std::fflush(stdout);
  run.machine = probe_machine(o.peak_seconds, o.membw_mib,
                              *std::max_element(o.threads.begin(), o.threads.end()));
  const Machine& mc = run.machine;
  std::printf("cpu: %s (%s), avx2+fma %s, avx512f %s\n", mc.brand.c_str(), mc.vendor.c_str(),
              mc.avx2_fma ? "yes" : "no", mc.avx512f ? "yes" : "no");
  std::printf(
      "fma peak, one core: avx2 %.1f GFLOP/s, avx512 %.1f GFLOP/s (0 = not supported); f64: "
      "avx2 %.1f, avx512 %.1f; memory read %.1f GB/s\n",
      mc.peak_avx2, mc.peak_avx512, mc.peak_avx2_f64, mc.peak_avx512_f64, mc.membw_gbs);
  if (mc.team_peak > 0)
    std::printf("fma peak, %d threads at once: %.1f GFLOP/s (%.2f x one core)\n", mc.team,
                mc.team_peak, mc.team_peak / mc.team_loop_peak(false));

  run.environment = steering_environment();
  run.rows = build_rows(o, run.machine, &run.skips);
  if (!run.rows.empty()) std::printf("rows:\n");
  for (const auto& row : run.rows)
    std::printf("  %-18s %s | %s | %d thread(s), %d reported\n", row.name.c_str(),
                row.library.c_str(), row.kernel.c_str(), row.requested_threads, row.threads);
  for (const auto& skip : run.skips) std::printf("  skipped: %s\n", skip.c_str());
  std::fflush(stdout);

  bool all_ok = true;
  for (const Shape& s : o.shapes) {
    const Operands operands = make_operands(s);
    Reference ref;
    for (int threads : o.threads) {
      measure_shape(run, s, threads, operands, ref, &all_ok);
      if (s.small) break;  // small squares: the first thread count only
    }
  }
  if (o.sweep_blocking) {
    run.sweep = run_blocking_sweep(o.quick);
    for (const auto& s : run.sweep.sizes) all_ok &= s.error.empty();
    for (const auto& note : run.sweep.notes) all_ok &= note.find("differs") == std::string::npos;
  }
  // Peaks and bandwidth again: percentages use the better of the two measurements.
  remeasure(run.machine, o.peak_seconds);
  for (auto& m : run.results) {
    m.peak = row_peak(run.machine, run.rows[m.row], m.shape);
    m.roof = shape_roof(m.shape, m.peak, run.machine);
  }

  const std::string dir = o.out_dir.empty() ? "results/" + run.timestamp : o.out_dir;
  std::string error;
  if (!write_results(run, dir, &error)) {
    std::fprintf(stderr, "invar_bench: %s\n", error.c_str());
    return 1;
  }
  std::printf("\n%s\n", markdown_report(run).c_str());
  if (!all_ok) std::printf("SOME RESULTS ARE WRONG OR FAILED: see the checks above\n");
  std::printf("results: %s/ (report.md, measurements.csv, machine.csv%s)\n", dir.c_str(),
              run.sweep.ran ? ", blocking_sweep.csv, blocking_sweep_summary.csv" : "");
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace invar_bench

int main(int argc, char** argv) { return invar_bench::run_bench(argc, argv); }

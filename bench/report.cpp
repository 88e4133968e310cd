// Writing a run's results: CSV for every measurement, and a markdown report whose main table is
// invar / best peer per shape (ratios survive a noisy, shared machine better than absolute
// numbers do), then GFLOP/s per row, the optimization ladder and the blocking sweep.
#include "report.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <sstream>

namespace invar_bench {

std::string fmt(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string mib(int64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

std::vector<Shape> shapes_in_order(const Run& run) {
  std::vector<Shape> shapes;
  for (const auto& m : run.results) {
    bool seen = false;
    for (const auto& s : shapes) seen |= s.m == m.shape.m && s.n == m.shape.n && s.k == m.shape.k;
    if (!seen) shapes.push_back(m.shape);
  }
  return shapes;
}

const Measurement* find(const Run& run, const Shape& s, size_t row) {
  for (const auto& m : run.results)
    if (m.row == row && m.shape.m == s.m && m.shape.n == s.n && m.shape.k == s.k) return &m;
  return nullptr;
}

bool usable(const Measurement* m) { return m != nullptr && m->timing.error.empty() && m->check.ok; }

// The peer with the highest median for this shape, or nullptr.
const Measurement* best_peer(const Run& run, const Shape& s) {
  const Measurement* best = nullptr;
  for (size_t r = 0; r < run.rows.size(); ++r) {
    const Measurement* m = find(run, s, r);
    if (run.rows[r].is_invar || !run.rows[r].peer_table || !usable(m)) continue;
    if (best == nullptr || m->gflops_median() > best->gflops_median()) best = m;
  }
  return best;
}

// invar rows that get a ratio column: the vector paths (not the slow portable one).
std::vector<size_t> ratio_rows(const Run& run) {
  std::vector<size_t> rows;
  for (size_t r = 0; r < run.rows.size(); ++r)
    if (run.rows[r].is_invar && run.rows[r].peer_table && run.rows[r].max_dim == 0)
      rows.push_back(r);
  return rows;
}

// Rows of the invar-against-peers tables, in run order.
std::vector<size_t> peer_table_rows(const Run& run) {
  std::vector<size_t> rows;
  for (size_t r = 0; r < run.rows.size(); ++r)
    if (run.rows[r].peer_table) rows.push_back(r);
  return rows;
}

// Rows of the optimization ladder, in step order.
std::vector<size_t> ladder_rows(const Run& run) {
  std::vector<size_t> rows;
  for (size_t r = 0; r < run.rows.size(); ++r)
    if (run.rows[r].ladder_step > 0) rows.push_back(r);
  std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
    return run.rows[a].ladder_step < run.rows[b].ladder_step;
  });
  return rows;
}

void machine_section(const Run& run, std::ostringstream& md) {
  const Machine& m = run.machine;
  md << "- CPU: " << m.brand << " (" << m.vendor << "); AVX2+FMA: " << (m.avx2_fma ? "yes" : "no")
     << ", AVX-512F: " << (m.avx512f ? "yes" : "no");
  if (m.llc_bytes > 0) md << "; last-level cache " << mib(m.llc_bytes);
  md << "\n- FMA peak of one core, measured in this run (independent FMA chains in registers):";
  if (m.peak_avx2 > 0)
    md << " AVX2 (12 chains x 8 lanes) " << fmt("%.1f", m.peak_avx2) << " GFLOP/s at start, "
       << fmt("%.1f", m.peak_avx2_end) << " at end;";
  if (m.peak_avx512 > 0)
    md << " AVX-512 (16 chains x 16 lanes) " << fmt("%.1f", m.peak_avx512) << " GFLOP/s at start, "
       << fmt("%.1f", m.peak_avx512_end) << " at end;";
  if (m.peak_avx2 <= 0 && m.peak_avx512 <= 0) md << " not measured on this CPU;";
  md << " percentages use the larger of start and end, times the row's threads\n";
  md << "- Memory read bandwidth of one core: " << fmt("%.1f", m.membw_gbs) << " GB/s at start, "
     << fmt("%.1f", m.membw_gbs_end) << " at end (stream sum over " << m.membw_mib
     << " MiB); memory-bound roofs use the larger\n";
  const Options& o = run.options;
  if (run.results.empty()) return;
  md << "- Threads: " << o.threads << " requested for every row (see the rows table for what each "
     << "reports). Timing: " << fmt("%g", o.seconds_per_cell) << " s per row and shape in "
     << o.rounds << " turns, at least " << o.min_reps
     << " calls; median and best call. Operands warm (reused call after call); C = A * B, "
        "row-major, alpha 1, beta 0.\n";
}

// A table with one line per shape and one column per row of `rows`; `cell` renders a measurement.
template <class Cell>
void shape_table(const Run& run, const std::vector<Shape>& shapes, const std::vector<size_t>& rows,
                 Cell cell, std::ostringstream& md) {
  md << "| shape |";
  for (size_t r : rows) md << " " << run.rows[r].name << " |";
  md << "\n|---|";
  for (size_t i = 0; i < rows.size(); ++i) md << "---:|";
  md << "\n";
  for (const auto& s : shapes) {
    md << "| " << s.label();
    const Measurement* any = nullptr;
    for (size_t i = 0; i < rows.size() && any == nullptr; ++i) any = find(run, s, rows[i]);
    if (any != nullptr && any->memory_bound()) md << " (memory-bound)";
    md << " |";
    for (size_t r : rows) {
      const Measurement* m = find(run, s, r);
      md << " " << (m == nullptr ? "—" : !m->timing.error.empty() ? "error" : cell(*m)) << " |";
    }
    md << "\n";
  }
}

void gflops_table(const Run& run, const std::vector<Shape>& shapes, std::ostringstream& md) {
  md << "\n## GFLOP/s, median (% of the shape's roof)\n\n"
     << "Roof = the row's FMA peak, or for a memory-bound shape the bandwidth x arithmetic "
        "intensity (minimal traffic: A, B and C once); operands that fit in cache can beat it.\n\n";
  shape_table(
      run, shapes, peer_table_rows(run),
      [](const Measurement& m) {
        return fmt("%.1f", m.gflops_median()) + " (" +
               fmt("%.0f", 100 * m.gflops_median() / m.roof) + "%)" + (m.check.ok ? "" : " WRONG");
      },
      md);
}

// How much of the timed calls' wall time the thread was on a CPU: below ~95% another process
// took turns with it, and the absolute numbers of that line are low; ratios stay comparable.
void cpu_share_table(const Run& run, const std::vector<Shape>& shapes, std::ostringstream& md) {
  md << "\n## CPU share of the timed calls (thread CPU time / wall time, %)\n\n"
     << "Below ~95% the benchmark shared its core with other work: absolute numbers on that line "
        "are low, the ratios above stay comparable (the rows take turns).\n\n";
  std::vector<size_t> rows = peer_table_rows(run);
  for (size_t r : ladder_rows(run))
    if (!run.rows[r].peer_table) rows.push_back(r);
  shape_table(
      run, shapes, rows,
      [](const Measurement& m) { return fmt("%.0f", 100 * m.timing.cpu_share()); }, md);
}

void ratio_table(const Run& run, const std::vector<Shape>& shapes, std::ostringstream& md) {
  const auto invar_rows = ratio_rows(run);
  md << "\n## invar ÷ best peer\n\n"
     << "Each cell: **ratio of median GFLOP/s** / ratio of best calls / ratio on the median CPU "
        "time per call (unaffected by descheduling). Best peer = highest median.\n\n"
     << "| shape | best peer | GFLOP/s |";
  for (size_t r : invar_rows) md << " " << run.rows[r].name << " ÷ best peer |";
  md << "\n|---|---|---:|";
  for (size_t i = 0; i < invar_rows.size(); ++i) md << "---:|";
  md << "\n";
  std::vector<double> log_sum(invar_rows.size(), 0);
  std::vector<int> count(invar_rows.size(), 0);
  for (const auto& s : shapes) {
    const Measurement* peer = best_peer(run, s);
    md << "| " << s.label() << " | " << (peer ? run.rows[peer->row].name : "none") << " | "
       << (peer ? fmt("%.1f", peer->gflops_median()) : "—") << " |";
    for (size_t i = 0; i < invar_rows.size(); ++i) {
      const Measurement* m = find(run, s, invar_rows[i]);
      if (peer == nullptr || !usable(m)) {
        md << " — |";
        continue;
      }
      const double ratio = m->gflops_median() / peer->gflops_median();
      md << " **" << fmt("%.2f", ratio) << "** / "
         << fmt("%.2f", m->gflops_best() / peer->gflops_best()) << " / "
         << fmt("%.2f", m->gflops_median_cpu() / peer->gflops_median_cpu()) << " |";
      if (!m->memory_bound()) {
        log_sum[i] += std::log(ratio);
        ++count[i];
      }
    }
    md << "\n";
  }
  md << "| geometric mean, compute-bound shapes | | |";
  for (size_t i = 0; i < invar_rows.size(); ++i)
    md << " " << (count[i] ? fmt("%.2f", std::exp(log_sum[i] / count[i])) : "—") << " |";
  md << "\n";
}

// The optimization ladder on squares: one column per step, then each step's speed-up over the
// step before it at the largest square both ran.
void ladder_table(const Run& run, const std::vector<Shape>& shapes, std::ostringstream& md) {
  const auto rows = ladder_rows(run);
  std::vector<Shape> squares;
  for (const auto& s : shapes) {
    bool any = false;
    for (size_t r : rows) any |= find(run, s, r) != nullptr;
    if (any && s.m == s.n && s.n == s.k) squares.push_back(s);
  }
  if (squares.empty()) return;
  md << "\n## Optimization ladder: GFLOP/s, median (% of peak)\n\n"
     << "From the textbook loop to invar on every thread, squares only. The ladder-* rows are "
        "plain C++ loops (bench/ladder_rows.cpp) built with the project's default Release flags "
        "(-O3 -DNDEBUG, baseline instruction set: no -march, no -ffast-math, no explicit SIMD); "
        "slow rows stop at the largest size they finish in about 2 s per call (—). Peak = one core's "
        "FMA peak x the row's threads (";
  for (size_t i = 0; i < rows.size(); ++i)
    md << (i ? ", " : "") << run.rows[rows[i]].name << " " << run.rows[rows[i]].threads;
  md << ").\n\n";
  shape_table(
      run, squares, rows,
      [](const Measurement& m) {
        return fmt("%.1f", m.gflops_median()) + " (" +
               fmt("%.0f", m.peak > 0 ? 100 * m.gflops_median() / m.peak : 0) + "%)" +
               (m.check.ok ? "" : " WRONG");
      },
      md);
  md << "| x previous step |";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Measurement *now = nullptr, *before = nullptr;
    for (const auto& s : squares) {
      const Measurement* a = find(run, s, rows[i]);
      const Measurement* b = i > 0 ? find(run, s, rows[i - 1]) : nullptr;
      if (usable(a) && usable(b)) now = a, before = b;
    }
    if (now == nullptr) {
      md << " — |";
      continue;
    }
    md << " " << fmt("%.2f", now->gflops_median() / before->gflops_median()) << " at "
       << now->shape.label() << " |";
  }
  md << "\n";
}

void rows_section(const Run& run, const std::vector<Shape>& shapes, std::ostringstream& md) {
  if (run.rows.empty()) {
    md << "\n## Environment\n\n";
    for (const auto& e : run.environment) md << "- " << e << "\n";
    return;
  }
  md << "\n## Rows\n\n| row | library | code path | threads | loaded from "
        "|\n|---|---|---|---:|---|\n";
  for (const auto& row : run.rows)
    md << "| " << row.name << " | " << row.library << " | " << row.kernel << " | " << row.threads
       << " | " << (row.path.empty() ? "linked in" : row.path) << " |\n";
  md << "\n## Not measured\n\n";
  if (run.skips.empty()) md << "Nothing: every row was loaded.\n";
  for (const auto& skip : run.skips) md << "- " << skip << "\n";
  md << "\n## Result checks\n\n";
  for (const auto& s : shapes) {
    md << "- " << s.label() << ":";
    for (size_t r = 0; r < run.rows.size(); ++r)
      if (const Measurement* m = find(run, s, r))
        md << " " << run.rows[r].name << " "
           << (m->timing.error.empty() ? m->check.text : "error: " + m->timing.error) << ";";
    md << "\n";
  }
  md << "\n## Environment\n\n";
  for (const auto& e : run.environment) md << "- " << e << "\n";
}

}  // namespace

double row_peak(const Machine& machine, const GemmRow& row) {
  return machine.peak_for(row.peak) * std::max(row.threads, 1);
}

double Measurement::gflops_median() const {
  const double t = timing.median();
  return t > 0 ? shape.flop() / t * 1e-9 : 0;
}

double Measurement::gflops_best() const {
  const double t = timing.best();
  return t > 0 ? shape.flop() / t * 1e-9 : 0;
}

double Measurement::gflops_median_cpu() const {
  const double t = timing.median_cpu();
  return t > 0 ? shape.flop() / t * 1e-9 : 0;
}

double roofline_gflops(const Shape& s, double peak_gflops, double bandwidth_gbs) {
  const double bytes = 4.0 * (double(s.m) * s.k + double(s.k) * s.n + double(s.m) * s.n);
  const double memory = bandwidth_gbs > 0 ? s.flop() / bytes * bandwidth_gbs : peak_gflops;
  return peak_gflops > 0 ? std::fmin(peak_gflops, memory) : memory;
}

std::string markdown_report(const Run& run) {
  std::ostringstream md;
  md << "# invar sgemm benchmark, " << run.timestamp << "\n\n";
  machine_section(run, md);
  const auto shapes = shapes_in_order(run);
  if (!run.results.empty()) {
    ratio_table(run, shapes, md);
    gflops_table(run, shapes, md);
    ladder_table(run, shapes, md);
    cpu_share_table(run, shapes, md);
  }
  if (run.sweep.ran || !run.sweep.notes.empty()) md << sweep_markdown(run.sweep);
  rows_section(run, shapes, md);
  return md.str();
}

bool write_results(const Run& run, const std::string& dir, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  std::ofstream csv(dir + "/measurements.csv");
  csv << "shape,m,n,k,row,library,kernel,threads,reps,median_s,best_s,median_gflops,best_gflops,"
         "peak_ref,peak_gflops,pct_peak_median,pct_peak_best,bound,roof_gflops,pct_roof_median,"
         "cpu_share,median_cpu_s,median_cpu_gflops,check,is_invar,ladder_step,peer_table\n";
  for (const auto& m : run.results) {
    const GemmRow& row = run.rows[m.row];
    const bool ok = m.timing.error.empty();
    csv << m.shape.label() << "," << m.shape.m << "," << m.shape.n << "," << m.shape.k << ","
        << row.name << "," << csv_field(row.library) << "," << csv_field(row.kernel) << ","
        << row.threads << "," << m.timing.seconds.size() << "," << fmt("%.6e", m.timing.median())
        << "," << fmt("%.6e", m.timing.best()) << "," << fmt("%.3f", m.gflops_median()) << ","
        << fmt("%.3f", m.gflops_best()) << "," << run.machine.peak_name(row.peak) << ","
        << fmt("%.3f", m.peak) << ","
        << fmt("%.2f", m.peak > 0 ? 100 * m.gflops_median() / m.peak : 0) << ","
        << fmt("%.2f", m.peak > 0 ? 100 * m.gflops_best() / m.peak : 0) << ","
        << (m.memory_bound() ? "memory" : "compute") << "," << fmt("%.3f", m.roof) << ","
        << fmt("%.2f", m.roof > 0 ? 100 * m.gflops_median() / m.roof : 0) << ","
        << fmt("%.3f", m.timing.cpu_share()) << "," << fmt("%.6e", m.timing.median_cpu()) << ","
        << fmt("%.3f", m.gflops_median_cpu()) << ","
        << csv_field(ok ? m.check.text : "error: " + m.timing.error) << ","
        << (row.is_invar ? 1 : 0) << "," << row.ladder_step << "," << (row.peer_table ? 1 : 0)
        << "\n";
  }
  const Machine& mc = run.machine;
  std::ofstream machine(dir + "/machine.csv");
  machine << "metric,value,unit\n"
          << "fma_peak_avx2_start," << fmt("%.3f", mc.peak_avx2) << ",GFLOP/s\n"
          << "fma_peak_avx2_end," << fmt("%.3f", mc.peak_avx2_end) << ",GFLOP/s\n"
          << "fma_peak_avx512_start," << fmt("%.3f", mc.peak_avx512) << ",GFLOP/s\n"
          << "fma_peak_avx512_end," << fmt("%.3f", mc.peak_avx512_end) << ",GFLOP/s\n"
          << "mem_read_bandwidth_start," << fmt("%.3f", mc.membw_gbs) << ",GB/s\n"
          << "mem_read_bandwidth_end," << fmt("%.3f", mc.membw_gbs_end) << ",GB/s\n"
          << "mem_read_buffer," << mc.membw_mib << ",MiB\n"
          << "llc," << mc.llc_bytes << ",bytes\n"
          << "threads," << run.options.threads << ",\n";
  std::ofstream(dir + "/report.md") << markdown_report(run);
  const bool sweep_ok = !run.sweep.ran || write_sweep_csv(run.sweep, dir);
  if (!csv || !machine || !sweep_ok) {
    *error = "cannot write into " + dir;
    return false;
  }
  return true;
}

}  // namespace invar_bench

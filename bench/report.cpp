// Writing a run's results: CSV for every measurement, and a markdown report whose main table is
// invar / best peer per shape (ratios survive a noisy, shared machine better than absolute
// numbers do), then GFLOP/s per row, the optimization ladder and the blocking sweep. Integer
// products (u8s8) are counted like floating-point ones, 2 M N K operations per call, and shown in
// GOP/s; they have no roof, since no integer peak is measured (row_peak).
#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

bool same_shape(const Shape& a, const Shape& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.kind == b.kind;
}

std::vector<Shape> shapes_in_order(const Run& run) {
  std::vector<Shape> shapes;
  for (const auto& m : run.results) {
    bool seen = false;
    for (const auto& s : shapes) seen |= same_shape(s, m.shape);
    if (!seen) shapes.push_back(m.shape);
  }
  return shapes;
}

// One line of the tables: a shape at one thread count.
struct Line {
  Shape shape;
  int threads = 1;
  std::string label() const { return shape.label(); }
};

std::vector<Line> lines_in_order(const Run& run, bool small) {
  std::vector<Line> lines;
  for (const auto& m : run.results) {
    if (m.shape.small != small) continue;
    const int t = run.rows[m.row].requested_threads;
    bool seen = false;
    for (const auto& l : lines) seen |= same_shape(l.shape, m.shape) && l.threads == t;
    if (!seen) lines.push_back(Line{m.shape, t});
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line& a, const Line& b) { return a.threads < b.threads; });
  return lines;
}

const Measurement* find(const Run& run, const Shape& s, size_t row) {
  for (const auto& m : run.results)
    if (m.row == row && same_shape(m.shape, s)) return &m;
  return nullptr;
}

// The measurement of the row called `name` on this line, or nullptr.
const Measurement* find(const Run& run, const Line& line, const std::string& name) {
  for (const auto& m : run.results)
    if (same_shape(m.shape, line.shape) && run.rows[m.row].name == name &&
        run.rows[m.row].requested_threads == line.threads)
      return &m;
  return nullptr;
}

bool usable(const Measurement* m) { return m != nullptr && m->timing.error.empty() && m->check.ok; }

// A median rate for a cell of a GFLOP/s column: integer products say their unit, GOP/s.
std::string rate_text(const Measurement& m) {
  return fmt("%.1f", m.gflops_median()) + (m.shape.integer() ? " GOP/s" : "");
}

// B's bytes (W's, for x * W^T) per median call, GB/s: what a decode step (M = 1) streams.
double weight_gbs(const Measurement& m) {
  const double t = m.timing.median();
  return t > 0 ? m.shape.in_bytes() * double(m.shape.k) * double(m.shape.n) / t * 1e-9 : 0;
}

// The peer with the highest median on this line, or nullptr.
const Measurement* best_peer(const Run& run, const Line& line) {
  const Measurement* best = nullptr;
  for (const auto& m : run.results) {
    const GemmRow& row = run.rows[m.row];
    if (row.is_invar || !row.peer_table || !same_shape(m.shape, line.shape) ||
        row.requested_threads != line.threads || !usable(&m))
      continue;
    if (best == nullptr || m.gflops_median() > best->gflops_median()) best = &m;
  }
  return best;
}

// Names of the rows that pass `keep`, once each, in run order.
template <class Keep>
std::vector<std::string> row_names(const Run& run, Keep keep) {
  std::vector<std::string> names;
  for (const auto& row : run.rows)
    if (keep(row) && std::find(names.begin(), names.end(), row.name) == names.end())
      names.push_back(row.name);
  return names;
}

// invar rows that get a ratio column: the vector paths (not the slow portable one).
std::vector<std::string> ratio_names(const Run& run) {
  return row_names(run,
                   [](const GemmRow& r) { return r.is_invar && r.peer_table && r.max_dim == 0; });
}

// Columns of the invar-against-peers tables, in run order.
std::vector<std::string> peer_table_names(const Run& run) {
  return row_names(run, [](const GemmRow& r) { return r.peer_table; });
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

std::string threads_list(const Options& o) {
  std::string text;
  for (int t : o.threads) text += (text.empty() ? "" : ", ") + std::to_string(t);
  return text;
}

std::string date_of(const std::string& timestamp) {  // "20261203-051500" -> "2026-12-03"
  if (timestamp.size() < 8) return timestamp;
  return timestamp.substr(0, 4) + "-" + timestamp.substr(4, 2) + "-" + timestamp.substr(6, 2);
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
  if (m.peak_avx2_f64 > 0)
    md << " f64 AVX2 (12 chains x 4 lanes) " << fmt("%.1f", m.peak_avx2_f64)
       << " GFLOP/s at start, " << fmt("%.1f", m.peak_avx2_f64_end) << " at end;";
  if (m.peak_avx512_f64 > 0)
    md << " f64 AVX-512 (16 chains x 8 lanes) " << fmt("%.1f", m.peak_avx512_f64)
       << " GFLOP/s at start, " << fmt("%.1f", m.peak_avx512_f64_end) << " at end;";
  md << " percentages use the larger of start and end, times the row's threads; f64 shapes "
        "against the f64 peak, bf16 inputs against the f32 one; u8s8 shapes against none (no "
        "integer peak is measured, and the f32 FMA peak does not bound them: a VNNI instruction "
        "does 4 byte products per 32-bit lane)\n";
  if (m.team_peak > 0) {
    md << "- FMA peak of " << m.team << " threads at once (the widest loop above on each, bursts "
       << "started together, each round's flops over its slowest burst): "
       << fmt("%.1f", m.team_peak) << " GFLOP/s at start ("
       << fmt("%.2f", m.team_peak / m.team_loop_peak(false)) << "x one core), "
       << fmt("%.1f", m.team_peak_end) << " at end ("
       << fmt("%.2f", m.team_peak_end / m.team_loop_peak(true)) << "x). Below " << m.team
       << "x the threads do not each get a whole core's FMA units (shared units, a lower clock, "
       << "another guest), and no library's " << m.team << "-thread rows scale past that\n";
  }
  md << "- Memory read bandwidth of one core: " << fmt("%.1f", m.membw_gbs) << " GB/s at start, "
     << fmt("%.1f", m.membw_gbs_end) << " at end (stream sum over " << m.membw_mib
     << " MiB); memory-bound roofs use the larger\n";
  const Options& o = run.options;
  if (run.results.empty()) return;
  md << "- Threads: every row at " << threads_list(o) << " thread(s), small squares at "
     << o.threads.front()
     << " only; each library is set to the row's count through its own API before each of the "
        "row's turns (see the rows table for what each reports). Timing: "
     << fmt("%g", o.seconds_per_cell) << " s per row, shape and thread count in " << o.rounds
     << " turns, at least " << o.min_reps << " samples; a sample is one call, or for calls under "
     << fmt("%.0f", kMinSampleSeconds * 1e6)
     << " µs a batch of calls timed together; median and best call. Operands warm (reused call "
        "after call); C = A * B, row-major, alpha 1, beta 0. Kinds: f32 (plain shape), \"B^T\" = "
        "f32 x * W^T with W stored N x K row-major (a linear layer's weight; each library's "
        "transpose flag), \"f64\", \"bf16\" = bf16 A and B with an f32 C, \"u8s8\" = uint8 A "
        "and int8 B with an int32 C (exact: every row must give the same bits), rated in GOP/s "
        "(2 M N K integer operations per call, as GFLOP/s counts floating-point ones).\n";
}

// A table with one line per shape and thread count and one column per row name; `cell` renders a
// measurement.
template <class Cell>
void line_table(const Run& run, const std::vector<Line>& lines,
                const std::vector<std::string>& names, Cell cell, std::ostringstream& md) {
  md << "| shape | threads |";
  for (const auto& name : names) md << " " << name << " |";
  md << "\n|---|---:|";
  for (size_t i = 0; i < names.size(); ++i) md << "---:|";
  md << "\n";
  for (const auto& line : lines) {
    md << "| " << line.label();
    const Measurement* any = nullptr;
    for (size_t i = 0; i < names.size() && any == nullptr; ++i) any = find(run, line, names[i]);
    if (any != nullptr && any->memory_bound()) md << " (memory-bound)";
    md << " | " << line.threads << " |";
    for (const auto& name : names) {
      const Measurement* m = find(run, line, name);
      md << " " << (m == nullptr ? "—" : !m->timing.error.empty() ? "error" : cell(*m)) << " |";
    }
    md << "\n";
  }
}

// The same for ladder rows, which are told apart by index (one name may be two steps).
template <class Cell>
void shape_table(const Run& run, const std::vector<Shape>& shapes, const std::vector<size_t>& rows,
                 Cell cell, std::ostringstream& md) {
  md << "| shape |";
  for (size_t r : rows)
    md << " " << run.rows[r].name << ", " << run.rows[r].requested_threads << " thr |";
  md << "\n|---|";
  for (size_t i = 0; i < rows.size(); ++i) md << "---:|";
  md << "\n";
  for (const auto& s : shapes) {
    md << "| " << s.label() << " |";
    for (size_t r : rows) {
      const Measurement* m = find(run, s, r);
      md << " " << (m == nullptr ? "—" : !m->timing.error.empty() ? "error" : cell(*m)) << " |";
    }
    md << "\n";
  }
}

void gflops_table(const Run& run, const std::vector<Line>& lines, std::ostringstream& md) {
  md << "\n## GFLOP/s, median (% of the shape's roof)\n\n"
     << "Roof = the row's FMA peak (one core's x its threads), or for a memory-bound shape the "
        "bandwidth x arithmetic intensity (minimal traffic: A, B and C once); operands that fit "
        "in cache can beat it. u8s8 lines are in GOP/s, without a roof (no integer peak is "
        "measured).\n\n";
  line_table(
      run, lines, peer_table_names(run),
      [](const Measurement& m) {
        if (m.shape.integer())
          return fmt("%.1f", m.gflops_median()) + " GOP/s" + (m.check.ok ? "" : " WRONG");
        return fmt("%.1f", m.gflops_median()) + " (" +
               fmt("%.0f", 100 * m.gflops_median() / m.roof) + "%)" + (m.check.ok ? "" : " WRONG");
      },
      md);
}

std::string calls_per_second(double seconds_per_call) {
  const double rate = seconds_per_call > 0 ? 1 / seconds_per_call : 0;
  return rate >= 1e6 ? fmt("%.2f M", rate * 1e-6) : fmt("%.0f k", rate * 1e-3);
}

void small_table(const Run& run, const std::vector<Line>& lines, std::ostringstream& md) {
  if (lines.empty()) return;
  md << "\n## Small squares: calls per second, median (GFLOP/s)\n\n"
     << "Each timed sample is a batch of back-to-back calls on the same operands (at least "
     << fmt("%.0f", kMinSampleSeconds * 1e6)
     << " µs per sample), so the clock's cost is not counted; numpy's figure includes the Python "
        "call.\n\n";
  line_table(
      run, lines, peer_table_names(run),
      [](const Measurement& m) {
        return calls_per_second(m.timing.median()) + " (" + fmt("%.1f", m.gflops_median()) + ")" +
               (m.check.ok ? "" : " WRONG");
      },
      md);
}

// How much of the timed calls' wall time the thread was on a CPU: below ~95% another process
// took turns with it, and the absolute numbers of that line are low; ratios stay comparable.
void cpu_share_table(const Run& run, const std::vector<Line>& lines, std::ostringstream& md) {
  md << "\n## CPU share of the timed calls (calling thread's CPU time / wall time, %)\n\n"
     << "At 1 thread, below ~95% the benchmark shared its core with other work: absolute numbers "
        "on that line are low, the ratios stay comparable (the rows take turns). numpy's is its "
        "own process's calling thread.\n\n";
  auto names = peer_table_names(run);
  for (const auto& name : row_names(run, [](const GemmRow& r) { return !r.peer_table; }))
    names.push_back(name);
  line_table(
      run, lines, names,
      [](const Measurement& m) { return fmt("%.0f", 100 * m.timing.cpu_share()); }, md);
}

void ratio_table(const Run& run, const std::vector<Line>& lines, std::ostringstream& md) {
  const auto invar_names = ratio_names(run);
  md << "\n## invar ÷ best peer\n\n"
     << "Per shape and thread count, against the peers at the same thread count in this run. "
        "Each cell: **ratio of median GFLOP/s** / ratio of best calls / ratio on the median CPU "
        "time per call (unaffected by descheduling). Best peer = highest median.\n\n"
     << "| shape | threads | best peer | GFLOP/s |";
  for (const auto& name : invar_names) md << " " << name << " ÷ best peer |";
  md << "\n|---|---:|---|---:|";
  for (size_t i = 0; i < invar_names.size(); ++i) md << "---:|";
  md << "\n";
  std::vector<int> thread_counts;
  for (const auto& line : lines)
    if (std::find(thread_counts.begin(), thread_counts.end(), line.threads) == thread_counts.end())
      thread_counts.push_back(line.threads);
  // Geometric means per thread count over compute-bound shapes other than small squares.
  std::vector<std::vector<double>> log_sum(thread_counts.size(),
                                           std::vector<double>(invar_names.size(), 0));
  std::vector<std::vector<int>> count(thread_counts.size(),
                                      std::vector<int>(invar_names.size(), 0));
  for (const auto& line : lines) {
    const size_t tc = size_t(std::find(thread_counts.begin(), thread_counts.end(), line.threads) -
                             thread_counts.begin());
    const Measurement* peer = best_peer(run, line);
    md << "| " << line.label() << " | " << line.threads << " | "
       << (peer ? run.rows[peer->row].name : "none") << " | " << (peer ? rate_text(*peer) : "—")
       << " |";
    for (size_t i = 0; i < invar_names.size(); ++i) {
      const Measurement* m = find(run, line, invar_names[i]);
      if (peer == nullptr || !usable(m)) {
        md << " — |";
        continue;
      }
      const double ratio = m->gflops_median() / peer->gflops_median();
      md << " **" << fmt("%.2f", ratio) << "** / "
         << fmt("%.2f", m->gflops_best() / peer->gflops_best()) << " / "
         << fmt("%.2f", m->gflops_median_cpu() / peer->gflops_median_cpu()) << " |";
      if (!m->memory_bound() && !line.shape.small) {
        log_sum[tc][i] += std::log(ratio);
        ++count[tc][i];
      }
    }
    md << "\n";
  }
  for (size_t tc = 0; tc < thread_counts.size(); ++tc) {
    md << "| geometric mean, compute-bound shapes (small squares aside) | " << thread_counts[tc]
       << " | | |";
    for (size_t i = 0; i < invar_names.size(); ++i)
      md << " " << (count[tc][i] ? fmt("%.2f", std::exp(log_sum[tc][i] / count[tc][i])) : "—")
         << " |";
    md << "\n";
  }
}

// Of `names`, those measured on at least one of `lines`.
std::vector<std::string> measured_on(const Run& run, const std::vector<Line>& lines,
                                     const std::vector<std::string>& names) {
  std::vector<std::string> kept;
  for (const auto& name : names) {
    bool any = false;
    for (const auto& line : lines) any |= find(run, line, name) != nullptr;
    if (any) kept.push_back(name);
  }
  return kept;
}

// The decode step (M = 1, no small squares): each row's GB/s of the weight it streams (bytes of B
// per call / median time) and its % of the measured read bandwidth of one core.
void decode_table(const Run& run, const std::vector<Line>& lines, std::ostringstream& md) {
  std::vector<Line> decode;
  for (const auto& line : lines)
    if (line.shape.m == 1 && !line.shape.small) decode.push_back(line);
  if (decode.empty()) return;
  const double bw = run.machine.bandwidth();
  md << "\n## Decode step (M = 1): GB/s of the weight streamed, median (% of read bandwidth)\n\n"
     << "Bytes per call = the weight's size (4 N K for f32), over the median call; read bandwidth "
        "= one core's, measured in this run ("
     << fmt("%.1f", bw)
     << " GB/s), so at 2 threads a row can pass 100%. The -packed rows multiply by W packed "
        "once (pack_b), outside the timed calls.\n\n";
  line_table(
      run, decode, measured_on(run, decode, peer_table_names(run)),
      [bw](const Measurement& m) {
        return fmt("%.1f", weight_gbs(m)) + " (" +
               fmt("%.0f", bw > 0 ? 100 * weight_gbs(m) / bw : 0) + "%)" +
               (m.check.ok ? "" : " WRONG");
      },
      md);
}

// Another kind of product against f32 on the same square (bf16 inputs, uint8 x int8): each invar
// row's rate of that kind ÷ its own f32 rate (when the run had that f32 square), and the best
// peer offering that kind. `title` and `intro` open the section.
void against_f32_table(const Run& run, const std::vector<Line>& lines, Kind kind,
                       const std::string& title, const std::string& intro, std::ostringstream& md) {
  std::vector<Line> of_kind;
  for (const auto& line : lines)
    if (line.shape.kind == kind) of_kind.push_back(line);
  if (of_kind.empty()) return;
  const auto names = measured_on(run, of_kind, ratio_names(run));
  md << "\n## " << title << "\n\n" << intro << "\n\n| shape | threads |";
  for (const auto& name : names) md << " " << name << " (÷ its f32) |";
  md << " best " << kind_name(kind) << " peer |\n|---|---:|";
  for (size_t i = 0; i <= names.size(); ++i) md << "---:|";
  md << "\n";
  for (const auto& line : of_kind) {
    Shape f32 = line.shape;
    f32.kind = Kind::kF32;
    md << "| " << line.label() << " | " << line.threads << " |";
    for (const auto& name : names) {
      const Measurement* m = find(run, line, name);
      const Measurement* base = find(run, Line{f32, line.threads}, name);
      if (!usable(m)) {
        md << " — |";
        continue;
      }
      md << " " << fmt("%.1f", m->gflops_median()) << " ("
         << (usable(base) ? fmt("%.2f", m->gflops_median() / base->gflops_median()) : "—") << ") |";
    }
    const Measurement* peer = best_peer(run, line);
    md << " "
       << (peer ? run.rows[peer->row].name + " " + fmt("%.1f", peer->gflops_median()) : "none")
       << " |\n";
  }
}

// The optimization ladder on squares: one column per step, then each step's speed-up over the
// step before it at the largest square both ran.
void ladder_table(const Run& run, const std::vector<Shape>& shapes, std::ostringstream& md) {
  const auto rows = ladder_rows(run);
  std::vector<Shape> squares;
  for (const auto& s : shapes) {
    bool any = false;
    for (size_t r : rows) any |= find(run, s, r) != nullptr;
    // Integer squares have no peak to take a percentage of (their own table has them).
    if (any && s.m == s.n && s.n == s.k && !s.integer()) squares.push_back(s);
  }
  if (squares.empty()) return;
  md << "\n## Optimization ladder: GFLOP/s, median (% of peak)\n\n"
     << "From the textbook loop to invar on every thread, squares only. The ladder-* rows are "
        "plain C++ loops (bench/ladder_rows.cpp) built with the project's default Release flags "
        "(-O3 -DNDEBUG, baseline instruction set: no -march, no -ffast-math, no explicit SIMD); "
        "slow rows stop at the largest size they finish in about 2 s per call (—). Peak = one "
        "core's "
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
  md << "\n## Rows\n\n| row | library | code path | threads asked | threads reported | loaded "
        "from |\n|---|---|---|---:|---:|---|\n";
  for (const auto& row : run.rows)
    md << "| " << row.name << " | " << row.library << " | " << row.kernel << " | "
       << row.requested_threads << " | " << row.threads << " | "
       << (row.path.empty() ? "linked in" : row.path) << " |\n";
  md << "\n## Not measured\n\n";
  if (run.skips.empty()) md << "Nothing: every row was loaded.\n";
  for (const auto& skip : run.skips) md << "- " << skip << "\n";
  md << "\n## Result checks\n\n";
  for (const auto& s : shapes) {
    md << "- " << s.label() << ":";
    for (size_t r = 0; r < run.rows.size(); ++r)
      if (const Measurement* m = find(run, s, r))
        md << " " << run.rows[r].name << " (" << run.rows[r].requested_threads << " thr) "
           << (m->timing.error.empty() ? m->check.text : "error: " + m->timing.error) << ";";
    md << "\n";
  }
  md << "\n## Environment\n\n";
  for (const auto& e : run.environment) md << "- " << e << "\n";
}

}  // namespace

double row_peak(const Machine& machine, const GemmRow& row, const Shape& shape) {
  if (shape.integer()) return 0;  // no integer peak is measured
  return machine.peak_for(row.peak, shape.f64()) * std::max(row.threads, 1);
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
  const double bytes =
      s.in_bytes() * (double(s.m) * s.k + double(s.k) * s.n) + s.out_bytes() * double(s.m) * s.n;
  const double memory = bandwidth_gbs > 0 ? s.flop() / bytes * bandwidth_gbs : peak_gflops;
  return peak_gflops > 0 ? std::fmin(peak_gflops, memory) : memory;
}

std::string markdown_report(const Run& run) {
  std::ostringstream md;
  md << "# invar GEMM benchmark, " << run.timestamp << "\n\n";
  machine_section(run, md);
  const auto shapes = shapes_in_order(run);
  if (!run.results.empty()) {
    const auto lines = lines_in_order(run, false);
    const auto small = lines_in_order(run, true);
    auto all = small;
    all.insert(all.end(), lines.begin(), lines.end());
    ratio_table(run, all, md);
    gflops_table(run, lines, md);
    decode_table(run, lines, md);
    against_f32_table(run, lines, Kind::kBf16, "bf16 inputs against f32",
                      "GFLOP/s of C (f32) = A (bf16) * B (bf16), median; in brackets the ratio to "
                      "the same row's f32 rate on the f32 square of that size in this run (— when "
                      "the run had none).",
                      md);
    against_f32_table(run, lines, Kind::kU8S8, "uint8 x int8 -> int32 against f32",
                      "GOP/s of C (int32) = A (uint8) * B (int8), median, 2 M N K integer "
                      "operations per call; in brackets the ratio to the same row's f32 GFLOP/s "
                      "on the f32 square of that size in this run (— when the run had none). No "
                      "roof: no integer peak is measured. Every row's C must have invar's bits "
                      "(Result checks).",
                      md);
    small_table(run, small, md);
    ladder_table(run, shapes, md);
    cpu_share_table(run, all, md);
  }
  if (run.sweep.ran || !run.sweep.notes.empty()) md << sweep_markdown(run.sweep);
  rows_section(run, shapes, md);
  return md.str();
}

namespace {

// Below this median CPU share of a line's rows, the line was measured on a busy machine.
constexpr double kBusyShare = 0.8;

// The median over a line's peer-table rows (numpy aside: another process) of the calling
// thread's CPU time / wall time during the timed calls.
double line_cpu_share(const Run& run, const Line& line) {
  std::vector<double> v;
  for (const auto& m : run.results)
    if (same_shape(m.shape, line.shape) && run.rows[m.row].requested_threads == line.threads &&
        run.rows[m.row].peer_table && !run.rows[m.row].remote_turn && usable(&m))
      v.push_back(m.timing.cpu_share());
  if (v.empty()) return 1;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

std::string summary_markdown(const Run& run) {
  std::ostringstream md;
  const Machine& mc = run.machine;
  const double peak = std::max(mc.peak_for(PeakRef::kBest), 0.0);
  md << "Measured " << date_of(run.timestamp) << " on " << mc.brand << " ("
     << (mc.avx512f    ? "AVX-512"
         : mc.avx2_fma ? "AVX2+FMA, no AVX-512"
                       : "no AVX2")
     << "), threads " << threads_list(run.options) << "; one core's FMA peak " << fmt("%.1f", peak)
     << " GFLOP/s and read bandwidth " << fmt("%.1f", mc.bandwidth())
     << " GB/s, measured in the same run. Best peer = the fastest "
     << "of the other libraries at the same shape and thread count in this run (median call). B^T: "
        "x * W^T "
     << "with W stored N x K (a linear layer's weight); f64 shapes against the f64 peak of "
     << fmt("%.1f", mc.peak_for(PeakRef::kBest, true))
     << " GFLOP/s; bf16: bf16 A and B, f32 C; u8s8: uint8 A, int8 B, int32 C, in GOP/s (2 M N K "
        "integer operations per call); -packed: invar over W packed once.\n\n";
  const auto names = ratio_names(run);
  if (names.empty()) return md.str();
  const std::string& invar_name = names.front();
  const std::vector<int>& counts = run.options.threads;
  bool shared_lines = false;
  // One line per shape; per thread count: invar, the best peer, the ratio.
  md << "| shape |";
  for (int t : counts)
    md << " " << t << (t > 1 ? " threads: " : " thread: ") << invar_name
       << " GFLOP/s | best peer | " << invar_name << " ÷ best peer |";
  md << "\n|---|";
  for (size_t i = 0; i < counts.size(); ++i) md << "---:|---|---:|";
  md << "\n";
  for (const Shape& shape : shapes_in_order(run)) {
    if (shape.small) continue;
    const Measurement* any = nullptr;
    std::ostringstream cells;
    for (int t : counts) {
      const Line line{shape, t};
      const Measurement* m = find(run, line, invar_name);
      const Measurement* peer = best_peer(run, line);
      if (!usable(m) || peer == nullptr) {
        cells << " — | — | — |";
        continue;
      }
      if (any == nullptr) any = m;
      const bool busy = line_cpu_share(run, line) < kBusyShare;
      shared_lines |= busy;
      cells << " " << rate_text(*m) << " | " << run.rows[peer->row].name << " " << rate_text(*peer)
            << " | **" << fmt("%.2f", m->gflops_median() / peer->gflops_median()) << "**"
            << (busy ? " †" : "") << " |";
    }
    if (any == nullptr) continue;
    md << "| " << shape.label() << (any->memory_bound() ? " (memory-bound)" : "") << " |"
       << cells.str() << "\n";
  }
  // invar over W prepacked, beside its x * W^T lines.
  for (const auto& name : row_names(run, [](const GemmRow& r) {
         return r.is_invar && r.peer_table && r.name.size() > 7 &&
                r.name.compare(r.name.size() - 7, 7, "-packed") == 0;
       })) {
    for (const Shape& shape : shapes_in_order(run)) {
      if (shape.kind != Kind::kF32Bt && shape.kind != Kind::kU8S8) continue;
      const Measurement* any = nullptr;
      std::ostringstream cells;
      for (int t : counts) {
        const Line line{shape, t};
        const Measurement* m = find(run, line, name);
        const Measurement* peer = best_peer(run, line);
        if (!usable(m) || peer == nullptr) {
          cells << " — | — | — |";
          continue;
        }
        if (any == nullptr) any = m;
        cells << " " << fmt("%.1f", m->gflops_median()) << " | " << run.rows[peer->row].name << " "
              << fmt("%.1f", peer->gflops_median()) << " | **"
              << fmt("%.2f", m->gflops_median() / peer->gflops_median()) << "** |";
      }
      if (any == nullptr) continue;
      md << "| " << shape.label() << ", " << name << (any->memory_bound() ? " (memory-bound)" : "")
         << " |" << cells.str() << "\n";
    }
  }
  if (shared_lines)
    md << "\n† Other work shared the machine during these measurements (the median CPU share of "
          "the rows' calling threads was below "
       << fmt("%.1f", kBusyShare)
       << "): their absolute numbers are low; the ratio still compares rows that took turns.\n";
  // How undisturbed the timed calls were, per thread count: the median over the measurements of
  // the calling thread's CPU time / wall time.
  std::string shares;
  for (int t : counts) {
    std::vector<double> v;
    for (const auto& m : run.results)
      if (run.rows[m.row].requested_threads == t && usable(&m) && run.rows[m.row].peer_table &&
          !run.rows[m.row].remote_turn)
        v.push_back(m.timing.cpu_share());
    if (v.empty()) continue;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    shares += (shares.empty() ? "" : ", ") + fmt("%.2f", v[v.size() / 2]) + " at " +
              std::to_string(t) + " thread" + (t > 1 ? "s" : "");
  }
  if (!shares.empty())
    md << "\nThe calling thread's share of CPU time during the timed calls (1 = never "
          "descheduled), median over the rows: "
       << shares << ".\n";
  const auto small = lines_in_order(run, true);
  bool header = false;
  for (const auto& line : small) {
    const Measurement* m = find(run, line, invar_name);
    const Measurement* peer = best_peer(run, line);
    if (!usable(m) || peer == nullptr) continue;
    if (!header) {
      md << "\n| small square | threads | " << invar_name << " calls/s | best peer | its calls/s | "
         << invar_name << " ÷ best peer |\n|---|---:|---:|---|---:|---:|\n";
      header = true;
    }
    md << "| " << line.label() << " | " << line.threads << " | "
       << calls_per_second(m->timing.median()) << " | " << run.rows[peer->row].name << " | "
       << calls_per_second(peer->timing.median()) << " | **"
       << fmt("%.2f", peer->timing.median() / m->timing.median()) << "** |\n";
  }
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
         "cpu_share,median_cpu_s,median_cpu_gflops,check,is_invar,ladder_step,peer_table,"
         "requested_threads,small,calls_per_sample,median_calls_per_s,op,weight_gbs,pct_"
         "bandwidth\n";
  for (const auto& m : run.results) {
    const GemmRow& row = run.rows[m.row];
    const bool ok = m.timing.error.empty();
    csv << m.shape.label() << "," << m.shape.m << "," << m.shape.n << "," << m.shape.k << ","
        << row.name << "," << csv_field(row.library) << "," << csv_field(row.kernel) << ","
        << row.threads << "," << m.timing.seconds.size() << "," << fmt("%.6e", m.timing.median())
        << "," << fmt("%.6e", m.timing.best()) << "," << fmt("%.3f", m.gflops_median()) << ","
        << fmt("%.3f", m.gflops_best()) << ","
        << (m.shape.integer() ? "none" : run.machine.peak_name(row.peak)) << ","
        << fmt("%.3f", m.peak) << ","
        << fmt("%.2f", m.peak > 0 ? 100 * m.gflops_median() / m.peak : 0) << ","
        << fmt("%.2f", m.peak > 0 ? 100 * m.gflops_best() / m.peak : 0) << ","
        << (m.memory_bound() ? "memory" : "compute") << "," << fmt("%.3f", m.roof) << ","
        << fmt("%.2f", m.roof > 0 ? 100 * m.gflops_median() / m.roof : 0) << ","
        << fmt("%.3f", m.timing.cpu_share()) << "," << fmt("%.6e", m.timing.median_cpu()) << ","
        << fmt("%.3f", m.gflops_median_cpu()) << ","
        << csv_field(ok ? m.check.text : "error: " + m.timing.error) << ","
        << (row.is_invar ? 1 : 0) << "," << row.ladder_step << "," << (row.peer_table ? 1 : 0)
        << "," << row.requested_threads << "," << (m.shape.small ? 1 : 0) << "," << m.timing.batch
        << "," << fmt("%.1f", m.timing.median() > 0 ? 1 / m.timing.median() : 0) << ","
        << kind_name(m.shape.kind) << "," << fmt("%.3f", weight_gbs(m)) << ","
        << fmt("%.2f",
               run.machine.bandwidth() > 0 ? 100 * weight_gbs(m) / run.machine.bandwidth() : 0)
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
          << "fma_peak_avx2_f64_start," << fmt("%.3f", mc.peak_avx2_f64) << ",GFLOP/s\n"
          << "fma_peak_avx2_f64_end," << fmt("%.3f", mc.peak_avx2_f64_end) << ",GFLOP/s\n"
          << "fma_peak_avx512_f64_start," << fmt("%.3f", mc.peak_avx512_f64) << ",GFLOP/s\n"
          << "fma_peak_avx512_f64_end," << fmt("%.3f", mc.peak_avx512_f64_end) << ",GFLOP/s\n"
          << "fma_peak_team_threads," << mc.team << ",\n"
          << "fma_peak_team_start," << fmt("%.3f", mc.team_peak) << ",GFLOP/s\n"
          << "fma_peak_team_end," << fmt("%.3f", mc.team_peak_end) << ",GFLOP/s\n"
          << "mem_read_buffer," << mc.membw_mib << ",MiB\n"
          << "llc," << mc.llc_bytes << ",bytes\n"
          << "threads," << csv_field(threads_list(run.options)) << ",\n"
          << "cpu_brand," << csv_field(mc.brand) << ",\n"
          << "cpu_family," << mc.family << ",\n"
          << "cpu_model," << mc.model << ",\n"
          << "timestamp," << run.timestamp << ",\n";
  std::ofstream(dir + "/report.md") << markdown_report(run);
  std::ofstream(dir + "/summary.md") << summary_markdown(run);
  const bool sweep_ok = !run.sweep.ran || write_sweep_csv(run.sweep, dir);
  if (!csv || !machine || !sweep_ok) {
    *error = "cannot write into " + dir;
    return false;
  }
  return true;
}

}  // namespace invar_bench

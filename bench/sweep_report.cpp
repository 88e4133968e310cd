// Writing the cache-blocking sweep (blocking_sweep.h): a report section with one line per size
// (the model's blocks and rate, the best fixed blocks and rate from the confirm pass, the ratio)
// and the screening's leaders; blocking_sweep.csv with every timed slot of both passes; and
// blocking_sweep_summary.csv with the per-size result.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "blocking_sweep.h"
#include "report.h"

namespace invar_bench {
namespace {

std::string csv_text(std::string s) {
  std::replace(s.begin(), s.end(), ',', ';');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

constexpr int kLeaders = 5;

void leaders(const SweepSize& size, std::ostringstream& md) {
  std::vector<const SweepSample*> points;
  for (const auto& s : size.screen)
    if (s.config != 0) points.push_back(&s);
  std::sort(points.begin(), points.end(), [](const SweepSample* a, const SweepSample* b) {
    return a->rel_to_model > b->rel_to_model;
  });
  md << "- " << size.n << "^3, screening leaders (GFLOP/s relative to the model around them):";
  for (size_t i = 0; i < points.size() && int(i) < kLeaders; ++i) {
    const SweepConfig& c = size.configs[points[i]->config];
    md << " " << c.label() << " (" << c.factors() << ") " << fmt("%.3f", points[i]->rel_to_model)
       << (i + 1 < points.size() && int(i + 1) < kLeaders ? ";" : "");
  }
  if (!points.empty()) {
    md << "; last " << size.configs[points.back()->config].label() << " ("
       << size.configs[points.back()->config].factors() << ") "
       << fmt("%.3f", points.back()->rel_to_model);
  }
  md << "\n  - turns: model " << fmt("%.1f", size.model_gflops) << " GFLOP/s";
  for (size_t i = 0; i < size.finalists.size() && i < size.finalist_gflops.size(); ++i)
    md << "; " << size.configs[size.finalists[i]].label() << " "
       << fmt("%.1f", size.finalist_gflops[i]);
  md << "\n";
}

}  // namespace

std::string sweep_markdown(const BlockingSweep& sweep) {
  std::ostringstream md;
  md << "\n## Cache blocking: the model's choice against fixed blocks\n\n";
  if (!sweep.ran) {
    md << "Not run.\n";
    for (const auto& n : sweep.notes) md << "- " << n << "\n";
    return md.str();
  }
  md << "invar-" << sweep.isa << " (" << sweep.kernel << "), 1 thread, squares, C = A * B. "
     << "The model saw " << sweep.caches << ". Grid around the model's MC, KC, NC: KC x {0.5, "
     << "0.75, 1, 1.25, 1.5}, MC x {0.5, 0.75, 1, 1.5} rounded to MR, NC in {model, N/2} (above "
     << "2048: KC x {0.75, 1, 1.25}, MC x {0.75, 1, 1.5}). Screening times each point once in a "
     << "shuffled order, the model again after every 4 points, and scores each point against the "
     << "model's rate around it; then the model and the best screened points take turns, and "
     << "**model ÷ best fixed** comes from those turns only (medians over all their calls; "
     << "the range is that ratio per turn). Above 1: no fixed point of the grid beat the model. "
     << "Drift = the model's slowest and fastest screening slot.\n\n"
     << "| size | model's blocks | model GFLOP/s | best fixed blocks | GFLOP/s | **model ÷ best "
        "fixed** | per-turn range | model drift, screening | points | time |\n"
     << "|---|---|---:|---|---:|---:|---|---|---:|---:|\n";
  for (const auto& s : sweep.sizes) {
    if (!s.error.empty()) {
      md << "| " << s.n << "^3 | error: " << s.error << " | | | | | | | | |\n";
      continue;
    }
    const SweepConfig& m = s.configs[0];
    const SweepConfig& b = s.configs[s.best_fixed];
    md << "| " << s.n << "^3 | " << m.label() << " | " << fmt("%.1f", s.model_gflops) << " | "
       << b.label() << " (" << b.factors() << ") | " << fmt("%.1f", s.best_gflops) << " | **"
       << fmt("%.3f", s.ratio) << "** | " << fmt("%.3f", s.round_ratio_min) << "–"
       << fmt("%.3f", s.round_ratio_max) << " | " << fmt("%.1f", s.model_screen_min) << "–"
       << fmt("%.1f", s.model_screen_max) << " | " << s.configs.size() - 1 << " | "
       << fmt("%.0f s", s.seconds) << " |\n";
  }
  md << "\n";
  for (const auto& s : sweep.sizes)
    if (s.error.empty()) leaders(s, md);
  for (const auto& n : sweep.notes) md << "- " << n << "\n";
  md << "\nEvery slot of both passes: blocking_sweep.csv; one line per size: "
        "blocking_sweep_summary.csv.\n";
  return md.str();
}

bool write_sweep_csv(const BlockingSweep& sweep, const std::string& dir) {
  std::ofstream csv(dir + "/blocking_sweep.csv");
  csv << "size,pass,slot,is_model,factors,mc,kc,nc,calls,median_s,best_s,median_gflops,cpu_share,"
         "model_ref_gflops,rel_to_model\n";
  auto line = [&](const SweepSize& s, const char* pass, const SweepSample& p) {
    const SweepConfig& c = s.configs[p.config];
    csv << s.n << "," << pass << "," << p.pass_slot << "," << (c.is_model ? 1 : 0) << ","
        << c.factors() << "," << c.mc << "," << c.kc << "," << c.nc << ","
        << p.timing.seconds.size() << "," << fmt("%.6e", p.timing.median()) << ","
        << fmt("%.6e", p.timing.best()) << "," << fmt("%.3f", p.gflops) << ","
        << fmt("%.3f", p.timing.cpu_share()) << "," << fmt("%.3f", p.model_ref) << ","
        << fmt("%.4f", p.rel_to_model) << "\n";
  };
  for (const auto& s : sweep.sizes) {
    for (const auto& p : s.screen) line(s, "screen", p);
    for (const auto& p : s.confirm) line(s, "confirm", p);
  }
  std::ofstream summary(dir + "/blocking_sweep_summary.csv");
  summary << "size,isa,model_mc,model_kc,model_nc,model_gflops,best_mc,best_kc,best_nc,"
             "best_factors,best_gflops,model_over_best,turn_ratio_min,turn_ratio_max,"
             "model_screen_min_gflops,model_screen_max_gflops,points,seconds,error\n";
  for (const auto& s : sweep.sizes) {
    const SweepConfig& m = s.configs.empty() ? SweepConfig{} : s.configs[0];
    const SweepConfig& b = s.configs.empty() ? SweepConfig{} : s.configs[s.best_fixed];
    summary << s.n << "," << sweep.isa << "," << m.mc << "," << m.kc << "," << m.nc << ","
            << fmt("%.3f", s.model_gflops) << "," << b.mc << "," << b.kc << "," << b.nc << ","
            << b.factors() << "," << fmt("%.3f", s.best_gflops) << "," << fmt("%.4f", s.ratio)
            << "," << fmt("%.4f", s.round_ratio_min) << "," << fmt("%.4f", s.round_ratio_max) << ","
            << fmt("%.3f", s.model_screen_min) << "," << fmt("%.3f", s.model_screen_max) << ","
            << (s.configs.empty() ? 0 : s.configs.size() - 1) << "," << fmt("%.1f", s.seconds)
            << "," << csv_text(s.error) << "\n";
  }
  return bool(csv) && bool(summary);
}

}  // namespace invar_bench

// The cache-blocking sweep (see blocking_sweep.h): the grid, the screening pass with the model
// re-timed between every few points, and the confirming pass in turns. Every configuration's C
// is also compared bit for bit with the model's: block sizes must never change a result.
#include "blocking_sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

#include "api/context_impl.h"
#include "arch/cache_topology.h"
#include "blocking/block_sizes.h"
#include "dl.h"
#include "driver/gemm_driver.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "testing/seeded_data.h"

namespace invar_bench {
namespace {

using invar::blocking::BlockOverrides;
using invar::blocking::BlockSizes;
using Clock = std::chrono::steady_clock;

// Wall-time budget of one size, split between the passes; how many points are re-measured.
struct Budget {
  double seconds;
  int finalists;
  int rounds;
};
Budget budget_for(int64_t n) {
  if (n <= 1024) return {24, 3, 5};
  if (n <= 2048) return {45, 3, 5};
  return {80, 2, 4};
}
constexpr double kScreenShare = 0.65;
constexpr int kModelEvery = 4;        // screening: the model is re-timed after this many points
constexpr double kWarmBelow = 0.1;    // calls shorter than this (s) get an untimed call first
constexpr int64_t kLargeGrid = 2048;  // above this size, the inner grid only

// What the model works from: the kernel's tile and packed sizes, the caches it sees.
struct ModelInput {
  invar::arch::CacheTopology topology;
  invar::blocking::TileShape tile;
  invar::blocking::PackedBytes bytes;
  BlockSizes blocks(int64_t n, const BlockOverrides& o) const {
    return invar::blocking::choose_block_sizes(topology, tile, bytes, n, n, n, o);
  }
};

std::vector<SweepConfig> make_grid(const ModelInput& in, int64_t n) {
  const BlockSizes model = in.blocks(n, BlockOverrides{});
  std::vector<SweepConfig> grid;
  grid.push_back(SweepConfig{model.mc, model.kc, model.nc, 1, 1, false, true});
  const bool large = n > kLargeGrid;
  const std::vector<double> kc_factors =
      large ? std::vector<double>{0.75, 1, 1.25} : std::vector<double>{0.5, 0.75, 1, 1.25, 1.5};
  const std::vector<double> mc_factors =
      large ? std::vector<double>{0.75, 1, 1.5} : std::vector<double>{0.5, 0.75, 1, 1.5};
  const int64_t mr = in.tile.mr;
  for (bool nc_half : {false, true})
    for (double kf : kc_factors)
      for (double mf : mc_factors) {
        BlockOverrides o;
        o.kc = std::max<int64_t>(1, std::llround(kf * double(model.kc)));
        o.mc = std::max<int64_t>(mr, std::llround(mf * double(model.mc) / double(mr)) * mr);
        o.nc = nc_half ? n / 2 : model.nc;
        const BlockSizes b = in.blocks(n, o);
        bool seen = false;
        for (const auto& c : grid) seen |= c.mc == b.mc && c.kc == b.kc && c.nc == b.nc;
        if (!seen) grid.push_back(SweepConfig{b.mc, b.kc, b.nc, mf, kf, nc_half, false});
      }
  return grid;
}

std::shared_ptr<invar::Context> make_context(invar::Isa isa, const SweepConfig& c) {
  invar::ContextOptions o;
  o.num_threads = 1;
  o.isa = isa;
  if (!c.is_model) {
    o.mc = c.mc;
    o.kc = c.kc;
    o.nc = c.nc;
  }
  return std::make_shared<invar::Context>(o);
}

// The operands of one size and the model's C, which every configuration must reproduce.
struct Problem {
  int64_t n = 0;
  std::vector<float> a, b, c, c_model;
  double flop() const { return 2.0 * double(n) * double(n) * double(n); }
  TimedCall call(invar::Context& context) {
    return [this, &context](std::string* error) {
      try {
        invar::gemm(1.0f, invar::Op::kNoTrans, invar::MatrixView<const float>(a.data(), n, n),
                    invar::Op::kNoTrans, invar::MatrixView<const float>(b.data(), n, n), 0.0f,
                    invar::MatrixView<float>(c.data(), n, n), context);
        return true;
      } catch (const invar::Error& e) {
        *error = e.what();
        return false;
      }
    };
  }
  bool same_as_model() const {
    return std::memcmp(c.data(), c_model.data(), c.size() * sizeof(float)) == 0;
  }
};

// One slot: an untimed call first when calls are short, then `calls` timed calls.
SweepSample run_slot(Problem& p, invar::Context& context, size_t config, int slot, int calls,
                     double call_estimate) {
  SweepSample s;
  s.config = config;
  s.pass_slot = slot;
  const TimedCall call = p.call(context);
  if (call_estimate < kWarmBelow) {
    std::string ignored;
    call(&ignored);
  }
  time_calls(call, calls, &s.timing);
  s.gflops = s.timing.median() > 0 ? p.flop() / s.timing.median() * 1e-9 : 0;
  return s;
}

double elapsed(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Screening: the grid in a shuffled order, the model between every kModelEvery points.
void screen(Problem& p, invar::Isa isa, invar::Context& model, double estimate, double seconds,
            SweepSize& size, std::vector<std::string>& notes) {
  std::vector<size_t> order;
  for (size_t i = 1; i < size.configs.size(); ++i) order.push_back(i);
  std::shuffle(order.begin(), order.end(), std::mt19937(uint32_t(p.n)));
  std::vector<size_t> sequence{0};
  for (size_t i = 0; i < order.size(); ++i) {
    sequence.push_back(order[i]);
    if ((i + 1) % kModelEvery == 0 || i + 1 == order.size()) sequence.push_back(0);
  }
  const int calls =
      std::clamp(int(std::lround(seconds / double(sequence.size()) / estimate)), 1, 100);
  for (size_t slot = 0; slot < sequence.size(); ++slot) {
    const size_t config = sequence[slot];
    std::shared_ptr<invar::Context> own;
    invar::Context* context = &model;
    if (config != 0) context = (own = make_context(isa, size.configs[config])).get();
    size.screen.push_back(run_slot(p, *context, config, int(slot), calls, estimate));
    if (!size.screen.back().timing.error.empty()) {
      size.error = size.configs[config].label() + ": " + size.screen.back().timing.error;
      return;
    }
    if (!p.same_as_model())
      notes.push_back(std::to_string(p.n) + "^3, " + size.configs[config].label() +
                      ": C differs from the model's C");
  }
  // Each point against the mean of the model's slots just before and after it.
  for (size_t i = 0; i < size.screen.size(); ++i) {
    SweepSample& s = size.screen[i];
    double before = 0, after = 0;
    for (size_t j = i + 1; j-- > 0;)
      if (size.screen[j].config == 0) {
        before = size.screen[j].gflops;
        break;
      }
    for (size_t j = i; j < size.screen.size(); ++j)
      if (size.screen[j].config == 0) {
        after = size.screen[j].gflops;
        break;
      }
    s.model_ref = before > 0 && after > 0 ? (before + after) / 2 : std::max(before, after);
    s.rel_to_model = s.model_ref > 0 ? s.gflops / s.model_ref : 0;
    if (s.config == 0) {
      size.model_screen_min =
          size.model_screen_min > 0 ? std::min(size.model_screen_min, s.gflops) : s.gflops;
      size.model_screen_max = std::max(size.model_screen_max, s.gflops);
    }
  }
}

// Confirming: the model and the best-scoring points take turns, the first of each turn rotating.
void confirm(Problem& p, invar::Isa isa, std::shared_ptr<invar::Context> model, double estimate,
             double seconds, const Budget& budget, SweepSize& size) {
  std::vector<std::pair<double, size_t>> scored;
  for (const auto& s : size.screen)
    if (s.config != 0) scored.emplace_back(s.rel_to_model, s.config);
  std::sort(scored.rbegin(), scored.rend());
  for (size_t i = 0; i < scored.size() && int(i) < budget.finalists; ++i)
    size.finalists.push_back(scored[i].second);
  if (size.finalists.empty()) return;

  std::vector<size_t> configs{0};
  std::vector<std::shared_ptr<invar::Context>> contexts{model};
  for (size_t f : size.finalists) {
    configs.push_back(f);
    contexts.push_back(make_context(isa, size.configs[f]));
  }
  const int calls = std::clamp(
      int(std::lround(seconds / double(budget.rounds * configs.size()) / estimate)), 1, 100);
  std::vector<Timing> all(configs.size());
  double ratio_min = 0, ratio_max = 0;
  for (int round = 0; round < budget.rounds; ++round) {
    std::vector<double> rate(configs.size());
    for (size_t t = 0; t < configs.size(); ++t) {
      const size_t i = (t + size_t(round)) % configs.size();
      SweepSample s = run_slot(p, *contexts[i], configs[i], round, calls, estimate);
      if (!s.timing.error.empty()) {
        size.error = size.configs[configs[i]].label() + ": " + s.timing.error;
        return;
      }
      rate[i] = s.gflops;
      Timing& a = all[i];
      a.seconds.insert(a.seconds.end(), s.timing.seconds.begin(), s.timing.seconds.end());
      a.cpu_seconds.insert(a.cpu_seconds.end(), s.timing.cpu_seconds.begin(),
                           s.timing.cpu_seconds.end());
      size.confirm.push_back(std::move(s));
    }
    const double best = *std::max_element(rate.begin() + 1, rate.end());
    const double r = rate[0] / best;
    ratio_min = round == 0 ? r : std::min(ratio_min, r);
    ratio_max = round == 0 ? r : std::max(ratio_max, r);
  }
  size.model_gflops = p.flop() / all[0].median() * 1e-9;
  for (size_t i = 1; i < configs.size(); ++i) {
    const double g = p.flop() / all[i].median() * 1e-9;
    size.finalist_gflops.push_back(g);
    if (g > size.best_gflops) {
      size.best_gflops = g;
      size.best_fixed = configs[i];
    }
  }
  size.ratio = size.model_gflops / size.best_gflops;
  size.round_ratio_min = ratio_min;
  size.round_ratio_max = ratio_max;
}

SweepSize sweep_size(const ModelInput& in, invar::Isa isa, int64_t n,
                     std::vector<std::string>& notes) {
  const auto t0 = Clock::now();
  SweepSize size;
  size.n = n;
  size.configs = make_grid(in, n);
  Problem p;
  p.n = n;
  p.a = invar::test::random_floats(size_t(n * n), 1);
  p.b = invar::test::random_floats(size_t(n * n), 2);
  p.c.assign(size_t(n * n), 0.0f);
  const Budget budget = budget_for(n);
  std::shared_ptr<invar::Context> model = make_context(isa, size.configs[0]);
  // The model's first call gives the reference C; a second, timed one the call-time estimate.
  Timing first;
  time_calls(p.call(*model), 2, &first);
  if (!first.error.empty()) {
    size.error = first.error;
    return size;
  }
  p.c_model = p.c;
  const double estimate = first.seconds.back();
  std::printf("  %lld^3: %zu grid points, model %s, ~%.3f s per call\n", (long long)n,
              size.configs.size() - 1, size.configs[0].label().c_str(), estimate);
  std::fflush(stdout);
  screen(p, isa, *model, estimate, kScreenShare * budget.seconds, size, notes);
  if (size.error.empty())
    confirm(p, isa, model, estimate, (1 - kScreenShare) * budget.seconds, budget, size);
  size.seconds = elapsed(t0);
  if (size.error.empty())
    std::printf("  %lld^3: model %.1f GFLOP/s, best fixed %s %.1f GFLOP/s, ratio %.3f (%.0f s)\n",
                (long long)n, size.model_gflops, size.configs[size.best_fixed].label().c_str(),
                size.best_gflops, size.ratio, size.seconds);
  else
    std::printf("  %lld^3: error: %s\n", (long long)n, size.error.c_str());
  std::fflush(stdout);
  return size;
}

}  // namespace

std::string SweepConfig::label() const {
  return "MC " + std::to_string(mc) + " KC " + std::to_string(kc) + " NC " + std::to_string(nc);
}

std::string SweepConfig::factors() const {
  if (is_model) return "model";
  char text[64];
  std::snprintf(text, sizeof text, "MC x%g KC x%g NC %s", mc_factor, kc_factor,
                nc_half ? "N/2" : "model");
  return text;
}

BlockingSweep run_blocking_sweep(bool quick) {
  BlockingSweep sweep;
  // The model's context must see no INVAR_MC / INVAR_KC / INVAR_NC.
  ScopedUnsetEnv unset({"INVAR_MC", "INVAR_KC", "INVAR_NC"});
  for (const auto& [name, value] : unset.removed())
    sweep.notes.push_back(name + "=" + value + " was unset for the sweep");
  invar::Isa isa = invar::Isa::kGeneric;
  for (invar::Isa i : invar::kernels::available_isas())
    if (i != invar::Isa::kGeneric) {
      isa = i;
      break;
    }
  if (isa == invar::Isa::kGeneric) {
    sweep.notes.push_back("not run: no SIMD path on this CPU");
    return sweep;
  }
  const auto& caches = invar::arch::cache_topology();
  if (!caches.error.empty()) {
    sweep.notes.push_back("not run: " + caches.error);
    return sweep;
  }
  const auto& kernel = invar::kernels::compiled_kernel_set(isa)->sgemm;
  ModelInput in{caches.topology,
                invar::driver::tile_shape(kernel),
                {kernel.a_packed_bytes, kernel.b_packed_bytes}};
  sweep.ran = true;
  sweep.isa = invar::isa_name(isa);
  sweep.kernel = std::string(kernel.name) + " (" + std::to_string(kernel.mr) + "x" +
                 std::to_string(kernel.nr) + ")";
  const auto& t = caches.topology;
  sweep.caches = "L1d " + invar::arch::format_bytes(t.l1d.bytes) + " " +
                 std::to_string(t.l1d.ways) + "-way, L2 " + invar::arch::format_bytes(t.l2.bytes) +
                 " " + std::to_string(t.l2.ways) + "-way, L3 " +
                 (t.l3.present() ? invar::arch::format_bytes(t.l3.bytes) + " " +
                                       std::to_string(t.l3.ways) + "-way"
                                 : std::string("none")) +
                 " (" + t.source + ")";
  std::printf("blocking sweep: invar-%s, 1 thread; caches %s\n", sweep.isa.c_str(),
              sweep.caches.c_str());
  std::fflush(stdout);
  std::vector<int64_t> sizes{1024, 2048};
  if (!quick) sizes.push_back(4096);
  for (int64_t n : sizes) sweep.sizes.push_back(sweep_size(in, isa, n, sweep.notes));
  return sweep;
}

}  // namespace invar_bench

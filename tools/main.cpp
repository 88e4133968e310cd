// invar: information about the library on this machine, a quick timing, and the fingerprint
// that shows the contract holds here.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <exception>
#include <string>

#include "invar/invar.hpp"
#include "tools/commands.h"

namespace {

// "M N K" from three command-line words: positive integers only (no exception on bad input).
bool parse_shape(const CLI::results_t& words, int64_t* m, int64_t* n, int64_t* k) {
  int64_t* out[3] = {m, n, k};
  for (int i = 0; i < 3; ++i) {
    const std::string& w = words[i];
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), *out[i]);
    if (ec != std::errc() || end != w.data() + w.size() || *out[i] <= 0) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"invar: reproducible matrix multiplication"};
  app.set_version_flag("--version", invar::version());
  app.require_subcommand(1);

  invar::tool::InfoOptions info;
  CLI::App* info_cmd = app.add_subcommand("info", "ISA path, kernel, blocking, threads, CPU");
  info_cmd
      ->add_option(
          "--shape",
          [&](const CLI::results_t& r) { return parse_shape(r, &info.m, &info.n, &info.k); },
          "M N K whose block sizes and plan to show")
      ->expected(3);
  info_cmd->add_flag("--trans-b", info.trans_b,
                     "plan the shape with B stored transposed (x * W^T)");

  invar::tool::FingerprintOptions fp;
  CLI::App* fp_cmd =
      app.add_subcommand("fingerprint",
                         "SHA-256 over the results of fixed seeded problems; equal wherever the "
                         "numeric contract holds");
  fp_cmd->add_flag("-v,--verbose", fp.verbose, "one hash per problem as well");

  invar::tool::BenchOptions bench;
  CLI::App* bench_cmd =
      app.add_subcommand("bench", "time one product, print GFLOP/s (GOP/s for s8, u8)");
  bench_cmd
      ->add_option(
          "--shape",
          [&](const CLI::results_t& r) { return parse_shape(r, &bench.m, &bench.n, &bench.k); },
          "M N K (default 1024 1024 1024)")
      ->expected(3);
  bench_cmd->add_option("--seconds", bench.seconds, "measuring time")->check(CLI::PositiveNumber);
  bench_cmd
      ->add_option("--type", bench.type,
                   "element type: f32, f64, s8 (s8 x s8 -> s32), u8 (u8 x s8 -> s32), bf16 (bf16 x "
                   "bf16 -> f32 against f32 and the widened path)")
      ->check(CLI::IsMember({"f32", "f64", "s8", "u8", "bf16"}));

  CLI11_PARSE(app, argc, argv);
  try {
    if (info_cmd->parsed()) return invar::tool::run_info(info);
    if (fp_cmd->parsed()) return invar::tool::run_fingerprint(fp);
    if (bench_cmd->parsed()) return invar::tool::run_bench(bench);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "invar: %s\n", e.what());
    return 1;
  }
  return 1;
}

// invar: information about the library on this machine, a quick timing, and the fingerprint
// that shows the contract holds here.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "invar/invar.hpp"
#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"invar: reproducible matrix multiplication"};
  app.set_version_flag("--version", invar::version());
  app.require_subcommand(1);

  invar::tool::InfoOptions info;
  CLI::App* info_cmd = app.add_subcommand("info", "ISA path, kernel, blocking, threads, CPU");
  info_cmd->add_option("--shape", [&](const CLI::results_t& r) {
                         info.m = std::stoll(r[0]);
                         info.n = std::stoll(r[1]);
                         info.k = std::stoll(r[2]);
                         return info.m > 0 && info.n > 0 && info.k > 0;
                       }, "M N K whose block sizes to show")
      ->expected(3);

  invar::tool::FingerprintOptions fp;
  CLI::App* fp_cmd = app.add_subcommand(
      "fingerprint", "SHA-256 over the results of fixed seeded problems; equal wherever the "
                     "numeric contract holds");
  fp_cmd->add_flag("-v,--verbose", fp.verbose, "one hash per problem as well");

  invar::tool::BenchOptions bench;
  CLI::App* bench_cmd = app.add_subcommand("bench", "time one f32 product, print GFLOP/s");
  bench_cmd->add_option("--shape", [&](const CLI::results_t& r) {
                          bench.m = std::stoll(r[0]);
                          bench.n = std::stoll(r[1]);
                          bench.k = std::stoll(r[2]);
                          return bench.m > 0 && bench.n > 0 && bench.k > 0;
                        }, "M N K (default 1024 1024 1024)")
      ->expected(3);
  bench_cmd->add_option("--seconds", bench.seconds, "measuring time")->check(CLI::PositiveNumber);

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

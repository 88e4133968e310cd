// The subcommands of the `invar` tool. Each returns the process exit code.
#ifndef INVAR_TOOLS_COMMANDS_H_
#define INVAR_TOOLS_COMMANDS_H_

#include <cstdint>
#include <string>

namespace invar::tool {

struct InfoOptions {
  int64_t m = 1024, n = 1024, k = 1024;  // the shape whose block sizes and plan are shown
  bool trans_b = false;                  // the plan for B stored transposed (x * W^T)
};
int run_info(const InfoOptions& options);

struct FingerprintOptions {
  bool verbose = false;  // also print one hash per problem
};
int run_fingerprint(const FingerprintOptions& options);

struct BenchOptions {
  int64_t m = 1024, n = 1024, k = 1024;
  double seconds = 1.0;      // measuring time per shape
  std::string type = "f32";  // "f32", "f64", "s8" (s8 x s8), "u8" (u8 x s8) or "bf16"
};
int run_bench(const BenchOptions& options);

}  // namespace invar::tool

#endif  // INVAR_TOOLS_COMMANDS_H_

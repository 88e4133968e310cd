// Does each row compute the same product? invar's first path is compared bit for bit with the
// numeric contract's scalar oracle (small shapes only: the oracle is a naive loop); invar's other
// paths must match it bit for bit (the contract says the bits do not depend on the instruction
// set); peers sum in other orders, so they are compared loosely:
//   max |C - C_ref| / max |C_ref| <= 1e-4.
#ifndef INVAR_BENCH_CHECK_H_
#define INVAR_BENCH_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace invar_bench {

struct Check {
  bool ok = true;
  std::string text;  // "exact vs oracle", "bits = invar-avx2", "rel 3.2e-08 vs invar-avx2", ...
};

constexpr double kLooseTolerance = 1e-4;

Check check_against_oracle(const float* c, const float* a, const float* b, int64_t m, int64_t n,
                           int64_t k);
Check check_same_bits(const float* c, const float* ref, size_t count, const std::string& ref_name);
Check check_close(const float* c, const float* ref, size_t count, const std::string& ref_name);

}  // namespace invar_bench

#endif  // INVAR_BENCH_CHECK_H_

// Does each row compute the same product? invar's first path is compared bit for bit with the
// numeric contract's scalar oracle (all of C for small shapes, its first rows for larger ones:
// the oracle is a naive loop, and by the contract a row's bits do not depend on M); invar's
// other paths (another instruction set, W prepacked) must match it bit for bit; peers sum in
// other orders, so they are compared loosely:
//   max |C - C_ref| / max |C_ref| <= 1e-4 (f32 and bf16 inputs), 1e-10 (f64).
// bf16 inputs are held to the f32 oracle on the widened operands (the contract's promise).
// Integer products (uint8 x int8 -> int32) are exact modulo 2^32 in any order of summation, so
// every row, peers included, must give the oracle's bits; a peer that differs is a failure (e.g.
// a kernel whose 16-bit intermediate sums saturate).
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
constexpr double kLooseToleranceF64 = 1e-10;

// The first min(rows, m) rows of C (m x n) against the oracle's, for A (m x k) and B (k x n, or
// with trans_b stored n x k).
template <class T>
Check check_against_oracle(const T* c, const T* a, const T* b, bool trans_b, int64_t m, int64_t n,
                           int64_t k, int64_t rows);
// The same for bf16 A and B (bit patterns) and an f32 C.
Check check_bf16_against_oracle(const float* c, const uint16_t* a, const uint16_t* b, int64_t m,
                                int64_t n, int64_t k, int64_t rows);
// The same for uint8 A, int8 B and an int32 C, against sums modulo 2^32.
Check check_u8s8_against_oracle(const int32_t* c, const uint8_t* a, const int8_t* b, int64_t m,
                                int64_t n, int64_t k, int64_t rows);
// For int32_t, a failure says how many elements differ and gives the first pair of values.
template <class T>
Check check_same_bits(const T* c, const T* ref, size_t count, const std::string& ref_name);
template <class T>
Check check_close(const T* c, const T* ref, size_t count, const std::string& ref_name);

}  // namespace invar_bench

#endif  // INVAR_BENCH_CHECK_H_

// Entry points of the FMA-peak loops. Each lives in its own translation unit built with that
// instruction set's flags, so each may only be called once CPUID + XGETBV said the CPU and the OS
// support it (machine.cpp checks through invar::arch::cpu_features()).
#ifndef INVAR_BENCH_PEAK_FMA_H_
#define INVAR_BENCH_PEAK_FMA_H_

#include <cstdint>

namespace invar_bench {

// `iterations` rounds of kChains independent vector FMAs, all in registers; returns a value
// derived from every chain so the work cannot be optimized away.
// Floating-point operations done: iterations * chains * lanes * 2.
float fma_chains_avx2(int64_t iterations);    // 12 chains x 8 lanes (ymm)
float fma_chains_avx512(int64_t iterations);  // 16 chains x 16 lanes (zmm)
// The same loops on doubles (vfmadd231pd): the f64 peak, half the lanes per vector.
double fma_chains_avx2_f64(int64_t iterations);    // 12 chains x 4 lanes (ymm)
double fma_chains_avx512_f64(int64_t iterations);  // 16 chains x 8 lanes (zmm)

constexpr int kAvx2Chains = 12, kAvx2Lanes = 8;
constexpr int kAvx512Chains = 16, kAvx512Lanes = 16;
constexpr int kAvx2LanesF64 = 4, kAvx512LanesF64 = 8;

}  // namespace invar_bench

#endif  // INVAR_BENCH_PEAK_FMA_H_

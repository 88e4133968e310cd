// The floating-point environment the numeric contract needs: round-to-nearest-even, subnormal
// inputs and outputs honoured (no FTZ, no DAZ), every exception masked. A caller's thread may be in
// any mode (audio and game code often sets FTZ/DAZ), so every thread that computes enters this mode
// for the duration of the computation and restores the previous one afterwards.
#ifndef INVAR_RUNTIME_FP_MODE_H_
#define INVAR_RUNTIME_FP_MODE_H_

#include <cstdint>

namespace invar::runtime {

class FpModeGuard {
 public:
  FpModeGuard();
  ~FpModeGuard();
  FpModeGuard(const FpModeGuard&) = delete;
  FpModeGuard& operator=(const FpModeGuard&) = delete;

 private:
  uint64_t saved_ = 0;         // MXCSR on x86, FPCR on aarch64
  uint64_t saved_status_ = 0;  // FPSR on aarch64
};

}  // namespace invar::runtime

#endif  // INVAR_RUNTIME_FP_MODE_H_

#include "runtime/fp_mode.h"

#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__)
#include <cfenv>

namespace invar::runtime {

// Elsewhere (x86 and aarch64 are inline in the header) only the rounding mode is portable.
FpModeGuard::FpModeGuard() {
  saved_ = static_cast<uint64_t>(std::fegetround());
  if (saved_ != FE_TONEAREST) std::fesetround(FE_TONEAREST);
}
FpModeGuard::~FpModeGuard() {
  if (saved_ != FE_TONEAREST) std::fesetround(static_cast<int>(saved_));
}

}  // namespace invar::runtime
#endif

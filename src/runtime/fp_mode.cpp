#include "runtime/fp_mode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#elif !defined(__aarch64__)
#include <cfenv>
#endif

namespace invar::runtime {

// x86 MXCSR: rounding control in bits 13-14 (00 = nearest), FTZ bit 15, DAZ bit 6. The library's
// arithmetic is all SSE/AVX (x86-64 never uses x87 for float), so MXCSR is the whole environment.
// aarch64 FPCR: RMode bits 22-23 (00 = nearest), FZ bit 24, FZ16 bit 19; AH/FIZ (bits 1, 0) of
// FEAT_AFP would also flush, and are cleared too.
#if defined(__x86_64__) || defined(__i386__)
namespace {
constexpr uint32_t kMask = (3u << 13) | (1u << 15) | (1u << 6);
}
FpModeGuard::FpModeGuard() {
  const uint32_t csr = _mm_getcsr();
  saved_ = csr;
  if ((csr & kMask) != 0) {
    _mm_setcsr(csr & ~kMask);
    changed_ = true;
  }
}
FpModeGuard::~FpModeGuard() {
  if (changed_) _mm_setcsr(static_cast<uint32_t>(saved_));
}
#elif defined(__aarch64__)
namespace {
constexpr uint64_t kMask = (3ull << 22) | (1ull << 24) | (1ull << 19) | 3ull;
uint64_t read_fpcr() {
  uint64_t v;
  __asm__ volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
void write_fpcr(uint64_t v) { __asm__ volatile("msr fpcr, %0" : : "r"(v)); }
}  // namespace
FpModeGuard::FpModeGuard() {
  const uint64_t fpcr = read_fpcr();
  saved_ = fpcr;
  if ((fpcr & kMask) != 0) {
    write_fpcr(fpcr & ~kMask);
    changed_ = true;
  }
}
FpModeGuard::~FpModeGuard() {
  if (changed_) write_fpcr(saved_);
}
#else
FpModeGuard::FpModeGuard() {
  saved_ = static_cast<uint64_t>(std::fegetround());
  if (saved_ != FE_TONEAREST) {
    std::fesetround(FE_TONEAREST);
    changed_ = true;
  }
}
FpModeGuard::~FpModeGuard() {
  if (changed_) std::fesetround(static_cast<int>(saved_));
}
#endif

}  // namespace invar::runtime

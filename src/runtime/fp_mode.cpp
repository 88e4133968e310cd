#include "runtime/fp_mode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#elif !defined(__aarch64__)
#include <cfenv>
#endif

namespace invar::runtime {

// The guard saves the whole control and status state, installs the library's own, and puts the
// saved state back, so the caller gets back exactly the mode and flags it had: no exception flag
// raised inside invar (for instance by the zero padding of a tile meeting an infinity) leaks out,
// and no trap the caller enabled fires inside invar.
#if defined(__x86_64__) || defined(__i386__)
// MXCSR 0x1F80: every exception masked (bits 7-12), round to nearest (bits 13-14 = 0), FTZ
// (bit 15) and DAZ (bit 6) off, no flags. x86-64 does float arithmetic in SSE/AVX only, so MXCSR
// is the whole environment.
// LDMXCSR costs tens of cycles, a tiny product's whole budget, so the register is written only
// when it differs: on entry when a control bit does (the flags, bits 0-5, record and change
// nothing), on exit when anything does (usually a flag the computation raised that the caller
// did not have).
namespace {
constexpr uint32_t kContractMode = 0x1F80u;
constexpr uint32_t kFlags = 0x3Fu;
}  // namespace
FpModeGuard::FpModeGuard() {
  const uint32_t csr = _mm_getcsr();
  saved_ = csr;
  if ((csr & ~kFlags) != kContractMode) _mm_setcsr(kContractMode);
}
FpModeGuard::~FpModeGuard() {
  if (_mm_getcsr() != static_cast<uint32_t>(saved_)) _mm_setcsr(static_cast<uint32_t>(saved_));
}
#elif defined(__aarch64__)
// FPCR: RMode bits 22-23 (00 = nearest), FZ bit 24, FZ16 bit 19, AH/FIZ bits 1-0 (FEAT_AFP), trap
// enables IOE..IXE bits 8-12 and IDE bit 15: all cleared. FPSR holds the cumulative flags.
namespace {
constexpr uint64_t kClear =
    (3ull << 22) | (1ull << 24) | (1ull << 19) | 3ull | (0x1Full << 8) | (1ull << 15);
uint64_t read_fpcr() {
  uint64_t v;
  __asm__ volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
void write_fpcr(uint64_t v) { __asm__ volatile("msr fpcr, %0" : : "r"(v)); }
uint64_t read_fpsr() {
  uint64_t v;
  __asm__ volatile("mrs %0, fpsr" : "=r"(v));
  return v;
}
void write_fpsr(uint64_t v) { __asm__ volatile("msr fpsr, %0" : : "r"(v)); }
}  // namespace
FpModeGuard::FpModeGuard() {
  saved_ = read_fpcr();
  saved_status_ = read_fpsr();
  if ((saved_ & kClear) != 0) write_fpcr(saved_ & ~kClear);
}
FpModeGuard::~FpModeGuard() {
  if ((saved_ & kClear) != 0) write_fpcr(saved_);
  write_fpsr(saved_status_);
}
#else
FpModeGuard::FpModeGuard() {
  saved_ = static_cast<uint64_t>(std::fegetround());
  if (saved_ != FE_TONEAREST) std::fesetround(FE_TONEAREST);
}
FpModeGuard::~FpModeGuard() {
  if (saved_ != FE_TONEAREST) std::fesetround(static_cast<int>(saved_));
}
#endif

}  // namespace invar::runtime

// The floating-point environment the numeric contract needs: round-to-nearest-even, subnormal
// inputs and outputs honoured (no FTZ, no DAZ), every exception masked. A caller's thread may be in
// any mode (audio and game code often sets FTZ/DAZ), so every thread that computes enters this mode
// for the duration of the computation and restores the previous one afterwards.
//
// The guard saves the whole control and status state, installs the library's own, and puts the
// saved state back, so the caller gets back exactly the mode and flags it had: no exception flag
// raised inside invar (for instance by the zero padding of a tile meeting an infinity) leaks out,
// and no trap the caller enabled fires inside invar.
//
// It runs around every call, a tiny product's included, so on x86 and aarch64 it is inline here
// (fp_mode.cpp has the other targets), and it reads the register once. On x86 reading MXCSR
// waits for the floating-point work in flight, whose flags it must show, where writing it does
// not: on a Zen 3, a loop of one dependent multiply-add took 1.9 ns, 7.0 with a STMXCSR, 8.8 with
// a STMXCSR and a LDMXCSR, and 13.9 with the guard that read MXCSR again on exit to write it only
// when it differed. So on entry it is read and written only when a control bit differs, and on
// exit written back whole, unread.
// Not for the ISA folders' translation units: an inline function emitted there could be the copy
// the linker keeps (tests/isa_objects_odr.sh).
#ifndef INVAR_RUNTIME_FP_MODE_H_
#define INVAR_RUNTIME_FP_MODE_H_

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

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

#if defined(__x86_64__) || defined(__i386__)
// MXCSR 0x1F80: every exception masked (bits 7-12), round to nearest (bits 13-14 = 0), FTZ
// (bit 15) and DAZ (bit 6) off, no flags. x86-64 does float arithmetic in SSE/AVX only, so MXCSR
// is the whole environment. On entry the register is written when a control bit differs (the
// flags, bits 0-5, record and change nothing); on exit the saved value is written back, which
// clears any flag the computation raised that the caller did not have (a second read to find
// whether one did costs more than the write: see above).
namespace fp_mode_detail {
inline constexpr uint32_t kContractMode = 0x1F80u;
inline constexpr uint32_t kFlags = 0x3Fu;
}  // namespace fp_mode_detail
inline FpModeGuard::FpModeGuard() {
  const uint32_t csr = _mm_getcsr();
  saved_ = csr;
  if ((csr & ~fp_mode_detail::kFlags) != fp_mode_detail::kContractMode)
    _mm_setcsr(fp_mode_detail::kContractMode);
}
inline FpModeGuard::~FpModeGuard() { _mm_setcsr(static_cast<uint32_t>(saved_)); }
#elif defined(__aarch64__)
// FPCR: RMode bits 22-23 (00 = nearest), FZ bit 24, FZ16 bit 19, AH/FIZ bits 1-0 (FEAT_AFP), trap
// enables IOE..IXE bits 8-12 and IDE bit 15: all cleared. FPSR holds the cumulative flags,
// written back whole on exit.
namespace fp_mode_detail {
inline constexpr uint64_t kClear =
    (3ull << 22) | (1ull << 24) | (1ull << 19) | 3ull | (0x1Full << 8) | (1ull << 15);
inline uint64_t read_fpcr() {
  uint64_t v;
  __asm__ volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
inline void write_fpcr(uint64_t v) { __asm__ volatile("msr fpcr, %0" : : "r"(v)); }
inline uint64_t read_fpsr() {
  uint64_t v;
  __asm__ volatile("mrs %0, fpsr" : "=r"(v));
  return v;
}
inline void write_fpsr(uint64_t v) { __asm__ volatile("msr fpsr, %0" : : "r"(v)); }
}  // namespace fp_mode_detail
inline FpModeGuard::FpModeGuard() {
  saved_ = fp_mode_detail::read_fpcr();
  saved_status_ = fp_mode_detail::read_fpsr();
  if ((saved_ & fp_mode_detail::kClear) != 0)
    fp_mode_detail::write_fpcr(saved_ & ~fp_mode_detail::kClear);
}
inline FpModeGuard::~FpModeGuard() {
  if ((saved_ & fp_mode_detail::kClear) != 0) fp_mode_detail::write_fpcr(saved_);
  fp_mode_detail::write_fpsr(saved_status_);
}
#endif

}  // namespace invar::runtime

#endif  // INVAR_RUNTIME_FP_MODE_H_

// The calling thread's whole floating-point state, to set a caller's mode around one call and to
// check that the call gave it back exactly: MXCSR on x86-64 (control bits and sticky flags),
// FPCR and FPSR on AArch64. Elsewhere the state is empty and the checks are vacuous
// (kHaveFpState is false, and tests that need it skip).
#ifndef INVAR_TESTS_SUPPORT_FP_STATE_H_
#define INVAR_TESTS_SUPPORT_FP_STATE_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace invar::test {

struct FpState {
  uint64_t control = 0;  // MXCSR, or FPCR
  uint64_t status = 0;   // FPSR (AArch64 only)
  bool operator==(const FpState& o) const { return control == o.control && status == o.status; }
  bool operator!=(const FpState& o) const { return !(*this == o); }
  std::string str() const {
    char text[64];
    std::snprintf(text, sizeof text, "control 0x%llx status 0x%llx",
                  static_cast<unsigned long long>(control),
                  static_cast<unsigned long long>(status));
    return text;
  }
};

#if defined(__x86_64__)
inline constexpr bool kHaveFpState = true;
inline FpState read_fp_state() { return {_mm_getcsr(), 0}; }
inline void write_fp_state(const FpState& s) { _mm_setcsr(static_cast<unsigned>(s.control)); }
// The contract's own mode: round to nearest, no FTZ/DAZ, all exceptions masked, no flags.
inline constexpr FpState kContractState{0x1F80, 0};
#elif defined(__aarch64__)
inline constexpr bool kHaveFpState = true;
inline FpState read_fp_state() {
  uint64_t c, s;
  __asm__ volatile("mrs %0, fpcr" : "=r"(c));
  __asm__ volatile("mrs %0, fpsr" : "=r"(s));
  return {c, s};
}
inline void write_fp_state(const FpState& s) {
  __asm__ volatile("msr fpcr, %0" : : "r"(s.control));
  __asm__ volatile("msr fpsr, %0" : : "r"(s.status));
}
inline constexpr FpState kContractState{0, 0};
#else
inline constexpr bool kHaveFpState = false;
inline FpState read_fp_state() { return {}; }
inline void write_fp_state(const FpState&) {}
inline constexpr FpState kContractState{0, 0};
#endif

struct CallerMode {
  const char* name;
  FpState state;
};

// Modes a caller may be in: the contract's with and without flags, flush-to-zero and
// denormals-are-zero, each directed rounding, and everything at once.
inline std::vector<CallerMode> caller_modes() {
#if defined(__x86_64__)
  return {{"0x1f80", {0x1F80, 0}},
          {"0x1f80 with every flag", {0x1FBF, 0}},
          {"0x1f80 with inexact", {0x1FA0, 0}},
          {"FTZ|DAZ", {0x9FC0, 0}},
          {"round up", {0x5F80, 0}},
          {"round down", {0x3F80, 0}},
          {"round toward zero", {0x7F80, 0}},
          {"FTZ|DAZ, toward zero, denormal flag", {0xFFC2, 0}}};
#elif defined(__aarch64__)
  return {{"FPCR 0", {0, 0}},
          {"FPCR 0 with every flag", {0, 0x9F}},
          {"FZ", {1ull << 24, 0}},
          {"round up", {1ull << 22, 0}},
          {"round down", {2ull << 22, 0}},
          {"round toward zero", {3ull << 22, 0}},
          {"FZ, toward zero, flags", {(1ull << 24) | (3ull << 22), 0x80}}};
#else
  return {};
#endif
}

}  // namespace invar::test

#endif  // INVAR_TESTS_SUPPORT_FP_STATE_H_

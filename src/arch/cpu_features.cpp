#include "arch/cpu_features.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#elif defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace invar::arch {
namespace {

#if defined(__x86_64__) || defined(__i386__)

struct Regs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs cpuid(uint32_t leaf, uint32_t subleaf = 0) {
  Regs r;
  if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) return Regs{};
  return r;
}

// XGETBV is only legal when CPUID.1:ECX.OSXSAVE is set; the caller checks that first.
uint64_t xgetbv0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// Asks Linux for this process's permission to use AMX tile data (XFEATURE_XTILEDATA, state
// component 18), which the kernel grants once per process, its threads and children included.
// Elsewhere there is no such request and no AMX path.
bool request_tile_permission() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

CpuFeatures detect() {
  CpuFeatures f;
  f.x86 = true;
  const Regs r0 = cpuid(0);
  char vendor[13] = {};
  std::memcpy(vendor + 0, &r0.ebx, 4);
  std::memcpy(vendor + 4, &r0.edx, 4);
  std::memcpy(vendor + 8, &r0.ecx, 4);
  f.vendor = vendor;

  if (cpuid(0x80000000).eax >= 0x80000004) {
    char brand[49] = {};
    for (uint32_t i = 0; i < 3; ++i) {
      const Regs r = cpuid(0x80000002 + i);
      std::memcpy(brand + 16 * i + 0, &r.eax, 4);
      std::memcpy(brand + 16 * i + 4, &r.ebx, 4);
      std::memcpy(brand + 16 * i + 8, &r.ecx, 4);
      std::memcpy(brand + 16 * i + 12, &r.edx, 4);
    }
    f.brand = brand;
    const auto first = f.brand.find_first_not_of(' ');
    f.brand = first == std::string::npos ? "" : f.brand.substr(first);
    while (!f.brand.empty() && f.brand.back() == ' ') f.brand.pop_back();
  }

  const uint32_t max_leaf = r0.eax;
  if (max_leaf < 1) return f;
  const Regs r1 = cpuid(1);
  const int base_family = static_cast<int>((r1.eax >> 8) & 0xF);
  const int base_model = static_cast<int>((r1.eax >> 4) & 0xF);
  f.family =
      base_family == 0xF ? base_family + static_cast<int>((r1.eax >> 20) & 0xFF) : base_family;
  f.model = base_family == 0x6 || base_family == 0xF
                ? base_model + (static_cast<int>((r1.eax >> 16) & 0xF) << 4)
                : base_model;
  const bool fma = (r1.ecx >> 12) & 1;
  const bool osxsave = (r1.ecx >> 27) & 1;
  const bool avx = (r1.ecx >> 28) & 1;
  const bool f16c = (r1.ecx >> 29) & 1;
  const Regs r7 = max_leaf >= 7 ? cpuid(7, 0) : Regs{};
  const bool avx2 = (r7.ebx >> 5) & 1;
  const bool avx512f = (r7.ebx >> 16) & 1;
  const bool avx512bw = (r7.ebx >> 30) & 1;
  const bool avx512vnni = (r7.ecx >> 11) & 1;
  const bool amx_tile = (r7.edx >> 24) & 1;
  const bool amx_int8 = (r7.edx >> 25) & 1;
  const bool avx512bf16 = max_leaf >= 7 && r7.eax >= 1 && ((cpuid(7, 1).eax >> 5) & 1);

  if (osxsave) {
    const uint64_t xcr0 = xgetbv0();
    f.os_saves_ymm = (xcr0 & 0x6) == 0x6;                      // SSE and AVX state
    f.os_saves_zmm = f.os_saves_ymm && (xcr0 & 0xE0) == 0xE0;  // opmask, ZMM_Hi256, Hi16_ZMM
    f.os_saves_tiles = (xcr0 & 0x60000) == 0x60000;            // XTILECFG, XTILEDATA
  }
  // F16C (half-precision conversions, which the AVX2 packers of f16 operands use) came with or
  // before AVX2 on every x86 line, so requiring it excludes no real AVX2 processor.
  f.avx2_fma = avx && avx2 && fma && f16c && f.os_saves_ymm;
  f.avx512f = f.avx2_fma && avx512f && f.os_saves_zmm;
  f.avx512_vnni = f.avx512f && avx512bw && avx512vnni;
  f.avx512_bf16 = f.avx512f && avx512bw && avx512bf16;
  f.amx_int8 = f.avx512_vnni && amx_tile && amx_int8 && f.os_saves_tiles;
  return f;
}

#elif defined(__aarch64__)

CpuFeatures detect() {
  CpuFeatures f;
  f.aarch64 = true;
  f.vendor = "arm";
#if defined(__linux__)
  f.neon = (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#else
  f.neon = true;  // Advanced SIMD is architectural on AArch64
#endif
  return f;
}

#else

CpuFeatures detect() { return CpuFeatures{}; }

#endif

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

bool request_tile_data() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool granted = cpu_features().amx_int8 && request_tile_permission();
  return granted;
#else
  return false;
#endif
}

bool amd_or_hygon(std::string_view vendor) {
  return vendor == "AuthenticAMD" || vendor == "HygonGenuine";
}

bool avx512_on_256bit_halves(const CpuFeatures& cpu) {
  if (cpu.vendor != "AuthenticAMD") return false;
  if (cpu.family == 0x19) return true;
  return cpu.family == 0x1A &&
         ((cpu.model >= 0x20 && cpu.model <= 0x2F) || (cpu.model >= 0x60 && cpu.model <= 0x7F));
}

}  // namespace invar::arch

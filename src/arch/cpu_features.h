// What the CPU can do, read once per process.
//
// x86: CPUID for the instruction sets, XGETBV for whether the operating system saves the state
// they need (a CPU with AVX-512 under an OS that does not save ZMM and opmask registers cannot
// use it). AMX tile data is larger than the signal frame Linux set out with, so a process uses it
// only after asking for it (arch_prctl ARCH_REQ_XCOMP_PERM); the detection does not ask, since
// the grant enlarges every later signal frame of the process: request_tile_data() asks, once,
// when a product is about to use the tiles. aarch64: getauxval(AT_HWCAP). Nothing here knows
// about GEMM.
#ifndef INVAR_ARCH_CPU_FEATURES_H_
#define INVAR_ARCH_CPU_FEATURES_H_

#include <string>
#include <string_view>

namespace invar::arch {

struct CpuFeatures {
  std::string vendor;  // "GenuineIntel", "AuthenticAMD", "arm", ...
  std::string brand;   // the processor's own name, when it reports one
  // x86: CPUID leaf 1's family and model, the extended fields folded in as the vendors define
  // them (family 0x19 is AMD's Zen 3 and Zen 4, 0x1A Zen 5).
  int family = 0;
  int model = 0;
  bool x86 = false;
  bool aarch64 = false;
  // x86: AVX2, FMA3 and F16C with YMM state enabled by the OS.
  bool avx2_fma = false;
  // x86: AVX-512 F with ZMM and opmask state enabled by the OS.
  bool avx512f = false;
  // x86: AVX-512 BW and VNNI (vpdpbusd) on top of avx512f: the int8 kernels' dot products.
  bool avx512_vnni = false;
  // x86: AMX tiles with their int8 dot products (tdpbusd, tdpbssd) on top of avx512_vnni, with
  // tile state enabled by the OS. On Linux a process also needs the permission that
  // request_tile_data() asks for.
  bool amx_int8 = false;
  // x86: AVX512_BF16 (vdpbf16ps) and AVX-512 BW on top of avx512f: the bf16 dot products, which
  // the library uses only where they pass their check (kernels/bf16_dot.h).
  bool avx512_bf16 = false;
  // aarch64: Advanced SIMD.
  bool neon = false;
  // Raw facts behind the booleans, for `invar info`.
  bool os_saves_ymm = false;
  bool os_saves_zmm = false;
  bool os_saves_tiles = false;  // XCR0's XTILECFG and XTILEDATA
};

// Detected on first call, then memoized; thread-safe.
const CpuFeatures& cpu_features();

// Whether this process may use AMX tile data: false without CpuFeatures::amx_int8; on Linux
// the answer to arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), asked on the first call
// and memoized (thread-safe; the grant covers the process's threads and later children).
// Linux refuses it when an alternate signal stack already set up is too small for the frames
// with tile data; after the grant, a sigaltstack smaller than the new minimum fails.
bool request_tile_data();

// Whether a CPUID vendor string is AMD's or Hygon's (Zen-derived): the cores whose cache leaves
// and tuning differ from Intel's.
bool amd_or_hygon(std::string_view vendor);

// Whether the core runs a 512-bit vector operation as two halves on 256-bit units: AMD's Zen 4
// (family 0x19) and, by AMD's descriptions of them, the Zen 5 cores of its mobile processors
// (family 0x1A, models 0x20-0x2F and 0x60-0x7F). The other AVX-512 cores (Intel's, Zen 5 in
// AMD's server and desktop processors) have 512-bit units. No CPUID bit says it.
bool avx512_on_256bit_halves(const CpuFeatures& cpu);

}  // namespace invar::arch

#endif  // INVAR_ARCH_CPU_FEATURES_H_

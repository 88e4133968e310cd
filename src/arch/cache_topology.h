// The data-cache hierarchy one core sees: per level its size, associativity, line size and how
// many workers contend for it. Nothing here knows about GEMM; src/blocking/ turns a topology into
// block sizes.
//
// Detection is a chain of backends, each returning std::optional<CacheTopology>; the first answer
// that passes plausible() wins, and the chain ends in a fixed fallback, so it cannot fail:
//
//   1. x86 CPUID, exact leaves: Intel leaf 4 (deterministic cache parameters) on every vendor but
//      AMD/Hygon; AMD/Hygon leaf 0x8000001D (cache properties, needs TopologyExtensions).
//      AMD's leaf 4 is reserved; a hypervisor that fills it anyway fills it from a generic
//      model, not from the host.
//   2. Linux sysfs, /sys/devices/system/cpu/cpu0/cache/index*/. The kernel builds it from the same
//      exact leaves, or from leaf 2 descriptors or firmware tables (ACPI PPTT, device tree) that
//      this file does not decode, so it is never worse than what follows.
//   3. x86 CPUID, AMD legacy leaves 0x80000005 (L1) and 0x80000006 (L2, L3). Lossy, see below.
//   4. macOS sysctl (hw.perflevel0.* for the performance cores, then hw.*); only queried on Apple.
//   5. fallback_topology(): fixed, conservative sizes.
//
// Sharing: how many workers of one multi-threaded product contend for the level. The driver keeps
// per-worker data (the B micro-panel, the packed A block) in L1 and L2 and one B block shared by
// all workers in L3, so L1 and L3 always count 1. L2 counts the cores (not SMT siblings) behind
// one L2: sysfs shared_cpu_list divided by the SMT degree, hw.perflevel0.cpusperl2 on macOS, and
// 1 from CPUID on x86 (x86 cores have had a private L2 since Nehalem and Zen; the exception, an
// Intel E-core cluster of four cores behind one L2, is then sized as if it had the L2 alone).
//
// Plausibility: a masked or half-filled report (a VM that zeroes a leaf, a sysfs folder without
// the files) must not poison the model. A topology is rejected when L1d or L2 is missing, a
// present level is under 4 KiB, has a line under 16 or over 1024 bytes, zero ways or fewer bytes
// than one line per way, or when L2 is smaller than L1d.
//
// The AMD legacy leaves, and the rule for a package-wide L3:
//   - 0x80000006 encodes associativity as a 4-bit code (6 = 8 ways, 8 = 16 ways, ...). Code 9 means
//     "see leaf 0x8000001D"; when that leaf is all zeros (a VM that masks it) the ways are
//     unknown and this backend assumes 8 for L2 and 16 for L3 and says so in `notes`. A reported
//     associativity is taken at face value even when it understates the part (a Zen 5 VM reports
//     its 16-way L2 as 8-way): fewer ways only makes the model reserve coarser slices.
//   - The L3 field is the total over every die of the package (256 MiB on an 8-CCD EPYC Milan,
//     508 MiB on a Zen 5 VM), while one core can only allocate into its own die's L3: 32 MiB per
//     CCD on Zen 3, Zen 4 and Zen 5, 16 MiB per CCX on Zen 2. The legacy backend therefore
//     reports l3.bytes = min(field, kLegacyL3ReachableBytes = 32 MiB) and keeps the field in
//     l3_package_bytes. 32 MiB is exact for every Zen 3/4/5 CCD, exact for single-CCX parts
//     whose package total is smaller (the total is their L3), twice the reachable slice on
//     multi-CCX Zen 2 (a B block that spills to DRAM there costs bandwidth, not correctness) and
//     a third of a V-Cache die (blocks that fit 32 MiB fit 96 MiB). Dividing the total by a core
//     count instead would need the CCD size, which is exactly what the masked leaf withholds. The
//     model then sizes NC for 32 MiB less one way, as for any other L3.
//
// Overrides (environment, parsed by parse_cache_override, applied by apply_cache_overrides):
//   INVAR_L1D, INVAR_L2, INVAR_L3 = SIZE[:WAYS]
//     SIZE  decimal bytes with an optional binary unit K, M or G (case-insensitive): 48K, 1M, 32M,
//           1536K, 262144. INVAR_L3=0 declares that there is no L3.
//     WAYS  optional decimal associativity: 1M:16. Without it the detected level's ways are kept
//           (8 for L1d/L2, 16 for L3 when the level was not detected).
//   The line size and sharing of the detected level are kept. A value that does not parse, or
//   that makes the topology implausible, is an error string; the API layer throws it.
#ifndef INVAR_ARCH_CACHE_TOPOLOGY_H_
#define INVAR_ARCH_CACHE_TOPOLOGY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace invar::arch {

struct CacheLevel {
  int64_t bytes = 0;  // 0: no such level
  int ways = 0;       // lines per set; a fully associative cache has bytes / line ways
  int line = 0;       // coherency line size in bytes
  int sharing = 1;    // workers contending for this level (see above)

  bool present() const { return bytes > 0; }
  int64_t way_bytes() const { return ways > 0 ? bytes / ways : 0; }  // = sets * line
  int64_t sets() const { return ways > 0 && line > 0 ? bytes / (int64_t{ways} * line) : 0; }
};

struct CacheTopology {
  CacheLevel l1d;
  CacheLevel l2;
  CacheLevel l3;  // bytes == 0 when the core has no L3 (or none is reported)
  // Nonzero when the source reported a package-wide L3 total; l3.bytes is then the share one core
  // can reach (see the legacy-leaf rule above).
  int64_t l3_package_bytes = 0;
  // Which backend produced the values: "cpuid leaf 4", "cpuid 0x8000001D", "cpuid legacy AMD",
  // "sysfs", "sysctl" or "fallback", followed by " + INVAR_L2 override" and the like.
  std::string source;
  // Assumptions made and backends rejected on the way, for `invar info`; empty when none.
  std::string notes;
};

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kLegacyL3ReachableBytes = 32 * kMiB;

// ---- backends ----------------------------------------------------------------------------------

struct CpuidRegs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};
// Executes (or replays) CPUID for (leaf, subleaf). A leaf the CPU does not have reads as zeros.
using CpuidReader = std::function<CpuidRegs(uint32_t leaf, uint32_t subleaf)>;

// Intel leaf 4. Needs leaf 0's maximum basic leaf >= 4.
std::optional<CacheTopology> from_cpuid_leaf4(const CpuidReader& cpuid);
// AMD leaf 0x8000001D. Needs the maximum extended leaf >= 0x8000001D and TopologyExtensions
// (CPUID 0x80000001 ECX bit 22).
std::optional<CacheTopology> from_cpuid_amd_8000001d(const CpuidReader& cpuid);
// AMD legacy leaves 0x80000005 / 0x80000006 (see the rule above).
std::optional<CacheTopology> from_cpuid_amd_legacy(const CpuidReader& cpuid);

// Linux sysfs under `cpu_root` (normally /sys/devices/system/cpu): cpu0/cache/index*/{level, type,
// size, ways_of_associativity, coherency_line_size, shared_cpu_list} and
// cpu0/topology/thread_siblings_list for the SMT degree.
std::optional<CacheTopology> from_sysfs(const std::string& cpu_root);

// macOS sysctl values by name; nullopt when the name does not exist.
using SysctlReader = std::function<std::optional<int64_t>(const std::string& name)>;
// hw.perflevel0.{l1dcachesize, l2cachesize, cpusperl2} (Apple Silicon's performance cores) first,
// then hw.{l1dcachesize, l2cachesize, l3cachesize}; line from hw.cachelinesize. sysctl reports no
// associativity: 8 ways for L1d and 16 for L2/L3 are assumed and noted.
std::optional<CacheTopology> from_sysctl(const SysctlReader& sysctl);

// 32 KiB 8-way L1d, 512 KiB 8-way L2, 8 MiB 16-way L3, 64-byte lines: the smallest caches of a
// current x86-64 or Arm server core (every Zen, Intel server cores since Skylake-SP and client
// cores since Ice Lake, Neoverse N1 and later, Apple cores all meet or exceed each figure). Only
// reached when every backend fails; on an older part with a 256 KiB L2 the A block then spills
// to L3, which costs speed, never bits.
CacheTopology fallback_topology();

// Whether a backend's answer is usable; *why (when given) says what is wrong.
bool plausible(const CacheTopology& topology, std::string* why = nullptr);

// The chain above over explicit sources; an empty source is skipped. The x86 vendor (which
// exact leaf to use, whether the AMD legacy leaves apply) is read through `cpuid`.
struct CacheSources {
  CpuidReader cpuid;       // x86 only
  std::string sysfs_root;  // Linux only: "/sys/devices/system/cpu"
  SysctlReader sysctl;     // Apple only
};
CacheTopology detect_cache_topology(const CacheSources& sources);

// The chain for this machine, run once per process, memoized and thread-safe.
const CacheTopology& detected_cache_topology();

// ---- overrides ---------------------------------------------------------------------------------

struct CacheOverride {
  int64_t bytes = 0;  // 0 only for INVAR_L3=0: no L3
  int ways = 0;       // 0: keep the detected (or default) associativity
};

// Parses SIZE[:WAYS] for the variable `name`; on failure returns nullopt and sets *error to a
// message naming the variable, the value and the expected syntax.
std::optional<CacheOverride> parse_cache_override(const char* name, std::string_view value,
                                                  std::string* error);

// The raw texts of INVAR_L1D, INVAR_L2, INVAR_L3 (nullopt: not set).
struct CacheOverrideText {
  std::optional<std::string> l1d, l2, l3;
};

// `base` with the overrides applied and the source annotated; nullopt and *error when a value
// does not parse or the result is implausible.
std::optional<CacheTopology> apply_cache_overrides(const CacheTopology& base,
                                                   const CacheOverrideText& text,
                                                   std::string* error);

// detected_cache_topology() with INVAR_L1D / INVAR_L2 / INVAR_L3 from the environment, read once
// per process. When a value is invalid, `error` says why and `topology` is the detected one; the
// API layer turns the error into invar::InvalidArgument.
struct EffectiveCacheTopology {
  CacheTopology topology;
  std::string error;
};
const EffectiveCacheTopology& cache_topology();

// "32 KiB", "1.5 MiB", "508 MiB": for messages and `invar info`.
std::string format_bytes(int64_t bytes);

}  // namespace invar::arch

#endif  // INVAR_ARCH_CACHE_TOPOLOGY_H_

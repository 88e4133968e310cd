// x86 CPUID cache backends. Pure decoders over a CpuidReader, so they build and run on every
// architecture; the host reader lives in cache_topology.cpp.
//
// Register layouts: Intel SDM Vol. 2A, CPUID leaf 04H; AMD APM Vol. 3, CPUID Fn8000_001D and
// Fn8000_0005 / Fn8000_0006.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "arch/cache_topology.h"

namespace invar::arch {
namespace {

constexpr uint32_t kTopologyExtensionsBit = 1u << 22;  // CPUID 0x80000001 ECX

uint32_t bits(uint32_t value, int low, int count) {
  return (value >> low) & ((count >= 32) ? ~0u : ((1u << count) - 1));
}

void add_note(CacheTopology& t, const std::string& note) {
  if (!t.notes.empty()) t.notes += "; ";
  t.notes += note;
}

// Leaf 4 and leaf 0x8000001D share one layout:
//   EAX[4:0] type (0 none, 1 data, 2 instruction, 3 unified), EAX[7:5] level,
//   EAX[9] fully associative; EBX[11:0] line - 1, EBX[21:12] partitions - 1,
//   EBX[31:22] ways - 1; ECX sets - 1. Size = ways * partitions * line * sets.
// Returns false at the end of the list (type 0).
bool decode_cache_parameters(const CpuidRegs& r, CacheTopology& t) {
  const uint32_t type = bits(r.eax, 0, 5);
  if (type == 0) return false;
  const uint32_t level = bits(r.eax, 5, 3);
  const bool fully_associative = bits(r.eax, 9, 1) != 0;
  const int64_t line = int64_t{bits(r.ebx, 0, 12)} + 1;
  const int64_t partitions = int64_t{bits(r.ebx, 12, 10)} + 1;
  int64_t ways = int64_t{bits(r.ebx, 22, 10)} + 1;
  const int64_t sets = int64_t{r.ecx} + 1;
  const int64_t bytes = ways * partitions * line * sets;
  if (fully_associative) ways = bytes / line;
  if (type == 2) return true;  // instruction cache: not ours
  CacheLevel c;
  c.bytes = bytes;
  c.ways = static_cast<int>(ways);
  c.line = static_cast<int>(line);
  c.sharing = 1;
  if (level == 1 && !t.l1d.present()) t.l1d = c;
  if (level == 2 && !t.l2.present()) t.l2 = c;
  if (level == 3 && !t.l3.present()) t.l3 = c;
  return true;  // level 4 (an eDRAM cache) and beyond are ignored
}

std::optional<CacheTopology> enumerate(const CpuidReader& cpuid, uint32_t leaf, const char* name) {
  CacheTopology t;
  t.source = name;
  bool any = false;
  for (uint32_t sub = 0; sub < 16; ++sub) {
    if (!decode_cache_parameters(cpuid(leaf, sub), t)) break;
    any = true;
  }
  if (!any) return std::nullopt;
  return t;
}

// Fn8000_0006 associativity codes for L2 and L3; -1: no count (9 = "see Fn8000_001D", and the
// reserved codes 3, 5, 7); 0: disabled; kFully: fully associative.
constexpr int kFully = -2;
int legacy_ways_code(uint32_t code) {
  switch (code) {
    case 0x0: return 0;
    case 0x1: return 1;
    case 0x2: return 2;
    case 0x4: return 4;
    case 0x6: return 8;
    case 0x8: return 16;
    case 0xA: return 32;
    case 0xB: return 48;
    case 0xC: return 64;
    case 0xD: return 96;
    case 0xE: return 128;
    case 0xF: return kFully;
    default: return -1;
  }
}

// One legacy L2 or L3 field set; `assumed_ways` when the code carries no count.
CacheLevel legacy_level(int64_t bytes, uint32_t code, uint32_t line, int assumed_ways,
                        const char* name, CacheTopology& t) {
  CacheLevel c;
  const int ways = legacy_ways_code(code);
  if (bytes == 0 || ways == 0) return c;  // absent or disabled
  c.bytes = bytes;
  c.line = static_cast<int>(line);
  if (ways == kFully) {
    c.ways = line > 0 ? static_cast<int>(bytes / line) : 0;
  } else if (ways < 0) {
    c.ways = assumed_ways;
    add_note(t, std::string(name) + " associativity not encoded (code " + std::to_string(code) +
                    "), " + std::to_string(assumed_ways) + " ways assumed");
  } else {
    c.ways = ways;
  }
  return c;
}

}  // namespace

std::optional<CacheTopology> from_cpuid_leaf4(const CpuidReader& cpuid) {
  if (cpuid(0, 0).eax < 4) return std::nullopt;
  return enumerate(cpuid, 4, "cpuid leaf 4");
}

std::optional<CacheTopology> from_cpuid_amd_8000001d(const CpuidReader& cpuid) {
  if (cpuid(0x80000000, 0).eax < 0x8000001D) return std::nullopt;
  if ((cpuid(0x80000001, 0).ecx & kTopologyExtensionsBit) == 0) return std::nullopt;
  return enumerate(cpuid, 0x8000001D, "cpuid 0x8000001D");
}

std::optional<CacheTopology> from_cpuid_amd_legacy(const CpuidReader& cpuid) {
  if (cpuid(0x80000000, 0).eax < 0x80000006) return std::nullopt;
  const CpuidRegs r5 = cpuid(0x80000005, 0);
  const CpuidRegs r6 = cpuid(0x80000006, 0);
  if (r5.ecx == 0 && r6.ecx == 0 && r6.edx == 0) return std::nullopt;
  CacheTopology t;
  t.source = "cpuid legacy AMD";

  // 0x80000005 ECX: [31:24] L1d KiB, [23:16] ways (0xFF fully associative), [7:0] line.
  const int64_t l1_bytes = int64_t{bits(r5.ecx, 24, 8)} * kKiB;
  const uint32_t l1_ways = bits(r5.ecx, 16, 8);
  t.l1d.bytes = l1_bytes;
  t.l1d.line = static_cast<int>(bits(r5.ecx, 0, 8));
  t.l1d.ways = l1_ways == 0xFF && t.l1d.line > 0 ? static_cast<int>(l1_bytes / t.l1d.line)
                                                 : static_cast<int>(l1_ways);

  // 0x80000006 ECX: [31:16] L2 KiB, [15:12] ways code, [7:0] line.
  t.l2 = legacy_level(int64_t{bits(r6.ecx, 16, 16)} * kKiB, bits(r6.ecx, 12, 4), bits(r6.ecx, 0, 8),
                      8, "L2", t);
  // 0x80000006 EDX: [31:18] L3 in 512 KiB units (the whole package), [15:12] ways code,
  // [7:0] line. One core reaches one die's slice of it (see the rule in the header).
  const int64_t l3_package = int64_t{bits(r6.edx, 18, 14)} * 512 * kKiB;
  const int64_t l3_reachable = std::min(l3_package, kLegacyL3ReachableBytes);
  t.l3 = legacy_level(l3_reachable, bits(r6.edx, 12, 4), bits(r6.edx, 0, 8), 16, "L3", t);
  if (t.l3.present()) {
    t.l3_package_bytes = l3_package;
    if (l3_reachable < l3_package)
      add_note(t, "L3 " + format_bytes(l3_package) + " is the package total; one core reaches " +
                      format_bytes(l3_reachable));
  }
  return t;
}

}  // namespace invar::arch

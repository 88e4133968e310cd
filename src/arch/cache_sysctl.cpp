// macOS sysctl cache backend. The decoder is a pure function over a SysctlReader so that tests
// replay recorded values anywhere; only the reader that calls sysctlbyname is built on Apple
// systems (in cache_topology.cpp).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "arch/cache_topology.h"

namespace invar::arch {
namespace {

// sysctl reports no associativity; these are assumed (Apple's performance cores have an 8-way
// L1d; a 16-way L2 or L3 is the common case on the Intel and Apple parts macOS runs on).
constexpr int kAssumedL1Ways = 8;
constexpr int kAssumedOuterWays = 16;
constexpr int kAssumedLine = 64;

std::optional<int64_t> first_of(const SysctlReader& sysctl, const char* a, const char* b) {
  if (auto v = sysctl(a); v && *v > 0) return v;
  if (auto v = sysctl(b); v && *v > 0) return v;
  return std::nullopt;
}

}  // namespace

std::optional<CacheTopology> from_sysctl(const SysctlReader& sysctl) {
  const auto l1 = first_of(sysctl, "hw.perflevel0.l1dcachesize", "hw.l1dcachesize");
  const auto l2 = first_of(sysctl, "hw.perflevel0.l2cachesize", "hw.l2cachesize");
  if (!l1 && !l2) return std::nullopt;
  CacheTopology t;
  t.source = "sysctl";
  std::string notes = "sysctl reports no associativity: 8-way L1d, 16-way L2/L3 assumed";
  int line = kAssumedLine;
  if (const auto v = sysctl("hw.cachelinesize"); v && *v > 0 && *v <= 4096) {
    line = static_cast<int>(*v);
  } else {
    notes += "; no hw.cachelinesize, 64-byte lines assumed";
  }

  // Cores behind one L2: logical CPUs sharing it divided by the SMT degree.
  int smt = 1;
  const auto logical = sysctl("hw.perflevel0.logicalcpu");
  const auto physical = sysctl("hw.perflevel0.physicalcpu");
  if (logical && physical && *physical > 0 && *logical >= *physical)
    smt = static_cast<int>(*logical / *physical);
  int l2_sharing = 1;
  if (const auto cpus = sysctl("hw.perflevel0.cpusperl2"); cpus && *cpus > 0)
    l2_sharing = std::max<int>(1, static_cast<int>(*cpus) / smt);

  if (l1) t.l1d = CacheLevel{*l1, kAssumedL1Ways, line, 1};
  if (l2) t.l2 = CacheLevel{*l2, kAssumedOuterWays, line, l2_sharing};
  // Apple Silicon reports no L3 (its system-level cache is not a core's cache); Intel Macs do.
  if (const auto l3 = first_of(sysctl, "hw.perflevel0.l3cachesize", "hw.l3cachesize"))
    t.l3 = CacheLevel{*l3, kAssumedOuterWays, line, 1};
  t.notes = notes;
  return t;
}

}  // namespace invar::arch

// Cache topology detection over recorded inputs: CPUID register values replayed through a
// CpuidReader, fixture sysfs trees, sysctl values. Runs the same on every machine.
#include "arch/cache_topology.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "invar/invar.h"
#include "invar/invar.hpp"

#ifndef INVAR_TEST_FIXTURE_DIR
#error "INVAR_TEST_FIXTURE_DIR must name tests/fixtures (set by tests/CMakeLists.txt)"
#endif

namespace invar::test {
namespace {

using arch::CacheLevel;
using arch::CacheTopology;
using arch::CpuidRegs;
using arch::kKiB;
using arch::kMiB;

// A recorded CPUID: (leaf, subleaf) -> registers; anything not recorded reads as zeros, as a leaf
// above the CPU's maximum does.
struct Recording {
  std::map<std::pair<uint32_t, uint32_t>, CpuidRegs> regs;

  Recording& set(uint32_t leaf, uint32_t subleaf, uint32_t eax, uint32_t ebx, uint32_t ecx,
                 uint32_t edx) {
    regs[{leaf, subleaf}] = CpuidRegs{eax, ebx, ecx, edx};
    return *this;
  }
  arch::CpuidReader reader() const {
    return [this](uint32_t leaf, uint32_t subleaf) {
      const auto it = regs.find({leaf, subleaf});
      return it == regs.end() ? CpuidRegs{} : it->second;
    };
  }
};

constexpr uint32_t kAuthenticAmd[3] = {0x68747541, 0x69746e65, 0x444d4163};  // ebx, edx, ecx
constexpr uint32_t kGenuineIntel[3] = {0x756e6547, 0x49656e69, 0x6c65746e};

// Recorded on a 2-vCPU KVM guest on an AMD EPYC (Zen 3, family 19h).
// 0x8000001D: 32 KiB 8-way L1d, 512 KiB 8-way L2, 32 MiB 16-way L3 shared by 2 threads.
// Legacy: 0x80000005 ECX = 32 KiB 8-way L1d; 0x80000006 ECX = 512 KiB, code 6 (8 ways);
// EDX = 512 x 512 KiB = 256 MiB (the 8-CCD package), code 9 ("see 0x8000001D").
Recording zen3_vm() {
  Recording r;
  r.set(0, 0, 0x00000010, kAuthenticAmd[0], kAuthenticAmd[2], kAuthenticAmd[1])
      .set(0x80000000, 0, 0x80000022, kAuthenticAmd[0], kAuthenticAmd[2], kAuthenticAmd[1])
      .set(0x80000001, 0, 0x00a00f11, 0x40000000, 0x004003f3, 0x2fd3fbff)
      .set(0x80000005, 0, 0xff40ff40, 0xff40ff40, 0x20080140, 0x20080140)
      .set(0x80000006, 0, 0x48002200, 0x68004200, 0x02006140, 0x08009140)
      .set(0x8000001D, 0, 0x00000121, 0x01c0003f, 0x0000003f, 0x00000000)
      .set(0x8000001D, 1, 0x00000122, 0x01c0003f, 0x0000003f, 0x00000000)
      .set(0x8000001D, 2, 0x00000143, 0x01c0003f, 0x000003ff, 0x00000002)
      .set(0x8000001D, 3, 0x00004163, 0x03c0003f, 0x00007fff, 0x00000001);
  return r;
}

// Core i9-7980XE (Skylake-X, 18 cores, 2 threads each), leaf 4 composed from the Intel SDM
// layout (EAX[4:0] type, [7:5] level, [8] self-initializing, [25:14] threads sharing - 1,
// [31:26] cores per package - 1; EBX ways-1 | partitions-1 | line-1; ECX sets - 1; EDX[1]
// inclusive, [2] complex indexing) and Intel's public figures for the part: 32 KiB 8-way L1d and
// L1i, 1 MiB 16-way L2 (1024 sets), 24.75 MiB 11-way non-inclusive L3 (1.375 MiB per core,
// 36864 sets). Threads sharing and cores per package are rounded up to powers of two (2, 64, 32)
// as APIC IDs are.
Recording skylake_x() {
  Recording r;
  r.set(0, 0, 0x00000016, kGenuineIntel[0], kGenuineIntel[2], kGenuineIntel[1])
      .set(0x80000000, 0, 0x80000008, 0, 0, 0)
      .set(4, 0, 0x7c004121, 0x01c0003f, 0x0000003f, 0x00000000)
      .set(4, 1, 0x7c004122, 0x01c0003f, 0x0000003f, 0x00000000)
      .set(4, 2, 0x7c004143, 0x03c0003f, 0x000003ff, 0x00000000)
      .set(4, 3, 0x7c0fc163, 0x0280003f, 0x00008fff, 0x00000004);
  return r;
}

// Ryzen 9 7950X (Zen 4, 2 CCDs of 8 cores, 2 threads each), leaf 0x8000001D composed from the
// AMD APM layout (the same as Intel's leaf 4 above, EAX[25:14] = threads sharing - 1) and AMD's
// published figures: 32 KiB 8-way L1d and L1i, 1 MiB 8-way L2 (2048 sets), 32 MiB 16-way L3 per
// CCD (32768 sets) shared by its 16 threads. The maximum extended leaf only has to reach
// 0x8000001D; TopologyExtensions is 0x80000001 ECX bit 22.
Recording zen4() {
  Recording r;
  r.set(0, 0, 0x00000010, kAuthenticAmd[0], kAuthenticAmd[2], kAuthenticAmd[1])
      .set(0x80000000, 0, 0x80000026, kAuthenticAmd[0], kAuthenticAmd[2], kAuthenticAmd[1])
      .set(0x80000001, 0, 0x00a60f12, 0, 0x00400000, 0)
      .set(0x8000001D, 0, 0x00004121, 0x01c0003f, 0x0000003f, 0x00000000)
      .set(0x8000001D, 1, 0x00004122, 0x01c0003f, 0x0000003f, 0x00000000)
      .set(0x8000001D, 2, 0x00004143, 0x01c0003f, 0x000007ff, 0x00000002)
      .set(0x8000001D, 3, 0x0003c163, 0x03c0003f, 0x00007fff, 0x00000001);
  return r;
}

// The Zen 5 VM: 0x8000001D is advertised but reads all zeros, and sysfs has no cache folder, so
// only the legacy leaves speak. 0x80000005 ECX = 0x300C0140: 48 KiB, 12 ways, 1 line per tag,
// 64-byte lines. 0x80000006 ECX = 0x04006140: 1 MiB, code 6 (8 ways; the part's L2 is 16-way),
// 64-byte lines. EDX = 0x0FE09140: [31:18] = 0x3F8 = 1016 units of 512 KiB = 508 MiB (the package),
// code 9, 64-byte lines.
Recording zen5_vm() {
  Recording r;
  r.set(0, 0, 0x00000010, kAuthenticAmd[0], kAuthenticAmd[2], kAuthenticAmd[1])
      .set(0x80000000, 0, 0x80000021, kAuthenticAmd[0], kAuthenticAmd[2], kAuthenticAmd[1])
      .set(0x80000001, 0, 0x00b00f21, 0, 0x00400000, 0)
      .set(0x80000005, 0, 0xff40ff40, 0xff40ff40, 0x300c0140, 0x20080140)
      .set(0x80000006, 0, 0x48002200, 0x68004200, 0x04006140, 0x0fe09140);
  return r;
}

std::string fixture(const char* name) { return std::string(INVAR_TEST_FIXTURE_DIR) + "/" + name; }

void expect_level(const CacheLevel& c, int64_t bytes, int ways, int line, int sharing,
                  const char* what) {
  EXPECT_EQ(c.bytes, bytes) << what;
  EXPECT_EQ(c.ways, ways) << what;
  EXPECT_EQ(c.line, line) << what;
  EXPECT_EQ(c.sharing, sharing) << what;
}

// ---- CPUID --------------------------------------------------------------------------------------

TEST(CacheCpuid, Zen3VmLeaf8000001D) {
  const Recording rec = zen3_vm();
  const auto t = arch::from_cpuid_amd_8000001d(rec.reader());
  ASSERT_TRUE(t.has_value());
  expect_level(t->l1d, 32 * kKiB, 8, 64, 1, "L1d");
  expect_level(t->l2, 512 * kKiB, 8, 64, 1, "L2");
  expect_level(t->l3, 32 * kMiB, 16, 64, 1, "L3");
  EXPECT_EQ(t->l1d.sets(), 64);
  EXPECT_EQ(t->l2.way_bytes(), 64 * kKiB);
  EXPECT_EQ(t->l3_package_bytes, 0);
  EXPECT_EQ(t->source, "cpuid 0x8000001D");
  EXPECT_TRUE(arch::plausible(*t));
  EXPECT_FALSE(arch::from_cpuid_leaf4(rec.reader()).has_value());  // AMD's leaf 4 is zeros
}

TEST(CacheCpuid, Zen3VmLegacyLeavesSeeThePackageL3) {
  const Recording rec = zen3_vm();
  const auto t = arch::from_cpuid_amd_legacy(rec.reader());
  ASSERT_TRUE(t.has_value());
  expect_level(t->l1d, 32 * kKiB, 8, 64, 1, "L1d");
  expect_level(t->l2, 512 * kKiB, 8, 64, 1, "L2");
  // 256 MiB for the package; one core reaches its CCD's 32 MiB; code 9 carries no ways.
  expect_level(t->l3, 32 * kMiB, 16, 64, 1, "L3");
  EXPECT_EQ(t->l3_package_bytes, 256 * kMiB);
  EXPECT_NE(t->notes.find("16 ways assumed"), std::string::npos) << t->notes;
  EXPECT_EQ(t->source, "cpuid legacy AMD");
  EXPECT_TRUE(arch::plausible(*t));
}

TEST(CacheCpuid, SkylakeXLeaf4) {
  const Recording rec = skylake_x();
  const auto t = arch::from_cpuid_leaf4(rec.reader());
  ASSERT_TRUE(t.has_value());
  expect_level(t->l1d, 32 * kKiB, 8, 64, 1, "L1d");
  expect_level(t->l2, 1 * kMiB, 16, 64, 1, "L2");
  expect_level(t->l3, 25344 * kKiB, 11, 64, 1, "L3");  // 24.75 MiB
  EXPECT_EQ(t->source, "cpuid leaf 4");
  EXPECT_TRUE(arch::plausible(*t));
  // An Intel part has neither AMD leaf.
  EXPECT_FALSE(arch::from_cpuid_amd_8000001d(rec.reader()).has_value());
}

TEST(CacheCpuid, Zen4Leaf8000001D) {
  const Recording rec = zen4();
  const auto t = arch::from_cpuid_amd_8000001d(rec.reader());
  ASSERT_TRUE(t.has_value());
  expect_level(t->l1d, 32 * kKiB, 8, 64, 1, "L1d");
  expect_level(t->l2, 1 * kMiB, 8, 64, 1, "L2");
  expect_level(t->l3, 32 * kMiB, 16, 64, 1, "L3");  // shared by 16 threads, but one B block
  EXPECT_TRUE(arch::plausible(*t));
}

TEST(CacheCpuid, Leaf8000001DNeedsTopologyExtensions) {
  Recording rec = zen4();
  rec.set(0x80000001, 0, 0x00a60f12, 0, 0, 0);
  EXPECT_FALSE(arch::from_cpuid_amd_8000001d(rec.reader()).has_value());
  rec = zen4();
  rec.set(0x80000000, 0, 0x8000001C, 0, 0, 0);
  EXPECT_FALSE(arch::from_cpuid_amd_8000001d(rec.reader()).has_value());
}

TEST(CacheCpuid, Zen5VmZeroedLeafLeavesTheLegacyReport) {
  const Recording rec = zen5_vm();
  EXPECT_FALSE(arch::from_cpuid_amd_8000001d(rec.reader()).has_value());
  const auto t = arch::from_cpuid_amd_legacy(rec.reader());
  ASSERT_TRUE(t.has_value());
  expect_level(t->l1d, 48 * kKiB, 12, 64, 1, "L1d");
  expect_level(t->l2, 1 * kMiB, 8, 64, 1, "L2");  // as reported
  // The rule: 508 MiB is the package; the level one core reaches is capped at 32 MiB.
  expect_level(t->l3, arch::kLegacyL3ReachableBytes, 16, 64, 1, "L3");
  EXPECT_EQ(t->l3_package_bytes, 508 * kMiB);
  EXPECT_NE(t->notes.find("508 MiB is the package total"), std::string::npos) << t->notes;
  EXPECT_TRUE(arch::plausible(*t));
}

TEST(CacheCpuid, LegacyCodesForWaysAndAbsentL3) {
  Recording rec = zen5_vm();
  // L2 code 8 = 16 ways, code 0xF = fully associative; L3 size 0 = no L3.
  rec.set(0x80000006, 0, 0, 0, 0x04008140, 0x00000000);
  auto t = arch::from_cpuid_amd_legacy(rec.reader());
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->l2.ways, 16);
  EXPECT_FALSE(t->l3.present());
  EXPECT_EQ(t->l3_package_bytes, 0);
  rec.set(0x80000006, 0, 0, 0, 0x0400F140, 0x00000000);
  t = arch::from_cpuid_amd_legacy(rec.reader());
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->l2.ways, 1 * kMiB / 64);
  EXPECT_EQ(t->l2.sets(), 1);
  EXPECT_TRUE(arch::plausible(*t));
  // A package L3 no larger than the cap is one die's: kept as reported.
  rec.set(0x80000006, 0, 0, 0, 0x04006140, 0x00808140);  // 32 x 512 KiB = 16 MiB, 16 ways
  t = arch::from_cpuid_amd_legacy(rec.reader());
  ASSERT_TRUE(t.has_value());
  expect_level(t->l3, 16 * kMiB, 16, 64, 1, "L3");
}

TEST(CacheCpuid, MaskedLeavesReportNothing) {
  Recording rec;
  rec.set(0, 0, 0x10, kAuthenticAmd[0], kAuthenticAmd[2], kAuthenticAmd[1]);
  EXPECT_FALSE(arch::from_cpuid_leaf4(rec.reader()).has_value());
  EXPECT_FALSE(arch::from_cpuid_amd_8000001d(rec.reader()).has_value());
  EXPECT_FALSE(arch::from_cpuid_amd_legacy(rec.reader()).has_value());
}

// ---- sysfs ------------------------------------------------------------------------------------

TEST(CacheSysfs, Zen3VmFixture) {
  const auto t = arch::from_sysfs(fixture("sysfs_zen3_vm"));
  ASSERT_TRUE(t.has_value()) << fixture("sysfs_zen3_vm");
  expect_level(t->l1d, 32 * kKiB, 8, 64, 1, "L1d");
  expect_level(t->l2, 512 * kKiB, 8, 64, 1, "L2");
  expect_level(t->l3, 32 * kMiB, 16, 64, 1, "L3");
  EXPECT_EQ(t->source, "sysfs");
  EXPECT_TRUE(arch::plausible(*t));
}

TEST(CacheSysfs, SmtSiblingsDoNotCountAsL2Workers) {
  const auto t = arch::from_sysfs(fixture("sysfs_skx_smt2"));
  ASSERT_TRUE(t.has_value());
  expect_level(t->l2, 1 * kMiB, 16, 64, 1, "L2");  // "0,36" over 2 threads per core
  expect_level(t->l3, 25344 * kKiB, 11, 64, 1, "L3");
}

TEST(CacheSysfs, ClusterSharedL2CountsCores) {
  const auto t = arch::from_sysfs(fixture("sysfs_knl_smt4"));
  ASSERT_TRUE(t.has_value());
  expect_level(t->l1d, 32 * kKiB, 8, 64, 1, "L1d");
  expect_level(t->l2, 1 * kMiB, 16, 64, 2, "L2");  // 8 CPUs over 4 threads per core
  EXPECT_FALSE(t->l3.present());
  EXPECT_TRUE(arch::plausible(*t));
}

TEST(CacheSysfs, MissingOrHalfPopulatedTrees) {
  EXPECT_FALSE(arch::from_sysfs(fixture("sysfs_no_cache")).has_value());
  EXPECT_FALSE(arch::from_sysfs(fixture("does_not_exist")).has_value());
  const auto t = arch::from_sysfs(fixture("sysfs_half_populated"));
  ASSERT_TRUE(t.has_value());  // read, but unusable
  std::string why;
  EXPECT_FALSE(arch::plausible(*t, &why));
  EXPECT_NE(why.find("zero ways"), std::string::npos) << why;
}

// ---- sysctl ---------------------------------------------------------------------------------

TEST(CacheSysctl, AppleSiliconPerformanceCores) {
  // An M2-class Mac: performance cores with a 128 KiB L1d, a 16 MiB L2 per cluster of 4, 128-byte
  // lines, no L3 reported; the plain hw.* names describe the efficiency cores and lose.
  const std::map<std::string, int64_t> values = {
      {"hw.perflevel0.l1dcachesize", 131072}, {"hw.perflevel0.l2cachesize", 16 * kMiB},
      {"hw.perflevel0.cpusperl2", 4},         {"hw.perflevel0.logicalcpu", 4},
      {"hw.perflevel0.physicalcpu", 4},       {"hw.l1dcachesize", 65536},
      {"hw.l2cachesize", 4 * kMiB},           {"hw.cachelinesize", 128}};
  const auto t = arch::from_sysctl([&](const std::string& name) -> std::optional<int64_t> {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  });
  ASSERT_TRUE(t.has_value());
  expect_level(t->l1d, 128 * kKiB, 8, 128, 1, "L1d");
  expect_level(t->l2, 16 * kMiB, 16, 128, 4, "L2");
  EXPECT_FALSE(t->l3.present());
  EXPECT_EQ(t->source, "sysctl");
  EXPECT_NE(t->notes.find("assumed"), std::string::npos);
  EXPECT_TRUE(arch::plausible(*t));
}

TEST(CacheSysctl, IntelMacWithoutPerfLevels) {
  const std::map<std::string, int64_t> values = {{"hw.l1dcachesize", 32768},
                                                 {"hw.l2cachesize", 262144},
                                                 {"hw.l3cachesize", 8 * kMiB},
                                                 {"hw.cachelinesize", 64}};
  const auto t = arch::from_sysctl([&](const std::string& name) -> std::optional<int64_t> {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  });
  ASSERT_TRUE(t.has_value());
  expect_level(t->l1d, 32 * kKiB, 8, 64, 1, "L1d");
  expect_level(t->l2, 256 * kKiB, 16, 64, 1, "L2");
  expect_level(t->l3, 8 * kMiB, 16, 64, 1, "L3");
  EXPECT_FALSE(
      arch::from_sysctl([](const std::string&) { return std::optional<int64_t>(); }).has_value());
}

// ---- the chain ------------------------------------------------------------------------------

TEST(CacheChain, Zen3VmUsesTheExactLeaf) {
  const Recording rec = zen3_vm();
  arch::CacheSources sources;
  sources.cpuid = rec.reader();
  sources.sysfs_root = fixture("sysfs_zen3_vm");
  const CacheTopology t = arch::detect_cache_topology(sources);
  EXPECT_EQ(t.source, "cpuid 0x8000001D");
  EXPECT_EQ(t.l3.bytes, 32 * kMiB);
  EXPECT_EQ(t.notes, "");
}

TEST(CacheChain, Zen5VmFallsThroughToTheLegacyLeaves) {
  const Recording rec = zen5_vm();
  arch::CacheSources sources;
  sources.cpuid = rec.reader();
  sources.sysfs_root = fixture("sysfs_no_cache");
  const CacheTopology t = arch::detect_cache_topology(sources);
  EXPECT_EQ(t.source, "cpuid legacy AMD");
  EXPECT_EQ(t.l1d.bytes, 48 * kKiB);
  EXPECT_EQ(t.l3.bytes, 32 * kMiB);
  EXPECT_EQ(t.l3_package_bytes, 508 * kMiB);
  EXPECT_NE(t.notes.find("cpuid 0x8000001D reported nothing"), std::string::npos) << t.notes;
  EXPECT_NE(t.notes.find("sysfs reported nothing"), std::string::npos) << t.notes;
}

TEST(CacheChain, SysfsComesBeforeTheLegacyLeaves) {
  const Recording rec = zen5_vm();
  arch::CacheSources sources;
  sources.cpuid = rec.reader();
  sources.sysfs_root = fixture("sysfs_zen3_vm");
  EXPECT_EQ(arch::detect_cache_topology(sources).source, "sysfs");
}

TEST(CacheChain, IntelUsesLeaf4AndNeverTheAmdLeaves) {
  const Recording rec = skylake_x();
  arch::CacheSources sources;
  sources.cpuid = rec.reader();
  EXPECT_EQ(arch::detect_cache_topology(sources).source, "cpuid leaf 4");
}

TEST(CacheChain, ImplausibleAnswersFallThroughToTheFallback) {
  Recording rec = zen3_vm();
  // A hypervisor that zeroes the L2 subleaf's ways and sets: L2 reads as 64 bytes.
  rec.set(0x8000001D, 2, 0x00000143, 0x0000003f, 0, 0);
  rec.set(0x80000006, 0, 0, 0, 0, 0);
  rec.set(0x80000005, 0, 0, 0, 0, 0);
  arch::CacheSources sources;
  sources.cpuid = rec.reader();
  sources.sysfs_root = fixture("sysfs_half_populated");
  const CacheTopology t = arch::detect_cache_topology(sources);
  EXPECT_EQ(t.source, "fallback");
  EXPECT_NE(t.notes.find("cpuid 0x8000001D rejected: L2 is 64 B, under 4 KiB"), std::string::npos)
      << t.notes;
  EXPECT_NE(t.notes.find("sysfs rejected"), std::string::npos) << t.notes;
  EXPECT_TRUE(arch::plausible(t));
  EXPECT_TRUE(arch::plausible(arch::detect_cache_topology(arch::CacheSources{})));
}

TEST(CacheChain, ThisProcessDetectsSomethingPlausible) {
  const CacheTopology& t = arch::detected_cache_topology();
  EXPECT_TRUE(arch::plausible(t)) << t.source;
  EXPECT_EQ(&t, &arch::detected_cache_topology());  // memoized
}

// ---- plausibility ---------------------------------------------------------------------------

TEST(CachePlausible, RejectsHalfPopulatedReads) {
  const CacheTopology good = arch::fallback_topology();
  EXPECT_TRUE(arch::plausible(good));
  auto rejects = [&](auto&& edit, const char* expected) {
    CacheTopology t = good;
    edit(t);
    std::string why;
    EXPECT_FALSE(arch::plausible(t, &why)) << expected;
    EXPECT_NE(why.find(expected), std::string::npos) << why;
  };
  rejects([](CacheTopology& t) { t.l1d = CacheLevel{}; }, "no L1d");
  rejects([](CacheTopology& t) { t.l2 = CacheLevel{}; }, "no L2");
  rejects([](CacheTopology& t) { t.l1d.bytes = 2 * kKiB; }, "under 4 KiB");
  rejects([](CacheTopology& t) { t.l3.bytes = 1024; }, "L3 is 1 KiB, under 4 KiB");
  rejects([](CacheTopology& t) { t.l2.line = 8; }, "outside 16..1024");
  rejects([](CacheTopology& t) { t.l1d.ways = 0; }, "zero ways");
  rejects([](CacheTopology& t) { t.l3.ways = 0; }, "L3 has zero ways");
  rejects([](CacheTopology& t) { t.l1d.ways = 1024; }, "more than its");
  rejects([](CacheTopology& t) { t.l2.bytes = 16 * kKiB; }, "smaller than L1d");
  CacheTopology no_l3 = good;
  no_l3.l3 = CacheLevel{};
  EXPECT_TRUE(arch::plausible(no_l3));
}

// ---- overrides ------------------------------------------------------------------------------

TEST(CacheOverride, ParsesSizesAndWays) {
  std::string error;
  auto p = [&](const char* v) { return arch::parse_cache_override("INVAR_L2", v, &error); };
  ASSERT_TRUE(p("48K"));
  EXPECT_EQ(p("48K")->bytes, 48 * kKiB);
  EXPECT_EQ(p("48K")->ways, 0);
  EXPECT_EQ(p("1M:16")->bytes, kMiB);
  EXPECT_EQ(p("1M:16")->ways, 16);
  EXPECT_EQ(p("32m")->bytes, 32 * kMiB);
  EXPECT_EQ(p("1536k:12")->bytes, 1536 * kKiB);
  EXPECT_EQ(p("262144")->bytes, 262144);
  EXPECT_EQ(p("2G")->bytes, 2048 * kMiB);
  EXPECT_EQ(p("0")->bytes, 0);
}

TEST(CacheOverride, RejectsWhatDoesNotParse) {
  for (const char* bad :
       {"", "abc", "1.5M", "1M:", ":16", "1M:0", "1M:x", "-1M", "1MB", "1 M", " 1M", "1M:16:64",
        "1K:2000", "100G", "0:8", "M", "1M:-2", "99999999999999K"}) {
    std::string error;
    EXPECT_FALSE(arch::parse_cache_override("INVAR_L3", bad, &error).has_value()) << bad;
    EXPECT_NE(error.find("INVAR_L3=\"" + std::string(bad) + "\""), std::string::npos) << error;
    EXPECT_NE(error.find("SIZE[:WAYS]"), std::string::npos) << error;
  }
}

TEST(CacheOverride, AppliesAndNamesTheSource) {
  const CacheTopology zen5 = *arch::from_cpuid_amd_legacy(zen5_vm().reader());
  std::string error;
  arch::CacheOverrideText text;
  text.l2 = "1M:16";
  auto t = arch::apply_cache_overrides(zen5, text, &error);
  ASSERT_TRUE(t.has_value()) << error;
  expect_level(t->l2, kMiB, 16, 64, 1, "L2");
  EXPECT_EQ(t->source, "cpuid legacy AMD + INVAR_L2 override");
  EXPECT_EQ(t->l3_package_bytes, 508 * kMiB);  // L3 untouched

  text.l1d = "32K";  // keeps the detected 12 ways
  text.l3 = "96M";
  t = arch::apply_cache_overrides(zen5, text, &error);
  ASSERT_TRUE(t.has_value()) << error;
  expect_level(t->l1d, 32 * kKiB, 12, 64, 1, "L1d");
  expect_level(t->l3, 96 * kMiB, 16, 64, 1, "L3");
  EXPECT_EQ(t->l3_package_bytes, 0);
  EXPECT_EQ(t->source, "cpuid legacy AMD + INVAR_L1D, INVAR_L2, INVAR_L3 overrides");

  arch::CacheOverrideText none;
  none.l3 = "0";
  t = arch::apply_cache_overrides(zen5, none, &error);
  ASSERT_TRUE(t.has_value()) << error;
  EXPECT_FALSE(t->l3.present());

  // A level the source did not have gets default ways and the L1d's line.
  CacheTopology no_l3 = zen5;
  no_l3.l3 = CacheLevel{};
  arch::CacheOverrideText add;
  add.l3 = "8M";
  t = arch::apply_cache_overrides(no_l3, add, &error);
  ASSERT_TRUE(t.has_value()) << error;
  expect_level(t->l3, 8 * kMiB, 16, 64, 1, "L3");
}

TEST(CacheOverride, BadOrImplausibleValuesAreErrors) {
  const CacheTopology base = arch::fallback_topology();
  auto error_for = [&](const char* l1d, const char* l2, const char* l3) {
    arch::CacheOverrideText text;
    if (l1d) text.l1d = l1d;
    if (l2) text.l2 = l2;
    if (l3) text.l3 = l3;
    std::string error;
    const auto t = arch::apply_cache_overrides(base, text, &error);
    EXPECT_FALSE(t.has_value());
    return error;
  };
  EXPECT_NE(error_for(nullptr, "1Q", nullptr).find("INVAR_L2=\"1Q\" is not a cache size"),
            std::string::npos);
  EXPECT_NE(error_for("0", nullptr, nullptr).find("only INVAR_L3 may be 0"), std::string::npos);
  EXPECT_NE(error_for("1K", nullptr, nullptr)
                .find("INVAR_L1D=1K: the resulting cache topology "
                      "is implausible: L1d is 1 KiB, under 4 KiB"),
            std::string::npos);
  EXPECT_NE(error_for(nullptr, "16K", nullptr).find("smaller than L1d"), std::string::npos);
  EXPECT_NE(error_for("32K:1024", nullptr, nullptr).find("more than its"), std::string::npos);
}

// Runs in the child of the death test below: a bad INVAR_L2 fails both APIs, C untouched.
int call_with_bad_l2() {
  setenv("INVAR_L2", "12Q", 1);
  float a = 1.0f;
  float b = 2.0f;
  float c = 7.0f;
  const invar_status s =
      invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1);
  const std::string message = invar_last_error();
  bool threw = false;
  try {
    gemm(1.0f, Op::kNoTrans, MatrixView<const float>(&a, 1, 1), Op::kNoTrans,
         MatrixView<const float>(&b, 1, 1), 0.0f, MatrixView<float>(&c, 1, 1));
  } catch (const InvalidArgument& e) {
    threw = std::string(e.what()).find("INVAR_L2=\"12Q\"") != std::string::npos;
  }
  return s == INVAR_EINVAL && threw && c == 7.0f &&
                 message.find("INVAR_L2=\"12Q\" is not a cache size") != std::string::npos
             ? 0
             : 1;
}

// The environment is read once per process, on the first product: the check runs in a forked
// child, and GoogleTest runs death tests before all others, so no product has run yet.
TEST(CacheOverrideDeathTest, BadEnvironmentValueFailsTheCall) {
  EXPECT_EXIT(std::exit(call_with_bad_l2()), ::testing::ExitedWithCode(0), "");
}

TEST(CacheFormat, Bytes) {
  EXPECT_EQ(arch::format_bytes(48 * kKiB), "48 KiB");
  EXPECT_EQ(arch::format_bytes(508 * kMiB), "508 MiB");
  EXPECT_EQ(arch::format_bytes(25344 * kKiB), "24.75 MiB");
  EXPECT_EQ(arch::format_bytes(1536 * kKiB), "1.5 MiB");
  EXPECT_EQ(arch::format_bytes(2048 * kMiB), "2 GiB");
  EXPECT_EQ(arch::format_bytes(100), "100 B");
}

}  // namespace
}  // namespace invar::test

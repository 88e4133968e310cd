// The detection chain, the plausibility guard, the fallback and the INVAR_L1D / INVAR_L2 /
// INVAR_L3 overrides. The backends' decoders are in cache_cpuid.cpp, cache_sysfs.cpp and
// cache_sysctl.cpp; the host readers they are given are here.
#include "arch/cache_topology.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

#include "arch/cpu_features.h"

namespace invar::arch {
namespace {

constexpr int64_t kMinLevelBytes = 4 * kKiB;
constexpr int64_t kMaxLevelBytes = int64_t{64} * 1024 * kMiB;
constexpr int kMinLine = 16;
constexpr int kMaxLine = 1024;
constexpr int kMaxOverrideWays = 1024;

bool check_level(const CacheLevel& c, const char* name, std::string* why) {
  auto fail = [&](const std::string& text) {
    if (why) *why = std::string(name) + " " + text;
    return false;
  };
  if (c.bytes < kMinLevelBytes) return fail("is " + format_bytes(c.bytes) + ", under 4 KiB");
  if (c.bytes > kMaxLevelBytes) return fail("is " + format_bytes(c.bytes) + ", over 64 GiB");
  if (c.line < kMinLine || c.line > kMaxLine)
    return fail("line is " + std::to_string(c.line) + " bytes, outside 16..1024");
  if (c.ways < 1) return fail("has zero ways");
  if (int64_t{c.ways} * c.line > c.bytes)
    return fail("has " + std::to_string(c.ways) + " ways of " + std::to_string(c.line) +
                "-byte lines, more than its " + format_bytes(c.bytes));
  if (c.sharing < 1) return fail("sharing count is " + std::to_string(c.sharing));
  return true;
}

#if defined(__x86_64__) || defined(__i386__)

CpuidRegs host_cpuid(uint32_t leaf, uint32_t subleaf) {
  CpuidRegs r;
  // Returns 0 (and leaves r zero) when the leaf is above the maximum of its range.
  if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) return CpuidRegs{};
  return r;
}

#endif

#if defined(__APPLE__)

std::optional<int64_t> host_sysctl(const std::string& name) {
  int64_t v64 = 0;
  std::size_t size = sizeof v64;
  if (sysctlbyname(name.c_str(), &v64, &size, nullptr, 0) != 0) return std::nullopt;
  if (size == sizeof v64) return v64;
  if (size == sizeof(int32_t)) {
    int32_t v32 = 0;
    std::memcpy(&v32, &v64, sizeof v32);
    return v32;
  }
  return std::nullopt;
}

#endif

void append(std::string& notes, const std::string& note) {
  if (note.empty()) return;
  if (!notes.empty()) notes += "; ";
  notes += note;
}

std::string vendor_of(const CpuidReader& cpuid) {
  const CpuidRegs r = cpuid(0, 0);
  char vendor[13] = {};
  std::memcpy(vendor + 0, &r.ebx, 4);
  std::memcpy(vendor + 4, &r.edx, 4);
  std::memcpy(vendor + 8, &r.ecx, 4);
  return vendor;
}

std::optional<std::string> env_value(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

}  // namespace

CacheTopology fallback_topology() {
  CacheTopology t;
  t.l1d = CacheLevel{32 * kKiB, 8, 64, 1};
  t.l2 = CacheLevel{512 * kKiB, 8, 64, 1};
  t.l3 = CacheLevel{8 * kMiB, 16, 64, 1};
  t.source = "fallback";
  return t;
}

bool plausible(const CacheTopology& t, std::string* why) {
  std::string local;
  std::string* w = why ? why : &local;
  if (!t.l1d.present()) return *w = "no L1d", false;
  if (!check_level(t.l1d, "L1d", w)) return false;
  if (!t.l2.present()) return *w = "no L2", false;
  if (!check_level(t.l2, "L2", w)) return false;
  if (t.l3.present() && !check_level(t.l3, "L3", w)) return false;
  if (t.l2.bytes < t.l1d.bytes) {
    *w = "L2 (" + format_bytes(t.l2.bytes) + ") is smaller than L1d (" + format_bytes(t.l1d.bytes) +
         ")";
    return false;
  }
  return true;
}

CacheTopology detect_cache_topology(const CacheSources& sources) {
  std::string passed_over;  // backends that answered nothing or something implausible
  std::optional<CacheTopology> found;
  auto consider = [&](const char* name, auto&& backend) {
    if (found) return;
    std::optional<CacheTopology> t = backend();
    if (!t) {
      append(passed_over, std::string(name) + " reported nothing");
      return;
    }
    std::string why;
    if (plausible(*t, &why)) {
      found = std::move(t);
    } else {
      append(passed_over, std::string(name) + " rejected: " + why);
    }
  };

  bool amd = false;
  if (sources.cpuid) {
    const std::string vendor = vendor_of(sources.cpuid);
    amd = amd_or_hygon(vendor);
    if (amd) {
      consider("cpuid 0x8000001D", [&] { return from_cpuid_amd_8000001d(sources.cpuid); });
    } else {
      consider("cpuid leaf 4", [&] { return from_cpuid_leaf4(sources.cpuid); });
    }
  }
  if (!sources.sysfs_root.empty())
    consider("sysfs", [&] { return from_sysfs(sources.sysfs_root); });
  if (amd) consider("cpuid legacy AMD", [&] { return from_cpuid_amd_legacy(sources.cpuid); });
  if (sources.sysctl) consider("sysctl", [&] { return from_sysctl(sources.sysctl); });

  CacheTopology t = found ? std::move(*found) : fallback_topology();
  const std::string backend_notes = t.notes;
  t.notes.clear();
  append(t.notes, passed_over);
  append(t.notes, backend_notes);
  return t;
}

const CacheTopology& detected_cache_topology() {
  static const CacheTopology topology = [] {
    CacheSources sources;
#if defined(__x86_64__) || defined(__i386__)
    sources.cpuid = host_cpuid;
#endif
#if defined(__linux__)
    sources.sysfs_root = "/sys/devices/system/cpu";
#endif
#if defined(__APPLE__)
    sources.sysctl = host_sysctl;
#endif
    return detect_cache_topology(sources);
  }();
  return topology;
}

std::optional<CacheOverride> parse_cache_override(const char* name, std::string_view value,
                                                  std::string* error) {
  auto fail = [&]() -> std::optional<CacheOverride> {
    *error = std::string(name) + "=\"" + std::string(value) +
             "\" is not a cache size: expected SIZE[:WAYS] with SIZE in bytes or with a K, M or "
             "G suffix up to 64G (48K, 1M, 32M) and WAYS from 1 to " +
             std::to_string(kMaxOverrideWays) + " (1M:16)";
    return std::nullopt;
  };
  auto digits = [](std::string_view s, std::size_t max_digits, int64_t* out) {
    if (s.empty() || s.size() > max_digits) return false;
    int64_t x = 0;
    for (char ch : s) {
      if (ch < '0' || ch > '9') return false;
      x = x * 10 + (ch - '0');
    }
    *out = x;
    return true;
  };

  const std::size_t colon = value.find(':');
  std::string_view size = value.substr(0, colon);
  CacheOverride o;
  int64_t unit = 1;
  if (!size.empty()) {
    switch (size.back()) {
      case 'k':
      case 'K': unit = kKiB; break;
      case 'm':
      case 'M': unit = kMiB; break;
      case 'g':
      case 'G': unit = 1024 * kMiB; break;
      default: break;
    }
    if (unit != 1) size.remove_suffix(1);
  }
  int64_t count = 0;
  if (!digits(size, 12, &count)) return fail();
  if (count > kMaxLevelBytes / unit) return fail();
  o.bytes = count * unit;
  if (colon != std::string_view::npos) {
    int64_t ways = 0;
    if (!digits(value.substr(colon + 1), 4, &ways)) return fail();
    if (ways < 1 || ways > kMaxOverrideWays || o.bytes == 0) return fail();
    o.ways = static_cast<int>(ways);
  }
  return o;
}

std::optional<CacheTopology> apply_cache_overrides(const CacheTopology& base,
                                                   const CacheOverrideText& text,
                                                   std::string* error) {
  CacheTopology t = base;
  struct Item {
    const char* name;
    const std::optional<std::string>& value;
    CacheLevel& level;
    int default_ways;
    bool is_l3;
  };
  const Item items[] = {{"INVAR_L1D", text.l1d, t.l1d, 8, false},
                        {"INVAR_L2", text.l2, t.l2, 8, false},
                        {"INVAR_L3", text.l3, t.l3, 16, true}};
  std::vector<std::string> applied;
  std::string settings;  // "INVAR_L2=1M INVAR_L3=0", for the implausibility message
  for (const Item& item : items) {
    if (!item.value) continue;
    const auto o = parse_cache_override(item.name, *item.value, error);
    if (!o) return std::nullopt;
    if (o->bytes == 0) {
      if (!item.is_l3) {
        *error = std::string(item.name) + "=\"" + *item.value +
                 "\": only INVAR_L3 may be 0 (no L3); L1d and L2 need a size";
        return std::nullopt;
      }
      item.level = CacheLevel{};
    } else {
      CacheLevel& c = item.level;
      c.line = c.line > 0 ? c.line : (t.l1d.line > 0 ? t.l1d.line : 64);
      c.ways = o->ways > 0 ? o->ways : (c.ways > 0 ? c.ways : item.default_ways);
      c.bytes = o->bytes;
      c.sharing = c.sharing > 0 ? c.sharing : 1;
    }
    if (item.is_l3) t.l3_package_bytes = 0;
    applied.push_back(item.name);
    if (!settings.empty()) settings += " ";
    settings += std::string(item.name) + "=" + *item.value;
  }
  if (applied.empty()) return t;
  std::string why;
  if (!plausible(t, &why)) {
    *error = settings + ": the resulting cache topology is implausible: " + why;
    return std::nullopt;
  }
  std::string names;
  for (const std::string& n : applied) names += (names.empty() ? "" : ", ") + n;
  t.source += " + " + names + (applied.size() == 1 ? " override" : " overrides");
  return t;
}

const EffectiveCacheTopology& cache_topology() {
  static const EffectiveCacheTopology effective = [] {
    EffectiveCacheTopology e;
    e.topology = detected_cache_topology();
    const CacheOverrideText text{env_value("INVAR_L1D"), env_value("INVAR_L2"),
                                 env_value("INVAR_L3")};
    if (!text.l1d && !text.l2 && !text.l3) return e;
    if (auto t = apply_cache_overrides(e.topology, text, &e.error)) e.topology = std::move(*t);
    return e;
  }();
  return effective;
}

std::string format_bytes(int64_t bytes) {
  char buf[48];
  const int64_t gib = 1024 * kMiB;
  if (bytes >= gib && bytes % gib == 0) {
    std::snprintf(buf, sizeof buf, "%lld GiB", static_cast<long long>(bytes / gib));
  } else if (bytes >= kMiB && bytes % kMiB == 0) {
    std::snprintf(buf, sizeof buf, "%lld MiB", static_cast<long long>(bytes / kMiB));
  } else if (bytes >= kMiB) {
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / kMiB);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s + " MiB";
  } else if (bytes >= kKiB && bytes % kKiB == 0) {
    std::snprintf(buf, sizeof buf, "%lld KiB", static_cast<long long>(bytes / kKiB));
  } else {
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  }
  return buf;
}

}  // namespace invar::arch

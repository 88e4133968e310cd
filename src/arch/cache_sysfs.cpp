// Linux sysfs cache backend: <cpu_root>/cpu0/cache/index*/ as the kernel's cacheinfo exports it
// (Documentation/ABI/testing/sysfs-devices-system-cpu). Reads plain files, so it builds on every
// system and the tests replay fixture trees.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>

#include "arch/cache_topology.h"
#include "arch/cpu_count.h"

namespace invar::arch {
namespace {

std::optional<std::string> read_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// A non-negative decimal with an optional K / M / G suffix ("32K", "32768K", "64"); -1 if not.
int64_t parse_amount(const std::string& s) {
  if (s.empty()) return -1;
  int64_t x = 0;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (i >= 15) return -1;
    x = x * 10 + (s[i] - '0');
  }
  if (i == 0) return -1;
  if (i == s.size()) return x;
  if (i + 1 != s.size()) return -1;
  switch (s[i]) {
    case 'K': return x * kKiB;
    case 'M': return x * kMiB;
    case 'G': return x * 1024 * kMiB;
    default: return -1;
  }
}

// Number of CPUs in a list such as "0-3,8-11" or "0,64"; 0 when it does not parse.
int count_cpu_list(const std::string& s) {
  const auto cpus = parse_cpu_list(s);
  return cpus ? static_cast<int>(cpus->size()) : 0;
}

int read_int(const std::filesystem::path& file) {
  const auto s = read_line(file);
  if (!s) return 0;
  const int64_t v = parse_amount(*s);
  return v > 0 && v < (int64_t{1} << 30) ? static_cast<int>(v) : 0;
}

}  // namespace

std::optional<CacheTopology> from_sysfs(const std::string& cpu_root) {
  namespace fs = std::filesystem;
  const fs::path cpu0 = fs::path(cpu_root) / "cpu0";
  const fs::path cache_dir = cpu0 / "cache";
  std::error_code ec;
  if (!fs::is_directory(cache_dir, ec)) return std::nullopt;

  int smt = 1;
  if (const auto siblings = read_line(cpu0 / "topology" / "thread_siblings_list")) {
    const int n = count_cpu_list(*siblings);
    if (n > 0) smt = n;
  }

  CacheTopology t;
  t.source = "sysfs";
  bool any = false;
  for (int index = 0; index < 32; ++index) {
    const fs::path dir = cache_dir / ("index" + std::to_string(index));
    if (!fs::is_directory(dir, ec)) continue;
    const auto type = read_line(dir / "type");
    if (!type || *type == "Instruction") continue;
    if (*type != "Data" && *type != "Unified") continue;
    const int level = read_int(dir / "level");
    CacheLevel c;
    const auto size = read_line(dir / "size");
    c.bytes = size ? std::max<int64_t>(0, parse_amount(*size)) : 0;
    c.ways = read_int(dir / "ways_of_associativity");
    c.line = read_int(dir / "coherency_line_size");
    c.sharing = 1;
    if (level == 2) {
      const auto shared = read_line(dir / "shared_cpu_list");
      const int cpus = shared ? count_cpu_list(*shared) : 0;
      c.sharing = std::max(1, cpus / smt);
    }
    any = true;
    if (level == 1 && !t.l1d.present()) t.l1d = c;
    if (level == 2 && !t.l2.present()) t.l2 = c;
    if (level == 3 && !t.l3.present()) t.l3 = c;
  }
  if (!any) return std::nullopt;
  return t;
}

}  // namespace invar::arch

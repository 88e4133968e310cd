#include "arch/cpu_count.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <unordered_set>

#if defined(__linux__)
#include <sched.h>

#include <cerrno>
#endif

namespace invar::arch {
namespace {

constexpr int kMaxCpuId = 1 << 20;   // bounds what a malformed list can make us allocate
constexpr int kMaxCgroupDepth = 64;  // levels walked from a cgroup up to its mount's root
constexpr std::size_t kMaxFileBytes = 1 << 20;

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

template <class Int>
std::optional<Int> parse_int(std::string_view s) {
  Int value{};
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Splits on `sep`, keeping empty pieces.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

// Splits on runs of blanks, dropping empty pieces.
std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool contains(const std::vector<std::string_view>& items, std::string_view item) {
  for (std::string_view x : items)
    if (x == item) return true;
  return false;
}

// ceil(quota / period) as a CPU count, for positive quota and period.
std::optional<int> cpus_for_quota(int64_t quota, int64_t period) {
  if (quota <= 0 || period <= 0) return std::nullopt;
  const int64_t cpus = quota / period + (quota % period != 0 ? 1 : 0);
  return cpus > kMaxCpuId ? kMaxCpuId : static_cast<int>(cpus);
}

// The `path` field of /proc/self/cgroup lines whose controller field satisfies `match`.
template <class Match>
std::optional<std::string> cgroup_line_path(std::string_view content, Match match) {
  for (std::string_view line : split(content, '\n')) {
    const std::size_t first = line.find(':');
    if (first == std::string_view::npos) continue;
    const std::size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string_view path = trim(line.substr(second + 1));
    if (!path.empty() && path.front() == '/' && match(id, controllers)) return std::string(path);
  }
  return std::nullopt;
}

// Undoes mountinfo's octal escapes (\040 for a space, \134 for a backslash, ...).
std::string unescape_mountinfo(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string_view digits = s.substr(i + 1, 3);
      bool octal = true;
      int value = 0;
      for (char c : digits) {
        octal = octal && c >= '0' && c <= '7';
        value = value * 8 + (c - '0');
      }
      if (octal) {
        out.push_back(static_cast<char>(value));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// Where the process's cgroup `path` appears below a mount whose root is `root`: "" for the
// mount point itself. A cgroup outside the mount's root (a cgroup namespace shows "/.." paths)
// falls back to the mount point, the nearest level that is visible.
std::string path_below_root(const std::optional<std::string>& path, const std::string& root) {
  if (!path || path->find("/..") != std::string::npos) return "";
  if (root == "/") return *path == "/" ? "" : *path;
  if (*path == root) return "";
  if (path->size() > root.size() && path->compare(0, root.size(), root) == 0 &&
      (*path)[root.size()] == '/')
    return path->substr(root.size());
  return "";
}

std::optional<std::string> read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return std::nullopt;
  std::string content;
  char buffer[4096];
  std::size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0 && content.size() < kMaxFileBytes)
    content.append(buffer, got);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return std::nullopt;
  return content;
}

}  // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  std::vector<int> cpus;
  for (std::string_view item : split(text, ',')) {
    const std::size_t dash = item.find('-');
    const auto first = parse_int<int>(item.substr(0, dash));
    const auto last =
        dash == std::string_view::npos ? first : parse_int<int>(item.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last >= kMaxCpuId) return std::nullopt;
    if (cpus.size() + static_cast<std::size_t>(*last - *first) >=
        static_cast<std::size_t>(kMaxCpuId))
      return std::nullopt;
    for (int cpu = *first; cpu <= *last; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

std::optional<int> parse_cgroup2_cpu_max(std::string_view text) {
  const auto parts = fields(trim(text));
  if (parts.empty() || parts.size() > 2 || parts[0] == "max") return std::nullopt;
  const auto quota = parse_int<int64_t>(parts[0]);
  const auto period =
      parts.size() == 2 ? parse_int<int64_t>(parts[1]) : std::optional<int64_t>(100000);
  if (!quota || !period) return std::nullopt;
  return cpus_for_quota(*quota, *period);
}

std::optional<int> parse_cgroup1_cfs(std::string_view quota_us, std::string_view period_us) {
  const auto quota = parse_int<int64_t>(trim(quota_us));
  const auto period = parse_int<int64_t>(trim(period_us));
  if (!quota || !period) return std::nullopt;
  return cpus_for_quota(*quota, *period);  // −1: no limit
}

std::optional<std::string> cgroup2_path(std::string_view proc_self_cgroup) {
  return cgroup_line_path(proc_self_cgroup, [](std::string_view id, std::string_view controllers) {
    return id == "0" && controllers.empty();
  });
}

std::optional<std::string> cgroup1_cpu_path(std::string_view proc_self_cgroup) {
  return cgroup_line_path(proc_self_cgroup, [](std::string_view id, std::string_view controllers) {
    return id != "0" && contains(split(controllers, ','), "cpu");
  });
}

std::vector<CgroupMount> parse_cgroup_mounts(std::string_view mountinfo) {
  // "36 25 0:32 /root /mount/point rw,nosuid - cgroup cgroup rw,cpu,cpuacct": six fields,
  // optional fields, "-", file system type, source, super options.
  std::vector<CgroupMount> mounts;
  for (std::string_view line : split(mountinfo, '\n')) {
    const auto f = fields(line);
    std::size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 1 >= f.size()) continue;
    const std::string_view type = f[dash + 1];
    CgroupMount mount;
    if (type == "cgroup2") {
      mount.version = 2;
    } else if (type == "cgroup" && dash + 3 < f.size() &&
               contains(split(f[dash + 3], ','), "cpu")) {
      mount.version = 1;
    } else {
      continue;
    }
    mount.root = unescape_mountinfo(f[3]);
    mount.mount_point = unescape_mountinfo(f[4]);
    mounts.push_back(std::move(mount));
  }
  return mounts;
}

std::optional<int> cgroup_cpu_limit(const FileReader& read) {
  const auto self = read("/proc/self/cgroup");
  const auto mountinfo = read("/proc/self/mountinfo");
  std::vector<CgroupMount> mounts;
  if (mountinfo) {
    mounts = parse_cgroup_mounts(*mountinfo);
  } else {
    mounts = {{2, "/", "/sys/fs/cgroup"},
              {1, "/", "/sys/fs/cgroup/cpu"},
              {1, "/", "/sys/fs/cgroup/cpu,cpuacct"}};
  }

  std::optional<int> limit;
  const auto consider = [&](std::optional<int> cpus) {
    if (cpus && (!limit || *cpus < *limit)) limit = cpus;
  };
  for (const CgroupMount& mount : mounts) {
    std::optional<std::string> path;
    if (self) path = mount.version == 2 ? cgroup2_path(*self) : cgroup1_cpu_path(*self);
    std::string dir = mount.mount_point + path_below_root(path, mount.root);
    for (int depth = 0; depth < kMaxCgroupDepth; ++depth) {
      if (mount.version == 2) {
        if (const auto max = read(dir + "/cpu.max")) consider(parse_cgroup2_cpu_max(*max));
      } else {
        const auto quota = read(dir + "/cpu.cfs_quota_us");
        const auto period = quota ? read(dir + "/cpu.cfs_period_us") : std::nullopt;
        if (quota && period) consider(parse_cgroup1_cfs(*quota, *period));
      }
      if (dir.size() <= mount.mount_point.size()) break;
      const std::size_t slash = dir.rfind('/');
      dir = slash == std::string::npos || slash < mount.mount_point.size() ? mount.mount_point
                                                                           : dir.substr(0, slash);
    }
  }
  return limit;
}

int count_physical_cores(const std::vector<int>& allowed, const FileReader& read) {
  std::unordered_set<int> counted;  // CPUs whose core has been counted
  int cores = 0;
  for (int cpu : allowed) {
    if (!counted.insert(cpu).second) continue;
    ++cores;
    const auto siblings = read("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                               "/topology/thread_siblings_list");
    if (!siblings) continue;
    if (const auto list = parse_cpu_list(*siblings))
      for (int sibling : *list) counted.insert(sibling);
  }
  return cores;
}

int default_thread_count(const std::vector<int>& allowed, const FileReader& read) {
  int threads = allowed.empty() ? 1 : count_physical_cores(allowed, read);
  if (const auto limit = cgroup_cpu_limit(read); limit && *limit < threads) threads = *limit;
  return threads < 1 ? 1 : threads;
}

std::vector<int> affinity_cpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  // The kernel refuses (EINVAL) a mask smaller than its own CPU count; grow until it fits.
  for (int capacity = 1024; capacity <= kMaxCpuId; capacity *= 2) {
    cpu_set_t* set = CPU_ALLOC(capacity);
    if (set == nullptr) break;
    const std::size_t bytes = CPU_ALLOC_SIZE(capacity);
    if (sched_getaffinity(0, bytes, set) == 0) {
      for (int cpu = 0; cpu < capacity; ++cpu)
        if (CPU_ISSET_S(cpu, bytes, set)) cpus.push_back(cpu);
      CPU_FREE(set);
      break;
    }
    const int error = errno;
    CPU_FREE(set);
    if (error != EINVAL) break;
  }
#endif
  return cpus;
}

int default_thread_count() {
  std::vector<int> allowed = affinity_cpus();
  if (allowed.empty()) {
    const unsigned n = std::thread::hardware_concurrency();
    for (unsigned cpu = 0; cpu < (n == 0 ? 1 : n); ++cpu) allowed.push_back(static_cast<int>(cpu));
  }
  return default_thread_count(allowed, read_file);
}

}  // namespace invar::arch

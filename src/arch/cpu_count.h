// The CPUs this process may run on and how many threads it can usefully keep busy on them: the
// default thread count of a context is the physical cores the process may run on and is given
// CPU time for.
//
//   1. The CPUs in the process's affinity mask (sched_getaffinity; taskset, cpusets and container
//      runtimes restrict it).
//   2. Of those, one per physical core: SMT siblings (thread_siblings_list in sysfs) share a
//      core's FMA units, and a second thread on a core adds contention rather than throughput in a
//      compute-bound kernel. Without topology information every CPU counts as a core.
//   3. Capped by the CPU bandwidth limit of the process's cgroups, rounded up: cgroup v2
//      cpu.max ("200000 100000" = 2 CPUs, "max 100000" = none) and cgroup v1
//      cpu.cfs_quota_us / cpu.cfs_period_us (quota −1 = none), at every level from the process's
//      cgroup up to its mount's root, the smallest winning. More threads than the quota lets run
//      at once get throttled mid-barrier.
//   4. At least 1.
//
// The pieces are pure functions of file contents, so they are tested with fixture strings; the
// file reading is a parameter (FileReader) so the whole composition is too. default_thread_count()
// reads a few small files per call (one per physical core, a few for cgroups): call it when a
// context is created, not per product.
#ifndef INVAR_ARCH_CPU_COUNT_H_
#define INVAR_ARCH_CPU_COUNT_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace invar::arch {

// The default thread count for this process, computed now (≥ 1).
int default_thread_count();

// A Linux CPU list, as sysfs and procfs write them (thread_siblings_list, a cache's
// shared_cpu_list, cpuset.cpus: "0-3,8,10-11\n") → its CPU numbers in the order written; nullopt
// when malformed or empty. The one parser of CPU lists: the thread count and the sysfs cache
// backend (cache_topology.h) both read theirs with it.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// ---- the parts, for tests ----------------------------------------------------------------------

// Returns a file's contents, or nullopt when it cannot be read.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

// cgroup v2 cpu.max ("$MAX $PERIOD") → CPUs the quota allows, rounded up (≥ 1); nullopt when
// unlimited ("max") or malformed.
std::optional<int> parse_cgroup2_cpu_max(std::string_view text);

// cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us → the same; nullopt when unlimited (−1) or
// malformed.
std::optional<int> parse_cgroup1_cfs(std::string_view quota_us, std::string_view period_us);

// The process's cgroup paths from /proc/self/cgroup: the v2 one ("0::/path") and the v1 one of
// the cpu controller ("4:cpu,cpuacct:/path").
std::optional<std::string> cgroup2_path(std::string_view proc_self_cgroup);
std::optional<std::string> cgroup1_cpu_path(std::string_view proc_self_cgroup);

// A cgroup file system mount from /proc/self/mountinfo: the cgroup `root` it shows at
// `mount_point`.
struct CgroupMount {
  int version = 2;  // 2, or 1 for a v1 hierarchy with the cpu controller
  std::string root;
  std::string mount_point;
};
std::vector<CgroupMount> parse_cgroup_mounts(std::string_view mountinfo);

// The CPU bandwidth limit of the process's cgroups (nullopt: none), reading /proc/self/cgroup,
// /proc/self/mountinfo and the cgroup files through `read`.
std::optional<int> cgroup_cpu_limit(const FileReader& read);

// Physical cores among `allowed` CPUs, reading
// /sys/devices/system/cpu/cpu<N>/topology/thread_siblings_list through `read`.
int count_physical_cores(const std::vector<int>& allowed, const FileReader& read);

// Steps 2–4 above for the CPUs `allowed` (step 1's result).
int default_thread_count(const std::vector<int>& allowed, const FileReader& read);

// The CPUs in the calling thread's affinity mask; empty when it cannot be determined.
std::vector<int> affinity_cpus();

}  // namespace invar::arch

#endif  // INVAR_ARCH_CPU_COUNT_H_

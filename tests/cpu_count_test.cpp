// The machine layer's CPU counting: the one parser of Linux CPU lists, the cgroup CPU limits and
// the physical cores that make the default thread count, all over fixture strings.
#include "arch/cpu_count.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arch/cache_topology.h"

namespace invar::test {
namespace {

using Files = std::map<std::string, std::string>;

arch::FileReader fake_fs(const Files& files) {
  return [files](const std::string& path) -> std::optional<std::string> {
    const auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

std::string siblings_path(int cpu) {
  return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list";
}

TEST(CpuList, ParsesRangesAndSingles) {
  using V = std::vector<int>;
  EXPECT_EQ(arch::parse_cpu_list("0\n"), V({0}));
  EXPECT_EQ(arch::parse_cpu_list("0-3,8,10-11"), V({0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(arch::parse_cpu_list("0-3,8,10-11\n"), V({0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(arch::parse_cpu_list(" 2-2 \n"), V({2}));
  EXPECT_EQ(arch::parse_cpu_list("5,1"), V({5, 1}));  // in the order written
  EXPECT_EQ(arch::parse_cpu_list("0,64"), V({0, 64}));
}

TEST(CpuList, RefusesEmptyAndMalformedLists) {
  for (const char* bad : {"", "\n", " ", "3-1", "a", "1,,2", ",1", "0-3,", "0-", "-1", "1-2-3",
                          "0x1", "1 2", "1K", "+1", "0-3;8"})
    EXPECT_FALSE(arch::parse_cpu_list(bad).has_value()) << '"' << bad << '"';
  EXPECT_FALSE(arch::parse_cpu_list("0-99999999").has_value());
  EXPECT_FALSE(arch::parse_cpu_list("99999999999999999999").has_value());
}

// The sysfs cache backend counts a cache's sharers with the same parser: a malformed
// shared_cpu_list leaves the L2 private rather than shared by a made-up count.
TEST(CpuList, CacheBackendCountsWithIt) {
  const auto root = std::filesystem::temp_directory_path() /
                    ("invar_cpu_list_test_" + std::to_string(::getpid()));
  const auto write = [](const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  };
  const auto l2 = root / "cpu0" / "cache" / "index2";
  write(root / "cpu0" / "topology" / "thread_siblings_list", "0,4\n");
  write(l2 / "type", "Unified\n");
  write(l2 / "level", "2\n");
  write(l2 / "size", "1024K\n");
  write(l2 / "shared_cpu_list", "0-3,8-11\n");  // 8 CPUs, SMT 2: four cores
  const auto shared = arch::from_sysfs(root.string());
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(shared->l2.sharing, 4);
  write(l2 / "shared_cpu_list", "0-3,\n");
  const auto malformed = arch::from_sysfs(root.string());
  ASSERT_TRUE(malformed.has_value());
  EXPECT_EQ(malformed->l2.sharing, 1);
  std::filesystem::remove_all(root);
}

TEST(CpuCount, ParsesCgroupV2CpuMax) {
  EXPECT_EQ(arch::parse_cgroup2_cpu_max("max 100000\n"), std::nullopt);
  EXPECT_EQ(arch::parse_cgroup2_cpu_max("200000 100000\n"), 2);
  EXPECT_EQ(arch::parse_cgroup2_cpu_max("150000 100000"), 2);
  EXPECT_EQ(arch::parse_cgroup2_cpu_max("50000 100000"), 1);
  EXPECT_EQ(arch::parse_cgroup2_cpu_max("400000 50000"), 8);
  EXPECT_EQ(arch::parse_cgroup2_cpu_max("300000"), 3);  // period omitted: 100000
  for (const char* bad :
       {"", "max", "0 100000", "100000 0", "-5 100000", "1.5 100000", "a b", "1 2 3"})
    EXPECT_EQ(arch::parse_cgroup2_cpu_max(bad), std::nullopt) << '"' << bad << '"';
}

TEST(CpuCount, ParsesCgroupV1Quota) {
  EXPECT_EQ(arch::parse_cgroup1_cfs("-1\n", "100000\n"), std::nullopt);
  EXPECT_EQ(arch::parse_cgroup1_cfs("250000\n", "100000\n"), 3);
  EXPECT_EQ(arch::parse_cgroup1_cfs("100000", "100000"), 1);
  EXPECT_EQ(arch::parse_cgroup1_cfs("20000", "100000"), 1);
  EXPECT_EQ(arch::parse_cgroup1_cfs("junk", "100000"), std::nullopt);
  EXPECT_EQ(arch::parse_cgroup1_cfs("100000", ""), std::nullopt);
}

TEST(CpuCount, ParsesProcSelfCgroup) {
  const std::string v1 =
      "9:name=systemd:/\n4:memory:/x\n2:cpuacct:/\n1:cpu,cpuacct:/docker/abc\n0::/\n";
  EXPECT_EQ(arch::cgroup1_cpu_path(v1), "/docker/abc");
  EXPECT_EQ(arch::cgroup2_path(v1), "/");
  const std::string v2 = "0::/user.slice/user-1000.slice/session-3.scope\n";
  EXPECT_EQ(arch::cgroup2_path(v2), "/user.slice/user-1000.slice/session-3.scope");
  EXPECT_EQ(arch::cgroup1_cpu_path(v2), std::nullopt);
  EXPECT_EQ(arch::cgroup1_cpu_path("3:cpuacct:/a\n"), std::nullopt);  // not "cpu"
  EXPECT_EQ(arch::cgroup2_path(""), std::nullopt);
}

TEST(CpuCount, ParsesCgroupMounts) {
  const std::string mountinfo =
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup "
      "rw,cpu,cpuacct\n"
      "33 31 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
      "41 31 0:38 / /sys/fs/cgroup/uni\\040fied rw,relatime - cgroup2 cgroup2 rw\n"
      "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";
  const auto mounts = arch::parse_cgroup_mounts(mountinfo);
  ASSERT_EQ(mounts.size(), 2u);
  EXPECT_EQ(mounts[0].version, 1);
  EXPECT_EQ(mounts[0].root, "/docker/abc");
  EXPECT_EQ(mounts[0].mount_point, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(mounts[1].version, 2);
  EXPECT_EQ(mounts[1].root, "/");
  EXPECT_EQ(mounts[1].mount_point, "/sys/fs/cgroup/uni fied");
}

TEST(CpuCount, FindsCgroupLimits) {
  const std::string v2_mount = "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
  // A container with its own cgroup namespace: its cgroup is the mount's root.
  EXPECT_EQ(arch::cgroup_cpu_limit(fake_fs({{"/proc/self/cgroup", "0::/\n"},
                                            {"/proc/self/mountinfo", v2_mount},
                                            {"/sys/fs/cgroup/cpu.max", "200000 100000\n"}})),
            2);
  // A service under a limited slice: the tighter ancestor wins.
  EXPECT_EQ(arch::cgroup_cpu_limit(
                fake_fs({{"/proc/self/cgroup", "0::/system.slice/app.service\n"},
                         {"/proc/self/mountinfo", v2_mount},
                         {"/sys/fs/cgroup/system.slice/app.service/cpu.max", "400000 100000\n"},
                         {"/sys/fs/cgroup/system.slice/cpu.max", "150000 100000\n"}})),
            2);
  // Unlimited everywhere.
  EXPECT_EQ(arch::cgroup_cpu_limit(fake_fs({{"/proc/self/cgroup", "0::/a\n"},
                                            {"/proc/self/mountinfo", v2_mount},
                                            {"/sys/fs/cgroup/a/cpu.max", "max 100000\n"}})),
            std::nullopt);
  // cgroup v1 without a namespace: the mount shows the container's cgroup as its root.
  EXPECT_EQ(arch::cgroup_cpu_limit(fake_fs(
                {{"/proc/self/cgroup", "4:cpu,cpuacct:/docker/abc\n0::/\n"},
                 {"/proc/self/mountinfo",
                  "32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,"
                  "cpuacct\n"},
                 {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "300000\n"},
                 {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n"}})),
            3);
  // No /proc/self/mountinfo: the usual mount points.
  EXPECT_EQ(arch::cgroup_cpu_limit(fake_fs({{"/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "50000"},
                                            {"/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000"}})),
            1);
  EXPECT_EQ(arch::cgroup_cpu_limit(fake_fs({})), std::nullopt);
}

TEST(CpuCount, CountsPhysicalCores) {
  // Four CPUs, two cores: SMT siblings 0/2 and 1/3.
  const Files smt = {{siblings_path(0), "0,2\n"},
                     {siblings_path(1), "1,3\n"},
                     {siblings_path(2), "0,2\n"},
                     {siblings_path(3), "1,3\n"}};
  EXPECT_EQ(arch::count_physical_cores({0, 1, 2, 3}, fake_fs(smt)), 2);
  EXPECT_EQ(arch::count_physical_cores({0, 2}, fake_fs(smt)), 1);
  EXPECT_EQ(arch::count_physical_cores({2, 3}, fake_fs(smt)), 2);
  EXPECT_EQ(arch::count_physical_cores({0, 1, 2, 3}, fake_fs({})), 4);  // no topology
  EXPECT_EQ(arch::count_physical_cores(
                {0, 1, 2, 3}, fake_fs({{siblings_path(0), "0-1"}, {siblings_path(2), "2-3"}})),
            2);

  Files limited = smt;
  limited["/proc/self/mountinfo"] = "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
  limited["/proc/self/cgroup"] = "0::/\n";
  EXPECT_EQ(arch::default_thread_count({0, 1, 2, 3}, fake_fs(limited)), 2);
  limited["/sys/fs/cgroup/cpu.max"] = "50000 100000\n";
  EXPECT_EQ(arch::default_thread_count({0, 1, 2, 3}, fake_fs(limited)), 1);
  EXPECT_EQ(arch::default_thread_count({}, fake_fs({})), 1);
}

TEST(CpuCount, DefaultThreadCountOfThisProcess) {
  const std::vector<int> allowed = arch::affinity_cpus();
  const int threads = arch::default_thread_count();
  EXPECT_GE(threads, 1);
  if (!allowed.empty()) {
    EXPECT_LE(threads, static_cast<int>(allowed.size()));
    cpu_set_t set;
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    EXPECT_EQ(static_cast<int>(allowed.size()), CPU_COUNT(&set));
  }
}

}  // namespace
}  // namespace invar::test

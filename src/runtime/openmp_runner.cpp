#include "runtime/openmp_runner.h"

#include <atomic>
#include <cstdio>
#include <mutex>

#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#define INVAR_HAVE_DLOPEN 1
#endif

namespace invar::runtime {
namespace {

struct OpenMp {
  void (*parallel)(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
  int (*num_threads)();
  int (*thread_num)();
  int (*max_threads)();
  const char* library;
  char name[32];  // "OpenMP (<library>)"
};

struct Region {
  const OpenMp* omp;
  void (*member)(void* team, int id, int size);
  void* team;
  std::atomic<int> size{0};
};

// The body of the parallel region: each thread of the team is the member of its number, in a
// team of the region's size (one inside another region: nested regions are inactive).
void region_body(void* data) {
  auto* region = static_cast<Region*>(data);
  const int size = region->omp->num_threads();
  const int id = region->omp->thread_num();
  if (id == 0) region->size.store(size, std::memory_order_relaxed);
  region->member(region->team, id, size);
}

// n threads, or as many as the runtime would give this thread's next region if fewer.
int run_on_openmp(void* user, int n, void (*member)(void* team, int id, int size), void* team) {
  const auto* omp = static_cast<const OpenMp*>(user);
  const int budget = omp->max_threads();
  const int threads = budget >= 1 && budget < n ? budget : n;
  Region region{omp, member, team};
  // The region ends with the runtime's barrier: every member has returned, and its writes are
  // visible here.
  omp->parallel(&region_body, &region, static_cast<unsigned>(threads), 0);
  return region.size.load(std::memory_order_relaxed);
}

#if defined(INVAR_HAVE_DLOPEN)
constexpr const char* kSonames[] = {"libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so"};
constexpr int kRuntimes = sizeof kSonames / sizeof kSonames[0];

// The first runtime of kSonames the process has loaded, or nullptr. Entries are filled once and
// never change: the handle is never closed, so the runtime stays loaded for the process's life.
const OpenMp* find_openmp() {
  static std::mutex mu;
  static OpenMp table[kRuntimes];
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < kRuntimes; ++i) {
    OpenMp& omp = table[i];
    if (omp.parallel != nullptr) return &omp;
    // RTLD_NOLOAD: only a runtime loaded already, found by its soname whatever its path.
    void* handle = dlopen(kSonames[i], RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    OpenMp found{};
    found.parallel = reinterpret_cast<decltype(found.parallel)>(dlsym(handle, "GOMP_parallel"));
    found.num_threads = reinterpret_cast<int (*)()>(dlsym(handle, "omp_get_num_threads"));
    found.thread_num = reinterpret_cast<int (*)()>(dlsym(handle, "omp_get_thread_num"));
    found.max_threads = reinterpret_cast<int (*)()>(dlsym(handle, "omp_get_max_threads"));
    found.library = kSonames[i];
    std::snprintf(found.name, sizeof found.name, "OpenMP (%s)", kSonames[i]);
    if (found.parallel && found.num_threads && found.thread_num && found.max_threads) {
      omp = found;
      return &omp;
    }
    dlclose(handle);
  }
  return nullptr;
}
#endif

}  // namespace

TeamRunner openmp_team_runner(const char** library) {
  if (library != nullptr) *library = "";
#if defined(INVAR_HAVE_DLOPEN)
  if (const OpenMp* omp = find_openmp()) {
    if (library != nullptr) *library = omp->library;
    return TeamRunner{&run_on_openmp, const_cast<OpenMp*>(omp), omp->name};
  }
#endif
  return TeamRunner{};
}

}  // namespace invar::runtime

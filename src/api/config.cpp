// The default context's settings through the C API: invar_get_config(), the build and the
// default context in one line, the way BLAS libraries answer "what am I running on"
// (openblas_get_config); the thread count (invar_set_num_threads, invar_get_num_threads); whose
// threads it computes on (invar_set_team_runner, invar_use_openmp_threads). Each distinct config
// line is kept for the life of the process, so the pointer never dangles; the lines differ only
// when a setting changed (the thread count, the runner), so the set stays small.
#include <mutex>
#include <set>
#include <string>

#include "api/c_guard.h"
#include "api/context_impl.h"
#include "api/last_error.h"
#include "arch/cache_topology.h"
#include "invar/invar.h"
#include "runtime/fp_mode.h"
#include "runtime/openmp_runner.h"

namespace {

std::string describe_cache(const char* label, const invar::arch::CacheLevel& level) {
  std::string text = std::string("; ") + label + " ";
  if (!level.present()) return text + "none";
  return text + invar::arch::format_bytes(level.bytes) + " " + std::to_string(level.ways) + "-way";
}

std::string describe_default_context() {
  std::string line = std::string("invar ") + invar::version();
  try {
    invar::Context& context = invar::Context::default_context();
    const invar::Context::Impl& impl = context.impl();
    line += std::string("; isa ") + invar::isa_name(impl.isa) + " (" + impl.isa_reason + ")";
    line += std::string("; kernels ") + impl.kernels->sgemm.name + " " + impl.kernels->dgemm.name;
    line += "; threads " + std::to_string(context.num_threads());
    const std::string runner = context.team_runner();
    if (!runner.empty()) line += " on " + runner;
    const invar::arch::EffectiveCacheTopology& caches = invar::arch::cache_topology();
    if (!caches.error.empty()) throw invar::InvalidArgument(caches.error);
    const invar::arch::CacheTopology& topo = caches.topology;
    line += describe_cache("L1d", topo.l1d) + describe_cache("L2", topo.l2) +
            describe_cache("L3", topo.l3) + " (" + topo.source + ")";
  } catch (const std::exception& e) {
    invar::api::set_last_error("invar_get_config", e.what());
    line += std::string("; unusable: ") + e.what();
  }
  return line;
}

}  // namespace

extern "C" const char* invar_get_config(void) {
  invar::api::clear_last_error();
  invar::runtime::FpModeGuard fp_mode;  // the caller's flags back, whatever formatting raised
  static std::mutex mutex;
  static std::set<std::string>* lines = new std::set<std::string>;  // never freed: see above
  try {
    std::string line = describe_default_context();
    std::lock_guard<std::mutex> lock(mutex);
    return lines->insert(std::move(line)).first->c_str();
  } catch (...) {  // out of memory building the line
    invar::api::set_last_error("invar_get_config", "out of memory");
    return "invar: configuration unavailable (out of memory)";
  }
}

extern "C" int invar_get_num_threads(void) {
  invar::api::clear_last_error();
  invar::runtime::FpModeGuard fp_mode;  // creating the default context may compute in double
  try {
    return invar::Context::default_context().num_threads();
  } catch (const std::exception& e) {  // the default context cannot be created
    invar::api::set_last_error("invar_get_num_threads", e.what());
    return 0;
  }
}

extern "C" {

using invar::api::guarded;

int invar_set_num_threads(int n) {
  invar::api::clear_last_error();
  int now = 0;
  const invar_status s = guarded("invar_set_num_threads", [&] {
    invar::Context& context = invar::Context::default_context();
    now = context.num_threads();
    if (n >= 0) context.set_num_threads(n);
    now = context.num_threads();
    return INVAR_OK;
  });
  if (s == INVAR_OK && n < 0) invar::api::set_last_error("invar_set_num_threads: n is negative");
  return now;
}

invar_status invar_set_team_runner(invar_team_runner run, void* user) {
  invar::api::clear_last_error();
  return guarded("invar_set_team_runner", [&] {
    invar::Context::default_context().set_team_runner(run, user);
    return INVAR_OK;
  });
}

invar_status invar_use_openmp_threads(int on) {
  invar::api::clear_last_error();
  return guarded("invar_use_openmp_threads", [&] {
    invar::Context& context = invar::Context::default_context();
    if (on == 0) {
      context.use_own_threads();
    } else {
      const invar::runtime::TeamRunner runner = invar::runtime::openmp_team_runner(nullptr);
      if (runner.run == nullptr) throw invar::Unsupported(invar::runtime::kNoOpenMpRuntime);
      context.impl().pool.set_team_runner(runner);
    }
    return INVAR_OK;
  });
}

}  // extern "C"

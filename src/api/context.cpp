#include "api/context_impl.h"
#include "arch/cpu_count.h"
#include "kernels/bf16_dot.h"
#include "runtime/env.h"
#include "runtime/fp_mode.h"
#include "runtime/openmp_runner.h"

namespace invar {
namespace api {

Isa parse_isa(const std::string& name, const char* source) {
  for (Isa isa : {Isa::kAuto, Isa::kGeneric, Isa::kAvx2, Isa::kAvx512, Isa::kNeon}) {
    if (name == isa_name(isa)) return isa;
  }
  throw InvalidArgument(std::string(source) + "=\"" + name +
                        "\" is not one of auto, avx512, avx2, neon, generic");
}

Isa resolve_isa(Isa requested, const char* source, std::string* reason) {
  if (requested == Isa::kAuto) {
    const Isa best = kernels::available_isas().front();  // generic is always available
    *reason = std::string("best path compiled in and supported by this CPU");
    return best;
  }
  const std::string what = std::string(source) + "=" + isa_name(requested);
  if (kernels::compiled_kernel_set(requested) == nullptr)
    throw Unsupported(what + ": this build of invar has no " + isa_name(requested) + " kernels");
  if (!kernels::cpu_supports(requested))
    throw Unsupported(what + ": this CPU (or its operating system) does not support " +
                      isa_name(requested));
  *reason = "forced by " + what;
  return requested;
}

}  // namespace api

namespace {

constexpr int64_t kMaxThreads = Context::Impl::kMaxThreads;
constexpr int64_t kMaxBlock = int64_t{1} << 24;

int64_t env_int(const char* name, int64_t max) {
  const auto value = runtime::env_string(name);
  if (!value) return 0;
  std::string error;
  const auto parsed = runtime::parse_positive_int(name, *value, max, &error);
  if (!parsed) throw InvalidArgument(error);
  return *parsed;
}

// The thread count the environment asks for, 0 when it asks for none: INVAR_NUM_THREADS, else
// the first value of OMP_NUM_THREADS (the variable a program tuned for OpenMP-threaded BLAS
// libraries already sets). A value that does not parse is an error, as for every INVAR_* setting.
int64_t env_thread_count() {
  if (runtime::env_string("INVAR_NUM_THREADS")) return env_int("INVAR_NUM_THREADS", kMaxThreads);
  const auto omp = runtime::env_string("OMP_NUM_THREADS");
  if (!omp) return 0;
  std::string error;
  const auto parsed = runtime::parse_first_of_list("OMP_NUM_THREADS", *omp, kMaxThreads, &error);
  if (!parsed) throw InvalidArgument(error);
  return *parsed;
}

// The bf16 dot-product kernel for a context on `isa`: on the AVX-512 path, the detected one
// (kernels/bf16_dot.h) where it is the faster path, unless INVAR_BF16_DOT=off;
// INVAR_BF16_DOT=on takes it wherever it passes its check (an error where it does not, as
// INVAR_ISA is for a path the CPU lacks).
void choose_sbgemm_dot(Isa isa, const kernels::GemmKernel** kernel, std::string* reason) {
  const auto env = runtime::env_string("INVAR_BF16_DOT");
  if (env && *env != "on" && *env != "off" && *env != "auto")
    throw InvalidArgument("INVAR_BF16_DOT='" + *env + "' is not one of on, off, auto");
  if (env && *env == "off") {
    *reason = "off (INVAR_BF16_DOT=off)";
    return;
  }
  if (isa != Isa::kAvx512) {
    if (env && *env == "on")
      throw Unsupported("INVAR_BF16_DOT=on, but the " + std::string(isa_name(isa)) +
                        " path has no bf16 dot-product kernel");
    *reason = std::string("not on the ") + isa_name(isa) + " path";
    return;
  }
  const runtime::FpModeGuard fp_mode;  // for the check's reference chain, run on the first call
  const kernels::Bf16DotStatus& status = kernels::bf16_dot_status();
  if (status.kernel == nullptr && env && *env == "on")
    throw Unsupported("INVAR_BF16_DOT=on, but the bf16 dot-product kernel cannot run: " +
                      status.reason);
  const bool on = env && *env == "on";
  *kernel = on || status.faster ? status.kernel : nullptr;
  *reason = (*kernel != nullptr ? std::string("in use") : std::string("not in use")) +
            (on ? " (INVAR_BF16_DOT=on): " : ": ") + status.reason;
}

// INVAR_THREADS_ON: whose threads a context created without a runner computes on, "invar" (its
// own, the default) or "openmp" (the OpenMP runtime loaded in the process: an error where there
// is none, as INVAR_ISA is for a path the CPU lacks).
runtime::TeamRunner runner_from_env() {
  const auto env = runtime::env_string("INVAR_THREADS_ON");
  if (!env || *env == "invar") return runtime::TeamRunner{};
  if (*env != "openmp")
    throw InvalidArgument("INVAR_THREADS_ON='" + *env + "' is not one of invar, openmp");
  const runtime::TeamRunner runner = runtime::openmp_team_runner(nullptr);
  if (runner.run == nullptr)
    throw Unsupported(std::string("INVAR_THREADS_ON=openmp, but ") + runtime::kNoOpenMpRuntime);
  return runner;
}

}  // namespace

Context::Impl::Impl(const ContextOptions& options) {
  Isa requested = options.isa;
  const char* source = "ContextOptions::isa";
  if (requested == Isa::kAuto) {
    if (const auto env = runtime::env_string("INVAR_ISA")) {
      requested = api::parse_isa(*env, "INVAR_ISA");
      source = "INVAR_ISA";
    }
  }
  isa = api::resolve_isa(requested, source, &isa_reason);
  kernels = kernels::compiled_kernel_set(isa);
  choose_sbgemm_dot(isa, &sbgemm_dot, &sbgemm_dot_reason);

  if (options.num_threads < 0) throw InvalidArgument("ContextOptions::num_threads is negative");
  const int64_t env_threads = env_thread_count();
  default_threads = env_threads > 0 ? static_cast<int>(env_threads) : arch::default_thread_count();
  if (options.num_threads > kMaxThreads)
    throw InvalidArgument("ContextOptions::num_threads is above " + std::to_string(kMaxThreads));
  num_threads = options.num_threads > 0 ? options.num_threads : default_threads;

  if (options.mc < 0 || options.kc < 0 || options.nc < 0)
    throw InvalidArgument("ContextOptions: block sizes must be >= 0");
  overrides.mc = options.mc > 0 ? options.mc : env_int("INVAR_MC", kMaxBlock);
  overrides.kc = options.kc > 0 ? options.kc : env_int("INVAR_KC", kMaxBlock);
  overrides.nc = options.nc > 0 ? options.nc : env_int("INVAR_NC", kMaxBlock);
  pool.set_team_runner(runner_from_env());
  tiny = api::lane_state_of(*kernels, allow_direct);
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAuto: return "auto";
    case Isa::kGeneric: return "generic";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
    case Isa::kNeon: return "neon";
  }
  return "unknown";
}

Context::Context() : Context(ContextOptions{}) {}
Context::Context(const ContextOptions& options) : impl_(std::make_unique<Impl>(options)) {}
Context::~Context() = default;

Isa Context::isa() const { return impl_->isa; }
int Context::num_threads() const { return impl_->num_threads.load(std::memory_order_relaxed); }

void Context::set_num_threads(int n) {
  if (n < 0) throw InvalidArgument("invar::Context::set_num_threads: negative count");
  if (n > Impl::kMaxThreads)
    throw InvalidArgument("invar::Context::set_num_threads: more than " +
                          std::to_string(Impl::kMaxThreads) + " threads");
  impl_->num_threads = n == 0 ? impl_->default_threads : n;
}

void Context::set_team_runner(invar_team_runner run, void* user) {
  impl_->pool.set_team_runner(run != nullptr ? runtime::TeamRunner{run, user, "a team runner"}
                                             : runtime::TeamRunner{});
}

std::string Context::use_openmp_threads() {
  const char* library = "";
  const runtime::TeamRunner runner = runtime::openmp_team_runner(&library);
  if (runner.run == nullptr)
    throw Unsupported(std::string("invar::Context::use_openmp_threads: ") +
                      runtime::kNoOpenMpRuntime);
  impl_->pool.set_team_runner(runner);
  return library;
}

std::string Context::team_runner() const { return impl_->pool.team_runner().name; }

Context& Context::default_context() {
  // Constructed on first use. If the environment is invalid the constructor throws and the next
  // call tries again, so a fixed environment takes effect without a restart. Never destroyed:
  // user threads (or other static destructors) may still multiply while the process exits, and
  // the pool's threads end with the process.
  static Context* context = new Context;
  return *context;
}

}  // namespace invar

// Run-time loading helpers for the peer libraries (see dl.h).
#include "dl.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace invar_bench {

void* dl_open(const std::string& path, std::string* error) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = why != nullptr ? why : ("cannot load " + path);
  }
  return handle;
}

void* dl_open_peer(const std::string& name, const std::vector<std::string>& paths,
                   const std::string& missing_hint, std::vector<std::string>* skips) {
  if (paths.empty() || paths.front().empty()) {
    skips->push_back(name + ": no library given" + missing_hint);
    return nullptr;
  }
  std::string error;
  for (const std::string& path : paths) {
    if (void* lib = dl_open(path, &error)) return lib;
  }
  skips->push_back(name + ": " + error);
  return nullptr;
}

void* dlsym_raw(void* handle, const char* name) { return dlsym(handle, name); }

std::string dl_file_of(const void* symbol) {
  Dl_info info{};
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
  std::error_code ec;
  const auto resolved = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::string(info.dli_fname) : resolved.string();
}

std::string executable_dir() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

ScopedUnsetEnv::ScopedUnsetEnv(std::vector<std::string> names) {
  for (const auto& name : names) {
    if (const char* value = std::getenv(name.c_str())) {
      saved_.emplace_back(name, value);
      unsetenv(name.c_str());
    }
  }
}

ScopedUnsetEnv::~ScopedUnsetEnv() {
  for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
}

}  // namespace invar_bench

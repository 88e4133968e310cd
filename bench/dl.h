// Loading peer libraries at run time. Every peer is opened with RTLD_NOW | RTLD_LOCAL: its
// symbols never enter the global scope (several peers export the same BLAS names), and all of
// its references are bound at load, before a later library could add a same-named symbol.
// Handles are never closed: some peers keep threads that must not outlive their code.
#ifndef INVAR_BENCH_DL_H_
#define INVAR_BENCH_DL_H_

#include <string>
#include <utility>
#include <vector>

namespace invar_bench {

// Opens `path` (a path, or a soname the loader searches for); nullptr and *error on failure.
void* dl_open(const std::string& path, std::string* error);

// A peer's library for row `name`: the first of `paths` that opens (a path, or a soname), or
// nullptr after adding "<name>: <why>" to *skips (`missing_hint` when no path was given).
void* dl_open_peer(const std::string& name, const std::vector<std::string>& paths,
                   const std::string& missing_hint, std::vector<std::string>* skips);

// The address of `name` in `handle`, or nullptr.
void* dlsym_raw(void* handle, const char* name);
template <class Fn>
Fn dl_sym(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym_raw(handle, name));
}

// The file a loaded symbol lives in, with symlinks resolved.
std::string dl_file_of(const void* symbol);

// Folder of the running executable.
std::string executable_dir();

// Removes environment variables for its lifetime and puts back the values they had.
class ScopedUnsetEnv {
 public:
  explicit ScopedUnsetEnv(std::vector<std::string> names);
  ~ScopedUnsetEnv();
  ScopedUnsetEnv(const ScopedUnsetEnv&) = delete;
  ScopedUnsetEnv& operator=(const ScopedUnsetEnv&) = delete;
  // The variables that were set, as "NAME=value", for the report.
  const std::vector<std::pair<std::string, std::string>>& removed() const { return saved_; }

 private:
  std::vector<std::pair<std::string, std::string>> saved_;
};

}  // namespace invar_bench

#endif  // INVAR_BENCH_DL_H_

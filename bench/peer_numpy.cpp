// numpy rows: numpy.matmul timed inside a Python process per thread count (scripts/bench_numpy.py,
// which describes the line protocol), started with posix_spawn and two pipes. The process gets
// OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and MKL_NUM_THREADS set to its row's count (numpy's BLAS
// reads them when it loads) and, like the current OpenBLAS row, no OPENBLAS_CORETYPE or
// OPENBLAS_L2_SIZE. It times itself in turns with the same policy as bench/timing.h; it works on
// its own seeded operands and checks its result against float64 products of them. Rows: f32
// (a @ b, and a @ w.T for W stored transposed) and float64; numpy has no bf16 type, and its
// integer matmul is a plain loop outside BLAS whose uint8 @ int8 gives int16, not an int32 C.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

#include "rows.h"

extern char** environ;

namespace invar_bench {
namespace {

std::vector<std::string> split_fields(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, sep);) fields.push_back(f);
  return fields;
}

class NumpyProcess {
 public:
  ~NumpyProcess() {
    if (to_ != nullptr) {
      std::fputs("quit\n", to_);
      std::fclose(to_);
    }
    if (from_ != nullptr) std::fclose(from_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

  bool start(const std::string& python, const std::string& script, int threads,
             std::string* error) {
    int in[2], out[2];  // in: to the child's stdin; out: from its stdout
    if (pipe(in) != 0 || pipe(out) != 0) {
      *error = "pipe failed";
      return false;
    }
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string var(*e);
      const std::string name = var.substr(0, var.find('='));
      if (name == "OPENBLAS_CORETYPE" || name == "OPENBLAS_L2_SIZE" ||
          name == "OPENBLAS_NUM_THREADS" || name == "OMP_NUM_THREADS" || name == "MKL_NUM_THREADS")
        continue;
      env.push_back(var);
    }
    for (const char* name : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"})
      env.push_back(std::string(name) + "=" + std::to_string(threads));
    std::vector<char*> envp, argv;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string py = python, sc = script;
    argv = {py.data(), sc.data(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    for (int fd : {in[0], in[1], out[0], out[1]}) posix_spawn_file_actions_addclose(&actions, fd);
    const int rc = posix_spawn(&pid_, python.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
      close(in[1]);
      close(out[0]);
      pid_ = -1;
      *error = "cannot start " + python + ": " + std::strerror(rc);
      return false;
    }
    to_ = fdopen(in[1], "w");
    from_ = fdopen(out[0], "r");
    return read_reply("ready", &ready_, error);
  }

  // Sends one request line and reads the reply, which must start with `expect`.
  bool request(const std::string& line, const std::string& expect, std::vector<std::string>* fields,
               std::string* error) {
    if (to_ == nullptr || std::fputs((line + "\n").c_str(), to_) < 0 || std::fflush(to_) != 0) {
      *error = "numpy process is gone";
      return false;
    }
    return read_reply(expect, fields, error);
  }

  const std::vector<std::string>& ready() const { return ready_; }

 private:
  bool read_reply(const std::string& expect, std::vector<std::string>* fields, std::string* error) {
    std::string line;
    for (int ch; from_ != nullptr && (ch = std::fgetc(from_)) != EOF && ch != '\n';)
      line += char(ch);
    *fields = split_fields(line, '\t');
    if (!fields->empty() && (*fields)[0] == expect) return true;
    if (fields->size() >= 2 && (*fields)[0] == "error")
      *error = (*fields)[1];
    else
      *error = line.empty() ? "numpy process ended (see its messages above)"
                            : "unexpected reply: " + line;
    return false;
  }

  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  std::vector<std::string> ready_;
};

std::vector<double> parse_doubles(const std::string& text) {
  std::vector<double> values;
  for (const auto& f : split_fields(text, ',')) values.push_back(std::strtod(f.c_str(), nullptr));
  return values;
}

}  // namespace

void add_numpy(const std::string& python, const std::string& script,
               const std::vector<int>& threads, std::vector<GemmRow>* rows, SkipNotes* skips) {
  if (python.empty()) {
    skips->push_back("numpy: no Python given (--numpy PYTHON, set by scripts/bench.sh)");
    return;
  }
  skips->push_back("numpy: no bf16 rows (numpy has no bfloat16 type)");
  skips->push_back(
      "numpy: no u8s8 rows (its integer matmul is a plain loop outside BLAS, and uint8 @ int8 "
      "gives int16, not an int32 C)");
  signal(SIGPIPE, SIG_IGN);  // a process that died shows as a failed write, not a signal
  for (int t : threads) {
    auto process = std::make_shared<NumpyProcess>();
    std::string error;
    if (!process->start(python, script, t, &error)) {
      skips->push_back("numpy at " + std::to_string(t) + " thread(s): " + error);
      continue;
    }
    const auto& ready = process->ready();
    GemmRow row;
    row.name = "numpy";
    row.library = ready.size() > 1 ? ready[1] : "numpy";
    row.kernel = ready.size() > 2 ? ready[2] : "?";
    row.threads = ready.size() > 3 ? std::atoi(ready[3].c_str()) : t;
    row.path = ready.size() > 4 ? ready[4] : "";
    row.requested_threads = t;
    row.remote_kinds = {Kind::kF32, Kind::kF32Bt, Kind::kF64};
    row.remote_start = [process](const Shape& s, bool* check_ok, std::string* check_text,
                                 std::string* error) {
      std::vector<std::string> f;
      if (!process->request("shape " + std::to_string(s.m) + " " + std::to_string(s.n) + " " +
                                std::to_string(s.k) + " " + kind_name(s.kind),
                            "ok", &f, error))
        return false;
      *check_ok = f.size() > 1 && f[1] == "1";
      *check_text = f.size() > 2 ? f[2] : "?";
      return true;
    };
    row.remote_turn = [process](double seconds, int min_samples, Timing* t) {
      std::vector<std::string> f;
      char line[64];
      std::snprintf(line, sizeof line, "turn %.6f %d", seconds, min_samples);
      if (!process->request(line, "samples", &f, &t->error)) return;
      if (f.size() < 4) {
        t->error = "short reply from the numpy process";
        return;
      }
      t->batch = std::atoll(f[1].c_str());
      for (double s : parse_doubles(f[2])) t->seconds.push_back(s);
      for (double s : parse_doubles(f[3])) t->cpu_seconds.push_back(s);
    };
    rows->push_back(std::move(row));
  }
}

}  // namespace invar_bench

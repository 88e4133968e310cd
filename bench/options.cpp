// Command line of invar_bench (see options.h; the usage text below lists every option).
#include "options.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace invar_bench {
namespace {

constexpr const char* kUsage = R"(usage: invar_bench [options]

Times f32 C = A * B (row-major) for invar's instruction-set paths and for the peer libraries
found at run time, next to the core's measured FMA peak and memory read bandwidth.

  --quick               fewer shapes, shorter measurements (about 2 minutes); a sweep
                        without 4096
  --sizes LIST          squares, e.g. 256,512,1024 (default 128,256,512,1000,1024,1531,2048,
                        4096; with no --sizes/--shapes/--small-sizes also the inference shapes
                        1,16,64,256 x 4096x4096 and 1x16384x4096 and the tall-skinny 64x64x65536
                        and 4096x4096x64)
  --shapes LIST         general shapes MxNxK, e.g. 1x4096x4096,64x4096x4096 (added to --sizes)
  --small-sizes LIST    small squares reported in calls per second, at the first thread count
                        only (default 4,8,16,32,64); many calls per timed sample
  --seconds S           time spent per row, shape and thread count (default 1, quick 0.5)
  --rounds R            rows take turns R times per shape (default 3)
  --threads LIST        thread counts every row runs at, e.g. 1,2 (default 1 and the cores
                        this process may use); each library is set to the row's count before
                        its turn
  --generic-max N       largest dimension for invar's generic path (default 512)
  --ladder, --no-ladder the optimization-ladder rows: plain i-j-k, i-k-j and blocked loops,
                        invar's generic, SIMD and all-threads SIMD paths (default on)
  --sweep-blocking      after the shapes, time invar's best SIMD path on 1 thread with the
                        model's cache blocks and a grid of fixed blocks around them at
                        1024^3, 2048^3 and 4096^3 (not with --quick); about 3 minutes
  --sweep-only          the blocking sweep alone
  --only LIST           run only these rows, e.g. invar-avx2,openblas
  --no-peers            invar only
  --membw-mib N         memory bandwidth buffer in MiB (default 512, quick 256)
  --openblas PATH       distribution OpenBLAS (default libopenblas.so.0; "" to skip)
  --openblas-current PATH  a current OpenBLAS, e.g. the scipy-openblas32 wheel's .so
  --blis PATH           BLIS (default libblis.so.4)
  --onednn PATH         oneDNN (default libdnnl.so.2)
  --mkl PATH            MKL single dynamic library libmkl_rt.so.N
  --numpy PYTHON        a Python with numpy and threadpoolctl: numpy.matmul rows, timed by
                        scripts/bench_numpy.py in a process per thread count
  --numpy-script PATH   that script (default: the source tree's)
  --eigen-dir DIR       folder of the Eigen modules (default: next to this binary)
  --out DIR             results folder (default results/<timestamp>)
)";

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "invar_bench: %s (see --help)\n", why.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

int64_t to_int(const std::string& s, const char* what) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v <= 0)
    fail(std::string(what) + ": '" + s + "' is not a positive integer");
  return v;
}

double to_seconds(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v > 0))
    fail("--seconds: '" + s + "' is not a positive number");
  return v;
}

std::vector<int64_t> parse_list(const std::string& s, const char* what) {
  std::vector<int64_t> values;
  for (const auto& part : split(s, ',')) values.push_back(to_int(part, what));
  return values;
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

Shape parse_shape(const std::string& s) {
  const auto dims = split(s, 'x');
  if (dims.size() != 3) fail("--shapes: '" + s + "' is not MxNxK");
  return Shape{to_int(dims[0], "--shapes"), to_int(dims[1], "--shapes"),
               to_int(dims[2], "--shapes")};
}

}  // namespace

std::string Shape::label() const {
  if (m == n && n == k) return std::to_string(m) + "^3";
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<Shape> sizes, shapes, small;
  bool small_set = false;
  bool seconds_set = false, membw_set = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const auto eq = arg.find('=');
    bool has_value = false;
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) fail(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--sizes") {
      for (const auto& s : split(next(), ',')) {
        const int64_t n = to_int(s, "--sizes");
        sizes.push_back(Shape{n, n, n});
      }
    } else if (arg == "--small-sizes") {
      for (int64_t n : parse_list(next(), "--small-sizes")) small.push_back(Shape{n, n, n, true});
      small_set = true;
    } else if (arg == "--shapes") {
      for (const auto& s : split(next(), ',')) shapes.push_back(parse_shape(s));
    } else if (arg == "--seconds") {
      o.seconds_per_cell = to_seconds(next());
      seconds_set = true;
    } else if (arg == "--rounds") {
      o.rounds = static_cast<int>(to_int(next(), "--rounds"));
    } else if (arg == "--threads") {
      o.threads.clear();
      for (int64_t t : parse_list(next(), "--threads"))
        if (std::find(o.threads.begin(), o.threads.end(), int(t)) == o.threads.end())
          o.threads.push_back(int(t));
    } else if (arg == "--generic-max") {
      o.generic_max = to_int(next(), "--generic-max");
    } else if (arg == "--ladder") {
      o.ladder = true;
    } else if (arg == "--no-ladder") {
      o.ladder = false;
    } else if (arg == "--sweep-blocking") {
      o.sweep_blocking = true;
    } else if (arg == "--sweep-only") {
      o.sweep_blocking = o.sweep_only = true;
    } else if (arg == "--only") {
      o.only = split(next(), ',');
    } else if (arg == "--no-peers") {
      o.peers = false;
    } else if (arg == "--membw-mib") {
      o.membw_mib = to_int(next(), "--membw-mib");
      membw_set = true;
    } else if (arg == "--openblas") {
      o.paths.openblas = next();
    } else if (arg == "--openblas-current") {
      o.paths.openblas_current = next();
    } else if (arg == "--blis") {
      o.paths.blis = next();
    } else if (arg == "--onednn") {
      o.paths.onednn = next();
    } else if (arg == "--mkl") {
      o.paths.mkl = next();
    } else if (arg == "--numpy") {
      o.paths.numpy = next();
    } else if (arg == "--numpy-script") {
      o.paths.numpy_script = next();
    } else if (arg == "--eigen-dir") {
      o.paths.eigen_dir = next();
    } else if (arg == "--out") {
      o.out_dir = next();
    } else {
      fail("unknown argument '" + arg + "'");
    }
  }
  if (o.threads.empty()) {
    o.threads.push_back(1);
    if (usable_cpus() > 1) o.threads.push_back(usable_cpus());
  }
  if (o.quick) {
    if (!seconds_set) o.seconds_per_cell = 0.5;
    if (!membw_set) o.membw_mib = 256;
    o.peak_seconds = 0.15;
  }
  const bool defaults = sizes.empty() && shapes.empty() && !small_set;
  if (o.sweep_only) {
    o.shapes.clear();
    return o;
  }
  if (defaults) {
    // Small squares first: a few calls per microsecond, where call overhead is the cost.
    for (int64_t n : o.quick ? std::vector<int64_t>{8, 32} : std::vector<int64_t>{4, 8, 16, 32, 64})
      small.push_back(Shape{n, n, n, true});
    // Squares: powers of two and odd sizes between them (no tile or vector width divides 1531).
    for (int64_t n : o.quick ? std::vector<int64_t>{256, 1000, 2048}
                             : std::vector<int64_t>{128, 256, 512, 1000, 1024, 1531, 2048, 4096})
      sizes.push_back(Shape{n, n, n});
    // Inference against a 4096 x 4096 weight (64 MiB, beyond the last-level cache): a decode
    // step (1 row, memory-bound), then 16, 64 and 256 rows, where each weight read is reused
    // M times and the product moves toward the compute roof.
    for (int64_t m : o.quick ? std::vector<int64_t>{1, 64} : std::vector<int64_t>{1, 16, 64, 256})
      shapes.push_back(Shape{m, 4096, 4096});
    if (!o.quick) {
      // One decode step against a 4096 x 16384 weight (256 MiB, far beyond the last-level cache).
      shapes.push_back(Shape{1, 16384, 4096});
      // Tall-skinny: a long reduction into a small C (a Gram-type product, 64 x 65536 times
      // 65536 x 64), and a rank-64 update of a large C (each k-block of 64 is the whole K).
      shapes.push_back(Shape{64, 64, 65536});
    }
    shapes.push_back(Shape{4096, 4096, 64});
  }
  o.shapes = small;
  o.shapes.insert(o.shapes.end(), sizes.begin(), sizes.end());
  o.shapes.insert(o.shapes.end(), shapes.begin(), shapes.end());
  return o;
}

}  // namespace invar_bench

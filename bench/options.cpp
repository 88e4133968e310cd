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

Times C = A * B (row-major; f32, f32 with B stored transposed, f64, bf16 inputs, uint8 x int8
with an int32 C) for invar's instruction-set paths and for the peer libraries found at run time,
next to the core's measured FMA peak and memory read bandwidth.

  --quick               fewer shapes, shorter measurements (about 2.5 minutes); a sweep
                        without 4096
  --sizes LIST          squares, e.g. 256,512,1024 (default 128,256,512,1000,1024,1531,2048,
                        4096); a size may name its kind: f64:1024, bf16:1024, u8s8:1024
  --shapes LIST         general shapes MxNxK, e.g. 1x4096x4096,64x4096x4096 (added to --sizes);
                        bt:MxNxK is C = A * W^T with W stored N x K (a linear layer), and
                        f64:/bf16:/u8s8: name those kinds; the BLAS group's kinds as the
                        group makes them: dgemv:1xRxC over an R x C matrix, dgemv-t:1xCxR
                        (sgemv too), dsyrk:NxNxK (ssyrk too)
  --groups LIST         the default shapes of these groups only (with no --sizes, --shapes or
                        --small-sizes): small (squares 4..64 in calls per second), squares,
                        inference (C = x * W^T with W 4096 x 4096 stored transposed, M = 1, 16,
                        64, 256, invar also over W prepacked; and the decode step M = 1 with W
                        row-major 4096 x 4096 and 4096 x 16384), tall (64x64x65536,
                        4096x4096x64, 4096x32x1024 in f32 and f64), f64 (squares 512, 1024,
                        2048), bf16 (bf16 A and B, f32 C: squares 1024, 2048), int8 (uint8 A,
                        int8 B, int32 C, in GOP/s: squares 1024, 2048, and M = 1 and 64 over
                        a 4096 x 4096 B, invar also over B prepacked), blas (the CBLAS
                        routines beyond GEMM, libinvar_blas against the peers: sgemv/dgemv
                        over 4096 x 4096 and 16384 x 4096 matrices, both transposes; the upper
                        triangle of ssyrk/dsyrk at 2048 and 4096); default all
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

// Strips a "bt:", "f64:", "bf16:" or "u8s8:" prefix from *s and returns the kind it names.
Kind take_kind(std::string* s, const char* what) {
  const auto colon = s->find(':');
  if (colon == std::string::npos) return Kind::kF32;
  const std::string name = s->substr(0, colon);
  *s = s->substr(colon + 1);
  if (name == "bt") return Kind::kF32Bt;
  if (name == "f64") return Kind::kF64;
  if (name == "bf16") return Kind::kBf16;
  if (name == "u8s8") return Kind::kU8S8;
  for (Kind k :
       {Kind::kSgemv, Kind::kSgemvT, Kind::kDgemv, Kind::kDgemvT, Kind::kSsyrk, Kind::kDsyrk})
    if (name == kind_name(k)) return k;
  fail(std::string(what) + ": unknown kind '" + name +
       "' (bt, f64, bf16, u8s8, sgemv, sgemv-t, dgemv, dgemv-t, ssyrk, dsyrk)");
}

Shape parse_shape(std::string s) {
  const Kind kind = take_kind(&s, "--shapes");
  const auto dims = split(s, 'x');
  if (dims.size() != 3) fail("--shapes: '" + s + "' is not MxNxK");
  return Shape{to_int(dims[0], "--shapes"), to_int(dims[1], "--shapes"),
               to_int(dims[2], "--shapes"), false, kind};
}

constexpr const char* kGroups[] = {"small", "squares", "inference", "tall",
                                   "f64",   "bf16",    "int8",      "blas"};

}  // namespace

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kF32: return "f32";
    case Kind::kF32Bt: return "f32-bt";
    case Kind::kF64: return "f64";
    case Kind::kBf16: return "bf16";
    case Kind::kU8S8: return "u8s8";
    case Kind::kSgemv: return "sgemv";
    case Kind::kSgemvT: return "sgemv-t";
    case Kind::kDgemv: return "dgemv";
    case Kind::kDgemvT: return "dgemv-t";
    case Kind::kSsyrk: return "ssyrk";
    case Kind::kDsyrk: return "dsyrk";
  }
  return "?";
}

std::string Shape::label() const {
  const std::string dims =
      m == n && n == k ? std::to_string(m) + "^3"
                       : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  switch (kind) {
    case Kind::kF32: return dims;
    case Kind::kF32Bt: return dims + " B^T";
    case Kind::kF64: return "f64 " + dims;
    case Kind::kBf16: return "bf16 " + dims;
    case Kind::kU8S8: return "u8s8 " + dims;
    // The matrix as stored: rows x columns.
    case Kind::kSgemv:
    case Kind::kDgemv:
      return std::string(kind_name(kind)) + " " + std::to_string(n) + "x" + std::to_string(k);
    case Kind::kSgemvT:
    case Kind::kDgemvT:
      return std::string(kind_name(kind)) + " " + std::to_string(k) + "x" + std::to_string(n);
    case Kind::kSsyrk:
    case Kind::kDsyrk:
      return std::string(kind_name(kind)) + " " + std::to_string(n) + "x" + std::to_string(k);
  }
  return dims;
}

Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<Shape> sizes, shapes, small;
  bool small_set = false;
  std::vector<std::string> groups;  // empty: all
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
      for (auto s : split(next(), ',')) {
        const Kind kind = take_kind(&s, "--sizes");
        const int64_t n = to_int(s, "--sizes");
        sizes.push_back(Shape{n, n, n, false, kind});
      }
    } else if (arg == "--small-sizes") {
      for (int64_t n : parse_list(next(), "--small-sizes")) small.push_back(Shape{n, n, n, true});
      small_set = true;
    } else if (arg == "--shapes") {
      for (const auto& s : split(next(), ',')) shapes.push_back(parse_shape(s));
    } else if (arg == "--groups") {
      groups = split(next(), ',');
      for (const auto& g : groups)
        if (std::find(std::begin(kGroups), std::end(kGroups), g) == std::end(kGroups))
          fail("--groups: unknown group '" + g + "'");
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
  auto group = [&](const char* name) {
    return groups.empty() || std::find(groups.begin(), groups.end(), name) != groups.end();
  };
  if (defaults) {
    // Small squares first: a few calls per microsecond, where call overhead is the cost.
    if (group("small"))
      for (int64_t n :
           o.quick ? std::vector<int64_t>{8, 32} : std::vector<int64_t>{4, 8, 16, 32, 64})
        small.push_back(Shape{n, n, n, true});
    // Squares: powers of two and odd sizes between them (no tile or vector width divides 1531).
    if (group("squares"))
      for (int64_t n : o.quick ? std::vector<int64_t>{256, 1000, 2048}
                               : std::vector<int64_t>{128, 256, 512, 1000, 1024, 1531, 2048, 4096})
        sizes.push_back(Shape{n, n, n});
    if (group("inference")) {
      // Inference against a 4096 x 4096 weight (64 MiB, beyond the last-level cache), stored as
      // a linear layer keeps it (N x K, used transposed: x * W^T): a decode step (1 row,
      // memory-bound), then 16, 64 and 256 rows, where each weight read is reused M times and
      // the product moves toward the compute roof.
      for (int64_t m : o.quick ? std::vector<int64_t>{1, 64} : std::vector<int64_t>{1, 16, 64, 256})
        shapes.push_back(Shape{m, 4096, 4096, false, Kind::kF32Bt});
      // The decode step with the weight row-major K x N (B as is).
      shapes.push_back(Shape{1, 4096, 4096});
      // One decode step against a 4096 x 16384 weight (256 MiB, far beyond the last-level
      // cache).
      if (!o.quick) shapes.push_back(Shape{1, 16384, 4096});
    }
    if (group("tall")) {
      // Tall-skinny: a long reduction into a small C (a Gram-type product, 64 x 65536 times
      // 65536 x 64), and a rank-64 update of a large C (each k-block of 64 is the whole K).
      if (!o.quick) shapes.push_back(Shape{64, 64, 65536});
      shapes.push_back(Shape{4096, 4096, 64});
      // Many rows through a narrow layer: 4096 rows times a 1024 x 32 weight (128 KiB, in L2),
      // in f32 and f64.
      if (!o.quick) {
        shapes.push_back(Shape{4096, 32, 1024});
        shapes.push_back(Shape{4096, 32, 1024, false, Kind::kF64});
      }
    }
    // f64 squares; bf16 inputs at sizes the f32 squares also run (their rates are compared).
    if (group("f64"))
      for (int64_t n : o.quick ? std::vector<int64_t>{1024} : std::vector<int64_t>{512, 1024, 2048})
        shapes.push_back(Shape{n, n, n, false, Kind::kF64});
    if (group("bf16"))
      for (int64_t n : o.quick ? std::vector<int64_t>{2048} : std::vector<int64_t>{1024, 2048})
        shapes.push_back(Shape{n, n, n, false, Kind::kBf16});
    // uint8 x int8 -> int32 at the same sizes (the int8 table sets them beside f32 too), and
    // a quantized layer's decode step and a batch of 64 rows over a 4096 x 4096 int8 weight
    // (invar also over the weight prepacked).
    if (group("int8")) {
      for (int64_t n : o.quick ? std::vector<int64_t>{2048} : std::vector<int64_t>{1024, 2048})
        shapes.push_back(Shape{n, n, n, false, Kind::kU8S8});
      for (int64_t m : o.quick ? std::vector<int64_t>{1} : std::vector<int64_t>{1, 64})
        shapes.push_back(Shape{m, 4096, 4096, false, Kind::kU8S8});
    }
    // The BLAS routines beyond GEMM: gemv over a 4096 x 4096 and a 16384 x 4096 matrix (64 and
    // 256 MiB in f32: memory-bound), both transposes, f32 and f64; syrk of a square A.
    if (group("blas")) {
      for (Kind kind : {Kind::kSgemv, Kind::kSgemvT, Kind::kDgemv, Kind::kDgemvT}) {
        const bool t = kind == Kind::kSgemvT || kind == Kind::kDgemvT;
        for (int64_t rows :
             o.quick ? std::vector<int64_t>{4096} : std::vector<int64_t>{4096, 16384})
          shapes.push_back(t ? Shape{1, 4096, rows, false, kind}
                             : Shape{1, rows, 4096, false, kind});
      }
      for (Kind kind : {Kind::kSsyrk, Kind::kDsyrk})
        for (int64_t n : o.quick ? std::vector<int64_t>{2048} : std::vector<int64_t>{2048, 4096})
          shapes.push_back(Shape{n, n, n, false, kind});
    }
  }
  o.shapes = small;
  o.shapes.insert(o.shapes.end(), sizes.begin(), sizes.end());
  o.shapes.insert(o.shapes.end(), shapes.begin(), shapes.end());
  return o;
}

}  // namespace invar_bench

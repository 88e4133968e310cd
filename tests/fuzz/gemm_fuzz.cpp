// libFuzzer target over the argument space of every C entry point of invar.h and of the GEMM,
// GEMV and DOT entry points of libinvar_blas (Fortran and CBLAS).
//
// Each input (format: fuzz_input.h) names one entry point, the caller's MXCSR (rounding mode,
// FTZ, DAZ, sticky flags), a thread count and every argument: extents near the int64 limits,
// leading dimensions and batch strides, NULLs, enum values no enumerator has, packed handles of
// the wrong kind or none at all, and the operands' data. The target then checks:
//   - a call the contract says is invalid returns INVAR_EINVAL (the BLAS ones report through
//     xerbla_ / cblas_xerbla), names its function once, and leaves every C untouched;
//   - a call that succeeds wrote exactly the bits of the scalar chain below (computed in the
//     contract's mode, before the call), and nothing outside C;
//   - a call whose extents describe more memory than an address can span (2^63 bytes and more)
//     never succeeds: real buffers are allocated only for small extents, so accepting such a
//     call would read or write outside them;
//   - MXCSR after every call equals the one set before it, flags included.
// Extents that describe memory between a few MiB and 2^63 bytes are skipped: the library may
// rightly accept them, and they cannot be allocated here.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "blas/blas_abi.h"
#include "fuzz/fuzz_input.h"
#include "invar/invar.h"

namespace {

using invar::fuzz::Reader;
using i128 = __int128;

constexpr uint32_t kCleanMxcsr = 0x1F80;  // round to nearest, no FTZ/DAZ, all masked, no flags
constexpr i128 kAllocLimitBytes = i128{8} << 20;
constexpr i128 kImpossibleBytes = i128{1} << 63;  // no pointer difference spans this

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "gemm_fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// ---- element types -------------------------------------------------------------------------

float widen(invar_bf16 x) {
  const uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;  // a NaN stays a NaN; only its quiet bit may differ from the library's
}
__attribute__((target("f16c"))) float widen(invar_f16 x) { return _cvtsh_ss(x.bits); }
float widen(float x) { return x; }
double widen(double x) { return x; }
int32_t widen(int8_t x) { return x; }
int32_t widen(uint8_t x) { return x; }
int32_t widen(int32_t x) { return x; }

__attribute__((target("f16c"))) uint16_t f16_round(float x) {
  return static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}

template <class Out>
Out narrow(float x) {
  if constexpr (std::is_same_v<Out, invar_bf16>) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if (std::isnan(x)) return invar_bf16{static_cast<uint16_t>((u >> 16) | 0x40)};
    return invar_bf16{static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16)};
  } else if constexpr (std::is_same_v<Out, invar_f16>) {
    return invar_f16{f16_round(x)};
  } else {
    return x;
  }
}

// Equal bits, except that any NaN equals any NaN (payloads of NaN results are not part of the
// contract).
template <class T>
bool same(const T& x, const T& y) {
  if (std::memcmp(&x, &y, sizeof(T)) == 0) return true;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return std::isnan(x) && std::isnan(y);
  } else if constexpr (std::is_same_v<T, invar_bf16> || std::is_same_v<T, invar_f16>) {
    return std::isnan(widen(x)) && std::isnan(widen(y));
  } else {
    return false;
  }
}

template <class T>
int64_t first_difference(const std::vector<T>& x, const std::vector<T>& y) {
  if (x.size() != y.size()) return 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!same(x[i], y[i])) return static_cast<int64_t>(i);
  return -1;
}

// Deterministic operand data of one kind (fuzz_input.h).
uint64_t mix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class T>
void fill(std::vector<T>& v, uint8_t kind, uint8_t seed) {
  uint64_t s = seed * 0x1000193ull + kind;
  for (T& x : v) {
    const uint64_t r = mix(s);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      switch (kind % 4) {
        case 0: x = static_cast<T>(static_cast<int32_t>(r >> 40) - (1 << 23)) / T(1 << 23); break;
        case 1: x = static_cast<T>(invar::fuzz::kScalars[r % 24]); break;
        case 2: std::memcpy(&x, &r, sizeof(T)); break;
        default: x = T(0x1p60); break;
      }
    } else if constexpr (std::is_same_v<T, invar_bf16>) {
      switch (kind % 4) {
        case 0: x.bits = static_cast<uint16_t>((r & 0x807F) | ((120 + (r >> 16) % 12) << 7)); break;
        case 1:
          x.bits = static_cast<uint16_t>((r & 0x807F) | ((r >> 20) % 3 == 0 ? 0 : 0x0080));
          break;
        case 2: x.bits = static_cast<uint16_t>(r); break;
        default: x.bits = 0x5D80; break;  // 2^60
      }
    } else if constexpr (std::is_same_v<T, invar_f16>) {
      switch (kind % 4) {
        case 0: x.bits = static_cast<uint16_t>((r & 0x83FF) | ((10 + (r >> 16) % 10) << 10)); break;
        case 1:
          x.bits = static_cast<uint16_t>((r & 0x83FF) | ((r >> 20) % 3 == 0 ? 0 : 0x0400));
          break;
        case 2: x.bits = static_cast<uint16_t>(r); break;
        default: x.bits = 0x7BFF; break;  // 65504
      }
    } else {  // int8_t, uint8_t, int32_t
      switch (kind % 4) {
        case 0:
        case 2: x = static_cast<T>(r); break;
        case 1: x = static_cast<T>(static_cast<int64_t>(r % 7) - 3); break;
        default:
          x = std::is_signed_v<T> ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
          break;
      }
    }
  }
}

// ---- the scalar chain ----------------------------------------------------------------------

// Element (i, j) of op(X) is x[i * rs + j * cs].
struct Layout {
  int64_t rs, cs;
};

// C <- alpha * op(A) * op(B) + beta * C, then the epilogue (bias 1: by row, 2: by column;
// activation 1: relu; 2 and 3 are checked against the library in the contract's mode instead).
template <class In, class InB, class Out, class Acc>
void reference(int64_t m, int64_t n, int64_t k, Acc alpha, const In* a, Layout la, const InB* b,
               Layout lb, Acc beta, Out* c, Layout lc, int bias = 0,
               const Acc* bias_values = nullptr, int activation = 0) {
  const bool epilogue = bias != 0 || activation != 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Out& cij = c[i * lc.rs + j * lc.cs];
      Acc acc;
      if constexpr (std::is_integral_v<Acc>) {
        uint32_t sum = 0;
        if (alpha != 0)
          for (int64_t p = 0; p < k; ++p)
            sum += static_cast<uint32_t>(widen(a[i * la.rs + p * la.cs])) *
                   static_cast<uint32_t>(widen(b[p * lb.rs + j * lb.cs]));
        if ((k == 0 || alpha == 0) && beta == 1) continue;
        const uint32_t scaled =
            beta == 0 ? 0u : static_cast<uint32_t>(beta) * static_cast<uint32_t>(cij);
        acc = static_cast<Acc>(static_cast<uint32_t>(alpha) * sum + scaled);
      } else {
        if (k == 0 || alpha == Acc(0)) {
          if (beta == Acc(1) && !epilogue) continue;
          acc = beta == Acc(0) ? Acc(0) : beta == Acc(1) ? widen(cij) : beta * widen(cij);
        } else {
          acc = beta == Acc(0) ? Acc(0) : beta * widen(cij);
          for (int64_t p = 0; p < k; ++p)
            acc = std::fma(alpha * widen(a[i * la.rs + p * la.cs]), widen(b[p * lb.rs + j * lb.cs]),
                           acc);
        }
        if (bias == 1) acc = acc + bias_values[i];
        if (bias == 2) acc = acc + bias_values[j];
        if (activation == 1) acc = acc < Acc(0) ? Acc(0) : acc;
      }
      if constexpr (std::is_same_v<Out, Acc>)
        cij = acc;
      else
        cij = narrow<Out>(acc);
    }
  }
}

// ---- the caller's floating-point environment -------------------------------------------------

uint32_t g_mode = kCleanMxcsr;
const char* g_entry = "";

// Runs one library call in the caller's mode and checks that the mode comes back unchanged.
template <class F>
auto in_mode(const char* what, F&& f) {
  _mm_setcsr(g_mode);
  auto r = f();
  const uint32_t after = _mm_getcsr();
  _mm_setcsr(kCleanMxcsr);
  if (after != g_mode) {
    char text[160];
    std::snprintf(text, sizeof text, "%s (%s): MXCSR 0x%04x before the call, 0x%04x after", what,
                  g_entry, g_mode, after);
    fail(text);
  }
  return r;
}

// ---- BLAS error handlers: record instead of exiting ------------------------------------------

int g_blas_info = 0;

}  // namespace

extern "C" void xerbla_(const char*, const int* info, std::size_t) {
  g_blas_info = info != nullptr ? *info : -1;
}
extern "C" void cblas_xerbla(int info, const char*, const char*, ...) {
  g_blas_info = info != 0 ? info : -1;
}

extern "C" {
void sgemv_(const char*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void dgemv_(const char*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
float sdot_(const int*, const float*, const int*, const float*, const int*);
double ddot_(const int*, const double*, const int*, const double*, const int*);
void cblas_sgemv(int, int, int, int, float, const float*, int, const float*, int, float, float*,
                 int);
void cblas_dgemv(int, int, int, int, double, const double*, int, const double*, int, double,
                 double*, int);
float cblas_sdot(int, const float*, int, const float*, int);
double cblas_ddot(int, const double*, int, const double*, int);
}

namespace {

// ---- operand memory --------------------------------------------------------------------------

enum class Zone { kSmall, kUnaffordable, kImpossible };

i128 span(int64_t rows, int64_t cols, int64_t ld) {
  if (rows <= 0 || cols <= 0) return 0;
  return i128{rows - 1} * ld + cols;
}

// One operand: `count` matrices of `one` elements each, `stride` apart (strided batch), or in
// separate allocations (pointer batch).
template <class T>
struct Operand {
  std::vector<std::vector<T>> parts;  // one buffer, or one per pointer-batch entry
  std::vector<T*> pointers;           // the matrices
  Zone zone = Zone::kSmall;

  void plan(i128 one, i128 stride, int64_t count, bool separate, uint8_t kind, uint8_t seed) {
    const int64_t cnt = count < 0 ? 0 : count;
    // Spans reach about 2^127 (two extents near 2^63); nothing beyond 2^100 needs telling apart.
    const i128 cap = i128{1} << 100;
    i128 lo = 0, hi = 0;
    if (one < 0) one = 0;
    if (one > cap) one = cap;
    if (cnt > 0) {
      const i128 last = separate ? 0 : i128{cnt - 1} * stride;
      lo = last < 0 ? last : 0;
      hi = (last > 0 ? last : 0) + one;
    }
    i128 total = hi - lo;
    if (separate) total = one * (cnt > 0 ? (cnt < (1 << 20) ? cnt : (1 << 20)) : 1);
    const i128 bytes = total > cap ? cap : total * static_cast<i128>(sizeof(T));
    zone = bytes >= kImpossibleBytes  ? Zone::kImpossible
           : bytes > kAllocLimitBytes ? Zone::kUnaffordable
                                      : Zone::kSmall;
    const int64_t list = cnt > 64 ? 64 : cnt;
    if (zone != Zone::kSmall) {
      parts.assign(1, std::vector<T>(64));
      fill(parts[0], kind, seed);
      pointers.assign(list > 0 ? list : 1, parts[0].data());
      return;
    }
    if (separate) {
      parts.resize(list > 0 ? list : 1);
      pointers.clear();
      for (auto& p : parts) {
        p.resize(static_cast<std::size_t>(one > 0 ? one : 1));
        fill(p, kind, static_cast<uint8_t>(seed + pointers.size()));
        pointers.push_back(p.data());
      }
      return;
    }
    parts.assign(1, std::vector<T>(static_cast<std::size_t>(total > 0 ? total : 1)));
    fill(parts[0], kind, seed);
    pointers.assign(1, parts[0].data() + static_cast<std::ptrdiff_t>(-lo));
  }
  T* base() { return pointers[0]; }
};

// ---- the arguments of one call ---------------------------------------------------------------

struct Args {
  int entry = 0;
  int threads = 1;
  int ta = 0, tb = 0;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0, sa = 0, sb = 0, sc = 0, batch = 0;
  double alpha = 0, beta = 0;
  int32_t ialpha = 0, ibeta = 0;
  int bias = 0, activation = 0;
  uint8_t nulls = 0, handle = 0;
  uint8_t kind[3] = {}, seed[3] = {};
};

int64_t sat_add(int64_t x, int64_t y) {
  int64_t r;
  return __builtin_add_overflow(x, y, &r) ? (x > 0 ? invar::fuzz::kI64Max : invar::fuzz::kI64Min)
                                          : r;
}
int64_t clamp64(i128 v) {
  if (v > invar::fuzz::kI64Max) return invar::fuzz::kI64Max;
  if (v < invar::fuzz::kI64Min) return invar::fuzz::kI64Min;
  return static_cast<int64_t>(v);
}

enum Family { kF32, kF64, kBf16F32, kBf16Bf16, kF16F32, kF16F16, kS8, kU8 };
enum Variant {
  kPlain,
  kEpilogue,
  kStrided,
  kPointers,
  kPackedB,
  kPackedA,
  kPackedAB,
  kPackedEpilogue,
  kTriangle,  // invar_sgemmt / invar_dgemmt: m is n, uplo from the handle byte
  kFortran,
  kCblas,
  kFortranGemv,
  kCblasGemv,
  kFortranDot,
  kCblasDot
};
struct Entry {
  Family family;
  Variant variant;
};
constexpr Entry kEntries[] = {
    {kF32, kPlain},          {kF64, kPlain},          {kF32, kEpilogue},    {kF64, kEpilogue},
    {kF32, kStrided},        {kF64, kStrided},        {kF32, kPointers},    {kF64, kPointers},
    {kBf16F32, kPlain},      {kBf16Bf16, kPlain},     {kF16F32, kPlain},    {kF16F16, kPlain},
    {kS8, kPlain},           {kU8, kPlain},           {kBf16F32, kStrided}, {kBf16Bf16, kStrided},
    {kF16F32, kStrided},     {kF16F16, kStrided},     {kS8, kStrided},      {kU8, kStrided},
    {kBf16F32, kPointers},   {kBf16Bf16, kPointers},  {kF16F32, kPointers}, {kF16F16, kPointers},
    {kS8, kPointers},        {kU8, kPointers},        {kF32, kPackedB},     {kF64, kPackedB},
    {kF32, kPackedA},        {kF64, kPackedA},        {kF32, kPackedAB},    {kF64, kPackedAB},
    {kF32, kPackedEpilogue}, {kF64, kPackedEpilogue}, {kS8, kPackedB},      {kU8, kPackedB},
    {kF32, kFortran},        {kF64, kFortran},        {kF32, kCblas},       {kF64, kCblas},
    {kF32, kFortranGemv},    {kF64, kFortranGemv},    {kF32, kCblasGemv},   {kF64, kCblasGemv},
    {kF32, kFortranDot},     {kF64, kFortranDot},     {kF32, kCblasDot},    {kF64, kCblasDot},
    {kF32, kTriangle},       {kF64, kTriangle},
};
constexpr int kEntryCount = sizeof(kEntries) / sizeof(kEntries[0]);

// ---- the entry points, by family -------------------------------------------------------------

using T_ = invar_trans;
using B_ = invar_bias;
using A_ = invar_activation;
inline T_ tr(int v) {
  T_ t;
  std::memcpy(&t, &v, sizeof t);  // any int, as a C caller may pass
  return t;
}

#define INVAR_FUZZ_CALLS(Prefix, StridedName, PtrName)                                             \
  static invar_status plain(int ta, int tb, int64_t m, int64_t n, int64_t k, Acc al, const In* a,  \
                            int64_t lda, const InB* b, int64_t ldb, Acc be, Out* c, int64_t ldc) { \
    return Prefix(tr(ta), tr(tb), m, n, k, al, a, lda, b, ldb, be, c, ldc);                        \
  }                                                                                                \
  static invar_status strided(int ta, int tb, int64_t m, int64_t n, int64_t k, Acc al,             \
                              const In* a, int64_t lda, int64_t sa, const InB* b, int64_t ldb,     \
                              int64_t sb, Acc be, Out* c, int64_t ldc, int64_t sc, int64_t bt) {   \
    return StridedName(tr(ta), tr(tb), m, n, k, al, a, lda, sa, b, ldb, sb, be, c, ldc, sc, bt);   \
  }                                                                                                \
  static invar_status pointers(int ta, int tb, int64_t m, int64_t n, int64_t k, Acc al,            \
                               const In* const* a, int64_t lda, const InB* const* b, int64_t ldb,  \
                               Acc be, Out* const* c, int64_t ldc, int64_t bt) {                   \
    return PtrName(tr(ta), tr(tb), m, n, k, al, a, lda, b, ldb, be, c, ldc, bt);                   \
  }

struct F32 {
  using In = float;
  using InB = float;
  using Out = float;
  using Acc = float;
  static constexpr const char* kName[] = {"invar_sgemm", "invar_sgemm_epilogue",
                                          "invar_sgemm_batch_strided", "invar_sgemm_batch"};
  INVAR_FUZZ_CALLS(invar_sgemm, invar_sgemm_batch_strided, invar_sgemm_batch)
};
struct F64 {
  using In = double;
  using InB = double;
  using Out = double;
  using Acc = double;
  static constexpr const char* kName[] = {"invar_dgemm", "invar_dgemm_epilogue",
                                          "invar_dgemm_batch_strided", "invar_dgemm_batch"};
  INVAR_FUZZ_CALLS(invar_dgemm, invar_dgemm_batch_strided, invar_dgemm_batch)
};
struct Bf16F32 {
  using In = invar_bf16;
  using InB = invar_bf16;
  using Out = float;
  using Acc = float;
  static constexpr const char* kName[] = {"invar_gemm_bf16bf16f32", "",
                                          "invar_gemm_bf16bf16f32_batch_strided",
                                          "invar_gemm_bf16bf16f32_batch"};
  INVAR_FUZZ_CALLS(invar_gemm_bf16bf16f32, invar_gemm_bf16bf16f32_batch_strided,
                   invar_gemm_bf16bf16f32_batch)
};
struct Bf16Bf16 {
  using In = invar_bf16;
  using InB = invar_bf16;
  using Out = invar_bf16;
  using Acc = float;
  static constexpr const char* kName[] = {"invar_gemm_bf16bf16bf16", "",
                                          "invar_gemm_bf16bf16bf16_batch_strided",
                                          "invar_gemm_bf16bf16bf16_batch"};
  INVAR_FUZZ_CALLS(invar_gemm_bf16bf16bf16, invar_gemm_bf16bf16bf16_batch_strided,
                   invar_gemm_bf16bf16bf16_batch)
};
struct F16F32 {
  using In = invar_f16;
  using InB = invar_f16;
  using Out = float;
  using Acc = float;
  static constexpr const char* kName[] = {"invar_gemm_f16f16f32", "",
                                          "invar_gemm_f16f16f32_batch_strided",
                                          "invar_gemm_f16f16f32_batch"};
  INVAR_FUZZ_CALLS(invar_gemm_f16f16f32, invar_gemm_f16f16f32_batch_strided,
                   invar_gemm_f16f16f32_batch)
};
struct F16F16 {
  using In = invar_f16;
  using InB = invar_f16;
  using Out = invar_f16;
  using Acc = float;
  static constexpr const char* kName[] = {"invar_gemm_f16f16f16", "",
                                          "invar_gemm_f16f16f16_batch_strided",
                                          "invar_gemm_f16f16f16_batch"};
  INVAR_FUZZ_CALLS(invar_gemm_f16f16f16, invar_gemm_f16f16f16_batch_strided,
                   invar_gemm_f16f16f16_batch)
};
struct S8 {
  using In = int8_t;
  using InB = int8_t;
  using Out = int32_t;
  using Acc = int32_t;
  static constexpr const char* kName[] = {
      "invar_gemm_s8s8s32", "", "invar_gemm_s8s8s32_batch_strided", "invar_gemm_s8s8s32_batch"};
  INVAR_FUZZ_CALLS(invar_gemm_s8s8s32, invar_gemm_s8s8s32_batch_strided, invar_gemm_s8s8s32_batch)
};
struct U8 {
  using In = uint8_t;
  using InB = int8_t;
  using Out = int32_t;
  using Acc = int32_t;
  static constexpr const char* kName[] = {
      "invar_gemm_u8s8s32", "", "invar_gemm_u8s8s32_batch_strided", "invar_gemm_u8s8s32_batch"};
  INVAR_FUZZ_CALLS(invar_gemm_u8s8s32, invar_gemm_u8s8s32_batch_strided, invar_gemm_u8s8s32_batch)
};
#undef INVAR_FUZZ_CALLS

// The last error after a failed call: names the function once, at the start, and never says
// "packed in X, not in X".
void check_message(const char* function, invar_status status,
                   const std::string& msg = invar_last_error()) {
  if (status == INVAR_OK) {
    if (!msg.empty())
      fail(std::string(function) + " succeeded but left the message \"" + msg + "\"");
    return;
  }
  const std::string prefix = std::string(function) + ": ";
  if (msg.rfind(prefix, 0) != 0)
    fail(std::string(function) + " failed with \"" + msg + "\", which does not start with \"" +
         prefix + "\"");
  if (msg.find(prefix, prefix.size()) != std::string::npos)
    fail(std::string(function) + ": the function is named twice in \"" + msg + "\"");
  const std::size_t at = msg.find("packed in ");
  if (at != std::string::npos) {
    const std::size_t word = at + 10, end = msg.find(',', word);
    const std::size_t other = msg.find(", not in ", word);
    if (end != std::string::npos && other == end &&
        msg.compare(other + 9, end - word, msg, word, end - word) == 0)
      fail(std::string(function) + ": the message does not tell the types apart: \"" + msg + "\"");
  }
}

// What the contract says of a call: it must fail, it must succeed, or either is fine.
struct Expect {
  bool must_fail = false;
  bool must_succeed = true;
  std::string why;  // of must_fail
  void invalid(const std::string& w) {
    if (!must_fail) why = w;
    must_fail = true;
    must_succeed = false;
  }
  void either() { must_succeed = false; }
};

// ---- the C API -------------------------------------------------------------------------------

template <class F>
void run_c_api(const Args& g, Variant variant) {
  using In = typename F::In;
  using InB = typename F::InB;
  using Out = typename F::Out;
  using Acc = typename F::Acc;
  constexpr bool is_int = std::is_integral_v<Acc>;
  const Acc alpha = is_int ? static_cast<Acc>(g.ialpha) : static_cast<Acc>(g.alpha);
  const Acc beta = is_int ? static_cast<Acc>(g.ibeta) : static_cast<Acc>(g.beta);
  const bool batched = variant == kStrided || variant == kPointers;
  const bool pointers = variant == kPointers;
  const bool packed = variant == kPackedB || variant == kPackedA || variant == kPackedAB ||
                      variant == kPackedEpilogue;
  const bool has_epilogue = variant == kEpilogue || variant == kPackedEpilogue;
  const int bias = has_epilogue ? g.bias : 0, activation = has_epilogue ? g.activation : 0;
  // A product of one triangle: C is n x n; uplo 0 (upper), 1 (lower) or 2 (neither).
  const bool triangle = variant == kTriangle;
  const int uplo = g.handle % 3;
  const int64_t m = triangle ? g.n : g.m, n = g.n, k = g.k;
  const int64_t count = batched ? g.batch : 1;
  // A pointer batch takes its NULLs in one entry (bit 4: of A, B or else C) or in the arrays.
  const bool null_entry = pointers && (g.nulls & 16);
  const bool null_array = pointers && (g.nulls & 32);
  const bool null_a = pointers ? null_entry && (g.nulls & 1) : (g.nulls & 1) != 0;
  const bool null_b = pointers ? null_entry && (g.nulls & 2) : (g.nulls & 2) != 0;
  const bool null_c = pointers ? null_entry && !(g.nulls & 3) : (g.nulls & 4) != 0;
  const bool null_bias = g.nulls & 8;

  Expect e;
  const bool ta_ok = g.ta == 0 || g.ta == 1, tb_ok = g.tb == 0 || g.tb == 1;
  if (batched && count < 0) e.invalid("batch");
  // A batch of no products validates no entry: its shared arguments may be refused or not.
  const bool no_entries = batched && count == 0;
  if (!no_entries) {
    if (!ta_ok) e.invalid("ta");
    if (!tb_ok) e.invalid("tb");
    if (m < 0) e.invalid("m");
    if (n < 0) e.invalid("n");
    if (k < 0) e.invalid("k");
  } else {
    e.either();
  }
  if (triangle && uplo == 2) e.invalid("uplo");
  if (has_epilogue && (bias < 0 || bias > 2)) e.invalid("bias");
  if (has_epilogue && (activation < 0 || activation > 3)) e.invalid("activation");
  const bool ta1 = g.ta == 1, tb1 = g.tb == 1;
  const int64_t a_rows = ta1 ? k : m, a_cols = ta1 ? m : k;
  const int64_t b_rows = tb1 ? n : k, b_cols = tb1 ? k : n;
  const bool touches = m > 0 && n > 0 && count > 0;
  const bool reads_ab = touches && k > 0 && !(alpha == Acc(0));
  const bool writes_c = touches && !(beta == Acc(1) && !reads_ab && bias == 0 && activation == 0);
  // Packing reads its operand whatever M (B) or N (A) the product has.
  const bool packs_a = variant == kPackedA || variant == kPackedAB;
  const bool packs_b = variant == kPackedB || variant == kPackedAB || variant == kPackedEpilogue;
  // Packing A reads it whatever alpha is (the handle holds alpha * op(A)).
  const bool reads_a = packs_a ? (m > 0 && k > 0) : reads_ab;
  const bool reads_b = packs_b ? (k > 0 && n > 0) : reads_ab;
  if (touches || packs_a || packs_b) {
    if (touches && g.ldc < n) e.invalid("ldc");
    if (k > 0 && (touches || packs_a) && m > 0 && g.lda < a_cols) e.invalid("lda");
    if (k > 0 && (touches || packs_b) && n > 0 && g.ldb < b_cols) e.invalid("ldb");
    if (reads_a && !(packs_a && alpha == Acc(0)) && (null_a || null_array)) e.invalid("a NULL");
    if (reads_b && (null_b || null_array)) e.invalid("b NULL");
    if (touches && (null_c || null_array)) e.invalid("c NULL");
    if (touches && bias != 0 && null_bias) e.invalid("bias values NULL");
  }
  if (pointers && count > 0 && null_array) e.invalid("pointer array NULL");
  const i128 a_one = span(a_rows, a_cols, g.lda), b_one = span(b_rows, b_cols, g.ldb);
  const i128 c_one = span(m, n, g.ldc);
  if (variant == kStrided && count > 1 && c_one > 0) {
    const i128 sc = g.sc < 0 ? -i128{g.sc} : i128{g.sc};
    if (sc < c_one) e.invalid("stride_c overlaps");
  }
  const int handle = packed ? g.handle % 6 : 0;
  if (handle >= 1 && handle <= 4) e.invalid("handle");
  if (handle == 5 && variant == kPackedAB && k >= 0) e.invalid("a's K is not b's");
  // Anything unusual that the contract does not settle either way.
  if (g.nulls != 0 || g.lda < 1 || g.ldb < 1 || g.ldc < 1) e.either();
  if (pointers && count > 64 && !e.must_fail) return;  // more than the arrays hold
  if (alpha == Acc(0) && packs_a) e.either();

  // Memory: small extents get exact buffers, impossible ones a token buffer.
  Operand<In> A;
  Operand<InB> B;
  Operand<Out> C;
  Operand<Acc> Bias;
  A.plan(a_one, g.sa, count, pointers, g.kind[0], g.seed[0]);
  B.plan(b_one, g.sb, count, pointers, g.kind[1], g.seed[1]);
  C.plan(c_one, g.sc, count, pointers, g.kind[2], g.seed[2]);
  Bias.plan(bias == 1 ? m : bias == 2 ? n : 1, 0, 1, false, 1, 7);
  struct Use {
    Zone zone;
    bool used;
    const char* name;
  };
  for (const Use& u : {Use{A.zone, reads_a, "a"}, Use{B.zone, reads_b, "b"},
                       Use{C.zone, writes_c, "c"}, Use{Bias.zone, touches && bias != 0, "bias"}}) {
    if (u.zone == Zone::kSmall) continue;
    if (u.zone == Zone::kImpossible && u.used)
      e.invalid(std::string(u.name) + " spans 2^63 bytes or more");
    else if (u.zone == Zone::kImpossible)
      e.either();
    else if (u.used && !e.must_fail)
      return;  // cannot be allocated, may rightly be accepted
    else
      e.either();
  }
  if (batched && count > 4096 && !e.must_fail) return;  // a long loop over empty products
  // This call's own operands are packed before the product validates its arguments: a pack of
  // one that may rightly be read, but does not exist here, is skipped whatever else is wrong.
  if ((handle == 0 || handle == 5) && ((packs_a && reads_a && A.zone == Zone::kUnaffordable) ||
                                       (packs_b && reads_b && B.zone == Zone::kUnaffordable)))
    return;
  // Packing allocates the panels of the whole operand, read or not (alpha == 0): skip sizes that
  // may rightly be packed but not here.
  auto panel_too_big = [&](int64_t r, int64_t c, std::size_t elem) {
    if (r <= 0 || c <= 0) return false;
    const i128 bytes = i128{r} * c * static_cast<i128>(elem);
    return bytes > kAllocLimitBytes && bytes < kImpossibleBytes;
  };
  if (!e.must_fail && ((packs_a && panel_too_big(m, k, sizeof(In))) ||
                       (packs_b && panel_too_big(k, n, sizeof(InB)))))
    return;

  // Expected C (computed in the contract's mode, before the call).
  std::vector<std::vector<Out>> before(C.parts), expected(C.parts);
  const Layout la = ta1 ? Layout{1, g.lda} : Layout{g.lda, 1};
  const Layout lb = tb1 ? Layout{1, g.ldb} : Layout{g.ldb, 1};
  const Layout lc{g.ldc, 1};
  const bool can_compute = !e.must_fail && A.zone == Zone::kSmall && B.zone == Zone::kSmall &&
                           C.zone == Zone::kSmall && Bias.zone == Zone::kSmall;
  const bool differential = has_epilogue && (activation == 2 || activation == 3);
  if (can_compute && !differential) {
    for (int64_t i = 0; i < (touches ? count : 0); ++i) {
      const In* ai = pointers ? A.pointers[i] : A.base() + g.sa * i;
      const InB* bi = pointers ? B.pointers[i] : B.base() + g.sb * i;
      Out* ci;
      if (pointers)
        ci = expected[i].data();
      else
        ci = expected[0].data() + (C.base() - C.parts[0].data()) + g.sc * i;
      reference<In, InB, Out, Acc>(m, n, k, alpha, ai, la, bi, lb, beta, ci, lc, bias, Bias.base(),
                                   activation);
    }
    // Outside the triangle, C as it was.
    if (triangle && touches) {
      const int64_t c0 = C.base() - C.parts[0].data();
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          if (uplo == 0 ? i > j : i < j)
            expected[0][static_cast<std::size_t>(c0 + i * g.ldc + j)] =
                before[0][static_cast<std::size_t>(c0 + i * g.ldc + j)];
    }
  }

  // Handles for the packed entries.
  std::vector<invar_packed*> owned;
  static std::vector<uint8_t> not_a_handle(256);
  // side_a: pack A (else B) from this call's operands; other: a 2 x 2 handle of another kind
  // (1: the other side, 2: another element type) from small buffers of its own.
  constexpr bool fp_pack = std::is_same_v<In, float> || std::is_same_v<In, double>;
  auto keep = [&](const char* fn, invar_status s, invar_packed* h) -> invar_packed* {
    check_message(fn, s);
    if (s != INVAR_OK) return nullptr;
    owned.push_back(h);
    return h;
  };
  static float fsmall[4] = {1, 2, 3, 4};
  static double dsmall[4] = {1, 2, 3, 4};
  static int8_t ismall[4] = {1, 2, 3, 4};
  auto other_handle = [&](bool want_a, int how) -> invar_packed* {
    invar_packed* h = nullptr;
    constexpr bool dbl = std::is_same_v<In, double>;
    if constexpr (is_int) {
      if (how == 1) {  // a floating-point B where an int8 B belongs
        const invar_status s = in_mode(
            "invar_sgemm_pack_b", [&] { return invar_sgemm_pack_b(tr(0), 2, 2, fsmall, 2, &h); });
        return keep("invar_sgemm_pack_b", s, h);
      }
      // packed for the other A type
      const bool u8 = !std::is_same_v<In, uint8_t>;
      const char* fn = u8 ? "invar_gemm_u8s8s32_pack_b" : "invar_gemm_s8s8s32_pack_b";
      const invar_status s = in_mode(fn, [&] {
        return u8 ? invar_gemm_u8s8s32_pack_b(tr(0), 2, 2, ismall, 2, &h)
                  : invar_gemm_s8s8s32_pack_b(tr(0), 2, 2, ismall, 2, &h);
      });
      return keep(fn, s, h);
    } else if constexpr (fp_pack) {
      const bool side_a = how == 1 ? !want_a : want_a;
      const bool d = how == 2 ? !dbl : dbl;
      const char* fn = side_a ? (d ? "invar_dgemm_pack_a" : "invar_sgemm_pack_a")
                              : (d ? "invar_dgemm_pack_b" : "invar_sgemm_pack_b");
      const invar_status s = in_mode(fn, [&] {
        if (side_a)
          return d ? invar_dgemm_pack_a(tr(0), 2, 2, 1.0, dsmall, 2, &h)
                   : invar_sgemm_pack_a(tr(0), 2, 2, 1.0f, fsmall, 2, &h);
        return d ? invar_dgemm_pack_b(tr(0), 2, 2, dsmall, 2, &h)
                 : invar_sgemm_pack_b(tr(0), 2, 2, fsmall, 2, &h);
      });
      return keep(fn, s, h);
    }
    return nullptr;
  };
  auto own_handle = [&](bool side_a) -> invar_packed* {
    invar_packed* h = nullptr;
    const In* ap0 = null_a ? nullptr : A.base();
    const InB* bp0 = null_b ? nullptr : B.base();
    if constexpr (is_int) {
      const bool u8 = std::is_same_v<In, uint8_t>;
      const char* fn = u8 ? "invar_gemm_u8s8s32_pack_b" : "invar_gemm_s8s8s32_pack_b";
      const invar_status s = in_mode(fn, [&] {
        return u8 ? invar_gemm_u8s8s32_pack_b(tr(g.tb), k, n, bp0, g.ldb, &h)
                  : invar_gemm_s8s8s32_pack_b(tr(g.tb), k, n, bp0, g.ldb, &h);
      });
      return keep(fn, s, h);
    } else if constexpr (fp_pack) {
      constexpr bool d = std::is_same_v<In, double>;
      const char* fn = side_a ? (d ? "invar_dgemm_pack_a" : "invar_sgemm_pack_a")
                              : (d ? "invar_dgemm_pack_b" : "invar_sgemm_pack_b");
      const invar_status s = in_mode(fn, [&] {
        if constexpr (d) {
          return side_a ? invar_dgemm_pack_a(tr(g.ta), m, k, alpha, ap0, g.lda, &h)
                        : invar_dgemm_pack_b(tr(g.tb), k, n, bp0, g.ldb, &h);
        } else {
          return side_a ? invar_sgemm_pack_a(tr(g.ta), m, k, alpha, ap0, g.lda, &h)
                        : invar_sgemm_pack_b(tr(g.tb), k, n, bp0, g.ldb, &h);
        }
      });
      return keep(fn, s, h);
    }
    return nullptr;
  };
  // A B handle whose K is not this call's (for packed_ab): K = k + 1, N = 1, from its own buffer.
  std::vector<In> other_k;
  auto wrong_k_handle = [&]() -> invar_packed* {
    invar_packed* h = nullptr;
    if constexpr (fp_pack) {
      if (k < 0 || k > 4096) return nullptr;
      other_k.assign(static_cast<std::size_t>(k + 1), In(1));
      constexpr bool d = std::is_same_v<In, double>;
      const char* fn = d ? "invar_dgemm_pack_b" : "invar_sgemm_pack_b";
      const invar_status s = in_mode(fn, [&] {
        if constexpr (d)
          return invar_dgemm_pack_b(tr(0), k + 1, 1, other_k.data(), 1, &h);
        else
          return invar_sgemm_pack_b(tr(0), k + 1, 1, other_k.data(), 1, &h);
      });
      return keep(fn, s, h);
    }
    return h;
  };
  // The handle the call is given for one side, and whether packing this call's operand failed.
  bool pack_failed = false;
  auto operand_handle = [&](bool side_a) -> const invar_packed* {
    switch (handle) {
      case 1: return other_handle(side_a, 1);
      case 2: return other_handle(side_a, 2);
      case 3: return nullptr;
      case 4: {
        for (std::size_t i = 0; i < not_a_handle.size(); ++i)
          not_a_handle[i] = static_cast<uint8_t>(g.seed[0] * 31 + i * 7);
        return reinterpret_cast<invar_packed*>(not_a_handle.data());
      }
      default: {
        invar_packed* h = own_handle(side_a);
        if (h == nullptr) pack_failed = true;
        return h;
      }
    }
  };

  // The call.
  const char* function = "";
  invar_status status = INVAR_OK;
  const In* a = !pointers && null_a ? nullptr : A.base();
  const InB* b = !pointers && null_b ? nullptr : B.base();
  Out* c = !pointers && null_c ? nullptr : C.base();
  const Acc* bv = null_bias ? nullptr : Bias.base();
  std::vector<const In*> ap(A.pointers.begin(), A.pointers.end());
  std::vector<const InB*> bp(B.pointers.begin(), B.pointers.end());
  std::vector<Out*> cp(C.pointers.begin(), C.pointers.end());
  if (null_entry) {
    const std::size_t at = ap.size() > 1 ? 1 : 0;
    if (null_a) ap[at] = nullptr;
    if (null_b) bp[at] = nullptr;
    if (null_c) cp[at] = nullptr;
  }
  switch (variant) {
    case kPlain:
      function = F::kName[0];
      status = in_mode(function, [&] {
        return F::plain(g.ta, g.tb, m, n, k, alpha, a, g.lda, b, g.ldb, beta, c, g.ldc);
      });
      break;
    case kEpilogue:
      if constexpr (std::is_same_v<F, F32> || std::is_same_v<F, F64>) {
        function = F::kName[1];
        status = in_mode(function, [&] {
          if constexpr (std::is_same_v<F, F32>)
            return invar_sgemm_epilogue(tr(g.ta), tr(g.tb), m, n, k, alpha, a, g.lda, b, g.ldb,
                                        beta, c, g.ldc, static_cast<B_>(bias), bv,
                                        static_cast<A_>(activation));
          else
            return invar_dgemm_epilogue(tr(g.ta), tr(g.tb), m, n, k, alpha, a, g.lda, b, g.ldb,
                                        beta, c, g.ldc, static_cast<B_>(bias), bv,
                                        static_cast<A_>(activation));
        });
      }
      break;
    case kStrided:
      function = F::kName[2];
      status = in_mode(function, [&] {
        return F::strided(g.ta, g.tb, m, n, k, alpha, a, g.lda, g.sa, b, g.ldb, g.sb, beta, c,
                          g.ldc, g.sc, count);
      });
      break;
    case kPointers:
      function = F::kName[3];
      status = in_mode(function, [&] {
        return F::pointers(g.ta, g.tb, m, n, k, alpha, null_array ? nullptr : ap.data(), g.lda,
                           null_array ? nullptr : bp.data(), g.ldb, beta,
                           null_array ? nullptr : cp.data(), g.ldc, count);
      });
      break;
    case kPackedB:
    case kPackedEpilogue: {
      const invar_packed* h = operand_handle(false);
      if (pack_failed) break;
      if constexpr (is_int) {
        function =
            std::is_same_v<In, uint8_t> ? "invar_gemm_u8s8s32_packed" : "invar_gemm_s8s8s32_packed";
        status = in_mode(function, [&] {
          if constexpr (std::is_same_v<In, uint8_t>)
            return invar_gemm_u8s8s32_packed(tr(g.ta), m, alpha, a, g.lda, h, beta, c, g.ldc);
          else
            return invar_gemm_s8s8s32_packed(tr(g.ta), m, alpha, a, g.lda, h, beta, c, g.ldc);
        });
      } else if constexpr (std::is_same_v<F, F32> || std::is_same_v<F, F64>) {
        constexpr bool d = std::is_same_v<F, F64>;
        if (variant == kPackedB) {
          function = d ? "invar_dgemm_packed" : "invar_sgemm_packed";
          status = in_mode(function, [&] {
            if constexpr (d)
              return invar_dgemm_packed(tr(g.ta), m, alpha, a, g.lda, h, beta, c, g.ldc);
            else
              return invar_sgemm_packed(tr(g.ta), m, alpha, a, g.lda, h, beta, c, g.ldc);
          });
        } else {
          function = d ? "invar_dgemm_packed_epilogue" : "invar_sgemm_packed_epilogue";
          status = in_mode(function, [&] {
            if constexpr (d)
              return invar_dgemm_packed_epilogue(tr(g.ta), m, alpha, a, g.lda, h, beta, c, g.ldc,
                                                 static_cast<B_>(bias), bv,
                                                 static_cast<A_>(activation));
            else
              return invar_sgemm_packed_epilogue(tr(g.ta), m, alpha, a, g.lda, h, beta, c, g.ldc,
                                                 static_cast<B_>(bias), bv,
                                                 static_cast<A_>(activation));
          });
        }
      }
      break;
    }
    case kTriangle:
      if constexpr (std::is_same_v<F, F32> || std::is_same_v<F, F64>) {
        invar_uplo u;
        std::memcpy(&u, &uplo, sizeof u);  // any int, as a C caller may pass
        function = std::is_same_v<F, F64> ? "invar_dgemmt" : "invar_sgemmt";
        status = in_mode(function, [&] {
          if constexpr (std::is_same_v<F, F64>)
            return invar_dgemmt(u, tr(g.ta), tr(g.tb), n, k, alpha, a, g.lda, b, g.ldb, beta, c,
                                g.ldc);
          else
            return invar_sgemmt(u, tr(g.ta), tr(g.tb), n, k, alpha, a, g.lda, b, g.ldb, beta, c,
                                g.ldc);
        });
      }
      break;
    case kPackedA:
    case kPackedAB: {
      if constexpr (std::is_same_v<F, F32> || std::is_same_v<F, F64>) {
        constexpr bool d = std::is_same_v<F, F64>;
        const invar_packed* ha = operand_handle(true);
        if (pack_failed) break;
        if (variant == kPackedA) {
          function = d ? "invar_dgemm_packed_a" : "invar_sgemm_packed_a";
          status = in_mode(function, [&] {
            if constexpr (d)
              return invar_dgemm_packed_a(ha, tr(g.tb), n, b, g.ldb, beta, c, g.ldc);
            else
              return invar_sgemm_packed_a(ha, tr(g.tb), n, b, g.ldb, beta, c, g.ldc);
          });
        } else {
          const invar_packed* hb = handle == 5 ? wrong_k_handle() : operand_handle(false);
          if (pack_failed) break;
          function = d ? "invar_dgemm_packed_ab" : "invar_sgemm_packed_ab";
          status = in_mode(function, [&] {
            if constexpr (d)
              return invar_dgemm_packed_ab(ha, hb, beta, c, g.ldc);
            else
              return invar_sgemm_packed_ab(ha, hb, beta, c, g.ldc);
          });
        }
      }
      break;
    }
    default: break;
  }
  // The message before invar_packed_free, a call of its own, clears it.
  const std::string message = invar_last_error();
  for (invar_packed* h : owned)
    in_mode("invar_packed_free", [&] {
      invar_packed_free(h);
      return 0;
    });

  std::string what = std::string(function) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                     " k=" + std::to_string(k) + " lda=" + std::to_string(g.lda) +
                     " ldb=" + std::to_string(g.ldb) + " ldc=" + std::to_string(g.ldc) +
                     " batch=" + std::to_string(count) + " ta=" + std::to_string(g.ta) +
                     " tb=" + std::to_string(g.tb);
  if (pack_failed) {
    if (e.must_succeed) fail(what + ": packing failed: " + message);
    status = INVAR_EINVAL;
  } else {
    check_message(function, status, message);
  }
  if (status != INVAR_OK) {
    if (e.must_succeed) fail(what + ": refused a valid call: " + message);
    if (e.must_fail && status != INVAR_EINVAL)
      fail(what + ": returned " + std::to_string(status) + ", not INVAR_EINVAL");
    for (std::size_t i = 0; i < C.parts.size(); ++i)
      if (first_difference(C.parts[i], before[i]) >= 0) fail(what + ": failed but changed C");
    return;
  }
  if (e.must_fail) fail(what + ": accepted an invalid call (" + e.why + ")");
  if (!can_compute) return;
  if (differential) {
    // gelu / silu: the same call in the contract's mode on one thread must give the same bits.
    auto got = C.parts;
    C.parts = before;
    const uint32_t mode = g_mode;
    g_mode = kCleanMxcsr;
    invar_set_num_threads(1);
    if (variant == kEpilogue) {
      if constexpr (std::is_same_v<F, F32>)
        invar_sgemm_epilogue(tr(g.ta), tr(g.tb), m, n, k, alpha, a, g.lda, b, g.ldb, beta,
                             C.parts[0].data() + (C.base() - C.parts[0].data()), g.ldc,
                             static_cast<B_>(bias), bv, static_cast<A_>(activation));
      else if constexpr (std::is_same_v<F, F64>)
        invar_dgemm_epilogue(tr(g.ta), tr(g.tb), m, n, k, alpha, a, g.lda, b, g.ldb, beta,
                             C.parts[0].data() + (C.base() - C.parts[0].data()), g.ldc,
                             static_cast<B_>(bias), bv, static_cast<A_>(activation));
    } else {
      C.parts = got;  // the packed epilogue's handle is gone; its plain twin is covered above
    }
    g_mode = mode;
    if (first_difference(got[0], C.parts[0]) >= 0)
      fail(what + ": the activation's bits depend on the caller's mode or the thread count");
    return;
  }
  for (std::size_t i = 0; i < C.parts.size(); ++i) {
    const int64_t at = first_difference(C.parts[i], expected[i]);
    if (at >= 0)
      fail(what + ": C differs from the scalar chain at element " + std::to_string(at) +
           " of buffer " + std::to_string(i));
  }
}

// ---- libinvar_blas ---------------------------------------------------------------------------

template <class T>
void run_blas(const Args& g, bool cblas) {
  constexpr bool d = std::is_same_v<T, double>;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int lda = static_cast<int>(g.lda), ldb = static_cast<int>(g.ldb),
            ldc = static_cast<int>(g.ldc);
  const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);
  static constexpr char kChars[] = {'N', 'T', 'C', 'n', 't', 'c', 'X', '\0'};
  const char ca = g.ta >= 0 && g.ta < 8 ? kChars[g.ta] : static_cast<char>(g.ta);
  const char cb = g.tb >= 0 && g.tb < 8 ? kChars[g.tb] : static_cast<char>(g.tb);
  auto char_trans = [](char c) { return c == 'T' || c == 't' || c == 'C' || c == 'c'; };
  auto char_ok = [](char c) {
    return c == 'N' || c == 'n' || c == 'T' || c == 't' || c == 'C' || c == 'c';
  };
  // CBLAS: layout from the bias byte (0: row-major, 1: column-major, else raw); trans 111..113.
  const int layout = g.bias == 0 ? 101 : g.bias == 1 ? 102 : g.bias;
  const int ita = g.ta >= 0 && g.ta < 3 ? 111 + g.ta : g.ta,
            itb = g.tb >= 0 && g.tb < 3 ? 111 + g.tb : g.tb;
  bool row_major = false, ta1, tb1;
  int expected_info = 0;
  auto need = [&](bool bad, int info) {
    if (bad && expected_info == 0) expected_info = info;
  };
  if (cblas) {
    row_major = layout == 101;
    ta1 = ita == 112 || ita == 113;
    tb1 = itb == 112 || itb == 113;
    need(layout != 101 && layout != 102, 1);
    need(ita < 111 || ita > 113, 2);
    need(itb < 111 || itb > 113, 3);
    need(m < 0, 4);
    need(n < 0, 5);
    need(k < 0, 6);
    const int ra = row_major ? (ta1 ? m : k) : (ta1 ? k : m);
    const int rb = row_major ? (tb1 ? k : n) : (tb1 ? n : k);
    const int rc = row_major ? n : m;
    need(lda < std::max(1, ra), 9);
    need(ldb < std::max(1, rb), 11);
    need(ldc < std::max(1, rc), 14);
  } else {
    ta1 = char_trans(ca);
    tb1 = char_trans(cb);
    need(!char_ok(ca), 1);
    need(!char_ok(cb), 2);
    need(m < 0, 3);
    need(n < 0, 4);
    need(k < 0, 5);
    need(lda < std::max(1, ta1 ? k : m), 8);
    need(ldb < std::max(1, tb1 ? n : k), 10);
    need(ldc < std::max(1, m), 13);
  }
  // Stored shapes: column-major A is (ta ? k x m : m x k) with columns lda apart.
  const int64_t mm = m < 0 ? 0 : m, nn = n < 0 ? 0 : n, kk = k < 0 ? 0 : k;
  i128 a_one, b_one, c_one;
  Layout la, lb, lc;
  if (row_major) {
    a_one = span(ta1 ? kk : mm, ta1 ? mm : kk, lda);
    b_one = span(tb1 ? nn : kk, tb1 ? kk : nn, ldb);
    c_one = span(mm, nn, ldc);
    la = ta1 ? Layout{1, lda} : Layout{lda, 1};
    lb = tb1 ? Layout{1, ldb} : Layout{ldb, 1};
    lc = Layout{ldc, 1};
  } else {
    a_one = span(ta1 ? mm : kk, ta1 ? kk : mm, lda);  // columns x rows
    b_one = span(tb1 ? kk : nn, tb1 ? nn : kk, ldb);
    c_one = span(nn, mm, ldc);
    la = ta1 ? Layout{lda, 1} : Layout{1, lda};
    lb = tb1 ? Layout{ldb, 1} : Layout{1, ldb};
    lc = Layout{1, ldc};
  }
  Operand<T> A, B, C;
  A.plan(a_one, 0, 1, false, g.kind[0], g.seed[0]);
  B.plan(b_one, 0, 1, false, g.kind[1], g.seed[1]);
  C.plan(c_one, 0, 1, false, g.kind[2], g.seed[2]);
  const bool small = A.zone == Zone::kSmall && B.zone == Zone::kSmall && C.zone == Zone::kSmall;
  if (expected_info == 0 && !small) return;  // valid but too big to allocate here
  auto before = C.parts[0];
  auto expected = before;
  if (expected_info == 0)
    reference<T, T, T, T>(mm, nn, kk, alpha, A.base(), la, B.base(), lb, beta, expected.data(), lc);
  g_blas_info = 0;
  const char* function = cblas ? (d ? "cblas_dgemm" : "cblas_sgemm") : (d ? "dgemm_" : "sgemm_");
  in_mode(function, [&] {
    if (cblas) {
      if constexpr (d)
        cblas_dgemm(layout, ita, itb, m, n, k, alpha, A.base(), lda, B.base(), ldb, beta, C.base(),
                    ldc);
      else
        cblas_sgemm(layout, ita, itb, m, n, k, alpha, A.base(), lda, B.base(), ldb, beta, C.base(),
                    ldc);
    } else {
      if constexpr (d)
        dgemm_(&ca, &cb, &m, &n, &k, &alpha, A.base(), &lda, B.base(), &ldb, &beta, C.base(), &ldc);
      else
        sgemm_(&ca, &cb, &m, &n, &k, &alpha, A.base(), &lda, B.base(), &ldb, &beta, C.base(), &ldc);
    }
    return 0;
  });
  const std::string what = std::string(function) + " m=" + std::to_string(m) +
                           " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                           " lda=" + std::to_string(lda) + " ldb=" + std::to_string(ldb) +
                           " ldc=" + std::to_string(ldc);
  if (expected_info != 0) {
    // CBLAS reports a row-major call's positions as the column-major call it maps to sees them
    // (blas_abi.h), so only that it reported is checked there.
    if (cblas ? g_blas_info == 0 : g_blas_info != expected_info)
      fail(what + ": reported argument " + std::to_string(g_blas_info) + ", expected " +
           std::to_string(expected_info));
  } else if (g_blas_info != 0) {
    fail(what + ": reported argument " + std::to_string(g_blas_info) + " of a valid call");
  }
  if (g_blas_info != 0 || expected_info != 0) {
    if (first_difference(C.parts[0], before) >= 0) fail(what + ": an error changed C");
    return;
  }
  const int64_t at = first_difference(C.parts[0], expected);
  if (at >= 0) fail(what + ": C differs from the scalar chain at element " + std::to_string(at));
}

// ---- libinvar_blas beyond GEMM: gemv and dot -------------------------------------------------

// Element i of a vector of `len` elements with increment `inc` (the reference's rule: a negative
// increment walks it from its last element in memory).
template <class T>
T& element(T* v, int64_t i, int64_t len, int64_t inc) {
  return inc > 0 ? v[i * inc] : v[(len - 1 - i) * -inc];
}

template <class T>
void run_blas2(const Args& g, Variant variant) {
  constexpr bool d = std::is_same_v<T, double>;
  const bool cblas = variant == kCblasGemv || variant == kCblasDot;
  const bool dot = variant == kFortranDot || variant == kCblasDot;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), lda = static_cast<int>(g.lda);
  const int incx = static_cast<int>(g.sa % 5) - 2, incy = static_cast<int>(g.sb % 5) - 2;
  const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);
  if (dot) {
    if (incx == 0 || incy == 0) return;  // not settled by the reference
    const int64_t len = n > 0 ? n : 0;
    const i128 span_x = len > 0 ? i128{len - 1} * (incx < 0 ? -incx : incx) + 1 : 0;
    const i128 span_y = len > 0 ? i128{len - 1} * (incy < 0 ? -incy : incy) + 1 : 0;
    if (span_x > (1 << 20) || span_y > (1 << 20)) return;
    std::vector<T> x(static_cast<std::size_t>(span_x > 0 ? span_x : 1)),
        y(static_cast<std::size_t>(span_y > 0 ? span_y : 1));
    fill(x, g.kind[0], g.seed[0]);
    fill(y, g.kind[1], g.seed[1]);
    T want = T(0);
    for (int64_t i = 0; i < len; ++i)
      want = std::fma(element(x.data(), i, len, incx), element(y.data(), i, len, incy), want);
    const char* function = cblas ? (d ? "cblas_ddot" : "cblas_sdot") : (d ? "ddot_" : "sdot_");
    const T got = in_mode(function, [&] {
      if constexpr (d)
        return cblas ? cblas_ddot(n, x.data(), incx, y.data(), incy)
                     : ddot_(&n, x.data(), &incx, y.data(), &incy);
      else
        return cblas ? cblas_sdot(n, x.data(), incx, y.data(), incy)
                     : sdot_(&n, x.data(), &incx, y.data(), &incy);
    });
    if (!same(got, want))
      fail(std::string(function) + " n=" + std::to_string(n) + " incx=" + std::to_string(incx) +
           " incy=" + std::to_string(incy) + ": not the chain's bits");
    return;
  }
  // gemv: column-major for Fortran and CBLAS 102, row-major for CBLAS 101.
  static constexpr char kChars[] = {'N', 'T', 'C', 'n', 't', 'c', 'X', '\0'};
  const char ct = g.ta >= 0 && g.ta < 8 ? kChars[g.ta] : static_cast<char>(g.ta);
  const int layout = g.bias == 0 ? 101 : g.bias == 1 ? 102 : g.bias;
  const int itrans = g.ta >= 0 && g.ta < 3 ? 111 + g.ta : g.ta;
  const bool row_major = cblas && layout == 101;
  const bool trans =
      cblas ? (itrans == 112 || itrans == 113) : (ct == 'T' || ct == 't' || ct == 'C' || ct == 'c');
  bool invalid;
  if (cblas) {
    invalid = (layout != 101 && layout != 102) || itrans < 111 || itrans > 113 || m < 0 || n < 0 ||
              lda < std::max(1, row_major ? n : m) || incx == 0 || incy == 0;
  } else {
    const bool ok = ct == 'N' || ct == 'n' || trans;
    invalid = !ok || m < 0 || n < 0 || lda < std::max(1, m) || incx == 0 || incy == 0;
  }
  const int64_t mm = m > 0 ? m : 0, nn = n > 0 ? n : 0;
  const int64_t ylen = trans ? nn : mm, xlen = trans ? mm : nn;
  // A stored m x n: columns lda apart (column-major) or rows lda apart (row-major).
  const i128 a_span = row_major ? span(mm, nn, lda) : span(nn, mm, lda);
  auto vspan = [](int64_t len, int inc) {
    return len > 0 ? i128{len - 1} * (inc < 0 ? -inc : inc) + 1 : i128{0};
  };
  const i128 x_span = vspan(xlen, incx), y_span = vspan(ylen, incy);
  const i128 limit = i128{1} << 20;
  if (!invalid && (a_span > limit || x_span > limit || y_span > limit)) return;
  auto size_of = [&](i128 v) {
    return static_cast<std::size_t>(invalid || v <= 0 || v > limit ? 64 : v);
  };
  std::vector<T> a(size_of(a_span)), x(size_of(x_span)), y(size_of(y_span));
  fill(a, g.kind[0], g.seed[0]);
  fill(x, g.kind[1], g.seed[1]);
  fill(y, g.kind[2], g.seed[2]);
  const std::vector<T> before = y;
  std::vector<T> want = y;
  if (!invalid && mm > 0 && nn > 0 && !(alpha == T(0) && beta == T(1))) {
    for (int64_t i = 0; i < ylen; ++i) {
      T& yi = element(want.data(), i, ylen, incy);
      T acc = beta == T(0) ? T(0) : beta * yi;
      if (!(alpha == T(0))) {
        for (int64_t j = 0; j < xlen; ++j) {
          // op(A)[i][j]: A[r][c] with (r, c) = (i, j), or (j, i) when transposed.
          const int64_t r = trans ? j : i, c = trans ? i : j;
          const T aij = row_major ? a[r * lda + c] : a[r + c * lda];
          acc = std::fma(alpha * element(x.data(), j, xlen, incx), aij, acc);
        }
      }
      yi = acc;
    }
  }
  g_blas_info = 0;
  const char* function = cblas ? (d ? "cblas_dgemv" : "cblas_sgemv") : (d ? "dgemv_" : "sgemv_");
  in_mode(function, [&] {
    if (cblas) {
      if constexpr (d)
        cblas_dgemv(layout, itrans, m, n, alpha, a.data(), lda, x.data(), incx, beta, y.data(),
                    incy);
      else
        cblas_sgemv(layout, itrans, m, n, alpha, a.data(), lda, x.data(), incx, beta, y.data(),
                    incy);
    } else {
      if constexpr (d)
        dgemv_(&ct, &m, &n, &alpha, a.data(), &lda, x.data(), &incx, &beta, y.data(), &incy);
      else
        sgemv_(&ct, &m, &n, &alpha, a.data(), &lda, x.data(), &incx, &beta, y.data(), &incy);
    }
    return 0;
  });
  const std::string what = std::string(function) + " m=" + std::to_string(m) +
                           " n=" + std::to_string(n) + " lda=" + std::to_string(lda) +
                           " incx=" + std::to_string(incx) + " incy=" + std::to_string(incy);
  if (invalid != (g_blas_info != 0))
    fail(what + (invalid ? ": an invalid call was not reported" : ": a valid call was reported"));
  if (invalid) {
    if (first_difference(y, before) >= 0) fail(what + ": an error changed y");
    return;
  }
  const int64_t at = first_difference(y, want);
  if (at >= 0) fail(what + ": y differs from the chain at element " + std::to_string(at));
}

Args decode(Reader& r) {
  Args g;
  g.entry = r.byte() % kEntryCount;
  const uint8_t mode = r.byte(), flags = r.byte();
  g_mode = kCleanMxcsr | ((mode & 3u) << 13) | ((mode & 4) ? 0x8000u : 0) |
           ((mode & 8) ? 0x40u : 0) | (flags & 0x3Fu);
  g.threads = 1 + r.byte() % 3;
  g.ta = r.enum_value();
  g.tb = r.enum_value();
  g.m = r.extent();
  g.n = r.extent();
  g.k = r.extent();
  const Entry& e = kEntries[g.entry];
  const bool blas_col = e.variant == kFortran;  // (a CBLAS column-major call is close enough)
  g.lda = r.leading(blas_col ? (g.ta == 1 ? g.k : g.m) : (g.ta == 1 ? g.m : g.k));
  g.ldb = r.leading(blas_col ? (g.tb == 1 ? g.n : g.k) : (g.tb == 1 ? g.k : g.n));
  g.ldc = r.leading(blas_col ? g.m : g.n);
  g.sa = r.stride(clamp64(span(g.ta == 1 ? g.k : g.m, g.ta == 1 ? g.m : g.k, g.lda)));
  g.sb = r.stride(clamp64(span(g.tb == 1 ? g.n : g.k, g.tb == 1 ? g.k : g.n, g.ldb)));
  g.sc = r.stride(clamp64(span(g.m, g.n, g.ldc)));
  g.batch = r.batch_count();
  const bool is_double = e.family == kF64;
  g.alpha = r.scalar_f(is_double);
  g.beta = r.scalar_f(is_double);
  g.ialpha = static_cast<int32_t>(g.alpha == g.alpha && std::fabs(g.alpha) < 2e9 ? g.alpha : 7);
  g.ibeta = static_cast<int32_t>(g.beta == g.beta && std::fabs(g.beta) < 2e9 ? g.beta : -3);
  g.bias = r.enum_value();
  g.activation = r.enum_value();
  g.nulls = r.byte();
  // Mostly no NULL at all: a NULL only when the byte's top bit is set.
  if (!(g.nulls & 0x80)) g.nulls = 0;
  g.nulls &= 0x3F;
  g.handle = r.byte();
  for (int i = 0; i < 3; ++i) {
    g.kind[i] = r.byte();
    g.seed[i] = r.byte();
  }
  return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  _mm_setcsr(kCleanMxcsr);
  Reader r(data, size);
  const Args g = decode(r);
  const Entry& e = kEntries[g.entry];
  if (std::getenv("GEMM_FUZZ_PRINT") != nullptr) {  // to read a failing input
    std::fprintf(
        stderr,
        "entry %d (family %d, variant %d) mxcsr 0x%04x threads %d ta %d tb %d m %lld n %lld "
        "k %lld lda %lld ldb %lld ldc %lld sa %lld sb %lld sc %lld batch %lld alpha %a "
        "beta %a ialpha %d ibeta %d bias %d activation %d nulls 0x%x handle %d\n",
        g.entry, e.family, e.variant, g_mode, g.threads, g.ta, g.tb, (long long)g.m, (long long)g.n,
        (long long)g.k, (long long)g.lda, (long long)g.ldb, (long long)g.ldc, (long long)g.sa,
        (long long)g.sb, (long long)g.sc, (long long)g.batch, g.alpha, g.beta, g.ialpha, g.ibeta,
        g.bias, g.activation, g.nulls, g.handle);
  }
  g_entry = "";
  const uint32_t mode = g_mode;
  g_mode = kCleanMxcsr;
  invar_set_num_threads(g.threads);
  g_mode = mode;
  switch (e.family) {
    case kF32:
      if (e.variant == kFortran || e.variant == kCblas)
        run_blas<float>(g, e.variant == kCblas);
      else if (e.variant >= kFortranGemv)
        run_blas2<float>(g, e.variant);
      else
        run_c_api<F32>(g, e.variant);
      break;
    case kF64:
      if (e.variant == kFortran || e.variant == kCblas)
        run_blas<double>(g, e.variant == kCblas);
      else if (e.variant >= kFortranGemv)
        run_blas2<double>(g, e.variant);
      else
        run_c_api<F64>(g, e.variant);
      break;
    case kBf16F32: run_c_api<Bf16F32>(g, e.variant); break;
    case kBf16Bf16: run_c_api<Bf16Bf16>(g, e.variant); break;
    case kF16F32: run_c_api<F16F32>(g, e.variant); break;
    case kF16F16: run_c_api<F16F16>(g, e.variant); break;
    case kS8: run_c_api<S8>(g, e.variant); break;
    case kU8: run_c_api<U8>(g, e.variant); break;
  }
  _mm_setcsr(kCleanMxcsr);
  return 0;
}

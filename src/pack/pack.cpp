#include "pack/pack.h"

#include <algorithm>
#include <cstring>

#include "numeric/half.h"

namespace invar::pack {

namespace {

inline float load(const float* p) { return *p; }
inline double load(const double* p) { return *p; }
inline float load(const bf16* p) { return numeric::widen(*p); }
inline float load(const f16* p) { return numeric::widen(*p); }

// One A micro-panel of `rows` <= MR rows; ROWS is MR for whole panels (a compile-time trip count
// the compiler unrolls and vectorizes) and 0 for the zero-padded edge panel.
template <class Src, int MR, int ROWS, class T = packed_t<Src>>
void pack_a_panel(int64_t rows, int64_t kc, const Src* s, int64_t rs, int64_t cs, T alpha, T* dst) {
  const int64_t r = ROWS > 0 ? ROWS : rows;
  if (ROWS == 0) std::memset(dst, 0, sizeof(T) * MR * kc);
  const bool scale = alpha != T(1);
  for (int64_t p = 0; p < kc; ++p) {
    T* d = dst + p * MR;
    const Src* sp = s + p * cs;
    if (scale) {
      for (int64_t i = 0; i < r; ++i) d[i] = alpha * load(sp + i * rs);
    } else {
      for (int64_t i = 0; i < r; ++i) d[i] = load(sp + i * rs);
    }
  }
}

template <class Src, int NR, int COLS, class T = packed_t<Src>>
void pack_b_panel(int64_t cols, int64_t kc, const Src* s, int64_t rs, int64_t cs, T* dst) {
  const int64_t n = COLS > 0 ? COLS : cols;
  if (COLS == 0) std::memset(dst, 0, sizeof(T) * NR * kc);
  for (int64_t p = 0; p < kc; ++p) {
    T* d = dst + p * NR;
    const Src* sp = s + p * rs;
    if (cs == 1) {
      for (int64_t j = 0; j < n; ++j) d[j] = load(sp + j);
    } else {
      for (int64_t j = 0; j < n; ++j) d[j] = load(sp + j * cs);
    }
  }
}

}  // namespace

template <class Src, int MR>
void pack_a(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, packed_t<Src> alpha,
            packed_t<Src>* dst) {
  int64_t r0 = 0;
  for (; r0 + MR <= mc; r0 += MR, dst += MR * kc)
    pack_a_panel<Src, MR, MR>(MR, kc, src + r0 * rs, rs, cs, alpha, dst);
  if (r0 < mc) pack_a_panel<Src, MR, 0>(mc - r0, kc, src + r0 * rs, rs, cs, alpha, dst);
}

template <class Src, int NR>
void pack_b(int64_t kc, int64_t nc, const Src* src, int64_t rs, int64_t cs, packed_t<Src>* dst) {
  using T = packed_t<Src>;
  const int64_t full = nc / NR;
  if (cs == 1) {
    // Row-major B: a band of kBand source rows at a time, read left to right, each panel
    // receiving kBand consecutive rows. Row by row would scatter one piece to every panel, kc * NR
    // elements apart: a multiple of 4 KiB for the usual kc, so every store of a row falls into
    // the same L1 set and misses it. Panel by panel would read a strip NR wide down kc rows, a
    // new page every row when rows are long. A band reads kBand sequential streams and writes
    // kBand * NR contiguous elements per panel.
    constexpr int64_t kBand = 8;
    for (int64_t p0 = 0; p0 < kc; p0 += kBand) {
      const int64_t rows = std::min(kBand, kc - p0);
      for (int64_t s = 0; s < full; ++s) {
        T* d = dst + s * NR * kc + p0 * NR;
        const Src* piece = src + p0 * rs + s * NR;
        for (int64_t p = 0; p < rows; ++p) {
          for (int j = 0; j < NR; ++j) d[p * NR + j] = load(piece + p * rs + j);
        }
      }
    }
  } else {
    for (int64_t s = 0; s < full; ++s)
      pack_b_panel<Src, NR, NR>(NR, kc, src + s * NR * cs, rs, cs, dst + s * NR * kc);
  }
  const int64_t c0 = full * NR;
  if (c0 < nc) pack_b_panel<Src, NR, 0>(nc - c0, kc, src + c0 * cs, rs, cs, dst + full * NR * kc);
}

// The tile shapes of the compiled kernels (kernels/sets/).
#define INVAR_PACK_A(T, MR)                                                              \
  template void pack_a<T, MR>(int64_t, int64_t, const T*, int64_t, int64_t, packed_t<T>, \
                              packed_t<T>*);
#define INVAR_PACK_B(T, NR) \
  template void pack_b<T, NR>(int64_t, int64_t, const T*, int64_t, int64_t, packed_t<T>*);
#define INVAR_PACK_NARROW(T) \
  INVAR_PACK_A(T, 4)         \
  INVAR_PACK_A(T, 6)         \
  INVAR_PACK_A(T, 8)         \
  INVAR_PACK_A(T, 12)        \
  INVAR_PACK_B(T, 8)         \
  INVAR_PACK_B(T, 12)        \
  INVAR_PACK_B(T, 16)        \
  INVAR_PACK_B(T, 32)
INVAR_PACK_A(float, 4)
INVAR_PACK_A(float, 6)
INVAR_PACK_A(float, 8)
INVAR_PACK_A(float, 12)
INVAR_PACK_B(float, 8)
INVAR_PACK_B(float, 12)
INVAR_PACK_B(float, 16)
INVAR_PACK_B(float, 32)
INVAR_PACK_A(double, 4)
INVAR_PACK_A(double, 6)
INVAR_PACK_A(double, 8)
INVAR_PACK_A(double, 12)
INVAR_PACK_B(double, 4)
INVAR_PACK_B(double, 6)
INVAR_PACK_B(double, 8)
INVAR_PACK_B(double, 16)
INVAR_PACK_NARROW(bf16)
INVAR_PACK_NARROW(f16)
#undef INVAR_PACK_A
#undef INVAR_PACK_B
#undef INVAR_PACK_NARROW

}  // namespace invar::pack

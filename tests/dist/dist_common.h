// Shared by the MPI test programs: global matrices, their block-cyclic local parts, the cases.
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace dist_test {

// Deterministic values of varied magnitude and sign (every rank makes the same ones).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % (hi - lo + 1));
  }
  double value() {
    const double u = static_cast<double>(next() >> 11) / 9007199254740992.0;  // [0, 1)
    const int e = static_cast<int>(next() % 9) - 4;
    return std::ldexp(2 * u - 1, e);
  }
};

inline int64_t numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs) {
  const int64_t nblocks = n / nb;
  const int64_t mydist = (nprocs + iproc - isrc) % nprocs;
  int64_t count = (nblocks / nprocs) * nb;
  const int64_t extra = nblocks % nprocs;
  if (mydist < extra)
    count += nb;
  else if (mydist == extra)
    count += n % nb;
  return count;
}

struct Layout {
  int64_t m, n, mb, nb;
  int rsrc, csrc;
  int64_t ld;
  bool row_major;
};

inline bool owns(const Layout &l, int64_t i, int64_t j, int myrow, int mycol, int nprow,
                 int npcol) {
  return (l.rsrc + i / l.mb) % nprow == myrow && (l.csrc + j / l.nb) % npcol == mycol;
}
inline int64_t local_index(const Layout &l, int64_t i, int64_t j, int nprow, int npcol) {
  const int64_t li = (i / l.mb / nprow) * l.mb + i % l.mb;
  const int64_t lj = (j / l.nb / npcol) * l.nb + j % l.nb;
  return l.row_major ? li * l.ld + lj : li + lj * l.ld;
}
// Local storage size, with the leading dimension the layout has (>= what the part needs).
inline int64_t local_size(const Layout &l, int myrow, int mycol, int nprow, int npcol) {
  const int64_t lr = numroc(l.m, l.mb, myrow, l.rsrc, nprow);
  const int64_t lc = numroc(l.n, l.nb, mycol, l.csrc, npcol);
  const int64_t size = l.row_major ? lr * l.ld : lc * l.ld;
  return size > 0 ? size : 1;
}
inline int64_t needed_ld(const Layout &l, int myrow, int mycol, int nprow, int npcol) {
  const int64_t v = l.row_major ? numroc(l.n, l.nb, mycol, l.csrc, npcol)
                                : numroc(l.m, l.mb, myrow, l.rsrc, nprow);
  return v > 1 ? v : 1;
}

// The process's part of a global row-major matrix; padding holds `fill`.
template <class T>
std::vector<T> scatter(const std::vector<T> &global, const Layout &l, int myrow, int mycol,
                       int nprow, int npcol, T fill) {
  std::vector<T> loc(static_cast<size_t>(local_size(l, myrow, mycol, nprow, npcol)), fill);
  for (int64_t i = 0; i < l.m; ++i)
    for (int64_t j = 0; j < l.n; ++j)
      if (owns(l, i, j, myrow, mycol, nprow, npcol))
        loc[local_index(l, i, j, nprow, npcol)] = global[i * l.n + j];
  return loc;
}

// Every grid shape of p processes.
inline std::vector<std::pair<int, int>> grids(int p) {
  std::vector<std::pair<int, int>> g;
  for (int r = 1; r <= p; ++r)
    if (p % r == 0) g.push_back({r, p / r});
  return g;
}

}  // namespace dist_test

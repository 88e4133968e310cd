// The random cases of the MPI tests and their operands: global matrices, the one-process
// reference (invar_sgemm / invar_dgemm on the whole matrices) and each process's local parts.
#pragma once

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "dist_common.h"
#include "invar/invar.h"
#include "invar/invar_dist.h"

namespace dist_test {

struct Case {
  bool row_major, ta, tb;
  int64_t m, n, k, ia, ja, ib, jb, ic, jc;
  Layout la, lb, lc;
  double alpha, beta;
};

inline int64_t pick_block(Rng &r) {
  static const int64_t blocks[] = {1, 5, 32, 64, 3, 7, 13};
  return blocks[r.next() % 7];
}

inline Case make_case(uint64_t seed, int nprow, int npcol) {
  Rng r(seed);
  Case c{};
  c.row_major = r.next() % 2;
  c.ta = r.next() % 2;
  c.tb = r.next() % 2;
  const int big = r.next() % 6 == 0;
  c.m = r.range(0, 9) == 0 ? 0 : r.range(1, big ? 70 : 37);
  c.n = r.range(0, 9) == 0 ? 0 : r.range(1, big ? 70 : 37);
  c.k = r.range(0, 14) == 0 ? 0 : r.range(1, big ? 140 : 45);
  auto off = [&] { return r.next() % 3 == 0 ? 0 : r.range(0, 9); };
  c.ia = off(), c.ja = off(), c.ib = off(), c.jb = off(), c.ic = off(), c.jc = off();
  // One case in three is laid out as ScaLAPACK programs usually are: A's rows distributed as C's
  // rows and B's columns as C's columns (the same blocks, sources and offsets), which a grid of
  // one process column (row) lets the product read in place.
  const bool aligned = r.next() % 3 == 0;
  if (aligned) c.ia = c.ic, c.jb = c.jc;
  auto layout = [&](int64_t rows, int64_t cols) {
    Layout l{};
    l.m = rows + r.range(0, 4);
    l.n = cols + r.range(0, 4);
    if (l.m == 0) l.m = 1;
    if (l.n == 0) l.n = 1;
    l.mb = pick_block(r);
    l.nb = r.next() % 2 ? l.mb : pick_block(r);
    l.rsrc = static_cast<int>(r.next() % nprow);
    l.csrc = static_cast<int>(r.next() % npcol);
    l.row_major = c.row_major;
    return l;
  };
  c.la = layout(c.ia + (c.ta ? c.k : c.m), c.ja + (c.ta ? c.m : c.k));
  c.lb = layout(c.ib + (c.tb ? c.n : c.k), c.jb + (c.tb ? c.k : c.n));
  c.lc = layout(c.ic + c.m, c.jc + c.n);
  if (aligned) {
    c.la.mb = c.lc.mb, c.la.rsrc = c.lc.rsrc;
    c.lb.nb = c.lc.nb, c.lb.csrc = c.lc.csrc;
  }
  static const double alphas[] = {1, -1, 0, 3, 0.7};
  static const double betas[] = {0, 1, -1, 2, 0.3};
  const uint64_t ai = r.next() % 6, bi = r.next() % 6;
  c.alpha = ai < 5 ? alphas[ai] : r.value();
  c.beta = bi < 5 ? betas[bi] : r.value();
  return c;
}

inline std::string describe(const Case &c, int nprow, int npcol) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "grid %dx%d %s %c%c m=%lld n=%lld k=%lld A(%lld,%lld) %lldx%lld blk %lldx%lld "
                "src %d,%d  B(%lld,%lld) blk %lldx%lld  C(%lld,%lld) blk %lldx%lld src %d,%d "
                "alpha=%g beta=%g",
                nprow, npcol, c.row_major ? "row-major" : "col-major", c.ta ? 'T' : 'N',
                c.tb ? 'T' : 'N', (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.ia,
                (long long)c.ja, (long long)c.la.m, (long long)c.la.n, (long long)c.la.mb,
                (long long)c.la.nb, c.la.rsrc, c.la.csrc, (long long)c.ib, (long long)c.jb,
                (long long)c.lb.mb, (long long)c.lb.nb, (long long)c.ic, (long long)c.jc,
                (long long)c.lc.mb, (long long)c.lc.nb, c.lc.rsrc, c.lc.csrc, c.alpha, c.beta);
  return buf;
}

template <class T>
invar_status ref_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T *a,
                      int64_t lda, const T *b, int64_t ldb, T beta, T *c, int64_t ldc) {
  const invar_trans xa = ta ? INVAR_TRANS : INVAR_NO_TRANS, xb = tb ? INVAR_TRANS : INVAR_NO_TRANS;
  if constexpr (sizeof(T) == 4)
    return invar_sgemm(xa, xb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    return invar_dgemm(xa, xb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

inline invar_dist_desc to_desc(const Layout &l) {
  return {l.m, l.n, l.mb, l.nb, l.rsrc, l.csrc, l.ld};
}

// The operands of a case: global matrices, the reference result and this process's parts.
template <class T>
struct Operands {
  std::vector<T> ag, bg, cg, cref, a, b, c, expect;
  invar_dist_desc da, db, dc;
};

template <class T>
bool build(Case &c, uint64_t seed, bool poison_unread, int nprow, int npcol, int myrow, int mycol,
           Operands<T> &o, std::string &why) {
  Rng r(seed ^ 0xABCDEF);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  auto fill = [&](const Layout &l, bool poison) {
    std::vector<T> g(static_cast<size_t>(l.m * l.n));
    for (auto &v : g) v = poison && r.next() % 7 == 0 ? nan : static_cast<T>(r.value());
    return g;
  };
  o.ag = fill(c.la, poison_unread && c.alpha == 0);  // alpha == 0: A must not be read
  o.bg = fill(c.lb, poison_unread && c.alpha == 0);
  o.cg = fill(c.lc, poison_unread && c.beta == 0);  // beta == 0: C must not be read
  for (Layout *l : {&c.la, &c.lb, &c.lc})
    l->ld = needed_ld(*l, myrow, mycol, nprow, npcol) + r.range(0, 3);
  o.cref = o.cg;
  const invar_status s =
      ref_gemm<T>(c.ta, c.tb, c.m, c.n, c.k, static_cast<T>(c.alpha),
                  o.ag.data() + c.ia * c.la.n + c.ja, c.la.n, o.bg.data() + c.ib * c.lb.n + c.jb,
                  c.lb.n, static_cast<T>(c.beta), o.cref.data() + c.ic * c.lc.n + c.jc, c.lc.n);
  if (s != INVAR_OK) {
    why = std::string("reference call failed: ") + invar_last_error();
    return false;
  }
  const T sentinel = static_cast<T>(-12345.0);
  o.a = scatter(o.ag, c.la, myrow, mycol, nprow, npcol, sentinel);
  o.b = scatter(o.bg, c.lb, myrow, mycol, nprow, npcol, sentinel);
  o.c = scatter(o.cg, c.lc, myrow, mycol, nprow, npcol, sentinel);
  o.expect = scatter(o.cref, c.lc, myrow, mycol, nprow, npcol, sentinel);
  o.da = to_desc(c.la);
  o.db = to_desc(c.lb);
  o.dc = to_desc(c.lc);
  return true;
}

}  // namespace dist_test

// invar_dist_sgemm / invar_dist_dgemm on every grid shape of the launch's process count: every
// local element of C, and every element around it, bit-equal (memcmp) to invar_sgemm /
// invar_dgemm of the whole matrices on one process; bad arguments refused on every process with C
// untouched. Prints "ok <what>" or "FAILED <what>" per grid shape and check (rank 0), exits 1 on
// any failure.
//   mpirun -n P dist_test [cases per grid shape]
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "dist_cases.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif
#include "invar/invar.h"
#include "invar/invar_dist.h"

using namespace dist_test;

namespace {

int g_rank = 0, g_size = 1;

template <class T>
invar_status dist_gemm(MPI_Comm comm, int nprow, int npcol, const Case &c, T alpha, const T *a,
                       const invar_dist_desc &da, const T *b, const invar_dist_desc &db, T beta,
                       T *cc, const invar_dist_desc &dc, int ta_override = -1) {
  const invar_dist_layout lay = c.row_major ? INVAR_DIST_ROW_MAJOR : INVAR_DIST_COL_MAJOR;
  const invar_trans ta = ta_override >= 0 ? static_cast<invar_trans>(ta_override)
                                          : (c.ta ? INVAR_TRANS : INVAR_NO_TRANS);
  const invar_trans tb = c.tb ? INVAR_TRANS : INVAR_NO_TRANS;
  if constexpr (sizeof(T) == 4)
    return invar_dist_sgemm(comm, nprow, npcol, lay, ta, tb, c.m, c.n, c.k, alpha, a, c.ia, c.ja,
                            &da, b, c.ib, c.jb, &db, beta, cc, c.ic, c.jc, &dc);
  else
    return invar_dist_dgemm(comm, nprow, npcol, lay, ta, tb, c.m, c.n, c.k, alpha, a, c.ia, c.ja,
                            &da, b, c.ib, c.jb, &db, beta, cc, c.ic, c.jc, &dc);
}

// All of a grid shape's cases; returns the failures (agreed over the processes).
template <class T>
int run_grid(int nprow, int npcol, int cases, const char *type) {
  const int myrow = g_rank / npcol, mycol = g_rank % npcol;
  int failures = 0;
  std::string first;
  for (int i = 0; i < cases; ++i) {
    const uint64_t seed = 1000003ull * (nprow * 16 + npcol) + i + (sizeof(T) == 8 ? 7777 : 0);
    Case c = make_case(seed, nprow, npcol);
    Operands<T> o;
    std::string why;
    bool ok = build(c, seed, true, nprow, npcol, myrow, mycol, o, why);
    if (ok) {
      const invar_status s =
          dist_gemm<T>(MPI_COMM_WORLD, nprow, npcol, c, static_cast<T>(c.alpha), o.a.data(), o.da,
                       o.b.data(), o.db, static_cast<T>(c.beta), o.c.data(), o.dc);
      if (s != INVAR_OK) {
        ok = false;
        why = std::string("status ") + std::to_string(s) + ": " + invar_dist_last_error();
      } else if (std::memcmp(o.c.data(), o.expect.data(), o.c.size() * sizeof(T)) != 0) {
        ok = false;
        size_t at = 0;
        while (std::memcmp(&o.c[at], &o.expect[at], sizeof(T)) == 0) ++at;
        why = "local element " + std::to_string(at) + " differs: " + std::to_string(o.c[at]) +
              " vs " + std::to_string(o.expect[at]);
      }
    }
    int bad = ok ? 0 : 1, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (any) {
      ++failures;
      if (!ok && first.empty())
        first = "case " + std::to_string(i) + " (" + describe(c, nprow, npcol) + ") on rank " +
                std::to_string(g_rank) + ": " + why;
      if (!ok) std::fprintf(stderr, "rank %d: %s\n", g_rank, first.c_str());
    }
  }
  if (g_rank == 0) {
    if (failures)
      std::printf("FAILED dist %s %d ranks grid %dx%d: %d of %d cases differ\n", type, g_size,
                  nprow, npcol, failures, cases);
    else
      std::printf("ok dist %s %d ranks grid %dx%d: %d cases bit-equal to one process\n", type,
                  g_size, nprow, npcol, cases);
    std::fflush(stdout);
  }
  return failures;
}

// Bad arguments: refused on every process, C untouched, a message.
template <class T>
int run_bad(int nprow, int npcol, const char *type) {
  const int myrow = g_rank / npcol, mycol = g_rank % npcol;
  Case c = make_case(99, nprow, npcol);
  c.m = 23, c.n = 19, c.k = 17, c.alpha = 1.5, c.beta = 0.5;
  c.ia = c.ja = c.ib = c.jb = c.ic = c.jc = 1;
  c.la = {24 + 1, 24 + 1, 5, 5, 0, 0, 0, c.row_major};
  c.la.m = 1 + (c.ta ? c.k : c.m);
  c.la.n = 1 + (c.ta ? c.m : c.k);
  c.lb = {1 + (c.tb ? c.n : c.k), 1 + (c.tb ? c.k : c.n), 3, 3, 0, 0, 0, c.row_major};
  c.lc = {1 + c.m, 1 + c.n, 2, 2, 0, 0, 0, c.row_major};
  Operands<T> o;
  std::string why;
  if (!build(c, 99, true, nprow, npcol, myrow, mycol, o, why)) return 1;
  struct Mutation {
    const char *what;
    int kind;
  } const muts[] = {{"desca.mb = 0", 0},
                    {"descb.rsrc = nprow", 1},
                    {"descc.csrc = -1", 2},
                    {"ia + m beyond desca.m", 3},
                    {"descc.ld too small on the last process only", 4},
                    {"grid larger than the communicator", 5},
                    {"ta not a transpose value", 6},
                    {"k < 0", 7}};
  int failures = 0;
  for (const Mutation &mu : muts) {
    invar_dist_desc da = o.da, db = o.db, dc = o.dc;
    Case cc = c;
    int pr = nprow, pc = npcol, ta = -1;
    switch (mu.kind) {
      case 0: da.mb = 0; break;
      case 1: db.rsrc = nprow; break;
      case 2: dc.csrc = -1; break;
      case 3: cc.ia = da.m; break;
      case 4:
        if (g_rank == g_size - 1) dc.ld = needed_ld(c.lc, myrow, mycol, nprow, npcol) - 1;
        break;
      case 5: pr = nprow + 1; break;
      case 6: ta = 7; break;
      case 7: cc.k = -1; break;
    }
    std::vector<T> before = o.c;
    const invar_status s =
        dist_gemm<T>(MPI_COMM_WORLD, pr, pc, cc, static_cast<T>(cc.alpha), o.a.data(), da,
                     o.b.data(), db, static_cast<T>(cc.beta), o.c.data(), dc, ta);
    const bool ok = s == INVAR_EINVAL && std::strlen(invar_dist_last_error()) > 0 &&
                    std::memcmp(before.data(), o.c.data(), before.size() * sizeof(T)) == 0;
    int bad = ok ? 0 : 1, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) {
      std::printf("%s dist %s %d ranks grid %dx%d refuses %s: %s\n", any ? "FAILED" : "ok", type,
                  g_size, nprow, npcol, mu.what, invar_dist_last_error());
      std::fflush(stdout);
    }
    failures += any ? 1 : 0;
    o.c = before;
  }
  return failures;
}

#if defined(__x86_64__)
// The caller's thread flushes subnormals (MXCSR FTZ and DAZ) and the operands make subnormal
// products: the result must still be the one computed in the default mode.
template <class T>
int run_ftz(int nprow, int npcol, const char *type) {
  const int myrow = g_rank / npcol, mycol = g_rank % npcol;
  const bool f32 = sizeof(T) == 4;
  // A subnormal (alpha * a too), B normal: the library forms alpha * a itself.
  const T sa = std::ldexp(T(1), f32 ? -128 : -1024), sb = 1;
  const T sc = std::ldexp(T(1), f32 ? -130 : -1030);
  int bad = 0, subnormals = 0, done = 0;
  for (uint64_t seed = 31337; done < 6; ++seed) {
    Case c = make_case(seed, nprow, npcol);
    if (c.m == 0 || c.n == 0 || c.k == 0) continue;
    ++done;
    c.alpha = 0.7;
    c.beta = 0.5;
    Operands<T> o;
    std::string why;
    build(c, seed, false, nprow, npcol, myrow, mycol, o, why);
    for (auto &v : o.ag) v *= sa;
    for (auto &v : o.bg) v *= sb;
    for (auto &v : o.cg) v *= sc;
    o.cref = o.cg;
    ref_gemm<T>(c.ta, c.tb, c.m, c.n, c.k, T(0.7), o.ag.data() + c.ia * c.la.n + c.ja, c.la.n,
                o.bg.data() + c.ib * c.lb.n + c.jb, c.lb.n, T(0.5),
                o.cref.data() + c.ic * c.lc.n + c.jc, c.lc.n);
    const T sentinel = static_cast<T>(-12345.0);
    o.a = scatter(o.ag, c.la, myrow, mycol, nprow, npcol, sentinel);
    o.b = scatter(o.bg, c.lb, myrow, mycol, nprow, npcol, sentinel);
    o.c = scatter(o.cg, c.lc, myrow, mycol, nprow, npcol, sentinel);
    o.expect = scatter(o.cref, c.lc, myrow, mycol, nprow, npcol, sentinel);
    for (T v : o.expect) subnormals += std::fpclassify(v) == FP_SUBNORMAL;
    const unsigned saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040);  // FTZ | DAZ
    const invar_status st = dist_gemm<T>(MPI_COMM_WORLD, nprow, npcol, c, T(0.7), o.a.data(), o.da,
                                         o.b.data(), o.db, T(0.5), o.c.data(), o.dc);
    const unsigned after = _mm_getcsr();
    _mm_setcsr(saved);
    if (st != INVAR_OK || after != (saved | 0x8040) ||
        std::memcmp(o.c.data(), o.expect.data(), o.c.size() * sizeof(T)) != 0)
      ++bad;
  }
  int in[2] = {bad, subnormals}, out[2];
  MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const bool ok = out[0] == 0 && out[1] > 0;
  if (g_rank == 0) {
    std::printf(
        "%s dist %s %d ranks grid %dx%d: caller in FTZ/DAZ, %d subnormal results, bits of "
        "the default mode (caller's mode restored)\n",
        ok ? "ok" : "FAILED", type, g_size, nprow, npcol, out[1]);
    std::fflush(stdout);
  }
  return ok ? 0 : 1;
}
#endif

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const int cases = argc > 1 ? std::atoi(argv[1]) : 40;
  int failures = 0;
  for (auto [r, c] : grids(g_size)) {
    failures += run_grid<float>(r, c, cases, "sgemm");
    failures += run_grid<double>(r, c, cases, "dgemm");
  }
  const auto shapes = grids(g_size);
  const auto [br, bc] = shapes[shapes.size() / 2];
  failures += run_bad<float>(br, bc, "sgemm");
  failures += run_bad<double>(br, bc, "dgemm");
#if defined(__x86_64__)
  failures += run_ftz<float>(br, bc, "sgemm");
  failures += run_ftz<double>(br, bc, "dgemm");
#endif
  MPI_Finalize();
  return failures ? 1 : 0;
}

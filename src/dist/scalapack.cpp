// ScaLAPACK's psgemm_ and pdgemm_ (Fortran, LP64) on the distributed product: the program's own
// BLACS context gives the grid, DTYPE 1 descriptors give the layouts (column-major local parts),
// IA/JA/IB/JB/IC/JC count from 1, and a refused argument goes to the program's PXERBLA with
// PBLAS's numbering (argument position, or position * 100 + descriptor entry).
//
// BLACS is looked up at run time in the process (dlsym), not linked: the library then works with
// whichever ScaLAPACK the program links (netlib's, Debian's scalapack-openmpi) when it is linked
// before it or preloaded. The grid's communicator: BLACS_GET(ctxt, 10) gives the system handle
// the context was made from, Cblacs2sys_handle turns it into that MPI communicator, and
// Cblacs_pnum names each grid position's rank in it; the grid processes then make (once per
// context, cached) their own communicator in row-major grid order and its row and column
// communicators.
#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "dist/dist_engine.h"
#include "invar/export.h"

namespace invar::dist {
namespace {

struct Blacs {
  void (*gridinfo)(int, int *, int *, int *, int *) = nullptr;
  void (*get)(int, int, int *) = nullptr;
  MPI_Comm (*sys_handle)(int) = nullptr;
  int (*pnum)(int, int, int) = nullptr;
  void (*pxerbla)(const int *, const char *, const int *, size_t) = nullptr;
  bool ok() const { return gridinfo && get && sys_handle && pnum; }
};

const Blacs &blacs() {
  static const Blacs b = [] {
    Blacs r;
    r.gridinfo = reinterpret_cast<decltype(r.gridinfo)>(dlsym(RTLD_DEFAULT, "Cblacs_gridinfo"));
    r.get = reinterpret_cast<decltype(r.get)>(dlsym(RTLD_DEFAULT, "Cblacs_get"));
    r.sys_handle =
        reinterpret_cast<decltype(r.sys_handle)>(dlsym(RTLD_DEFAULT, "Cblacs2sys_handle"));
    r.pnum = reinterpret_cast<decltype(r.pnum)>(dlsym(RTLD_DEFAULT, "Cblacs_pnum"));
    r.pxerbla = reinterpret_cast<decltype(r.pxerbla)>(dlsym(RTLD_DEFAULT, "pxerbla_"));
    return r;
  }();
  return b;
}

struct ContextGrid {
  int nprow = 0, npcol = 0;
  MPI_Comm sys = MPI_COMM_NULL;
  std::vector<int> ranks;  // rank in `sys` of each grid position, row-major
  Grid grid;
};

// Returns false (and says why on stderr) when the context's grid cannot be used.
bool grid_of(int ctxt, int nprow, int npcol, int myrow, int mycol, Grid &out) {
  static std::map<int, ContextGrid> cache;
  const Blacs &b = blacs();
  int handle = 0;
  b.get(ctxt, 10, &handle);
  const MPI_Comm sys = b.sys_handle(handle);
  std::vector<int> ranks(static_cast<size_t>(nprow) * npcol);
  for (int r = 0; r < nprow; ++r)
    for (int c = 0; c < npcol; ++c) ranks[static_cast<size_t>(r) * npcol + c] = b.pnum(ctxt, r, c);
  auto it = cache.find(ctxt);
  if (it != cache.end() && it->second.nprow == nprow && it->second.npcol == npcol &&
      it->second.sys == sys && it->second.ranks == ranks) {
    out = it->second.grid;
    return true;
  }
  if (it != cache.end()) {
    // The context was freed and its handle reused by another grid: this one is made anew (its
    // processes all see the same change, so all of them come here). The old communicators stay
    // allocated: freeing them is collective over a grid that may no longer call.
    cache.erase(it);
  }
  ContextGrid cg;
  cg.nprow = nprow;
  cg.npcol = npcol;
  cg.sys = sys;
  cg.ranks = ranks;
  MPI_Group sys_group, grid_group;
  MPI_Comm_group(sys, &sys_group);
  MPI_Group_incl(sys_group, static_cast<int>(ranks.size()), ranks.data(), &grid_group);
  MPI_Comm all = MPI_COMM_NULL;
  MPI_Comm_create_group(sys, grid_group, 0x1d57, &all);
  MPI_Group_free(&grid_group);
  MPI_Group_free(&sys_group);
  int rank = -1;
  if (all != MPI_COMM_NULL) MPI_Comm_rank(all, &rank);
  if (rank != myrow * npcol + mycol) {
    std::fprintf(stderr,
                 "invar_scalapack: BLACS context %d: process (%d, %d) is rank %d of the grid's "
                 "communicator, not %d; the BLACS's handles are not the ones this library knows\n",
                 ctxt, myrow, mycol, rank, myrow * npcol + mycol);
    return false;
  }
  cg.grid.all = all;
  cg.grid.nprow = nprow;
  cg.grid.npcol = npcol;
  cg.grid.myrow = myrow;
  cg.grid.mycol = mycol;
  MPI_Comm_split(all, myrow, mycol, &cg.grid.row);
  MPI_Comm_split(all, mycol, myrow, &cg.grid.col);
  out = cg.grid;
  cache.emplace(ctxt, std::move(cg));
  return true;
}

// PBLAS's descriptor entries, from 0.
enum { DTYPE_ = 0, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_ };

Desc to_desc(const int *d) {
  Desc r;
  r.m = d[M_];
  r.n = d[N_];
  r.mb = d[MB_];
  r.nb = d[NB_];
  r.rsrc = d[RSRC_];
  r.csrc = d[CSRC_];
  r.ld = d[LLD_];
  return r;
}

// PBLAS numbers a descriptor's entries in its internal 11-entry form (DTYPE, CTXT, M, N, IMB, INB,
// MB, NB, RSRC, CSRC, LLD), and reports a DTYPE 1 descriptor's MB and NB as IMB and INB.
int pblas_info(const Check &c) {
  static const int entry[] = {0, 1, 2, 3, 4, 5, 6, 9, 10, 11};
  return c.entry ? c.arg * 100 + entry[c.entry] : c.arg;
}

void report(const char *name, int ctxt, int info, const std::string &message) {
  const Blacs &b = blacs();
  if (b.pxerbla) {
    b.pxerbla(&ctxt, name, &info, std::char_traits<char>::length(name));
  } else {
    std::fprintf(stderr, "On entry to %s parameter number %d had an illegal value (%s)\n", name,
                 info, message.c_str());
  }
}

template <class T>
void pxgemm(const char *name, const char *transa, const char *transb, const int *m, const int *n,
            const int *k, const T *alpha, const T *a, const int *ia, const int *ja,
            const int *desca, const T *b, const int *ib, const int *jb, const int *descb,
            const T *beta, T *c, const int *ic, const int *jc, const int *descc) {
  const Blacs &bl = blacs();
  if (!bl.ok()) {
    std::fprintf(stderr,
                 "%s (invar_scalapack): no BLACS in this process (Cblacs_gridinfo, Cblacs_get, "
                 "Cblacs2sys_handle, Cblacs_pnum); link ScaLAPACK's BLACS\n",
                 name);
    return;
  }
  const int ctxt = desca[CTXT_];
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  bl.gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  // PBLAS: a process outside the grid (or an invalid context) does nothing.
  if (nprow < 1 || npcol < 1 || myrow < 0 || myrow >= nprow || mycol < 0 || mycol >= npcol) {
    if (nprow == -1) report(name, ctxt, 1002, "invalid BLACS context");
    return;
  }
  Grid g;
  if (!grid_of(ctxt, nprow, npcol, myrow, mycol, g)) return;
  Check mine;
  if (desca[DTYPE_] != 1)
    mine = {10, DTYPE_ + 1, "desca: DTYPE is not 1"};
  else if (descb[DTYPE_] != 1)
    mine = {14, DTYPE_ + 1, "descb: DTYPE is not 1"};
  else if (descc[DTYPE_] != 1)
    mine = {19, DTYPE_ + 1, "descc: DTYPE is not 1"};
  else if (descb[CTXT_] != ctxt)
    mine = {14, CTXT_ + 1, "descb: not desca's context"};
  else if (descc[CTXT_] != ctxt)
    mine = {19, CTXT_ + 1, "descc: not desca's context"};
  Problem<T> p;
  if (!mine.arg) {
    p.row_major = false;
    p.ta = *transa;
    p.tb = *transb;
    p.m = *m;
    p.n = *n;
    p.k = *k;
    p.alpha = *alpha;
    p.beta = *beta;
    p.a = a;
    p.ia = static_cast<int64_t>(*ia) - 1;
    p.ja = static_cast<int64_t>(*ja) - 1;
    p.da = to_desc(desca);
    p.b = b;
    p.ib = static_cast<int64_t>(*ib) - 1;
    p.jb = static_cast<int64_t>(*jb) - 1;
    p.db = to_desc(descb);
    p.c = c;
    p.ic = static_cast<int64_t>(*ic) - 1;
    p.jc = static_cast<int64_t>(*jc) - 1;
    p.dc = to_desc(descc);
    mine = check(g, p);
  }
  // Every process learns whether one refused, so that none waits for the others in the product.
  const Verdict v = agree(g.all, mine);
  if (v.arg) {
    if (mine.arg) report(name, ctxt, pblas_info(mine), mine.message);
    return;
  }
  const std::string err = run(g, p);
  if (!err.empty()) std::fprintf(stderr, "%s (invar_scalapack): %s\n", name, err.c_str());
}

}  // namespace
}  // namespace invar::dist

extern "C" {

INVAR_API void psgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const float *alpha, const float *a, const int *ia,
                       const int *ja, const int *desca, const float *b, const int *ib,
                       const int *jb, const int *descb, const float *beta, float *c, const int *ic,
                       const int *jc, const int *descc) {
  invar::dist::pxgemm<float>("PSGEMM", transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb,
                             descb, beta, c, ic, jc, descc);
}

INVAR_API void pdgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const double *alpha, const double *a, const int *ia,
                       const int *ja, const int *desca, const double *b, const int *ib,
                       const int *jb, const int *descb, const double *beta, double *c,
                       const int *ic, const int *jc, const int *descc) {
  invar::dist::pxgemm<double>("PDGEMM", transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb,
                              descb, beta, c, ic, jc, descc);
}

}  // extern "C"

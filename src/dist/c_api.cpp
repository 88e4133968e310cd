// invar_dist_sgemm / invar_dist_dgemm: the grid from a communicator, the checks agreed by every
// process, then the SUMMA.
#include <string>

#include "dist/dist_engine.h"
#include "invar/invar_dist.h"

namespace invar::dist {
namespace {

thread_local std::string last_error;

// The row and column communicators of a grid shape, kept on the caller's communicator as an
// attribute: made once (two MPI_Comm_split, collective) and freed with it.
struct GridComms {
  int nprow, npcol;
  MPI_Comm row, col;
};

int free_grid_comms(MPI_Comm, int, void *value, void *) {
  auto *gc = static_cast<GridComms *>(value);
  MPI_Comm_free(&gc->row);
  MPI_Comm_free(&gc->col);
  delete gc;
  return MPI_SUCCESS;
}

int grid_keyval() {
  static int key = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_grid_comms, &k, nullptr);
    return k;
  }();
  return key;
}

Grid make_grid(MPI_Comm comm, int nprow, int npcol) {
  Grid g;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  g.all = comm;
  g.nprow = nprow;
  g.npcol = npcol;
  g.myrow = rank / npcol;
  g.mycol = rank % npcol;
  void *value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, grid_keyval(), &value, &found);
  auto *gc = static_cast<GridComms *>(value);
  if (!found || gc->nprow != nprow || gc->npcol != npcol) {
    gc = new GridComms{nprow, npcol, MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Comm_split(comm, g.myrow, g.mycol, &gc->row);
    MPI_Comm_split(comm, g.mycol, g.myrow, &gc->col);
    MPI_Comm_set_attr(comm, grid_keyval(), gc);  // frees the previous shape's communicators
  }
  g.row = gc->row;
  g.col = gc->col;
  return g;
}

Desc to_desc(const invar_dist_desc *d) {
  Desc r;
  r.m = d->m;
  r.n = d->n;
  r.mb = d->mb;
  r.nb = d->nb;
  r.rsrc = d->rsrc;
  r.csrc = d->csrc;
  r.ld = d->ld;
  return r;
}

template <class T>
invar_status dist_gemm(const char *name, MPI_Comm comm, int nprow, int npcol,
                       invar_dist_layout layout, invar_trans ta, invar_trans tb, int64_t m,
                       int64_t n, int64_t k, T alpha, const T *a, int64_t ia, int64_t ja,
                       const invar_dist_desc *desca, const T *b, int64_t ib, int64_t jb,
                       const invar_dist_desc *descb, T beta, T *c, int64_t ic, int64_t jc,
                       const invar_dist_desc *descc) {
  last_error.clear();
  const std::string prefix = std::string(name) + ": ";
  // Checks that need no other process: they fail identically everywhere or make MPI unusable.
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) {
    last_error = prefix + "MPI is not initialized (or already finalized)";
    return INVAR_EINVAL;
  }
  int size = 0;
  if (comm == MPI_COMM_NULL) {
    last_error = prefix + "comm: MPI_COMM_NULL";
    return INVAR_EINVAL;
  }
  MPI_Comm_size(comm, &size);
  if (nprow < 1 || npcol < 1 || static_cast<int64_t>(nprow) * npcol != size) {
    last_error = prefix + "nprow x npcol = " + std::to_string(nprow) + " x " +
                 std::to_string(npcol) + " is not the communicator's " + std::to_string(size) +
                 " processes";
    return INVAR_EINVAL;
  }
  Grid g = make_grid(comm, nprow, npcol);
  Check mine;
  if (layout != INVAR_DIST_COL_MAJOR && layout != INVAR_DIST_ROW_MAJOR) {
    mine.arg = 1;
    mine.message = "layout: neither INVAR_DIST_COL_MAJOR nor INVAR_DIST_ROW_MAJOR";
  } else if (ta != INVAR_NO_TRANS && ta != INVAR_TRANS) {
    mine.arg = 1;
    mine.message = "ta: neither INVAR_NO_TRANS nor INVAR_TRANS";
  } else if (tb != INVAR_NO_TRANS && tb != INVAR_TRANS) {
    mine.arg = 2;
    mine.message = "tb: neither INVAR_NO_TRANS nor INVAR_TRANS";
  } else if (!desca || !descb || !descc) {
    mine.arg = !desca ? 10 : !descb ? 14 : 19;
    mine.message = std::string(!desca ? "desca" : !descb ? "descb" : "descc") + ": null pointer";
  }
  Problem<T> p;
  if (!mine.arg) {
    p.row_major = layout == INVAR_DIST_ROW_MAJOR;
    p.ta = ta == INVAR_TRANS ? 'T' : 'N';
    p.tb = tb == INVAR_TRANS ? 'T' : 'N';
    p.m = m;
    p.n = n;
    p.k = k;
    p.alpha = alpha;
    p.beta = beta;
    p.a = a;
    p.ia = ia;
    p.ja = ja;
    p.da = to_desc(desca);
    p.b = b;
    p.ib = ib;
    p.jb = jb;
    p.db = to_desc(descb);
    p.c = c;
    p.ic = ic;
    p.jc = jc;
    p.dc = to_desc(descc);
    mine = check(g, p);
  }
  const Verdict v = agree(comm, mine);
  if (v.arg) {
    last_error = prefix + (mine.arg ? mine.message
                                    : "process " + std::to_string(v.rank) +
                                          " refused its arguments (C untouched)");
    return INVAR_EINVAL;
  }
  const std::string err = run(g, p);
  if (!err.empty()) {
    // Refused on every process alike: no memory, or a message too large for MPI's int counts.
    last_error = prefix + err;
    return err.rfind("out of memory", 0) == 0 ? INVAR_ENOMEM : INVAR_EINVAL;
  }
  return INVAR_OK;
}

}  // namespace
}  // namespace invar::dist

extern "C" {

INVAR_API int64_t invar_dist_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs) {
  if (n < 0 || nb < 1 || nprocs < 1) return 0;
  return invar::dist::numroc(n, nb, iproc, isrc, nprocs);
}

INVAR_API invar_status invar_dist_sgemm(MPI_Comm comm, int nprow, int npcol,
                                        invar_dist_layout layout, invar_trans ta, invar_trans tb,
                                        int64_t m, int64_t n, int64_t k, float alpha,
                                        const float *a, int64_t ia, int64_t ja,
                                        const invar_dist_desc *desca, const float *b, int64_t ib,
                                        int64_t jb, const invar_dist_desc *descb, float beta,
                                        float *c, int64_t ic, int64_t jc,
                                        const invar_dist_desc *descc) {
  return invar::dist::dist_gemm<float>("invar_dist_sgemm", comm, nprow, npcol, layout, ta, tb, m, n,
                                       k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c, ic,
                                       jc, descc);
}

INVAR_API invar_status invar_dist_dgemm(MPI_Comm comm, int nprow, int npcol,
                                        invar_dist_layout layout, invar_trans ta, invar_trans tb,
                                        int64_t m, int64_t n, int64_t k, double alpha,
                                        const double *a, int64_t ia, int64_t ja,
                                        const invar_dist_desc *desca, const double *b, int64_t ib,
                                        int64_t jb, const invar_dist_desc *descb, double beta,
                                        double *c, int64_t ic, int64_t jc,
                                        const invar_dist_desc *descc) {
  return invar::dist::dist_gemm<double>("invar_dist_dgemm", comm, nprow, npcol, layout, ta, tb, m,
                                        n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c,
                                        ic, jc, descc);
}

INVAR_API const char *invar_dist_last_error(void) { return invar::dist::last_error.c_str(); }

}  // extern "C"

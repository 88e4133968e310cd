// SUMMA with C stationary, giving every element of C the single-process chain.
//
// 1. Alignment. op(A) is redistributed (one MPI_Alltoallv) into A': its rows exactly where C's
//    rows are (same processes, same local order), its k columns cut into panels of w that go round
//    the process columns (panel p on column p mod npcol); op(B) likewise into B': k rows in panels
//    of w round the process rows, columns where C's columns are. alpha is applied here, once per
//    element of op(A), by the process that holds it: alpha * a rounded once, as invar's own chain
//    forms it. Any descriptors, offsets and transposes end up in this one aligned form.
//    A' is stored k-major (element (i, kk) of a panel at kk * mloc + i) and B' row-major
//    (kk * nloc + j), so each panel is one contiguous run to broadcast.
// 2. Panels, strictly in increasing k: panel p of A' is broadcast along each process row from
//    column p mod npcol, panel p of B' along each process column from row p mod nprow; then
//    C_local <- (p == 0 ? beta : 1) * C_local + A'_p * B'_p by invar on all of the rank's threads,
//    with alpha already inside A'. invar's chain with beta == 1 starts from C unchanged and
//    continues the fma chain over the panel's k in order, so after the last panel each element
//    holds exactly acc = fma(alpha * a_ik, b_kj, acc) over k = 0 .. K-1 from beta * c (or +0).
//    Broadcasts are non-blocking and double-buffered: panel p + 1 travels while panel p is
//    multiplied, and the local product is cut into column chunks with an MPI_Testall between
//    them so that the library makes progress on the broadcast.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "dist/dist_engine.h"
#include "invar/invar.h"

namespace invar::dist {
namespace {

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <>
MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}

// The contract's floating-point mode for the alpha * a the redistribution forms: round to
// nearest, subnormals kept (no FTZ/DAZ), whatever the caller's thread was set to.
class RoundToNearest {
 public:
  RoundToNearest() {
#if defined(__x86_64__) || defined(__i386__)
    saved_ = _mm_getcsr();
    _mm_setcsr(0x1F80);  // all exceptions masked, round to nearest, no FTZ, no DAZ
#endif
  }
  ~RoundToNearest() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(saved_);
#endif
  }
  RoundToNearest(const RoundToNearest &) = delete;
  RoundToNearest &operator=(const RoundToNearest &) = delete;

 private:
  unsigned saved_ = 0;
};

// One dimension of a block-cyclic distribution: index g (from 0) lives on process
// (src + g / nb) mod nprocs at local index (g / nb / nprocs) * nb + g mod nb.
struct Axis {
  int64_t nb;
  int src;
  int nprocs;
  int owner(int64_t g) const { return static_cast<int>((src + g / nb) % nprocs); }
  int64_t local(int64_t g) const { return (g / nb / nprocs) * nb + g % nb; }
};

// An index of op(X) along one of its dimensions, as the source holds it and as the target wants it.
struct Index {
  int64_t g;    // index in op(X)
  int64_t src;  // local index in the stored X along the stored dimension it maps to (then
                // premultiplied by that dimension's step in the local storage)
  int64_t dst;  // position in the target's local storage along this dimension (then
                // premultiplied by its stride)
};

// The indices [0, count) that this process holds in the source (src axis, shifted by offset) and
// bucketed by the target's process along the target axis.
std::vector<std::vector<Index>> send_buckets(int64_t count, const Axis &src, int64_t offset,
                                             int my_src, const Axis &dst, int64_t dst_offset,
                                             int dst_procs) {
  std::vector<std::vector<Index>> b(dst_procs);
  for (int64_t g = 0; g < count; ++g) {
    if (src.owner(g + offset) != my_src) continue;
    b[dst.owner(g + dst_offset)].push_back({g, src.local(g + offset), 0});
  }
  return b;
}

// The indices this process receives along one target dimension, bucketed by the source's process.
// dst positions count from the first local index the target holds in [dst_offset, +count).
std::vector<std::vector<Index>> recv_buckets(int64_t count, const Axis &src, int64_t offset,
                                             int src_procs, const Axis &dst, int64_t dst_offset,
                                             int my_dst) {
  std::vector<std::vector<Index>> b(src_procs);
  int64_t first = -1;
  for (int64_t g = 0; g < count; ++g) {
    if (dst.owner(g + dst_offset) != my_dst) continue;
    const int64_t l = dst.local(g + dst_offset);
    if (first < 0) first = l;
    b[src.owner(g + offset)].push_back({g, 0, l - first});
  }
  return b;
}

// Uninitialized storage (every element is written before it is read); false when out of memory.
template <class T>
bool allocate(std::unique_ptr<T[]> &p, int64_t n) {
  p.reset(new (std::nothrow) T[static_cast<size_t>(n > 0 ? n : 1)]);
  return p != nullptr;
}

// Visits (r, c) of an r_count x c_count product in tiles of 64 x 64, c outer, r inner.
template <class F>
void for_each_tiled(size_t r_count, size_t c_count, F &&f) {
  constexpr size_t kTile = 64;
  for (size_t c0 = 0; c0 < c_count; c0 += kTile)
    for (size_t r0 = 0; r0 < r_count; r0 += kTile) {
      const size_t c1 = std::min(c0 + kTile, c_count), r1 = std::min(r0 + kTile, r_count);
      for (size_t c = c0; c < c1; ++c)
        for (size_t r = r0; r < r1; ++r) f(r, c);
    }
}

// Where op(X) comes from: the stored matrix, its layout, its transpose and submatrix offset.
template <class T>
struct Source {
  const T *x;
  const Desc *d;
  bool row_major;
  bool trans;
  int64_t i0, j0;  // submatrix offset in the stored X
};

// Redistributes op(X) (rows x cols) into `out` (local target storage, element (r, c) at
// r * rstride + c * cstride). The target's rows are spread over process rows by `dst_rows`
// (offset dst_roff), its columns over process columns by `dst_cols` (offset dst_coff). Each
// element is multiplied by `scale` unless scale == 1. Returns "" or why it could not.
template <class T>
std::string redistribute(const Grid &g, const Source<T> &s, int64_t rows, int64_t cols, T scale,
                         const Axis &dst_rows, int64_t dst_roff, const Axis &dst_cols,
                         int64_t dst_coff, T *out, int64_t rstride, int64_t cstride) {
  // op(X)'s rows run along the stored rows (process rows) unless transposed.
  const Axis stored_rows{s.d->mb, s.d->rsrc, g.nprow}, stored_cols{s.d->nb, s.d->csrc, g.npcol};
  const Axis &src_r = s.trans ? stored_cols : stored_rows;
  const Axis &src_c = s.trans ? stored_rows : stored_cols;
  const int64_t roff = s.trans ? s.j0 : s.i0, coff = s.trans ? s.i0 : s.j0;
  const int my_src_r = s.trans ? g.mycol : g.myrow, my_src_c = s.trans ? g.myrow : g.mycol;
  const int src_r_procs = s.trans ? g.npcol : g.nprow, src_c_procs = s.trans ? g.nprow : g.npcol;

  auto send_r = send_buckets(rows, src_r, roff, my_src_r, dst_rows, dst_roff, g.nprow);
  auto send_c = send_buckets(cols, src_c, coff, my_src_c, dst_cols, dst_coff, g.npcol);
  auto recv_r = recv_buckets(rows, src_r, roff, src_r_procs, dst_rows, dst_roff, g.myrow);
  auto recv_c = recv_buckets(cols, src_c, coff, src_c_procs, dst_cols, dst_coff, g.mycol);

  const int size = g.nprow * g.npcol, me = g.myrow * g.npcol + g.mycol;
  std::vector<int> scount(size), sdispl(size), rcount(size), rdispl(size);
  int64_t stotal = 0, rtotal = 0;
  int too_big = 0;
  for (int dr = 0; dr < g.nprow; ++dr)
    for (int dc = 0; dc < g.npcol; ++dc) {
      const int64_t n = static_cast<int64_t>(send_r[dr].size()) * send_c[dc].size();
      const int rank = dr * g.npcol + dc;
      if (rank == me) continue;  // this process's own share is copied directly
      if (n > INT_MAX || stotal > INT_MAX) too_big = 1;
      scount[rank] = static_cast<int>(n);
      sdispl[rank] = static_cast<int>(stotal);
      stotal += n;
    }
  for (int sr = 0; sr < src_r_procs; ++sr)
    for (int sc = 0; sc < src_c_procs; ++sc) {
      const int64_t n = static_cast<int64_t>(recv_r[sr].size()) * recv_c[sc].size();
      const int rank = s.trans ? sc * g.npcol + sr : sr * g.npcol + sc;
      if (rank == me) continue;
      if (n > INT_MAX || rtotal > INT_MAX) too_big = 1;
      rcount[rank] = static_cast<int>(n);
      rdispl[rank] = static_cast<int>(rtotal);
      rtotal += n;
    }
  if (stotal > INT_MAX || rtotal > INT_MAX) too_big = 1;
  std::unique_ptr<T[]> sendbuf, recvbuf;
  int no_memory = 0;
  if (!too_big) no_memory = !allocate(sendbuf, stotal) || !allocate(recvbuf, rtotal);
  int flags[2] = {too_big, no_memory}, any[2] = {0, 0};
  MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, g.all);
  if (any[0]) return "a process's share of an operand exceeds 2^31 - 1 elements per message";
  if (any[1]) return "out of memory for the redistribution buffers";

  // Offsets premultiplied: stored element (lr, lc) lives at lr * row_step + lc * col_step, and
  // op(X)'s rows are the stored columns when transposed; the target's at r * rstride + c * cstride.
  const int64_t ld = s.d->ld;
  const int64_t row_step = s.row_major ? ld : 1, col_step = s.row_major ? 1 : ld;
  const int64_t r_step = s.trans ? col_step : row_step, c_step = s.trans ? row_step : col_step;
  for (auto &b : send_r)
    for (Index &i : b) i.src *= r_step;
  for (auto &b : send_c)
    for (Index &i : b) i.src *= c_step;
  for (auto &b : recv_r)
    for (Index &i : b) i.dst *= rstride;
  for (auto &b : recv_c)
    for (Index &i : b) i.dst *= cstride;

  // Messages are enumerated tile by tile (both sides use the same order), so that a transposing
  // read or write stays within a few cache lines. alpha * a is formed in the contract's mode.
  RoundToNearest mode;
  const T *x = s.x;
  T *o = sendbuf.get();
  for (int dr = 0; dr < g.nprow; ++dr)
    for (int dc = 0; dc < g.npcol; ++dc) {
      if (dr * g.npcol + dc == me) continue;
      const Index *rs = send_r[dr].data(), *cs = send_c[dc].data();
      if (scale == T(1))
        for_each_tiled(send_r[dr].size(), send_c[dc].size(),
                       [&](size_t ri, size_t ci) { *o++ = x[rs[ri].src + cs[ci].src]; });
      else
        for_each_tiled(send_r[dr].size(), send_c[dc].size(),
                       [&](size_t ri, size_t ci) { *o++ = scale * x[rs[ri].src + cs[ci].src]; });
    }
  MPI_Alltoallv(sendbuf.get(), scount.data(), sdispl.data(), mpi_type<T>(), recvbuf.get(),
                rcount.data(), rdispl.data(), mpi_type<T>(), g.all);
  sendbuf.reset();
  // This process's own share: the send and receive lists name the same indices in the same order.
  {
    const Index *rs = send_r[g.myrow].data(), *cs = send_c[g.mycol].data();
    const Index *rd = recv_r[my_src_r].data(), *cd = recv_c[my_src_c].data();
    const size_t nr = send_r[g.myrow].size(), nc = send_c[g.mycol].size();
    if (scale == T(1))
      for_each_tiled(nr, nc, [&](size_t ri, size_t ci) {
        out[rd[ri].dst + cd[ci].dst] = x[rs[ri].src + cs[ci].src];
      });
    else
      for_each_tiled(nr, nc, [&](size_t ri, size_t ci) {
        out[rd[ri].dst + cd[ci].dst] = scale * x[rs[ri].src + cs[ci].src];
      });
  }
  for (int sr = 0; sr < src_r_procs; ++sr)
    for (int sc = 0; sc < src_c_procs; ++sc) {
      // The same order the source packed in: its rank order is not this one, so index by rank.
      const int rank = s.trans ? sc * g.npcol + sr : sr * g.npcol + sc;
      if (rank == me) continue;
      const T *p = recvbuf.get() + rdispl[rank];
      const Index *rd = recv_r[sr].data(), *cd = recv_c[sc].data();
      for_each_tiled(recv_r[sr].size(), recv_c[sc].size(),
                     [&](size_t ri, size_t ci) { out[rd[ri].dst + cd[ci].dst] = *p++; });
    }
  return {};
}

int64_t panel_width() {
  static const int64_t w = [] {
    const char *e = std::getenv("INVAR_DIST_PANEL");
    const long v = e ? std::strtol(e, nullptr, 10) : 0;
    return v >= 1 && v <= 1 << 20 ? static_cast<int64_t>(v) : int64_t{256};
  }();
  return w;
}

// One operand of a local row-major product: element (r, c) at x[r * rs + c * cs], one of the
// steps 1 (an aligned panel, or the caller's own storage read in place).
template <class T>
struct View {
  const T *x;
  int64_t rs, cs;
  View at(int64_t r, int64_t c) const { return {x + r * rs + c * cs, rs, cs}; }
  View transposed() const { return {x, cs, rs}; }
};

// invar's (transpose, leading dimension) for a rows x cols view.
template <class T>
void form(const View<T> &v, int64_t cols, invar_trans &t, int64_t &ld) {
  if (v.cs == 1 && v.rs >= std::max<int64_t>(cols, 1)) {
    t = INVAR_NO_TRANS;
    ld = v.rs;
  } else {
    t = INVAR_TRANS;
    ld = v.cs;
  }
}

// C (m x n, row-major, rows ldc apart) <- alpha * a * b + beta * C.
template <class T>
invar_status local_gemm(int64_t m, int64_t n, int64_t k, T alpha, const View<T> &a,
                        const View<T> &b, T beta, T *c, int64_t ldc) {
  invar_trans ta, tb;
  int64_t lda, ldb;
  form(a, k, ta, lda);
  form(b, n, tb, ldb);
  if constexpr (sizeof(T) == 4)
    return invar_sgemm(ta, tb, m, n, k, alpha, a.x, lda, b.x, ldb, beta, c, ldc);
  else
    return invar_dgemm(ta, tb, m, n, k, alpha, a.x, lda, b.x, ldb, beta, c, ldc);
}

// Whether index g of op(X) (at xoff + g along axis x) lives on the same process as index g of C
// (at coff + g along axis c) for every g, the local positions a constant apart: then the process
// holds exactly C's indices of op(X), in C's order.
bool same_distribution(const Axis &x, int64_t xoff, const Axis &c, int64_t coff) {
  if (x.nprocs != c.nprocs) return false;
  if (x.nprocs == 1) return true;
  return x.nb == c.nb && xoff % x.nb == coff % c.nb && x.owner(xoff) == c.owner(coff);
}

}  // namespace

template <class T>
std::string run(const Grid &g, const Problem<T> &p) {
  if (p.m == 0 || p.n == 0) return {};
  const Desc &dc = p.dc;
  // This process's part of C: rows [r0, r0 + mloc) and columns [c0, c0 + nloc) of local storage.
  const int64_t r0 = numroc(p.ic, dc.mb, g.myrow, dc.rsrc, g.nprow);
  const int64_t mloc = numroc(p.ic + p.m, dc.mb, g.myrow, dc.rsrc, g.nprow) - r0;
  const int64_t c0 = numroc(p.jc, dc.nb, g.mycol, dc.csrc, g.npcol);
  const int64_t nloc = numroc(p.jc + p.n, dc.nb, g.mycol, dc.csrc, g.npcol) - c0;
  T *c = p.c ? p.c + (p.row_major ? r0 * dc.ld + c0 : r0 + c0 * dc.ld) : nullptr;
  // The local part of C <- alpha * a * b + beta * C over its columns j0 .. j0 + n - 1; a
  // column-major C is, read row-major, C^T = b^T a^T.
  auto local_product = [&](const View<T> &a, const View<T> &b, int64_t k, T alpha, T beta,
                           int64_t j0, int64_t n) {
    if (p.row_major) return local_gemm<T>(mloc, n, k, alpha, a, b, beta, c + j0, dc.ld);
    return local_gemm<T>(n, mloc, k, alpha, b.transposed(), a.transposed(), beta, c + j0 * dc.ld,
                         dc.ld);
  };

  if (p.k == 0 || p.alpha == T(0)) {
    // C <- beta * C, A and B never read: invar's own k == 0 call on the local part.
    if (mloc > 0 && nloc > 0) {
      const View<T> none{c, 1, 1};
      if (local_product(none, none, 0, T(0), p.beta, 0, nloc) != INVAR_OK)
        return std::string("local product: ") + invar_last_error();
    }
    return {};
  }

  // An operand the process already holds as the panels would bring it is read in place: op(A)
  // when its rows are distributed as C's rows and its k columns all live on one process column
  // (a grid of one column), op(B) likewise. On one process both are, and the product is one local
  // call. Read in place, op(A) gets alpha from the local products instead of the redistribution:
  // the same alpha * a rounded once where invar folds alpha into op(A), that is with a row-major
  // C; a column-major C is computed as C^T = op(B)^T op(A)^T, where invar would fold alpha into
  // op(B), so there op(A) stays in place only for alpha = +-1 (alpha * a and alpha * b exact).
  const bool ta = p.ta != 'N' && p.ta != 'n', tb = p.tb != 'N' && p.tb != 'n';
  const Axis c_rows{dc.mb, dc.rsrc, g.nprow}, c_cols{dc.nb, dc.csrc, g.npcol};
  const int64_t a_rs = p.row_major ? p.da.ld : 1, a_cs = p.row_major ? 1 : p.da.ld;
  const int64_t b_rs = p.row_major ? p.db.ld : 1, b_cs = p.row_major ? 1 : p.db.ld;
  const bool one = g.nprow == 1 && g.npcol == 1;
  const bool a_in_place =
      g.npcol == 1 && (p.row_major || p.alpha == T(1) || p.alpha == T(-1)) &&
      (ta ? one : same_distribution({p.da.mb, p.da.rsrc, g.nprow}, p.ia, c_rows, p.ic));
  const bool b_in_place =
      g.nprow == 1 &&
      (tb ? one : same_distribution({p.db.nb, p.db.csrc, g.npcol}, p.jb, c_cols, p.jc));
  // op(A)(i, k) and op(B)(k, j) where they are stored (on one process column all of A's columns
  // are local, on one process row all of B's rows).
  const View<T> a_home =
      ta ? View<T>{p.a + p.ia * a_rs + p.ja * a_cs, a_cs, a_rs}
         : View<T>{p.a + numroc(p.ia, p.da.mb, g.myrow, p.da.rsrc, g.nprow) * a_rs + p.ja * a_cs,
                   a_rs, a_cs};
  const View<T> b_home =
      tb ? View<T>{p.b + p.ib * b_rs + p.jb * b_cs, b_cs, b_rs}
         : View<T>{p.b + p.ib * b_rs + numroc(p.jb, p.db.nb, g.mycol, p.db.csrc, g.npcol) * b_cs,
                   b_rs, b_cs};
  const T alpha = a_in_place ? p.alpha : T(1);
  // C_local[:, j0 : j0 + nj] <- beta * C_local + a (mloc x kw) * b's columns j0 ...
  auto update = [&](const View<T> &a, const View<T> &b, int64_t kw, T beta, int64_t j0,
                    int64_t nj) {
    if (mloc == 0 || nj == 0) return INVAR_OK;
    return local_product(a, b.at(0, j0), kw, alpha, beta, j0, nj);
  };
  if (a_in_place && b_in_place) {
    if (update(a_home, b_home, p.k, p.beta, 0, nloc) != INVAR_OK)
      return std::string("local product: ") + invar_last_error();
    return {};
  }

  const int64_t w = std::min(panel_width(), p.k);
  const int64_t npanels = (p.k + w - 1) / w;
  const Axis k_over_cols{w, 0, g.npcol}, k_over_rows{w, 0, g.nprow};
  const int64_t ka = a_in_place ? 0 : numroc(p.k, w, g.mycol, 0, g.npcol);  // k columns of A'
  const int64_t kb = b_in_place ? 0 : numroc(p.k, w, g.myrow, 0, g.nprow);  // k rows of B'
  const int64_t a_bufs = a_in_place ? 0 : w * mloc, b_bufs = b_in_place ? 0 : w * nloc;

  std::unique_ptr<T[]> a_aligned, b_aligned, a_buf[2], b_buf[2];
  int no_memory = !allocate(a_aligned, ka * mloc) || !allocate(b_aligned, kb * nloc);
  for (int s = 0; s < 2; ++s)
    no_memory |= !allocate(a_buf[s], a_bufs) || !allocate(b_buf[s], b_bufs);
  // A panel is one broadcast of w * mloc (w * nloc) elements, counted in an int.
  const int too_big = w * mloc > INT_MAX || w * nloc > INT_MAX;
  int flags[2] = {no_memory, too_big}, any[2] = {0, 0};
  MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, g.all);
  if (any[1]) return "a panel exceeds 2^31 - 1 elements (lower INVAR_DIST_PANEL)";
  if (any[0]) return "out of memory for the aligned panels";

  std::string err;
  // A': rows like C's rows, k over process columns; element (i, k) at kpos(k) * mloc + i.
  if (!a_in_place) {
    err = redistribute<T>(g, {p.a, &p.da, p.row_major, ta, p.ia, p.ja}, p.m, p.k, p.alpha, c_rows,
                          p.ic, k_over_cols, 0, a_aligned.get(), 1, mloc);
    if (!err.empty()) return err;
  }
  // B': k over process rows, columns like C's columns; element (k, j) at kpos(k) * nloc + j.
  if (!b_in_place) {
    err = redistribute<T>(g, {p.b, &p.db, p.row_major, tb, p.ib, p.jb}, p.k, p.n, T(1), k_over_rows,
                          0, c_cols, p.jc, b_aligned.get(), nloc, 1);
    if (!err.empty()) return err;
  }

  int row_size = 1, col_size = 1;
  MPI_Comm_size(g.row, &row_size);
  MPI_Comm_size(g.col, &col_size);
  View<T> a_panel[2] = {a_home, a_home}, b_panel[2] = {b_home, b_home};
  MPI_Request req[2][2] = {{MPI_REQUEST_NULL, MPI_REQUEST_NULL},
                           {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
  auto post = [&](int64_t q) {
    const int s = static_cast<int>(q % 2);
    const int64_t kw = std::min(w, p.k - q * w);
    const int root_col = static_cast<int>(q % g.npcol), root_row = static_cast<int>(q % g.nprow);
    req[s][0] = req[s][1] = MPI_REQUEST_NULL;
    if (a_in_place) {
      a_panel[s] = a_home.at(0, q * w);
    } else {
      T *a_dst = g.mycol == root_col ? a_aligned.get() + (q / g.npcol) * w * mloc : a_buf[s].get();
      a_panel[s] = {a_dst, 1, mloc};
      if (row_size > 1 && mloc > 0)
        MPI_Ibcast(a_dst, static_cast<int>(kw * mloc), mpi_type<T>(), root_col, g.row, &req[s][0]);
    }
    if (b_in_place) {
      b_panel[s] = b_home.at(q * w, 0);
    } else {
      T *b_dst = g.myrow == root_row ? b_aligned.get() + (q / g.nprow) * w * nloc : b_buf[s].get();
      b_panel[s] = {b_dst, nloc, 1};
      if (col_size > 1 && nloc > 0)
        MPI_Ibcast(b_dst, static_cast<int>(kw * nloc), mpi_type<T>(), root_row, g.col, &req[s][1]);
    }
  };
  // Column chunks of the local update: wide enough that invar runs at speed, several of them so
  // that a pending broadcast is progressed while the panel is multiplied.
  const int64_t chunk = std::max<int64_t>(512, (nloc + 3) / 4);

  post(0);
  for (int64_t q = 0; q < npanels; ++q) {
    const int s = static_cast<int>(q % 2);
    MPI_Waitall(2, req[s], MPI_STATUSES_IGNORE);
    const bool more = q + 1 < npanels;
    if (more) post(q + 1);
    const int64_t kw = std::min(w, p.k - q * w);
    const T beta = q == 0 ? p.beta : T(1);
    MPI_Request *next = req[1 - s];
    const bool pending = more && (next[0] != MPI_REQUEST_NULL || next[1] != MPI_REQUEST_NULL);
    const int64_t step = pending ? chunk : std::max<int64_t>(nloc, 1);
    for (int64_t j0 = 0; j0 < nloc; j0 += step) {
      const invar_status st =
          update(a_panel[s], b_panel[s], kw, beta, j0, std::min(step, nloc - j0));
      // invar refuses nothing here (every argument was checked); a failure is an allocation one.
      if (st != INVAR_OK) {
        MPI_Waitall(2, next, MPI_STATUSES_IGNORE);
        return std::string("local product: ") + invar_last_error();
      }
      if (pending) {
        int done = 0;
        MPI_Testall(2, next, &done, MPI_STATUSES_IGNORE);
      }
    }
  }
  return {};
}

template std::string run<float>(const Grid &, const Problem<float> &);
template std::string run<double>(const Grid &, const Problem<double> &);

}  // namespace invar::dist

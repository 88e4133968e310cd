// Argument checks of the distributed product, in PBLAS's order and numbering, so that the
// ScaLAPACK entry points report what PBLAS would and the C API names the same argument.
#include <climits>
#include <string>

#include "dist/dist_engine.h"

namespace invar::dist {

int64_t numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs) {
  const int64_t nblocks = n / nb;
  const int64_t mydist = (nprocs + iproc - isrc) % nprocs;
  int64_t count = (nblocks / nprocs) * nb;
  const int64_t extra = nblocks % nprocs;
  if (mydist < extra) {
    count += nb;
  } else if (mydist == extra) {
    count += n % nb;
  }
  return count;
}

namespace {

bool trans_ok(char t) {
  return t == 'N' || t == 'n' || t == 'T' || t == 't' || t == 'C' || t == 'c';
}
bool is_trans(char t) { return t != 'N' && t != 'n'; }

// PBLAS descriptor entries, from 1.
enum {
  kMEntry = 3,
  kNEntry = 4,
  kMbEntry = 5,
  kNbEntry = 6,
  kRsrcEntry = 7,
  kCsrcEntry = 8,
  kLldEntry = 9
};

const char *const kArgNames[] = {"",      "transa", "transb", "m",     "n",  "k",    "alpha",
                                 "a",     "ia",     "ja",     "desca", "b",  "ib",   "jb",
                                 "descb", "beta",   "c",      "ic",    "jc", "descc"};
const char *const kEntryNames[] = {"", "dtype", "ctxt", "m", "n", "mb", "nb", "rsrc", "csrc", "ld"};

Check fail(int arg, int entry, const std::string &why) {
  Check c;
  c.arg = arg;
  c.entry = entry;
  c.message = std::string(kArgNames[arg]) + (entry ? std::string(".") + kEntryNames[entry] : "") +
              ": " + why;
  return c;
}

// One matrix: its descriptor (argument position pos), then the submatrix of rows x cols at
// (i, j), read or written by this process only where it holds elements.
Check check_matrix(const Grid &g, bool row_major, const Desc &d, int pos, int64_t i, int64_t j,
                   int64_t rows, int64_t cols) {
  if (d.m < 0) return fail(pos, kMEntry, "negative number of rows " + std::to_string(d.m));
  if (d.n < 0) return fail(pos, kNEntry, "negative number of columns " + std::to_string(d.n));
  if (d.mb < 1) return fail(pos, kMbEntry, "row block size " + std::to_string(d.mb) + " < 1");
  if (d.nb < 1) return fail(pos, kNbEntry, "column block size " + std::to_string(d.nb) + " < 1");
  if (d.rsrc < 0 || d.rsrc >= g.nprow)
    return fail(pos, kRsrcEntry,
                "process row " + std::to_string(d.rsrc) + " outside the grid's " +
                    std::to_string(g.nprow) + " rows");
  if (d.csrc < 0 || d.csrc >= g.npcol)
    return fail(pos, kCsrcEntry,
                "process column " + std::to_string(d.csrc) + " outside the grid's " +
                    std::to_string(g.npcol) + " columns");
  const int64_t local_rows = numroc(d.m, d.mb, g.myrow, d.rsrc, g.nprow);
  const int64_t local_cols = numroc(d.n, d.nb, g.mycol, d.csrc, g.npcol);
  const int64_t need = row_major ? local_cols : local_rows;
  if (d.ld < (need > 1 ? need : 1))
    return fail(pos, kLldEntry,
                "local leading dimension " + std::to_string(d.ld) + " < " +
                    std::to_string(need > 1 ? need : 1) + " on process (" +
                    std::to_string(g.myrow) + ", " + std::to_string(g.mycol) + ")");
  if (i < 0) return fail(pos - 2, 0, "negative row offset " + std::to_string(i));
  if (j < 0) return fail(pos - 1, 0, "negative column offset " + std::to_string(j));
  if (i > d.m - rows)
    return fail(pos - 2, 0,
                "rows " + std::to_string(i) + " .. " + std::to_string(i + rows - 1) +
                    " beyond the matrix's " + std::to_string(d.m));
  if (j > d.n - cols)
    return fail(pos - 1, 0,
                "columns " + std::to_string(j) + " .. " + std::to_string(j + cols - 1) +
                    " beyond the matrix's " + std::to_string(d.n));
  return {};
}

}  // namespace

template <class T>
Check check(const Grid &g, const Problem<T> &p) {
  if (!trans_ok(p.ta)) return fail(1, 0, std::string("not N, T or C: '") + p.ta + "'");
  if (!trans_ok(p.tb)) return fail(2, 0, std::string("not N, T or C: '") + p.tb + "'");
  if (p.m < 0) return fail(3, 0, "negative: " + std::to_string(p.m));
  if (p.n < 0) return fail(4, 0, "negative: " + std::to_string(p.n));
  if (p.k < 0) return fail(5, 0, "negative: " + std::to_string(p.k));
  const bool ta = is_trans(p.ta), tb = is_trans(p.tb);
  Check c = check_matrix(g, p.row_major, p.da, 10, p.ia, p.ja, ta ? p.k : p.m, ta ? p.m : p.k);
  if (c.arg) return c;
  c = check_matrix(g, p.row_major, p.db, 14, p.ib, p.jb, tb ? p.n : p.k, tb ? p.k : p.n);
  if (c.arg) return c;
  c = check_matrix(g, p.row_major, p.dc, 19, p.ic, p.jc, p.m, p.n);
  if (c.arg) return c;
  // Pointers: needed where this process holds part of a submatrix that is read or written.
  auto holds = [&](const Desc &d, int64_t i, int64_t j, int64_t rows, int64_t cols) {
    if (rows == 0 || cols == 0) return false;
    const int64_t r_lo = numroc(i, d.mb, g.myrow, d.rsrc, g.nprow);
    const int64_t r_hi = numroc(i + rows, d.mb, g.myrow, d.rsrc, g.nprow);
    const int64_t c_lo = numroc(j, d.nb, g.mycol, d.csrc, g.npcol);
    const int64_t c_hi = numroc(j + cols, d.nb, g.mycol, d.csrc, g.npcol);
    return r_hi > r_lo && c_hi > c_lo;
  };
  const bool reads_ab = p.m > 0 && p.n > 0 && p.k > 0 && p.alpha != T(0);
  if (reads_ab && p.a == nullptr && holds(p.da, p.ia, p.ja, ta ? p.k : p.m, ta ? p.m : p.k))
    return fail(7, 0, "null pointer on a process that holds part of op(A)");
  if (reads_ab && p.b == nullptr && holds(p.db, p.ib, p.jb, tb ? p.n : p.k, tb ? p.k : p.n))
    return fail(11, 0, "null pointer on a process that holds part of op(B)");
  if (p.c == nullptr && holds(p.dc, p.ic, p.jc, p.m, p.n))
    return fail(16, 0, "null pointer on a process that holds part of C");
  return {};
}

template Check check<float>(const Grid &, const Problem<float> &);
template Check check<double>(const Grid &, const Problem<double> &);

Verdict agree(MPI_Comm all, const Check &mine) {
  int rank = 0;
  MPI_Comm_rank(all, &rank);
  struct {
    int value;
    int index;
  } in{mine.arg ? mine.arg : INT_MAX, rank}, out{};
  MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, all);
  Verdict v;
  v.arg = out.value == INT_MAX ? 0 : out.value;
  v.rank = out.index;
  return v;
}

}  // namespace invar::dist

// The distributed product behind invar_dist_*gemm and the ScaLAPACK entry points: argument checks
// that name the argument the way PBLAS numbers them, and the SUMMA over a grid of communicators.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

namespace invar::dist {

// A 2-D block-cyclic matrix (the fields of a DTYPE 1 descriptor but the context).
struct Desc {
  int64_t m = 0, n = 0, mb = 1, nb = 1;
  int rsrc = 0, csrc = 0;
  int64_t ld = 1;
};

// The grid: `all` ranks prow * npcol + pcol, `row` holds one process row (ranked by pcol), `col`
// one process column (ranked by prow).
struct Grid {
  MPI_Comm all = MPI_COMM_NULL, row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  int nprow = 0, npcol = 0, myrow = 0, mycol = 0;
};

template <class T>
struct Problem {
  bool row_major = false;
  char ta = 'N', tb = 'N';  // as given: N/T/C in either case; anything else is refused
  int64_t m = 0, n = 0, k = 0;
  T alpha = 0, beta = 0;
  const T *a = nullptr;
  int64_t ia = 0, ja = 0;  // from 0
  Desc da;
  const T *b = nullptr;
  int64_t ib = 0, jb = 0;
  Desc db;
  T *c = nullptr;
  int64_t ic = 0, jc = 0;
  Desc dc;
};

// A refused argument: its position in PxGEMM's argument list (1 TRANSA .. 19 DESCC), the
// descriptor entry from 1 (DTYPE_) to 9 (LLD_) when the argument is a descriptor, else 0, and a
// sentence. arg == 0 means the arguments are valid.
struct Check {
  int arg = 0;
  int entry = 0;
  std::string message;
};

int64_t numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs);

// Checks this process's view of the arguments (the local leading dimensions depend on it).
template <class T>
Check check(const Grid &g, const Problem<T> &p);

// Runs the product on arguments every process has checked. Returns "" or, identically on every
// process, why it could not run (C untouched).
template <class T>
std::string run(const Grid &g, const Problem<T> &p);

// Agrees on a verdict: every process passes its own check; returns the lowest argument position
// found on any process and the lowest rank that found it (arg == 0 when all are valid).
struct Verdict {
  int arg = 0;
  int rank = 0;
};
Verdict agree(MPI_Comm all, const Check &mine);

}  // namespace invar::dist

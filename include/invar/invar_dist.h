/*
 * invar on MPI: C <- alpha * op(A) * op(B) + beta * C over a 2-D process grid, on matrices stored
 * 2-D block-cyclically (the layout ScaLAPACK describes with its DTYPE 1 descriptors). Every element
 * of C gets exactly the bits invar_sgemm / invar_dgemm give for the whole matrices on one process,
 * whatever the grid shape, the block sizes or the process count: the product walks the k-panels
 * in increasing global order, each process keeps its part of C in place between panels, and K is
 * never split across processes.
 *
 * The grid: the communicator's ranks are the processes of an nprow x npcol grid in row-major
 * order, rank = prow * npcol + pcol (BLACS's default "Row" order); its size must be
 * nprow * npcol. Every process of the grid calls the function with the same global arguments.
 *
 * A matrix X of X.m x X.n elements is cut into X.mb x X.nb blocks; block (bi, bj) lives on process
 * ((X.rsrc + bi) mod nprow, (X.csrc + bj) mod npcol); each process stores its blocks packed
 * together in one local matrix of leading dimension X.ld, in the order the blocks have globally
 * (column-major or row-major local storage, the same for A, B and C). The product works on
 * submatrices: op(A) is the m x k matrix starting at global (ia, ja) of A (A's k x m part starting
 * there when ta == INVAR_TRANS), op(B) the k x n one at (ib, jb) of B, C the m x n one at (ic, jc)
 * of C; offsets count from 0. Only elements inside those submatrices are read or written.
 *
 * Memory beyond A, B and C, per process: op(A) and op(B) are first redistributed into a copy
 * aligned with C's rows and columns and cut into k-panels of w columns (w = 256 unless
 * INVAR_DIST_PANEL says otherwise), about (m/nprow)(k/npcol) + (k/nprow)(n/npcol) elements, plus
 * the send buffers of that redistribution (the local parts of op(A) and op(B) once more, freed
 * before the product starts), plus two panels of each: 2 w (m/nprow + n/npcol) elements.
 *
 * Errors: a function returns a status. Arguments are checked on every process and the verdict is
 * agreed by all of them (one MPI_Allreduce), so either every process computes or every process
 * returns INVAR_EINVAL with C untouched; invar_dist_last_error() names the argument (on the
 * process that found it; the others name that process).
 *
 * The caller initializes MPI (any thread level: only the calling thread calls MPI). The local
 * products run on invar's default context, on all of its threads (invar_set_num_threads).
 */
#ifndef INVAR_INVAR_DIST_H_
#define INVAR_INVAR_DIST_H_

#include <mpi.h>
#include <stdint.h>

#include "invar/export.h"
#include "invar/invar.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { INVAR_DIST_COL_MAJOR = 0, INVAR_DIST_ROW_MAJOR = 1 } invar_dist_layout;

/* A 2-D block-cyclic matrix: global size, block size, the grid coordinates of the process holding
 * block (0, 0), and the local leading dimension (between columns when local storage is
 * column-major, between rows when it is row-major). */
typedef struct invar_dist_desc {
  int64_t m, n;
  int64_t mb, nb;
  int rsrc, csrc;
  int64_t ld;
} invar_dist_desc;

/* The number of rows (or columns) of a global dimension of n elements, cut into blocks of nb, that
 * grid row (column) iproc holds when block 0 is on isrc of nprocs (ScaLAPACK's NUMROC). */
INVAR_API int64_t invar_dist_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs);

INVAR_API invar_status invar_dist_sgemm(MPI_Comm comm, int nprow, int npcol,
                                        invar_dist_layout layout, invar_trans ta, invar_trans tb,
                                        int64_t m, int64_t n, int64_t k, float alpha,
                                        const float *a, int64_t ia, int64_t ja,
                                        const invar_dist_desc *desca, const float *b, int64_t ib,
                                        int64_t jb, const invar_dist_desc *descb, float beta,
                                        float *c, int64_t ic, int64_t jc,
                                        const invar_dist_desc *descc);

INVAR_API invar_status invar_dist_dgemm(MPI_Comm comm, int nprow, int npcol,
                                        invar_dist_layout layout, invar_trans ta, invar_trans tb,
                                        int64_t m, int64_t n, int64_t k, double alpha,
                                        const double *a, int64_t ia, int64_t ja,
                                        const invar_dist_desc *desca, const double *b, int64_t ib,
                                        int64_t jb, const invar_dist_desc *descb, double beta,
                                        double *c, int64_t ic, int64_t jc,
                                        const invar_dist_desc *descc);

/* The failure of this thread's most recent invar_dist call, "" if it succeeded. */
INVAR_API const char *invar_dist_last_error(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INVAR_INVAR_DIST_H_ */

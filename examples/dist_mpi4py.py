"""Distributed numpy blocks multiplied by invar on MPI, from Python (mpi4py + ctypes).

    mpirun -n 4 python3 examples/dist_mpi4py.py [path/to/libinvar_scalapack.so]

Each process holds its blocks of A, B and C (2-D block-cyclic, row-major numpy arrays), calls
invar_dist_dgemm over MPI.COMM_WORLD, and checks that its blocks of C are bit for bit what
invar_dgemm gives for the whole matrices on one process, whatever the process count.
"""
import ctypes
import sys

import numpy as np
from mpi4py import MPI

lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "libinvar_scalapack.so")


class Desc(ctypes.Structure):
    """invar_dist_desc: global size, block size, the process of block (0, 0), local leading dim."""
    _fields_ = [("m", ctypes.c_int64), ("n", ctypes.c_int64), ("mb", ctypes.c_int64),
                ("nb", ctypes.c_int64), ("rsrc", ctypes.c_int), ("csrc", ctypes.c_int),
                ("ld", ctypes.c_int64)]


# MPI_Comm is a pointer in Open MPI and an int in MPICH: pass mpi4py's handle as what it is.
comm_t = ctypes.c_void_p if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_void_p) else ctypes.c_int
i64, dptr = ctypes.c_int64, ctypes.POINTER(ctypes.c_double)
lib.invar_dist_dgemm.restype = ctypes.c_int
lib.invar_dist_dgemm.argtypes = [comm_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                 ctypes.c_int, i64, i64, i64, ctypes.c_double, dptr, i64, i64,
                                 ctypes.POINTER(Desc), dptr, i64, i64, ctypes.POINTER(Desc),
                                 ctypes.c_double, dptr, i64, i64, ctypes.POINTER(Desc)]
lib.invar_dist_last_error.restype = ctypes.c_char_p
lib.invar_dgemm.restype = ctypes.c_int
lib.invar_dgemm.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, i64, ctypes.c_double, dptr, i64,
                            dptr, i64, ctypes.c_double, dptr, i64]
ROW_MAJOR, NO_TRANS = 1, 0


def ptr(a):
    return a.ctypes.data_as(dptr)


def owned(n, nb, me, nprocs):
    """The global indices of a dimension that grid coordinate `me` holds, in local order."""
    idx = np.arange(n)
    return idx[(idx // nb) % nprocs == me]


def local_part(g, mb, nb, grid):
    """This process's blocks of the global matrix g, packed row-major."""
    nprow, npcol, myrow, mycol = grid
    rows, cols = owned(g.shape[0], mb, myrow, nprow), owned(g.shape[1], nb, mycol, npcol)
    part = np.ascontiguousarray(g[np.ix_(rows, cols)])
    desc = Desc(g.shape[0], g.shape[1], mb, nb, 0, 0, max(1, part.shape[1]))
    if part.size == 0:  # a process with no elements still passes a valid pointer
        part = np.zeros((1, 1))
    return part, desc


def main():
    comm = MPI.COMM_WORLD
    size, rank = comm.Get_size(), comm.Get_rank()
    nprow = max(r for r in range(1, int(size ** 0.5) + 1) if size % r == 0)
    npcol = size // nprow
    grid = (nprow, npcol, rank // npcol, rank % npcol)

    m, n, k, mb, nb = 300, 250, 410, 32, 24
    rng = np.random.default_rng(7)  # the same global matrices on every process
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    c = rng.standard_normal((m, n))
    alpha, beta = 0.75, -1.5

    la, da = local_part(a, mb, nb, grid)
    lb, db = local_part(b, mb, nb, grid)
    lc, dc = local_part(c, mb, nb, grid)
    status = lib.invar_dist_dgemm(MPI._handleof(comm), nprow, npcol, ROW_MAJOR, NO_TRANS,
                                  NO_TRANS, m, n, k, alpha, ptr(la), 0, 0, da, ptr(lb), 0, 0, db,
                                  beta, ptr(lc), 0, 0, dc)
    if status != 0:
        raise RuntimeError(lib.invar_dist_last_error().decode())

    # One process's product of the whole matrices, and this process's blocks of it.
    whole = c.copy()
    if lib.invar_dgemm(NO_TRANS, NO_TRANS, m, n, k, alpha, ptr(a), k, ptr(b), n, beta,
                       ptr(whole), n) != 0:
        raise RuntimeError("invar_dgemm failed")
    expect, _ = local_part(whole, mb, nb, grid)
    same = np.array_equal(lc.view(np.uint64), expect.view(np.uint64))
    close = np.allclose(lc, local_part(alpha * (a @ b) + beta * c, mb, nb, grid)[0])
    all_same = comm.allreduce(0 if same and close else 1) == 0
    if rank == 0:
        print(f"{'ok' if all_same else 'FAILED'} mpi4py: {size} processes on a {nprow}x{npcol} "
              f"grid, {m}x{n}x{k} in {mb}x{nb} blocks: every block bit-equal to one process's "
              f"invar_dgemm (and within rounding of numpy)")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())

"""numpy's matrix product through libinvar_blas.

Run with libinvar_blas.so preloaded (scripts/check-blas.sh does). For float32 and float64 and for
a plain and a transposed left operand, computes a @ b with numpy and the same product with
invar_sgemm / invar_dgemm called directly (ctypes, libinvar.so), and fails unless the bytes are
equal. It also computes the product with the system BLAS's cblas_?gemm (the libblas.so.3 numpy
loaded, looked up in that library's own scope so the preloaded symbol does not answer) and prints
whether that one differs: where it does, numpy's bits are invar's and not the system's.

    LD_PRELOAD=build/libinvar_blas.so /usr/bin/python3 scripts/numpy_through_invar.py build/libinvar.so
"""
import ctypes
import sys

import numpy as np

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112


def pointer(x):
    return x.ctypes.data_as(ctypes.c_void_p)


def invar_product(invar, dtype, a, b):
    """a @ b with invar_sgemm / invar_dgemm; a may be a transposed view of a C-contiguous array."""
    m, k = a.shape
    n = b.shape[1]
    trans_a = not a.flags.c_contiguous
    stored_a = np.ascontiguousarray(a.T) if trans_a else a
    c = np.empty((m, n), dtype=dtype)
    fn = invar.invar_sgemm if dtype == np.float32 else invar.invar_dgemm
    scalar = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                   scalar, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                   scalar, ctypes.c_void_p, ctypes.c_int64]
    status = fn(1 if trans_a else 0, 0, m, n, k, 1.0, pointer(stored_a), stored_a.shape[1],
                pointer(b), n, 0.0, pointer(c), n)
    if status != 0:
        raise RuntimeError("invar gemm failed with status %d" % status)
    return c


def system_product(system, dtype, a, b):
    m, k = a.shape
    n = b.shape[1]
    trans_a = not a.flags.c_contiguous
    stored_a = np.ascontiguousarray(a.T) if trans_a else a
    c = np.empty((m, n), dtype=dtype)
    fn = system.cblas_sgemm if dtype == np.float32 else system.cblas_dgemm
    scalar = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    fn.restype = None
    fn.argtypes = [ctypes.c_int] * 6 + [scalar, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                        ctypes.c_int, scalar, ctypes.c_void_p, ctypes.c_int]
    fn(ROW_MAJOR, TRANS if trans_a else NO_TRANS, NO_TRANS, m, n, k, 1.0, pointer(stored_a),
       stored_a.shape[1], pointer(b), n, 0.0, pointer(c), n)
    return c


def main():
    invar = ctypes.CDLL(sys.argv[1])
    system = ctypes.CDLL("libblas.so.3")  # already loaded by numpy: the same object
    rng = np.random.default_rng(20261203)
    m, k, n = 67, 301, 45
    ok = True
    for dtype in (np.float32, np.float64):
        b = rng.standard_normal((k, n)).astype(dtype)
        plain = rng.standard_normal((m, k)).astype(dtype)
        transposed = rng.standard_normal((k, m)).astype(dtype).T  # a view, not C-contiguous
        for label, a in (("a @ b", plain), ("a.T @ b", transposed)):
            got = a @ b
            want = invar_product(invar, dtype, a, b)
            theirs = system_product(system, dtype, a, b)
            same = got.tobytes() == want.tobytes()
            system_differs = theirs.tobytes() != want.tobytes()
            print("    %-8s %-7s %dx%dx%d: numpy == invar: %s; system BLAS differs from invar: %s"
                  % (np.dtype(dtype).name, label, m, n, k, "yes" if same else "NO",
                     "yes (%d of %d elements)" % (np.count_nonzero(theirs != want), want.size)
                     if system_differs else "no"))
            ok = ok and same
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""numpy's products through libinvar_blas, route by route.

Run with libinvar_blas.so preloaded (scripts/check-blas.sh does):

    LD_PRELOAD=build/libinvar_blas.so /usr/bin/python3 scripts/numpy_through_invar.py build

For float32 and float64, every route numpy 1.24 takes to the BLAS for real types is exercised and
its result compared, byte for byte, with the same product computed by invar's C API directly
(invar_sgemm / invar_dgemm from libinvar.so, through ctypes):

    matmul  X @ W, X.T @ W (gemm), X @ W with a stacked 3-D X (one gemm per matrix),
            x @ W and W @ x (gemv), x @ W[::2] style strided vectors (gemv, incx > 1),
            A @ A.T and A.T @ A (syrk, upper triangle mirrored by numpy), x @ y (dot)
    dot     np.dot of the same shapes (gemm, gemv, syrk, dot)
    inner   np.inner(A, B) (gemm of A and B^T), np.inner(A, A) (syrk), np.inner(x, y) (dot)
    vdot    np.vdot(x, y) (dot)
    einsum  np.einsum(..., optimize=True) of a matrix product (its contraction goes to np.dot)

and the rows of a prefill product X @ W must equal the decode rows X[i] @ W (gemv), bit for bit.
It also checks that the BLAS symbols numpy uses resolve to libinvar_blas.so in this process.

Exit status 0 only if every check holds: without the preload (nothing intercepted) the symbols
resolve elsewhere and the bytes differ, so the script fails.
"""
import ctypes
import os
import sys

import numpy as np

NO_TRANS, TRANS = 0, 1
SYMBOLS = ["cblas_sgemm", "cblas_dgemm", "cblas_sgemv", "cblas_dgemv", "cblas_ssyrk",
           "cblas_dsyrk", "cblas_sdot", "cblas_ddot"]


class Invar:
    """Products computed by invar's C API (row-major), the oracle of every route."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        for name, scalar in (("invar_sgemm", ctypes.c_float), ("invar_dgemm", ctypes.c_double)):
            fn = getattr(self.lib, name)
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64,
                           ctypes.c_int64, scalar, ctypes.c_void_p, ctypes.c_int64,
                           ctypes.c_void_p, ctypes.c_int64, scalar, ctypes.c_void_p,
                           ctypes.c_int64]

    def matmul(self, a, b):
        """a @ b for 2-D a (m x k) and b (k x n), any layout: copied C-contiguous first."""
        a = np.ascontiguousarray(a)
        b = np.ascontiguousarray(b)
        m, k = a.shape
        n = b.shape[1]
        c = np.empty((m, n), dtype=a.dtype)
        fn = self.lib.invar_sgemm if a.dtype == np.float32 else self.lib.invar_dgemm
        status = fn(NO_TRANS, NO_TRANS, m, n, k, 1.0, a.ctypes.data, max(k, 1), b.ctypes.data,
                    max(n, 1), 0.0, c.ctypes.data, max(n, 1))
        if status != 0:
            raise RuntimeError("invar gemm failed: status %d" % status)
        return c

    def vecmat(self, x, w):
        return self.matmul(x.reshape(1, -1), w).reshape(-1)

    def matvec(self, w, x):
        # W @ x = (x^T W^T)^T: the one-row product with x on the left, as the gemv route.
        return self.matmul(x.reshape(1, -1), np.ascontiguousarray(w.T)).reshape(-1)

    def dot(self, x, y):
        return self.matmul(x.reshape(1, -1), y.reshape(-1, 1)).reshape(())


def resolved_to(lib_path):
    """The symbols of SYMBOLS whose address in the process's global scope is not libinvar_blas's."""
    here = ctypes.CDLL(None)
    ours = ctypes.CDLL(lib_path)
    wrong = []
    for name in SYMBOLS:
        global_address = ctypes.cast(getattr(here, name), ctypes.c_void_p).value
        our_address = ctypes.cast(getattr(ours, name), ctypes.c_void_p).value
        if global_address != our_address:
            wrong.append(name)
    return wrong


def main():
    lib_dir = sys.argv[1]
    invar = Invar(os.path.join(lib_dir, "libinvar.so"))
    blas_path = os.path.join(lib_dir, "libinvar_blas.so")
    mapped = any("libinvar_blas" in line for line in open("/proc/self/maps"))
    failures = 0

    def check(label, got, want):
        nonlocal failures
        got = np.asarray(got)
        want = np.asarray(want)
        same = got.dtype == want.dtype and got.shape == want.shape and \
            got.tobytes() == want.tobytes()
        if not same:
            failures += 1
            differing = np.count_nonzero(got != want) if got.shape == want.shape else -1
            print("    FAILED %-44s %d of %d elements differ" %
                  (label, differing, want.size))
        else:
            print("    ok     %-44s equal bytes (%d elements)" % (label, want.size))

    if not mapped:
        failures += 1
        print("    FAILED libinvar_blas.so is not mapped in this process (no preload?)")
    else:
        wrong = resolved_to(blas_path)
        if wrong:
            failures += 1
            print("    FAILED these symbols do not resolve to libinvar_blas.so: %s" % wrong)
        else:
            print("    ok     %s resolve to libinvar_blas.so" % ", ".join(SYMBOLS))

    rng = np.random.default_rng(20261206)
    m, k, n = 67, 301, 45
    for dtype in (np.float32, np.float64):
        t = np.dtype(dtype).name
        x_all = rng.standard_normal((m, k)).astype(dtype)
        w = rng.standard_normal((k, n)).astype(dtype)
        wt = rng.standard_normal((n, k)).astype(dtype)  # x @ wt.T: W stored transposed
        xt = rng.standard_normal((k, m)).astype(dtype).T  # an F-ordered view
        x = rng.standard_normal(k).astype(dtype)
        y = rng.standard_normal(k).astype(dtype)
        wide = rng.standard_normal(2 * k).astype(dtype)
        a = rng.standard_normal((n, k)).astype(dtype)
        stack = rng.standard_normal((3, m, k)).astype(dtype)

        # matmul (the @ operator)
        prefill = x_all @ w
        check("%s matmul X @ W (gemm)" % t, prefill, invar.matmul(x_all, w))
        check("%s matmul X.T-view @ W (gemm, A transposed)" % t, xt @ w, invar.matmul(xt, w))
        check("%s matmul X @ Wt.T (gemm, B transposed)" % t, x_all @ wt.T,
              invar.matmul(x_all, wt.T))
        check("%s matmul stacked X @ W (gemm per matrix)" % t, stack @ w,
              np.stack([invar.matmul(s, w) for s in stack]))
        check("%s matmul x @ W (gemv)" % t, x @ w, invar.vecmat(x, w))
        check("%s matmul x[::2] @ W (gemv, incx 2)" % t, wide[::2] @ w, invar.vecmat(wide[::2], w))
        check("%s matmul W.T @ x (gemv, matrix @ vector)" % t, w.T @ x[:k], invar.matvec(w.T, x))
        check("%s matmul A @ A.T (syrk)" % t, a @ a.T, invar.matmul(a, a.T))
        check("%s matmul A.T @ A (syrk, transposed)" % t, a.T @ a, invar.matmul(a.T, a))
        check("%s matmul x @ y (dot)" % t, x @ y, invar.dot(x, y))
        decode = np.stack([x_all[i] @ w for i in range(m)])
        check("%s decode rows X[i] @ W == prefill X @ W" % t, decode, prefill)
        decode_t = np.stack([x_all[i] @ wt.T for i in range(m)])
        check("%s decode rows X[i] @ Wt.T == prefill" % t, decode_t, x_all @ wt.T)

        # np.dot, np.inner, np.vdot, np.einsum
        check("%s dot(X, W) (gemm)" % t, np.dot(x_all, w), invar.matmul(x_all, w))
        check("%s dot(W.T, x) (gemv)" % t, np.dot(w.T, x), invar.matvec(w.T, x))
        check("%s dot(x, W) (gemv)" % t, np.dot(x, w), invar.vecmat(x, w))
        check("%s dot(A, A.T) (syrk)" % t, np.dot(a, a.T), invar.matmul(a, a.T))
        check("%s dot(x, y) (dot)" % t, np.dot(x, y), invar.dot(x, y))
        check("%s inner(X, Wt) (gemm)" % t, np.inner(x_all, wt), invar.matmul(x_all, wt.T))
        check("%s inner(A, A) (syrk)" % t, np.inner(a, a), invar.matmul(a, a.T))
        check("%s inner(x, y) (dot)" % t, np.inner(x, y), invar.dot(x, y))
        check("%s vdot(x, y) (dot)" % t, np.vdot(x, y), invar.dot(x, y))
        check("%s einsum('ik,kj->ij', optimize=True) (gemm)" % t,
              np.einsum("ik,kj->ij", x_all, w, optimize=True), invar.matmul(x_all, w))

    print("    %s" % ("all routes through invar" if failures == 0 else "%d checks FAILED" % failures))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

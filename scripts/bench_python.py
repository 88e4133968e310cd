#!/usr/bin/env python3
"""Speed of the Python package, as ratios to a peer measured in the same run:
  1. invar.matmul (float32, out= given) against the C library's invar_sgemm called through ctypes
     at 1024^3, 2048^3, 4096^3: the package's own cost, which should be within a few percent;
  2. the per-call cost of tiny products (4^3, 8^3, 16^3) against numpy's @;
  3. torch.nn.Linear and a small transformer's forward inside invar.torch.batch_invariant()
     against PyTorch's own CPU kernels.
Run with the package installed (scripts/test-python.sh makes build/pyenv) and a release build:
  build/pyenv/bin/python scripts/bench_python.py [--lib build/release/libinvar.so] [--quick]
Each time is the median of several runs, the two sides interleaved."""

import argparse
import contextlib
import ctypes
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np

import invar

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cpu_name():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def median_pair(f, g, reps, around_f=contextlib.nullcontext):
    """Median times of f and g, run alternately; each f runs inside around_f(), which is not
    timed."""
    tf, tg = [], []
    with around_f():
        f()
    g()  # warm up: threads, workspaces, pages
    for _ in range(reps):
        with around_f():
            t = time.perf_counter()
            f()
            tf.append(time.perf_counter() - t)
        t = time.perf_counter()
        g()
        tg.append(time.perf_counter() - t)
    return statistics.median(tf), statistics.median(tg)


def bench_large(lib, sizes):
    fn = lib.invar_sgemm
    i64, vp, fl = ctypes.c_int64, ctypes.c_void_p, ctypes.c_float
    fn.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, i64, fl, vp, i64, vp, i64, fl, vp, i64]
    fn.restype = ctypes.c_int
    print("invar.matmul vs the C call (float32, square, out= given)")
    for n in sizes:
        rng = np.random.default_rng(n)
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        c1 = np.empty((n, n), np.float32)
        c2 = np.empty((n, n), np.float32)

        def python_call():
            invar.matmul(a, b, out=c1)

        def c_call():
            assert fn(0, 0, n, n, n, 1.0, a.ctypes.data, n, b.ctypes.data, n, 0.0, c2.ctypes.data, n) == 0

        reps = {1024: 15, 2048: 7}.get(n, 3)
        tp, tc = median_pair(python_call, c_call, reps)
        assert c1.tobytes() == c2.tobytes()
        gf = 2 * n**3 / 1e9
        print(f"  {n}^3: python {gf / tp:7.1f} GFLOP/s, C {gf / tc:7.1f} GFLOP/s, "
              f"python/C time {tp / tc:.3f}")


def bench_tiny(quick):
    """Per-call cost of tiny products (float32 and float64, n^3 for n = 4, 8, 16): invar.matmul,
    with out=, and invar.linear against numpy's @ (and a @ w.T), timeit loops interleaved, the
    median of the repeats."""
    loops, reps = (20000, 5) if quick else (50000, 9)
    print("per call, tiny products (median of interleaved timeit loops)")
    for dtype in (np.float32, np.float64):
        for n in (4, 8, 16):
            a = np.random.default_rng(0).standard_normal((n, n)).astype(dtype)
            b = np.random.default_rng(1).standard_normal((n, n)).astype(dtype)
            out = np.empty((n, n), dtype)
            calls = {
                "invar": lambda: invar.matmul(a, b),
                "out=": lambda: invar.matmul(a, b, out=out),
                "numpy": lambda: a @ b,
                "linear": lambda: invar.linear(a, b),
                "numpy a@w.T": lambda: a @ b.T,
            }
            times = {name: [] for name in calls}
            for name, f in calls.items():
                f()
            for _ in range(reps):
                for name, f in calls.items():
                    times[name].append(timeit.timeit(f, number=loops) / loops)
            t = {name: statistics.median(v) * 1e9 for name, v in times.items()}
            print(f"  {np.dtype(dtype).name} {n}^3: invar.matmul {t['invar']:5.0f} ns, out= {t['out=']:5.0f} ns,"
                  f" numpy @ {t['numpy']:5.0f} ns: ratio {t['invar'] / t['numpy']:.2f} (out= {t['out='] / t['numpy']:.2f});"
                  f" linear {t['linear']:5.0f} ns vs a @ w.T {t['numpy a@w.T']:5.0f} ns:"
                  f" {t['linear'] / t['numpy a@w.T']:.2f}")


def bench_torch(quick):
    try:
        import torch

        import invar.torch as it
    except ImportError:
        print("torch: not installed, skipped")
        return
    sys.path.insert(0, str(ROOT / "tests/python"))
    from test_torch import TinyTransformer

    # The same thread count on both sides: torch's intra-op threads and its BLAS's.
    threads = invar.get_num_threads()
    torch.set_num_threads(threads)
    try:
        from threadpoolctl import threadpool_limits

        _blas_limit = threadpool_limits(limits=threads, user_api="blas")
    except ImportError:
        _blas_limit = None
    torch.manual_seed(0)
    # How PyTorch's OpenMP threads wait between parallel regions decides how much of the cores
    # invar's own threads get right after one (libgomp spins for a while unless told otherwise).
    policy = os.environ.get("OMP_WAIT_POLICY", "unset")
    print(f"torch {torch.__version__} ({torch.get_num_threads()} intra-op threads, BLAS limited to {threads}, "
          f"OMP_WAIT_POLICY {policy}), invar {threads} threads: time in the mode / time of torch's kernels")
    reps = 3 if quick else 7
    cases = [("Linear 4096->4096, 64 rows", torch.nn.Linear(4096, 4096), torch.randn(64, 4096)),
             ("Linear 1024->1024, 512 rows", torch.nn.Linear(1024, 1024), torch.randn(512, 1024)),
             ("Linear 4096->4096, 1 row", torch.nn.Linear(4096, 4096), torch.randn(1, 4096))]
    model = TinyTransformer(vocab=1000, d=512, heads=8, ff=2048)
    tokens = torch.randint(0, 1000, (24, 64))
    emb = model.emb(tokens).detach()
    cases.append(("transformer block d=512, 24 x 64 tokens", model, emb))
    with it.batch_invariant():
        runner = invar.info()["threads_on"]
    print(f"  in the mode invar runs on: {runner}; 'own' below: on invar's own threads instead")

    @contextlib.contextmanager
    def mode_on_own_threads():
        with it.batch_invariant():
            invar.use_openmp_threads(False)
            yield

    with torch.no_grad():
        for name, module, x in cases:
            def forward():
                module(x)

            # Entering and leaving the mode (about 0.1 ms) is not timed: a model runs inside it.
            t_mode, t_torch = median_pair(forward, forward, reps, around_f=it.batch_invariant)
            t_own, t_torch2 = median_pair(forward, forward, reps, around_f=mode_on_own_threads)
            print(f"  {name}: {t_mode * 1e3:8.2f} ms vs {t_torch * 1e3:8.2f} ms, ratio {t_mode / t_torch:.2f}"
                  f" (own: {t_own * 1e3:8.2f} ms vs {t_torch2 * 1e3:8.2f} ms, ratio {t_own / t_torch2:.2f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", default=str(ROOT / "build/release/libinvar.so"))
    parser.add_argument("--quick", action="store_true", help="1024^3 and 2048^3 only, fewer runs")
    args = parser.parse_args()
    print(f"{cpu_name()}, {os.cpu_count()} logical CPUs; invar {invar.__version__}, isa {invar.info()['isa']}, "
          f"{invar.get_num_threads()} threads")
    if os.path.exists(args.lib):
        bench_large(ctypes.CDLL(args.lib), [1024, 2048] if args.quick else [1024, 2048, 4096])
    else:
        print(f"no C library at {args.lib}: the comparison with the C call is skipped")
    bench_tiny(args.quick)
    bench_torch(args.quick)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""numpy.matmul rows of invar_bench: a timing server the benchmark starts, one per thread count.

    OPENBLAS_NUM_THREADS=T OMP_NUM_THREADS=T python scripts/bench_numpy.py

The benchmark sets the thread variables (numpy's BLAS reads them when it loads) and removes
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE. It speaks one line per request on stdin/stdout, fields
separated by tabs, so numpy takes its turns between the other rows of the same run with the same
timing policy as bench/timing.h:

    (start)                  -> ready  library  code-path  threads  shared-object
    shape M N K [OP]         -> ok  1|0  check-text      (operands, one untimed call, check)
    turn SECONDS MIN_SAMPLES -> samples  BATCH  wall-per-call,...  cpu-per-call,...
    quit

OP is f32 (the default: c = a @ b), f32-bt (c = a @ w.T with w stored N x K, a linear layer's
weight) or f64 (float64 operands).

A sample is BATCH calls of numpy.matmul(a, b, out=c) timed together with time.perf_counter
(wall) and time.thread_time (CPU): BATCH is chosen on the first turn of a shape so that a sample
lasts at least 200 microseconds. The check compares up to 256 sampled elements of C with float64
dot products of the same operands: max |C - ref| / max |ref| <= 1e-4 (1e-10 for f64).
"""
import sys
import time

import numpy as np
import threadpoolctl

MIN_SAMPLE_SECONDS = 200e-6
TOLERANCE = 1e-4


def blas_description():
    pools = [p for p in threadpoolctl.threadpool_info() if p.get("user_api") == "blas"]
    info = pools[0] if pools else {}
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        built = f"{blas.get('name', '?')} {blas.get('version', '?')}"
    except Exception:  # older numpy: no dicts mode
        built = "?"
    library = (f"numpy {np.__version__} matmul; BLAS {built} (np.show_config), "
               f"{info.get('internal_api', '?')} {info.get('version', '?')} loaded (threadpoolctl)")
    kernel = f"core {info.get('architecture', '?')}, {info.get('threading_layer', '?')} threading"
    return library, kernel, info.get("num_threads", 0), info.get("filepath", "?")


class Shape:
    def __init__(self, m, n, k, op="f32"):
        if op not in ("f32", "f32-bt", "f64"):
            raise ValueError(f"numpy rows do not offer {op}")
        dtype = np.float64 if op == "f64" else np.float32
        rng = np.random.default_rng(12345)
        self.a = rng.uniform(-1, 1, size=(m, k)).astype(dtype)
        self.w = rng.uniform(-1, 1, size=(n, k)).astype(dtype) if op == "f32-bt" else None
        # b is a view: w.T for the transposed weight, which numpy hands to BLAS as a transpose flag
        self.b = self.w.T if op == "f32-bt" else rng.uniform(-1, 1, size=(k, n)).astype(dtype)
        self.c = np.empty((m, n), dtype=dtype)
        self.tolerance = 1e-10 if op == "f64" else TOLERANCE
        self.batch = 0
        self.wall, self.cpu = [], []

    def call(self, count):
        a, b, c, matmul = self.a, self.b, self.c, np.matmul
        for _ in range(count):
            matmul(a, b, out=c)

    def check(self):
        m, n = self.c.shape
        rng = np.random.default_rng(7)
        count = min(256, m * n)
        i = rng.integers(0, m, size=count)
        j = rng.integers(0, n, size=count)
        ref = np.einsum("sk,ks->s", self.a[i, :].astype(np.float64), self.b[:, j].astype(np.float64))
        got = self.c[i, j].astype(np.float64)
        scale = np.max(np.abs(ref)) if count else 0.0
        diff = np.max(np.abs(got - ref)) if count else 0.0
        rel = diff / scale if scale > 0 else diff
        ok = bool(np.all(np.isfinite(got))) and rel <= self.tolerance
        return ok, f"{'' if ok else 'FAIL: '}rel {rel:.1e} vs float64 ({count} sampled elements)"

    def sample(self, wall, cpu):
        c0, t0 = time.thread_time(), time.perf_counter()
        self.call(self.batch)
        s = time.perf_counter() - t0
        wall.append(s / self.batch)
        cpu.append((time.thread_time() - c0) / self.batch)
        return s

    def turn(self, seconds, min_samples):
        wall, cpu = [], []
        if self.batch == 0:
            self.batch = 1
            if self.sample(wall, cpu) < MIN_SAMPLE_SECONDS:
                wall.clear()
                cpu.clear()
                n = 2
                while n <= 1 << 26:
                    t0 = time.perf_counter()
                    self.call(n)
                    self.batch = n
                    if time.perf_counter() - t0 >= MIN_SAMPLE_SECONDS:
                        break
                    n *= 2
        elif self.wall and min(self.wall) * self.batch < 0.1 * seconds:
            self.call(self.batch)  # untimed: brings the operands back to cache
        start = time.perf_counter()
        done = 0
        while done < min_samples or time.perf_counter() - start < seconds:
            self.sample(wall, cpu)
            done += 1
        self.wall += wall
        self.cpu += cpu
        return wall, cpu


def reply(*fields):
    sys.stdout.write("\t".join(str(f) for f in fields) + "\n")
    sys.stdout.flush()


def main():
    library, kernel, threads, path = blas_description()
    reply("ready", library, kernel, threads, path)
    shape = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "quit":
                break
            if words[0] == "shape":
                shape = None  # frees the previous operands first
                shape = Shape(*(int(w) for w in words[1:4]), *words[4:5])
                shape.call(1)
                ok, text = shape.check()
                reply("ok", int(ok), text)
            elif words[0] == "turn" and shape is not None:
                wall, cpu = shape.turn(float(words[1]), int(words[2]))
                reply("samples", shape.batch, ",".join(f"{w:.6e}" for w in wall),
                      ",".join(f"{c:.6e}" for c in cpu))
            else:
                reply("error", f"unexpected request: {line.strip()}")
        except Exception as e:  # reported to the benchmark as this row's error
            reply("error", f"{type(e).__name__}: {e}".replace("\t", " ").replace("\n", " "))


if __name__ == "__main__":
    main()

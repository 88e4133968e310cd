"""Packed weights, the fused linear layer, threads, threadpoolctl, info() and fingerprint()."""

import ctypes
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import invar
from conftest import ROOT, assert_same_bits, seeded

ACTIVATIONS = {None: 0, "relu": 1, "gelu_tanh": 2, "silu": 3}


def c_library_linear(clib, x, w, bias, activation):
    """invar_sgemm_epilogue / invar_dgemm_epilogue on contiguous copies: x @ w.T + bias, act."""
    double = x.dtype == np.float64
    fn = clib.invar_dgemm_epilogue if double else clib.invar_sgemm_epilogue
    scalar = ctypes.c_double if double else ctypes.c_float
    i64, vp = ctypes.c_int64, ctypes.c_void_p
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, i64, scalar, vp, i64, vp, i64, scalar, vp, i64,
                   ctypes.c_int, vp, ctypes.c_int]
    x = np.ascontiguousarray(x)
    w = np.ascontiguousarray(w)
    m, k = x.shape
    n = w.shape[0]
    y = np.empty((m, n), x.dtype)
    status = fn(0, 1, m, n, k, 1, x.ctypes.data, k, w.ctypes.data, k, 0, y.ctypes.data, n,
                0 if bias is None else 2, None if bias is None else np.ascontiguousarray(bias).ctypes.data,
                ACTIVATIONS[activation])
    assert status == 0
    return y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_packed_weights_equal_the_unpacked_product(dtype):
    w = seeded((48, 70), dtype, 1)  # torch.nn.Linear layout: (out, in)
    packed = invar.pack_b(w, trans=True)
    assert packed.shape == (70, 48) and packed.dtype == np.dtype(dtype).name and packed.nbytes > 0
    for rows in (1, 2, 7, 33):
        x = seeded((rows, 70), dtype, rows)
        assert_same_bits(invar.matmul(x, packed), invar.matmul(x, w.T))
    x3 = seeded((2, 5, 70), dtype, 9)
    assert_same_bits(invar.matmul(x3, packed), invar.matmul(x3, w.T))
    kn = invar.pack_b(np.asfortranarray(w.T))  # op(B) = the (in, out) array as given
    assert_same_bits(invar.matmul(x3, kn), invar.matmul(x3, w.T))


@pytest.mark.parametrize("activation", list(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linear_equals_the_c_epilogue(clib, activation, dtype):
    x = seeded((3, 4, 65), dtype, 1)
    w = seeded((45, 65), dtype, 2) * 4
    bias = seeded((45,), dtype, 3)
    expected = c_library_linear(clib, x.reshape(12, 65), w, bias, activation).reshape(3, 4, 45)
    assert_same_bits(invar.linear(x, w, bias, activation), expected)
    assert_same_bits(invar.linear(x, invar.pack_b(w, trans=True), bias, activation), expected)
    assert_same_bits(invar.linear(x[:, ::-1], w, bias, activation)[:, ::-1], expected)


@pytest.mark.parametrize("activation", list(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_2d_linear_equals_the_c_epilogue(clib, activation, dtype):
    """2-D numpy x and w (a lean path) against the C library and the general path (a 3-D x)."""
    x = seeded((5, 8), dtype, 4)
    w = seeded((6, 8), dtype, 5) * 4
    bias = seeded((6,), dtype, 6)
    for b in (None, bias):
        expected = c_library_linear(clib, x, w, b, activation)
        assert_same_bits(invar.linear(x, w, b, activation), expected)
        assert_same_bits(invar.linear(x[None], w, b, activation)[0], expected)
        assert_same_bits(invar.linear(np.asfortranarray(x), np.asfortranarray(w), b, activation), expected)
    strided = np.repeat(bias, 2)[::2]  # a bias with stride 2: copied by the general path
    assert_same_bits(invar.linear(x, w, strided, activation), c_library_linear(clib, x, w, bias, activation))
    with pytest.raises(TypeError, match="dtype"):
        invar.linear(x, w, bias.astype(np.float16), activation)


@pytest.mark.parametrize("a_dtype", [np.int8, np.uint8], ids=["int8", "uint8"])
def test_int8_packed_weights_equal_the_unpacked_product(a_dtype):
    rng = np.random.default_rng(7)
    w = rng.integers(-128, 128, size=(48, 70), dtype=np.int8)  # (out, in)
    info = np.iinfo(a_dtype)
    x = rng.integers(info.min, info.max + 1, size=(2, 5, 70), dtype=a_dtype)
    exact = x.astype(np.int64) @ w.T.astype(np.int64)  # |sums| < 2^31 here: int32 is exact
    packed = invar.pack_b(w, trans=True, a_dtype=a_dtype)
    assert packed.shape == (70, 48) and packed.dtype == "int8" and packed.nbytes > 0
    for rows in (1, 3, 5):
        y = invar.matmul(x[0, :rows], packed)
        assert y.dtype == np.int32
        assert np.array_equal(y, exact[0, :rows])
        assert_same_bits(y, invar.matmul(x[0, :rows], w.T))
    assert_same_bits(invar.linear(x, packed), exact.astype(np.int32))
    assert_same_bits(invar.linear(x, w), exact.astype(np.int32))
    # Packed for the other signedness of x: refused, not misread.
    other = np.uint8 if a_dtype == np.int8 else np.int8
    with pytest.raises(TypeError, match="packed weights take"):
        invar.matmul(x[0].astype(other), packed)
    with pytest.raises(TypeError, match="a_dtype"):
        invar.pack_b(w.astype(np.float32), a_dtype="int8")
    with pytest.raises(TypeError, match="a_dtype"):
        invar.pack_b(w, a_dtype="int16")


@pytest.mark.parametrize("activation", list(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16], ids=["bfloat16", "float16"])
def test_16_bit_linear_is_the_float32_linear_rounded_once(activation, dtype):
    x = seeded((3, 4, 65), np.float32, 1).astype(dtype)
    w = (seeded((45, 65), np.float32, 2) * 4).astype(dtype)
    bias = seeded((45,), np.float32, 3).astype(dtype)
    wide = invar.linear(x.astype(np.float32), w.astype(np.float32), bias.astype(np.float32),
                        activation)
    for b in (bias, None):
        y = invar.linear(x, w, b, activation)
        assert y.dtype == np.dtype(dtype)
        expected = wide if b is not None else invar.linear(
            x.astype(np.float32), w.astype(np.float32), None, activation)
        assert_same_bits(y, expected.astype(dtype))  # each element rounded once, at the end


def test_linear_is_matmul_plus_bias_then_relu():
    x = seeded((9, 33), np.float32, 4)
    w = seeded((17, 33), np.float32, 5)
    bias = seeded((17,), np.float32, 6)
    y = invar.matmul(x, w.T) + bias  # one rounded float32 add per element
    assert_same_bits(invar.linear(x, w, bias), y)
    assert_same_bits(invar.linear(x, w, bias, "relu"), np.where(y < 0, np.float32(0), y))
    assert_same_bits(invar.linear(x[0], w), invar.matmul(x[0], w.T))


def test_linear_and_pack_errors():
    x = seeded((4, 8), np.float32, 1)
    w = seeded((5, 8), np.float32, 2)
    with pytest.raises(ValueError, match="activation"):
        invar.linear(x, w, activation="tanh")
    with pytest.raises(ValueError, match="features"):
        invar.linear(x[:, :7], w)
    with pytest.raises(ValueError, match="bias"):
        invar.linear(x, w, np.zeros(4, np.float32))
    with pytest.raises(TypeError):
        invar.linear(x, w.astype(np.float64))
    with pytest.raises(TypeError):
        invar.pack_b(w.astype(np.float16))
    with pytest.raises(TypeError):
        invar.linear(x, invar.pack_b(w.astype(np.float64), trans=True))
    with pytest.raises(ValueError, match="out="):
        invar.matmul(x, invar.pack_b(w, trans=True), out=np.empty((4, 5), np.float32))


def test_threads_give_the_same_bits():
    a = seeded((260, 8 * 64), np.float32, 1)
    b = seeded((8 * 64, 300), np.float32, 2)
    with invar.threads(1) as n:
        assert n == 1 and invar.get_num_threads() == 1
        one = invar.matmul(a, b)
    before = invar.get_num_threads()
    with invar.threads(2):
        assert invar.get_num_threads() == 2
        assert_same_bits(invar.matmul(a, b), one)
    assert invar.get_num_threads() == before
    assert invar.set_num_threads(3) == 3
    assert_same_bits(invar.matmul(a, b), one)
    assert invar.set_num_threads(0) >= 1
    for bad in (-1, 2000):
        with pytest.raises(ValueError):
            invar.set_num_threads(bad)


def test_threadpoolctl_sees_and_limits_invar():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    entries = [e for e in threadpoolctl.threadpool_info() if e["user_api"] == "invar"]
    assert len(entries) == 1 and entries[0]["version"] == invar.__version__
    invar.set_num_threads(2)
    with threadpoolctl.threadpool_limits(limits=1):
        assert invar.get_num_threads() == 1
    assert invar.get_num_threads() == 2
    with threadpoolctl.threadpool_limits(limits=1, user_api="invar"):
        assert invar.get_num_threads() == 1
    invar.set_num_threads(0)


def test_info_and_version():
    info = invar.info()
    assert info["version"] == invar.__version__
    assert info["isa"] in ("avx512", "avx2", "neon", "generic")
    assert info["num_threads"] == invar.get_num_threads()
    assert info["config"].startswith("invar " + invar.__version__)
    assert info["caches"]["L1d"]["bytes"] > 0
    import re

    declared = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert declared and declared.group(1) == invar.__version__


def test_fingerprint_equals_the_pinned_string():
    assert invar.fingerprint() == (ROOT / "tests/fingerprint.txt").read_text().strip()


def test_fingerprint_equals_the_command_line_tool():
    tool = os.environ.get("INVAR_CLI", str(ROOT / "build/release/tools/invar"))
    if not os.path.exists(tool):
        pytest.skip(f"no invar tool at {tool} (set INVAR_CLI)")
    expected = subprocess.run([tool, "fingerprint"], check=True, capture_output=True, text=True).stdout.strip()
    assert invar.fingerprint() == expected


def test_fingerprint_is_the_same_on_every_path_and_thread_count():
    code = "import invar; print(invar.info()['isa'], invar.fingerprint())"
    seen = {}
    for isa in ("generic", "avx2", "avx512"):
        env = dict(os.environ, INVAR_ISA=isa, INVAR_NUM_THREADS="1" if isa == "avx2" else "2")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        if r.returncode == 0:
            path, fp = r.stdout.split()
            assert path == isa
            seen[isa] = fp
    assert "generic" in seen
    assert set(seen.values()) == {invar.fingerprint()}


def test_the_gil_is_released_while_computing():
    import threading
    import time

    # One thread computes, so this one has a core of its own: with every core busy, one
    # descheduling of this thread (a few ms) could exceed half of a product that takes 10 ms.
    a = seeded((1600, 1600), np.float32, 1)
    b = seeded((1600, 1600), np.float32, 2)
    with invar.threads(1):
        start = time.perf_counter()
        invar.matmul(a, b)
        duration = time.perf_counter() - start
        done = threading.Event()
        worker = threading.Thread(target=lambda: (invar.matmul(a, b), done.set()))
        gaps, last = [], time.perf_counter()
        worker.start()
        while not done.is_set():  # this thread keeps running Python while the product computes
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
        worker.join()
    assert len(gaps) > 10 and max(gaps) < duration / 2, (max(gaps), duration)



def test_a_subnormal_alpha_survives_a_caller_in_flush_to_zero_mode():
    """alpha reaches the library rounded as the contract rounds, whatever FP mode the calling
    thread is in: torch.set_flush_denormal(True) sets FTZ and DAZ on this thread."""
    torch = pytest.importorskip("torch")
    alpha = 3e-40  # subnormal in float32
    a = np.ones((3, 5), np.float32)
    b = np.ones((5, 4), np.float32)
    expected = invar.gemm(a, b, alpha=alpha)
    assert expected[0, 0] != 0
    if not torch.set_flush_denormal(True):
        pytest.skip("this CPU has no flush-to-zero mode")
    try:
        assert np.float32(alpha) == 0, "flush-to-zero is not in force on this thread"
        plain = invar.gemm(a, b, alpha=alpha)  # numpy matrices: the lean path
        general = invar.gemm(torch.from_numpy(a), torch.from_numpy(b), alpha=alpha)
    finally:
        torch.set_flush_denormal(False)
    assert_same_bits(plain, expected)
    assert_same_bits(np.asarray(general), expected)


def test_products_run_on_a_loaded_openmp_runtime_s_threads():
    # A fresh process: invar's own threads have not started, and no OpenMP runtime is loaded
    # until the test loads the system's libgomp.
    code = r"""
import ctypes, os
import numpy as np
import invar

def invar_workers():
    names = (open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))
    return sorted(n for n in names if n.startswith("invar-w"))

try:
    ctypes.CDLL("libgomp.so.1", mode=os.RTLD_NOLOAD)
    raise SystemExit("libgomp.so.1 is loaded already")
except OSError:
    pass
try:
    invar.use_openmp_threads()
    raise SystemExit("no error without an OpenMP runtime")
except RuntimeError as e:
    assert "no OpenMP runtime is loaded" in str(e), e
assert invar.info()["threads_on"] == "invar"

ctypes.CDLL("libgomp.so.1")
assert invar.use_openmp_threads() == "libgomp.so.1"
assert invar.info()["threads_on"] == "OpenMP (libgomp.so.1)", invar.info()["threads_on"]
invar.set_num_threads(2)
rng = np.random.default_rng(5)
a = rng.standard_normal((400, 300), dtype=np.float32)
b = rng.standard_normal((300, 500), dtype=np.float32)
on_openmp = invar.matmul(a, b)
assert invar_workers() == [], invar_workers()
assert invar.use_openmp_threads(False) == ""
on_own = invar.matmul(a, b)
assert invar_workers() == ["invar-w1"], invar_workers()
assert on_openmp.tobytes() == on_own.tobytes()
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr

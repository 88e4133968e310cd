"""invar.matmul and invar.gemm: exact bits against the scalar reference and the C library, over
every dtype, layouts (strided, transposed, negative strides, broadcast), out=, N-D batches and
errors."""

import ctypes

import ml_dtypes
import numpy as np
import pytest

import invar
import reference
from conftest import assert_same_bits, seeded

BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float64, BF16, np.float16]
CHAIN = {np.float32: "float32", np.float64: "float64", BF16: "float32", np.float16: "float32"}
NAME = {np.float32: "float32", np.float64: "float64", BF16: "bfloat16", np.float16: "float16"}


def operands(m, n, k, dtype, seed=0):
    return seeded((m, k), np.float32, seed).astype(dtype), seeded((k, n), np.float32, seed + 1).astype(dtype)


# ---- the scalar reference ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 5, 7), (13, 17, 19), (2, 33, 40)])
def test_equals_scalar_reference(dtype, shape):
    m, n, k = shape
    a, b = operands(m, n, k, dtype, seed=m * n + k)
    expected = reference.gemm(a.astype(np.float64), b.astype(np.float64), chain=CHAIN[dtype], store=NAME[dtype])
    assert_same_bits(invar.matmul(a, b), expected.astype(dtype))


@pytest.mark.parametrize("dtype", [BF16, np.float16], ids=["bfloat16", "float16"])
def test_sixteen_bit_inputs_float32_out_keep_the_chain(dtype):
    a, b = operands(7, 9, 23, dtype, seed=5)
    out = np.full((7, 9), np.nan, np.float32)
    assert invar.matmul(a, b, out=out) is out
    expected = reference.gemm(a.astype(np.float64), b.astype(np.float64), chain="float32")
    assert_same_bits(out, expected.astype(np.float32))


@pytest.mark.parametrize("a_dtype", [np.int8, np.uint8])
def test_int8_equals_exact_wrapped_sums(a_dtype):
    a = seeded((19, 300), a_dtype, 1)
    b = seeded((300, 21), np.int8, 2)
    assert_same_bits(invar.matmul(a, b), reference.integer_gemm(a, b))


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (-1.0, 1.0), (0.5, 2.0), (3.7, -1.0), (0.0, 0.5)])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_gemm_alpha_beta_transposes(alpha, beta, trans_a, trans_b):
    m, n, k = 6, 11, 13
    a = seeded((k, m) if trans_a else (m, k), np.float32, 3)
    b = seeded((n, k) if trans_b else (k, n), np.float32, 4)
    c = seeded((m, n), np.float32, 5)
    expected = reference.gemm(a.T if trans_a else a, b.T if trans_b else b, c, alpha, beta)
    result = invar.gemm(a, b, c, alpha=alpha, beta=beta, trans_a=trans_a, trans_b=trans_b)
    assert result is c
    assert_same_bits(c, expected.astype(np.float32))


def test_gemm_beta_zero_never_reads_c():
    a, b = operands(5, 6, 7, np.float64)
    c = np.full((5, 6), np.nan)
    invar.gemm(a, b, c)
    assert_same_bits(c, reference.gemm(a, b, chain="float64"))
    assert_same_bits(invar.gemm(a, b), c)


def test_gemm_integer_alpha_beta():
    a = seeded((4, 50), np.int8, 1)
    b = seeded((50, 3), np.int8, 2)
    c = seeded((4, 3), np.int32, 3)
    expected = reference.integer_gemm(a, b, alpha=3, beta=-2, c=c)
    invar.gemm(a, b, c, alpha=3, beta=-2)
    assert_same_bits(c, expected)
    with pytest.raises(ValueError, match="int32"):
        invar.gemm(a, b, c, alpha=0.5)


# ---- the C library ---------------------------------------------------------------------------

i64, fl, db, vp = ctypes.c_int64, ctypes.c_float, ctypes.c_double, ctypes.c_void_p
ENTRIES = {  # (A, C) dtypes -> entry point, scalar type
    (np.float32, np.float32): ("invar_sgemm", fl),
    (np.float64, np.float64): ("invar_dgemm", db),
    (BF16, BF16): ("invar_gemm_bf16bf16bf16", fl),
    (BF16, np.float32): ("invar_gemm_bf16bf16f32", fl),
    (np.float16, np.float16): ("invar_gemm_f16f16f16", fl),
    (np.float16, np.float32): ("invar_gemm_f16f16f32", fl),
    (np.int8, np.int32): ("invar_gemm_s8s8s32", ctypes.c_int32),
    (np.uint8, np.int32): ("invar_gemm_u8s8s32", ctypes.c_int32),
}


def c_library_product(clib, a, b, c_dtype):
    """The C API on contiguous copies: what the Python package must reproduce."""
    name, scalar = ENTRIES[(a.dtype.type, np.dtype(c_dtype).type)]
    fn = getattr(clib, name)
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, i64, scalar, vp, i64, vp, i64, scalar, vp, i64]
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), c_dtype)
    status = fn(0, 0, m, n, k, 1, a.ctypes.data, max(k, 1), b.ctypes.data, max(n, 1), 0, c.ctypes.data, max(n, 1))
    assert status == 0
    return c


@pytest.mark.parametrize("types", list(ENTRIES), ids=lambda t: f"{np.dtype(t[0]).name}->{np.dtype(t[1]).name}")
@pytest.mark.parametrize("shape", [(1, 300, 257), (37, 45, 129), (130, 97, 70)])
def test_equals_c_library(clib, types, shape):
    a_dtype, c_dtype = types
    m, n, k = shape
    a = seeded((m, k), a_dtype if np.dtype(a_dtype).kind in "iu" else np.float32, 7).astype(a_dtype)
    b_dtype = np.int8 if np.dtype(a_dtype).kind in "iu" else a_dtype
    b = seeded((k, n), b_dtype if np.dtype(b_dtype).kind in "iu" else np.float32, 8).astype(b_dtype)
    expected = c_library_product(clib, a, b, c_dtype)
    out = np.empty((m, n), c_dtype)
    assert_same_bits(invar.matmul(a, b, out=out), expected)
    # Transposed storage (Fortran order) and strided views read in place or copied once: same bits.
    assert_same_bits(invar.matmul(np.asfortranarray(a), np.asfortranarray(b), out=out), expected)


# ---- layouts ---------------------------------------------------------------------------------


def views(x):
    """The same matrix as several layouts: C order, Fortran order, a column-strided slice, a
    negative-stride view, a transposed view and a broadcast (zero-stride) array."""
    big = np.zeros((x.shape[0] * 2, x.shape[1] * 3), x.dtype)
    big[::2, 1::3] = x
    flipped = np.ascontiguousarray(x[::-1, ::-1])[::-1, ::-1]
    yield "C", x
    yield "F", np.asfortranarray(x)
    yield "strided", big[::2, 1::3]
    yield "padded rows", np.pad(x, ((0, 0), (0, 5)))[:, : x.shape[1]]
    yield "negative", flipped
    yield "transposed", np.ascontiguousarray(x.T).T
    if x.shape[0] > 0:
        yield "broadcast", np.broadcast_to(x[:1], x.shape) if np.all(x == x[:1]) else x


@pytest.mark.parametrize("dtype", FLOATS + [np.int8], ids=lambda d: np.dtype(d).name)
def test_layouts_give_the_same_bits(dtype):
    m, n, k = 23, 31, 45
    if dtype == np.int8:
        a, b = seeded((m, k), np.int8, 1), seeded((k, n), np.int8, 2)
    else:
        a, b = operands(m, n, k, dtype, seed=11)
    expected = invar.matmul(a, b)
    for name_a, va in views(a):
        for name_b, vb in views(b):
            assert_same_bits(invar.matmul(va, vb), expected)
    row = np.broadcast_to(a[:1], (m, k))
    assert_same_bits(invar.matmul(row, b), np.broadcast_to(invar.matmul(a[:1], b), (m, n)))


def test_out_with_leading_dimension_writes_only_its_columns():
    a, b = operands(9, 7, 12, np.float32)
    big = np.full((9, 20), -5.0, np.float32)
    out = big[:, 3:10]
    assert invar.matmul(a, b, out=out) is out
    assert_same_bits(out, invar.matmul(a, b))
    assert np.all(big[:, :3] == -5) and np.all(big[:, 10:] == -5)


def test_out_without_contiguous_rows_is_refused_untouched():
    a, b = operands(4, 5, 6, np.float32)
    for out in (np.full((5, 4), 7.0, np.float32).T, np.full((4, 10), 7.0, np.float32)[:, ::2]):
        with pytest.raises(ValueError, match="contiguous rows"):
            invar.matmul(a, b, out=out)
        assert np.all(out == 7)


def test_out_errors_leave_it_untouched():
    a, b = operands(4, 5, 6, np.float32)
    out = np.full((4, 5), 3.0, np.float32)
    with pytest.raises(ValueError, match="shape"):
        invar.matmul(a, b[:, :4], out=out)
    with pytest.raises(TypeError):
        invar.matmul(a, b, out=out.astype(np.float64))
    with pytest.raises(ValueError, match="overlaps"):
        invar.matmul(out[:, :4], np.ones((4, 5), np.float32), out=out)
    readonly = out.copy()
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        invar.matmul(a, b, out=readonly)
    assert np.all(out == 3)


# ---- small 2-D products of plain numpy arrays (a lean path) ---------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 4, 8, 16])
def test_small_plain_matrices_equal_the_reference_and_the_general_path(dtype, n):
    m, k = n + 1, n + 2
    a, b = operands(m, n, k, dtype, seed=n)
    expected = reference.gemm(a, b, chain=CHAIN[dtype]).astype(dtype)
    assert_same_bits(invar.matmul(a, b), expected)
    assert_same_bits(invar.matmul(a[None], b)[0], expected)  # a stack of one: the general path
    assert_same_bits(invar.matmul(np.asfortranarray(a), np.ascontiguousarray(b.T).T), expected)
    out = np.full((m, n), np.nan, dtype)
    assert invar.matmul(a, b, out=out) is out
    assert_same_bits(out, expected)
    c = seeded((m, n), dtype, 7)
    want = reference.gemm(a, b, c, 0.5, -2.0, chain=CHAIN[dtype]).astype(dtype)
    got = c.copy()
    assert invar.gemm(np.ascontiguousarray(a.T), b, got, alpha=0.5, beta=-2.0, trans_a=True) is got
    assert_same_bits(got, want)
    assert_same_bits(invar.gemm(a, np.ascontiguousarray(b.T), trans_b=True), expected)


def test_small_products_look_like_numpy_arrays_of_their_own():
    a, b = operands(3, 4, 5, np.float64)
    c = invar.matmul(a, b)
    assert type(c) is np.ndarray and c.dtype == np.float64 and c.shape == (3, 4)
    assert c.flags.c_contiguous and c.flags.writeable and c.flags.owndata and c.base is None
    assert not np.shares_memory(c, a) and not np.shares_memory(c, b)


def test_small_products_of_unusual_numpy_arrays_take_the_general_path():
    a, b = operands(5, 7, 6, np.float32, seed=2)
    expected = invar.matmul(a, b)
    unaligned = np.zeros(a.size * 4 + 1, np.uint8)[1:].view(np.float32).reshape(a.shape)
    unaligned[...] = a
    assert_same_bits(invar.matmul(unaligned, b), expected)
    class Sub(np.ndarray):
        pass

    assert_same_bits(np.asarray(invar.matmul(a.view(Sub), b)), expected)
    with pytest.raises(TypeError):
        invar.matmul(a.astype(">f4"), b)  # byte-swapped: not a CPU array invar can read
    with pytest.raises(TypeError, match="float32 x float64"):
        invar.matmul(a, b.astype(np.float64))
    with pytest.raises(ValueError, match="beta"):
        invar.gemm(a, b, beta=1.0)
    assert_same_bits(invar.matmul(a[:, :0], b[:0]), np.zeros((5, 7), np.float32))


def test_small_products_from_several_threads_give_the_same_bits():
    import threading

    a, b = operands(8, 8, 8, np.float32, seed=4)
    expected = invar.matmul(a, b)
    results, failures = [], []

    def work():
        try:
            for _ in range(200):
                results.append(invar.matmul(a, b))
        except Exception as e:  # pragma: no cover - reported below
            failures.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and len(results) == 800
    for r in results:
        assert_same_bits(r, expected)


# ---- numpy.matmul's shapes ------------------------------------------------------------------


@pytest.mark.parametrize(
    "sa,sb",
    [((5,), (5,)), ((5,), (5, 3)), ((4, 5), (5,)), ((2, 4, 5), (5,)), ((5,), (3, 5, 2)),
     ((3, 4, 5), (3, 5, 2)), ((3, 1, 4, 5), (2, 5, 6)), ((1, 4, 5), (7, 5, 2)), ((2, 0, 4, 5), (5, 3)),
     ((4, 0), (0, 3))],
)
def test_numpy_shapes_and_broadcasting(sa, sb):
    a = seeded(sa, np.float64, 1)
    b = seeded(sb, np.float64, 2)
    result = invar.matmul(a, b)
    expected = np.matmul(a, b)
    assert result.shape == expected.shape
    # Every entry of a stack is exactly the 2-D call on its own operands.
    a2 = np.broadcast_to(a if a.ndim > 1 else a[None], np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + ((a.shape[-2] if a.ndim > 1 else 1), a.shape[-1]))
    b2 = np.broadcast_to(b if b.ndim > 1 else b[:, None], np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (b.shape[-2] if b.ndim > 1 else b.shape[0], b.shape[-1] if b.ndim > 1 else 1))
    full = np.empty(a2.shape[:-1] + b2.shape[-1:], np.float64)
    for idx in np.ndindex(*a2.shape[:-2]):
        full[idx] = invar.matmul(np.ascontiguousarray(a2[idx]), np.ascontiguousarray(b2[idx]))
    assert_same_bits(result, full.reshape(expected.shape))
    if expected.size:
        assert np.allclose(result, expected, rtol=1e-12, atol=1e-12)


def test_batched_out_and_strided_stacks():
    a = seeded((3, 4, 6, 5), np.float32, 1)[:, ::2]
    b = seeded((5, 7), np.float32, 2)
    out = np.zeros((3, 2, 6, 7), np.float32)
    invar.matmul(a, b, out=out)
    for i in range(3):
        for j in range(2):
            assert_same_bits(out[i, j], invar.matmul(np.ascontiguousarray(a[i, j]), b))
    repeated = np.lib.stride_tricks.as_strided(out, (3, 2, 6, 7), (0,) + out.strides[1:])
    with pytest.raises(ValueError, match="stride 0"):
        invar.matmul(a, b, out=repeated)


def test_a_row_alone_equals_the_row_in_any_batch():
    a, b = operands(97, 64, 300, np.float32, seed=21)
    full = invar.matmul(a, b)
    for i in (0, 1, 50, 96):
        assert_same_bits(invar.matmul(a[i], b), full[i])
        assert_same_bits(invar.matmul(a[i : i + 7], b), full[i : i + 7])


# ---- errors ----------------------------------------------------------------------------------


def test_bad_input_raises():
    a, b = operands(4, 5, 6, np.float32)
    with pytest.raises(ValueError, match="6 columns, b has 5 rows"):
        invar.matmul(a, a.T[:5])
    with pytest.raises(ValueError, match="at least one dimension"):
        invar.matmul(np.float32(1), b)
    with pytest.raises(ValueError, match="broadcast"):
        invar.matmul(np.ones((2, 4, 6), np.float32), np.ones((3, 6, 5), np.float32))
    with pytest.raises(TypeError, match="no product of float32 x float64"):
        invar.matmul(a, b.astype(np.float64))
    with pytest.raises(TypeError, match="no product of uint8 x uint8"):
        invar.matmul(np.ones((2, 2), np.uint8), np.ones((2, 2), np.uint8))
    with pytest.raises(TypeError):
        invar.matmul(np.ones((2, 2), np.int16), np.ones((2, 2), np.int16))
    with pytest.raises(TypeError):
        invar.matmul([[1.0]], [[1.0]])
    with pytest.raises(ValueError, match="beta"):
        invar.gemm(a, b, beta=1.0)
    with pytest.raises(ValueError, match="2-D"):
        invar.gemm(a[None], b)


def test_torch_tensors_in_torch_tensors_out():
    torch = pytest.importorskip("torch")
    a, b = operands(6, 7, 8, np.float32)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    r = invar.matmul(ta, tb)
    assert isinstance(r, torch.Tensor) and r.dtype == torch.float32
    assert_same_bits(r, invar.matmul(a, b))
    r16 = invar.matmul(ta.bfloat16(), tb.bfloat16())
    assert r16.dtype == torch.bfloat16
    assert_same_bits(r16.float(), invar.matmul(a.astype(BF16), b.astype(BF16)).astype(np.float32))


def test_views_with_a_leading_dimension_are_not_copied():
    import tracemalloc

    a = np.asfortranarray(seeded((300, 200), np.float32, 1))  # read as a transpose, in place
    b = seeded((200, 400), np.float32, 2)[:, 50:350]            # rows with ld 400, in place
    out = np.empty((300, 300), np.float32)

    def peak(x, y):
        tracemalloc.start()
        invar.matmul(x, y, out=out)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    assert peak(a, b) < 16384
    stepped = seeded((600, 400), np.float32, 3)[::2, ::2]  # no ld describes it: copied once
    assert peak(stepped, b) >= stepped.nbytes

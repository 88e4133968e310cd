import ctypes
import os
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def bits(x):
    """The raw bytes of an array (numpy or torch) with its dtype name and shape, for exact
    comparison: equal bits, not close values."""
    if hasattr(x, "detach"):
        import torch

        t = x.detach().contiguous()
        if t.dtype == torch.bfloat16:
            t = t.view(torch.int16)
        x = t.numpy()
    x = np.ascontiguousarray(x)
    return x.dtype.name, x.shape, x.tobytes()


def assert_same_bits(x, y):
    bx, by = bits(x), bits(y)
    assert bx[:2] == by[:2], f"dtype/shape {bx[:2]} != {by[:2]}"
    if bx[2] != by[2]:
        xa = np.frombuffer(bx[2], dtype=np.uint8)
        ya = np.frombuffer(by[2], dtype=np.uint8)
        first = int(np.nonzero(xa != ya)[0][0])
        raise AssertionError(f"bits differ, first at byte {first} of {len(xa)}")


@pytest.fixture(scope="session")
def clib():
    """The C library built by CMake (INVAR_LIBRARY, else build/release/libinvar.so): the Python
    results must be its bits."""
    path = os.environ.get("INVAR_LIBRARY", str(ROOT / "build/release/libinvar.so"))
    if not os.path.exists(path):
        pytest.skip(f"no C library at {path} (set INVAR_LIBRARY)")
    return ctypes.CDLL(path)


def seeded(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
    return (rng.standard_normal(shape)).astype(dtype)

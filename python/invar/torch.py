"""Batch-invariant PyTorch on CPU: matrix products computed by invar.

    import invar.torch
    with invar.torch.batch_invariant():
        y = model(x)          # each row's bits independent of the batch, threads and machine

Inside the mode the CPU kernels of aten's matrix products (mm, addmm, bmm, baddbmm, mv, addmv,
dot, and so everything that decomposes into them: torch.matmul, torch.nn.functional.linear,
torch.nn.Linear, attention products, and their backward passes) are invar's, registered with
``torch.library`` at the CPU dispatch key and removed on exit. float32, float64, bfloat16 and
float16 go through invar; other dtypes (integers, complex) are computed as exact elementwise
products and sums (exact for integers).

The ``addmm``/``addmv``/``baddbmm`` forms start each element's chain from ``beta * self`` (the
contract's beta * C), so ``x @ W.T + b`` is one chain per element, the same for a row alone or in
any batch. What the mode does not cover: reductions outside matrix products (a bias gradient is
``grad.sum(0)``, a sum over the batch by definition), and ops outside aten's matrix products
(convolutions, fused attention kernels such as scaled_dot_product_attention's flash path).
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from typing import Iterator

import numpy as np
import torch

import invar

__all__ = ["batch_invariant", "enable", "disable", "is_enabled"]

_ROUTED = {torch.float32, torch.float64, torch.bfloat16, torch.float16}
_lock = threading.Lock()
_library = None
_own_threads = False  # enable() moved invar from its own threads to PyTorch's OpenMP threads


def _plain(t: torch.Tensor) -> torch.Tensor:
    # DLPack export refuses tensors that require grad; inside a CPU kernel autograd is done.
    return t.detach() if t.requires_grad else t


def _exact_product(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b for dtypes invar has no product for, without calling a matrix product (which would
    come back here): elementwise products summed over k, exact for integers."""
    return (a.unsqueeze(-1) * b.unsqueeze(-3)).sum(-2)


def _mm(a, b):
    a, b = _plain(a), _plain(b)
    if a.dtype not in _ROUTED or b.dtype != a.dtype:
        return _exact_product(a, b)
    out = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
    return invar.matmul(a, b, out=out)


def _bmm(a, b):
    a, b = _plain(a), _plain(b)
    if a.dtype not in _ROUTED or b.dtype != a.dtype:
        return _exact_product(a, b)
    out = torch.empty((a.shape[0], a.shape[1], b.shape[2]), dtype=a.dtype)
    return invar.matmul(a, b, out=out)


def _scalar(v):
    return v.item() if isinstance(v, torch.Tensor) else v


def _start(self, shape, dtype):
    """A new C holding self broadcast to shape, the chains' start. A float32 or float64 self is
    copied by numpy: a copy by torch runs on its OpenMP threads, which then spin for a while on
    the cores the product's own threads are about to use."""
    if self.dtype == dtype and dtype in (torch.float32, torch.float64):
        try:
            return torch.from_numpy(np.broadcast_to(self.numpy(), shape).copy())
        except (RuntimeError, TypeError):  # a tensor numpy cannot view (e.g. a lazy negation)
            pass
    c = self.to(dtype).expand(shape).contiguous()
    return c.clone() if c.data_ptr() == self.data_ptr() else c


def _addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """beta * self + alpha * mat1 @ mat2: each element's chain starts from beta * self."""
    self, mat1, mat2 = _plain(self), _plain(mat1), _plain(mat2)
    beta, alpha = _scalar(beta), _scalar(alpha)
    shape = (mat1.shape[0], mat2.shape[1])
    if mat1.dtype not in _ROUTED or mat2.dtype != mat1.dtype:
        product = _exact_product(mat1, mat2)
        return product * alpha + self * beta if beta != 0 else product * alpha
    c = torch.empty(shape, dtype=mat1.dtype) if beta == 0 else _start(self, shape, mat1.dtype)
    return invar.gemm(mat1, mat2, c, alpha=alpha, beta=beta)


def _baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
    self, batch1, batch2 = _plain(self), _plain(batch1), _plain(batch2)
    beta, alpha = _scalar(beta), _scalar(alpha)
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    if batch1.dtype not in _ROUTED or batch2.dtype != batch1.dtype:
        product = _exact_product(batch1, batch2)
        return product * alpha + self * beta if beta != 0 else product * alpha
    if beta == 0 and alpha == 1:
        return invar.matmul(batch1, batch2, out=torch.empty(shape, dtype=batch1.dtype))
    c = torch.empty(shape, dtype=batch1.dtype) if beta == 0 else _start(self, shape, batch1.dtype)
    for i in range(shape[0]):
        invar.gemm(batch1[i], batch2[i], c[i], alpha=alpha, beta=beta)
    return c


def _mv(self, vec):
    return _mm(self, vec.unsqueeze(1)).squeeze(1)


def _addmv(self, mat, vec, *, beta=1, alpha=1):
    bias = self.unsqueeze(1) if self.dim() == 1 else self
    return _addmm(bias, mat, vec.unsqueeze(1), beta=beta, alpha=alpha).squeeze(1)


def _dot(self, other):
    return _mm(self.unsqueeze(0), other.unsqueeze(1)).reshape(())


_KERNELS = {
    "mm": _mm,
    "bmm": _bmm,
    "addmm": _addmm,
    "baddbmm": _baddbmm,
    "mv": _mv,
    "addmv": _addmv,
    "dot": _dot,
}


def enable() -> None:
    """Routes CPU matrix products through invar until disable().

    While enabled, invar's parallel products run on the threads of the OpenMP runtime PyTorch
    computes on (where PyTorch uses one, as its Linux builds do): after each of PyTorch's parallel
    operators those threads spin for a while, and invar's own threads would wait for the cores
    they hold. The bits are the same on either set of threads."""
    global _library, _own_threads
    with _lock:
        if _library is not None:
            return
        library = torch.library.Library("aten", "IMPL")
        with warnings.catch_warnings():
            # PyTorch warns that a kernel overrides its own: that is the point.
            warnings.simplefilter("ignore", UserWarning)
            for name, fn in _KERNELS.items():
                library.impl(name, fn, "CPU")
        _library = library
        _own_threads = invar._invar.team_runner() == ""
        if _own_threads:
            try:
                invar.use_openmp_threads(True)
            except RuntimeError:  # no OpenMP runtime in this process: invar's own threads
                _own_threads = False


def disable() -> None:
    """Restores PyTorch's own CPU kernels (and invar's own threads)."""
    global _library, _own_threads
    with _lock:
        library, _library = _library, None
        if library is not None and _own_threads:
            invar.use_openmp_threads(False)
            _own_threads = False
    if library is None:
        return
    if hasattr(library, "_destroy"):  # PyTorch >= 2.1
        library._destroy()
    else:  # PyTorch 1.13-2.0: the registrations go with the C++ handle
        impls = getattr(torch.library, "_impls", set())
        for key in library._op_impls:
            impls.discard(key)
        library._op_impls.clear()
        del library.m


def is_enabled() -> bool:
    return _library is not None


@contextlib.contextmanager
def batch_invariant() -> Iterator[None]:
    """Runs the block with invar's CPU matrix products (see the module's description); the
    previous state is restored on exit, so blocks nest."""
    was_enabled = is_enabled()
    enable()
    try:
        yield
    finally:
        if not was_enabled:
            disable()

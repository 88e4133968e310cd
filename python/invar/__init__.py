"""invar: reproducible matrix multiplication for numpy and PyTorch.

Every element of a product is one fused multiply-add chain over k in increasing order, so
results are the same bits whatever the batch size, the row's position in the batch, the thread
count, the instruction set (AVX-512, AVX2, NEON or portable) or the machine.

    import numpy as np, invar
    c = invar.matmul(a, b)                       # numpy.matmul semantics
    y = invar.linear(x, invar.pack_b(w, trans=True), bias, activation="gelu_tanh")
    with invar.threads(1):                       # same bits, one thread
        ...

PyTorch: ``with invar.torch.batch_invariant(): ...`` routes CPU matrix products through invar.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from typing import Iterator

from . import _invar
from ._invar import PackedB, gemm, linear, matmul, set_num_threads, get_num_threads
from ._invar import use_openmp_threads

__version__: str = _invar.version()

__all__ = [
    "PackedB",
    "__version__",
    "fingerprint",
    "gemm",
    "get_num_threads",
    "info",
    "linear",
    "matmul",
    "pack_b",
    "set_num_threads",
    "threads",
    "use_openmp_threads",
]


def _dtype_name(dtype) -> str | None:
    if dtype is None or isinstance(dtype, str):
        return dtype
    if type(dtype).__module__ == "torch":  # torch.int8 -> "int8"
        return str(dtype).rpartition(".")[2]
    import numpy

    return numpy.dtype(dtype).name


def pack_b(w, trans: bool = False, *, a_dtype=None) -> PackedB:
    return _invar.pack_b(w, trans, a_dtype=_dtype_name(a_dtype))


pack_b.__doc__ = _invar.pack_b.__doc__ + (
    "\n\na_dtype: a name, numpy dtype or torch dtype (int8 weights only).")


@contextlib.contextmanager
def threads(n: int) -> Iterator[int]:
    """Runs the block with invar's default context at ``n`` threads (0: the default), then
    restores the previous count. Yields the count in force."""
    previous = get_num_threads()
    now = set_num_threads(n)
    try:
        yield now
    finally:
        set_num_threads(previous)


_CACHE = re.compile(r"(L1d|L2|L3) (\d+) (KiB|MiB|B)(?: (\d+)-way)?")
_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 * 1024}


def info() -> dict:
    """invar's configuration on this machine: version, ISA path, threads, cache sizes (bytes) as
    the blocking model sees them, and the library's one-line description ("config")."""
    config = _invar.config()
    caches = {}
    for level, size, unit, ways in _CACHE.findall(config):
        caches[level] = {"bytes": int(size) * _UNITS[unit], "ways": int(ways) if ways else None}
    return {
        "version": __version__,
        "isa": _invar.isa(),
        "num_threads": get_num_threads(),
        "threads_on": _invar.team_runner() or "invar",
        "caches": caches,
        "config": config,
    }


def fingerprint() -> str:
    """SHA-256 of the results of fixed seeded problems: the string `invar fingerprint` prints,
    the same on every machine, ISA and thread count."""
    return hashlib.sha256(_invar.fingerprint_results()).hexdigest()


def _register_threadpoolctl() -> None:
    """Lets threadpoolctl see and limit invar (``threadpool_limits(1)``), as user_api "invar"."""
    try:
        import threadpoolctl
    except ImportError:
        return
    if not hasattr(threadpoolctl, "register"):  # threadpoolctl < 3.2
        return

    class InvarController(threadpoolctl.LibController):
        user_api = "invar"
        internal_api = "invar"
        filename_prefixes = ("_invar",)
        check_symbols = ("PyInit__invar",)

        def get_num_threads(self):
            return get_num_threads()

        def set_num_threads(self, num_threads):
            set_num_threads(num_threads)

        def get_version(self):
            return __version__

    threadpoolctl.register(InvarController)


_register_threadpoolctl()

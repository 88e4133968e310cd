"""invar's compiled bindings; use the invar package. (nanobind.stubgen, arrays as Any.)"""

from typing import Any


def matmul(a: Any, b: Any, out: Any | None = None) -> Any:
    """
    Matrix product with numpy.matmul's rules, computed by invar.

    Every element is one fma chain over k in increasing order, so the result's bits do not depend on
    the batch, the element's position in it, the thread count, the instruction set or the machine.

    a, b: numpy arrays, PyTorch CPU tensors or any DLPack / buffer-protocol array.
      1-D operands are promoted to a row (a) or a column (b) and the added axis removed;
      leading dimensions broadcast. Types: float32, float64, bfloat16 (ml_dtypes or torch), float16
      (result of the inputs' type, rounded once from the float32 chain), int8/uint8 x int8 -> int32.
    out: optional array of the result's shape with contiguous rows, written in place and returned;
      a float32 out with bfloat16/float16 inputs keeps the float32 chain unrounded.
    b may also be the result of invar.pack_b.

    Returns a numpy array, a torch tensor when a (or b) is one, or out.
    """

def gemm(a: Any, b: Any, c: Any | None = None, *, alpha: float = 1.0, beta: float = 0.0, trans_a: bool = False, trans_b: bool = False) -> Any:
    """
    C <- alpha * op(A) @ op(B) + beta * C on 2-D arrays, returning C.

    op(X) is X.T when trans_X. With c=None a new array is returned (beta must be 0). beta == 0 never
    reads c (NaN in c does not leak); alpha and beta are float32 for the 16-bit types and int32 for
    the 8-bit ones.
    """

def linear(x: Any, w: Any, bias: Any | None = None, activation: str | None = None) -> Any:
    """
    x @ w.T + bias, then the activation, in one pass (torch.nn.functional.linear's layout).

    x: (..., in_features); w: (out_features, in_features) or invar.pack_b(w, trans=True);
    bias: (out_features,) or None; activation: None, 'relu', 'gelu_tanh' or 'silu' (invar's own
    fixed sequences of IEEE operations, the same bits everywhere). float32, float64, bfloat16 and
    float16; with 16-bit x and w (and bias of their type) the chain, bias and activation run in float32
    and each element is rounded once at the end. Packed weights: float32, float64, or int8 packed
    for x's type (invar.pack_b(w, a_dtype=...)).
    """

class PackedB:
    """
    Weights packed once into the kernels' layout; op(B) is shape (k, n). Use as b of invar.matmul or w of invar.linear. Belongs to the instruction-set path that packed it.
    """

    @property
    def shape(self) -> tuple[int, int]:
        """op(B)'s shape (k, n)"""

    @property
    def dtype(self) -> str:
        """element type name"""

    @property
    def nbytes(self) -> int:
        """bytes held by the packed panels"""

    def __repr__(self) -> str: ...

def pack_b(w: Any, trans: bool = False, *, a_dtype: str | None = None) -> PackedB:
    """
    Packs op(B) (w, or w.T when trans) once for reuse by every product with it.

    float32, float64 or int8. For torch.nn.Linear weights (out, in) use trans=True: the result is then
    usable as invar.linear(x, packed) and invar.matmul(x, packed) == x @ w.T, with exactly the bits of
    the unpacked product. int8 weights are packed for one type of x: a_dtype 'int8' (the default) or
    'uint8' (the integer kernels differ with x's signedness); the products give int32.
    """

def set_num_threads(n: int) -> int:
    """
    Sets the thread count of invar's default context (0: INVAR_NUM_THREADS or the physical cores); returns the count now in force. Results are the same bits at every count.
    """

def get_num_threads() -> int:
    """The thread count of invar's default context."""

def use_openmp_threads(on: bool = True) -> str:
    """
    Runs invar's parallel products on the threads of the OpenMP runtime already loaded in the process (PyTorch's, for one) instead of invar's own, or (on=False) back on invar's own. Returns the runtime's library name ('' with on=False); RuntimeError when none is loaded. The bits are the same either way.
    """

def team_runner() -> str:
    """
    Whose threads the default context's products run on: '' for invar's own, else e.g. 'OpenMP (libgomp.so.1)'.
    """

def version() -> str:
    """The library version."""

def isa() -> str:
    """The micro-kernel path in use: avx512, avx2, neon or generic."""

def config() -> str:
    """
    One line describing the build and the default context (invar_get_config).
    """

def fingerprint_results() -> bytes:
    """
    The bytes `invar fingerprint` hashes; invar.fingerprint() returns their SHA-256.
    """

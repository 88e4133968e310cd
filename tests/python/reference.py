"""The numeric contract as plain Python: each element one chain of exactly rounded fmas, computed
with exact rationals and rounded to the target format by hand, so the oracle shares no code, no
compiler and no floating-point unit with invar."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# (significand bits, minimum normal exponent) of the formats invar rounds to.
FORMATS = {"float32": (24, -126), "float64": (53, -1022), "bfloat16": (8, -126), "float16": (11, -14)}


def round_to(x: Fraction, fmt: str) -> float:
    """x rounded to nearest even in `fmt` (subnormals kept; the tests stay far from overflow)."""
    p, emin = FORMATS[fmt]
    if x == 0:
        return 0.0
    sign = -1.0 if x < 0 else 1.0
    x = abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - p + 1)
    q = x / ulp
    n = q.numerator // q.denominator
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
        n += 1
    return sign * float(n * ulp)


def fma(a: float, b: float, c: float, fmt: str) -> float:
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # An exact zero is +0 in round-to-nearest unless both addends are -0.
        product_negative = (a == 0 or b == 0) and math.copysign(1, a) * math.copysign(1, b) < 0
        if product_negative and c == 0 and math.copysign(1, c) < 0:
            return -0.0
        return 0.0
    return round_to(exact, fmt)


def mul(a: float, b: float, fmt: str) -> float:
    return round_to(Fraction(a) * Fraction(b), fmt) if a * b != 0 else a * b


def gemm(a, b, c=None, alpha=1.0, beta=0.0, chain="float32", store=None):
    """C <- alpha * a @ b + beta * c, element by element as the contract writes it. a, b: 2-D
    float arrays already holding op(A), op(B) (16-bit inputs widened exactly to float32); chain:
    the format of the accumulation; store: the format of the result (rounded once)."""
    store = store or chain
    alpha, beta = round_to(Fraction(alpha), chain), round_to(Fraction(beta), chain)  # as passed
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), dtype=np.float64)
    for i in range(m):
        for j in range(n):
            acc = 0.0 if beta == 0 else mul(beta, float(c[i, j]), chain)
            for p in range(k):
                x = float(a[i, p]) if alpha == 1 else mul(alpha, float(a[i, p]), chain)
                acc = fma(x, float(b[p, j]), acc, chain)
            out[i, j] = acc if store == chain else round_to(Fraction(acc), store)
    return out


def integer_gemm(a, b, alpha=1, beta=0, c=None):
    """Exact integer products wrapped modulo 2^32, as int32."""
    r = alpha * (np.asarray(a, np.int64) @ np.asarray(b, np.int64))
    if beta != 0:
        r = r + beta * np.asarray(c, np.int64)
    return (r & 0xFFFFFFFF).astype(np.uint32).view(np.int32)

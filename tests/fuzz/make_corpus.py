#!/usr/bin/env python3
"""Writes the seed corpus of gemm_fuzz (tests/fuzz/corpus/gemm_fuzz/) in the byte format of
tests/fuzz/fuzz_input.h: ordinary products of every entry point in several floating-point modes,
and the hostile cases the fuzzer must keep finding (denormals-are-zero with a subnormal alpha,
flags left in MXCSR, extents whose memory cannot exist, handles that are not handles, ...).

    tests/fuzz/make_corpus.py [output directory]
"""
import hashlib
import math
import os
import struct
import sys

I64_MAX = 2**63 - 1
I64_MIN = -(2**63)
SPECIAL = [0, 1, -1, I64_MIN, I64_MAX, I64_MAX - 1, 2**31 - 1, 2**31, 2**32, 2**40, 2**61, 2**62,
           2**62 + 1, I64_MAX // 2 + 1, -(2**40), -(2**62), 2**30, 2**20, 2**16 + 1, I64_MAX // 3,
           2**47 - 1, 2**47, 2**48, 2**53, I64_MAX // 4 + 1, 2**33, 2**24, 2**28, 2**59, 2**60,
           I64_MIN + 1, -2]
SCALARS = [0.0, 1.0, -1.0, 0.5, 2.0, 3.7, -0.0, 1.25 * 2.0**-146, 2.0**-149, 2.0**-126,
           float.fromhex("0x1.fffffcp-127"), float.fromhex("0x1.fffffep127"), math.inf, -math.inf,
           math.nan, 2.0**60, 2.0**-60, 0.1, -2.5, 1 + 2.0**-23, 3.0, 2.0**-1074, -(2.0**-140),
           float.fromhex("0x1.8p-1040")]
INTS = [0, 1, -1, 2, 3, -7, 0x7FFFFFFF, -0x80000000, 255, 65536, -65536, 1000003, 0x40000000, -2, 5,
        127]

ENTRIES = """sgemm dgemm sgemm_epilogue dgemm_epilogue sgemm_batch_strided dgemm_batch_strided
sgemm_batch dgemm_batch bf16bf16f32 bf16bf16bf16 f16f16f32 f16f16f16 s8s8s32 u8s8s32
bf16bf16f32_batch_strided bf16bf16bf16_batch_strided f16f16f32_batch_strided
f16f16f16_batch_strided s8s8s32_batch_strided u8s8s32_batch_strided bf16bf16f32_batch
bf16bf16bf16_batch f16f16f32_batch f16f16f16_batch s8s8s32_batch u8s8s32_batch sgemm_packed
dgemm_packed sgemm_packed_a dgemm_packed_a sgemm_packed_ab dgemm_packed_ab sgemm_packed_epilogue
dgemm_packed_epilogue s8s8s32_packed u8s8s32_packed sgemm_ dgemm_ cblas_sgemm cblas_dgemm sgemv_
dgemv_ cblas_sgemv cblas_dgemv sdot_ ddot_ cblas_sdot cblas_ddot sgemmt dgemmt""".split()
ENTRY = {name: i for i, name in enumerate(ENTRIES)}
DOUBLE = {"dgemm", "dgemm_epilogue", "dgemm_batch_strided", "dgemm_batch", "dgemm_packed",
          "dgemm_packed_a", "dgemm_packed_ab", "dgemm_packed_epilogue", "dgemm_", "cblas_dgemm",
          "dgemv_", "cblas_dgemv", "ddot_", "cblas_ddot", "dgemmt"}
INTEGER = {n for n in ENTRIES if n.startswith(("s8", "u8"))}


def raw64(v):
    return bytes([0xF0]) + struct.pack("<q", v)


def extent(v):
    if 0 <= v < 20:
        return bytes([v])
    if 0 <= v < 320:
        return bytes([0xB0]) + struct.pack("<H", v)
    if v in SPECIAL:
        return bytes([0xD0 + SPECIAL.index(v)])
    return raw64(v)


def leading(v, row_length):
    d = v - row_length + 1
    if 0 <= row_length < 2**40 and 0 <= d < 12:
        return bytes([d])
    if 0 <= v < 320:
        return bytes([0xB0]) + struct.pack("<H", v)
    if v in SPECIAL:
        return bytes([0xD0 + SPECIAL.index(v)])
    return raw64(v)


def stride(v, one):
    if v == 0:
        return bytes([0])
    for sign, base in ((1, 0), (-1, 0x80)):
        d = sign * v - one + 2
        if 1 <= d < 8 and one < 2**40:
            return bytes([base + d])
    if 0 <= v < 320:
        return bytes([0xB0]) + struct.pack("<H", v)
    if v in SPECIAL:
        return bytes([0xD0 + SPECIAL.index(v)])
    return raw64(v)


def batch_count(v):
    if 0 <= v < 6:
        return bytes([v])
    for j in range(16):
        if SPECIAL[(j * 2) % 32] == v:
            return bytes([0xF0 + j])
    raise ValueError(v)


def scalar(v, double):
    fmt = "<d" if double else "<f"
    target = struct.pack(fmt, v)
    for i, s in enumerate(SCALARS):
        try:
            if struct.pack(fmt, s) == target:
                return bytes([i])
        except OverflowError:
            pass
    return bytes([0xE0]) + target


def int_scalar(v):
    if v in INTS:
        return bytes([INTS.index(v)])
    return bytes([0xF0]) + struct.pack("<i", v)


def enum(v):
    table = {0: 0x00, 1: 0x01, 2: 0x07, 3: 0x17, 4: 0x27, -1: 0xF0, 100: 0xF5, 0x7FFFFFFF: 0xF7}
    return bytes([table[v]])


def span(rows, cols, ld):
    return 0 if rows <= 0 or cols <= 0 else (rows - 1) * ld + cols


def case(entry, m, n, k, *, ta=0, tb=0, lda=None, ldb=None, ldc=None, sa=None, sb=None, sc=None,
         batch=1, alpha=1.0, beta=0.0, rounding=0, ftz=False, daz=False, flags=0, threads=1,
         bias=0, activation=0, nulls=0, handle=0, data=((0, 1), (0, 2), (0, 3))):
    """One input; unspecified leading dimensions and strides are the tight ones."""
    fortran = entry == "sgemm_" or entry == "dgemm_"
    ra = (k if ta == 1 else m) if fortran else (m if ta == 1 else k)
    rb = (n if tb == 1 else k) if fortran else (k if tb == 1 else n)
    rc = m if fortran else n
    lda = max(ra, 1) if lda is None else lda
    ldb = max(rb, 1) if ldb is None else ldb
    ldc = max(rc, 1) if ldc is None else ldc
    one_a = span(k if ta == 1 else m, m if ta == 1 else k, lda)
    one_b = span(n if tb == 1 else k, k if tb == 1 else n, ldb)
    one_c = span(m, n, ldc)
    sa = min(one_a, I64_MAX) if sa is None else sa
    sb = min(one_b, I64_MAX) if sb is None else sb
    sc = min(one_c, I64_MAX) if sc is None else sc
    double = entry in DOUBLE
    out = bytes([ENTRY[entry], rounding | (4 if ftz else 0) | (8 if daz else 0), flags, threads - 1])
    out += enum(ta) + enum(tb) + extent(m) + extent(n) + extent(k)
    out += leading(lda, ra) + leading(ldb, rb) + leading(ldc, rc)
    out += stride(sa, min(one_a, I64_MAX)) + stride(sb, min(one_b, I64_MAX))
    out += stride(sc, min(one_c, I64_MAX)) + batch_count(batch)
    if entry in INTEGER:
        out += int_scalar(int(alpha)) + int_scalar(int(beta))
    else:
        out += scalar(alpha, double) + scalar(beta, double)
    out += enum(bias) + enum(activation) + bytes([0x80 | nulls if nulls else 0, handle])
    for kind, seed in data:
        out += bytes([kind, seed])
    return out


def corpus():
    sub = 1.25 * 2.0**-146
    cases = []
    add = cases.append
    # Ordinary products of every entry point, in the contract's mode and in others.
    modes = [dict(), dict(ftz=True, daz=True), dict(rounding=2), dict(rounding=1, flags=0x3F),
             dict(rounding=3, threads=2), dict(daz=True, threads=3)]
    shapes = [(1, 1, 1), (2, 3, 4), (7, 9, 5), (17, 33, 19), (5, 1, 300), (64, 48, 40)]
    for i, entry in enumerate(ENTRIES):
        for j, (m, n, k) in enumerate(shapes):
            mode = modes[(i + j) % len(modes)]
            alpha, beta = [(1.0, 0.0), (0.5, 2.0), (-1.0, 1.0), (3.7, -2.5), (0.0, 2.0), (2.0, 0.5)][j]
            add(case(entry, m, n, k, ta=j % 2, tb=(j // 2) % 2, alpha=alpha, beta=beta,
                     batch=1 + j % 3, bias=j % 3, activation=j % 4, data=((j % 3, i), (0, j), (j % 2, i + j)),
                     **mode))
    # 1. DAZ in the caller's MXCSR and a subnormal alpha; NULL A and B with a subnormal alpha.
    for entry in ["bf16bf16bf16", "f16f16f16", "bf16bf16bf16_batch_strided",
                  "f16f16f16_batch_strided", "sgemm", "bf16bf16f32", "sgemm_batch"]:
        add(case(entry, 2, 2, 2, alpha=sub, beta=0.0, daz=True, batch=2))
        add(case(entry, 2, 2, 2, alpha=sub, beta=0.0, daz=True, ftz=True, batch=2, data=((3, 0), (3, 0), (0, 0))))
    for entry, alpha in [("sgemm", sub), ("dgemm", 2.0**-1074), ("sgemm_epilogue", sub),
                         ("sgemm_batch_strided", sub)]:
        add(case(entry, 2, 2, 2, alpha=alpha, daz=True, nulls=3))
        add(case(entry, 2, 2, 2, alpha=alpha, nulls=3))
    # 2. FTZ/DAZ: wrong bits through prepacked A and the BLAS entry points.
    for entry in ["sgemm_packed_a", "sgemm_packed_ab", "sgemm_packed", "sgemm_", "cblas_sgemm",
                  "sgemm", "sgemm_packed_epilogue"]:
        add(case(entry, 2, 2, 2, alpha=sub, ftz=True, daz=True, data=((3, 0), (3, 0), (0, 0))))
    add(case("dgemm_packed_a", 2, 2, 2, alpha=2.0**-1074, ftz=True, daz=True, data=((3, 0), (3, 0), (0, 0))))
    # 3. Flags: a subnormal alpha in the contract's mode; a parallel strided batch.
    add(case("sgemm", 2, 2, 2, alpha=sub))
    add(case("sgemm_batch_strided", 104, 174, 123, batch=2, threads=2, alpha=0.1, beta=0.5))
    add(case("dgemm_batch_strided", 104, 174, 123, batch=2, threads=2, alpha=0.1, beta=0.5))
    add(case("sgemm", 104, 174, 123, threads=2, alpha=0.1, beta=0.5, flags=0x01))
    # 4. Extents whose memory cannot exist.
    for entry in ["sgemm", "dgemm", "bf16bf16bf16", "s8s8s32", "sgemm_epilogue", "sgemm_batch",
                  "sgemm_packed", "sgemm_packed_a", "u8s8s32_packed", "f16f16f32"]:
        big = 2**40
        add(case(entry, big, big, big, lda=big, ldb=big, ldc=big, alpha=0.0, beta=2.0))
        add(case(entry, I64_MAX, I64_MAX, I64_MAX, lda=I64_MAX, ldb=I64_MAX, ldc=I64_MAX))
        add(case(entry, 2, 2, 2, lda=2**62, ldb=2**62, ldc=2**62))
        add(case(entry, 2, 2, 2, ldc=2**62))
        add(case(entry, 2, 2, 2, ldc=2**62 + 1, beta=1.0, alpha=0.5))
        add(case(entry, 1, 2**62, 1, alpha=0.0, beta=0.0))
    for entry in ["sgemm_batch_strided", "dgemm_batch_strided", "bf16bf16bf16_batch_strided",
                  "s8s8s32_batch_strided", "f16f16f16_batch_strided"]:
        add(case(entry, 2, 2, 2, sa=2**61, sb=2**62, sc=2**61, batch=3))
        add(case(entry, 2, 2, 2, sc=2**62, batch=2))
        add(case(entry, 2, 2, 2, sc=I64_MIN, batch=2))
        add(case(entry, 2, 2, 2, sc=I64_MIN, batch=5, alpha=0.0, beta=0.0))
        add(case(entry, 2, 2, 2, sa=-(2**62), batch=3))
        add(case(entry, 2, 2, 2, sc=-4, batch=3, alpha=0.5, beta=2.0))
        add(case(entry, 2, 2, 2, sc=3, batch=2))
    # 5. Handles: of the other side, of another type, NULL, not a handle, the other K.
    for entry in ["sgemm_packed", "dgemm_packed", "sgemm_packed_a", "dgemm_packed_a",
                  "sgemm_packed_ab", "dgemm_packed_ab", "sgemm_packed_epilogue",
                  "s8s8s32_packed", "u8s8s32_packed"]:
        for handle in range(1, 6):
            add(case(entry, 3, 4, 5, handle=handle))
    # 6. Messages: an f32 B given to the int8 products; a negative K to pack.
    add(case("s8s8s32_packed", 2, 2, 2, handle=1))
    add(case("u8s8s32_packed", 2, 2, 2, handle=1))
    add(case("sgemm_packed", 2, 2, -1))
    add(case("sgemm_packed_a", 2, 2, -1))
    # A huge batch whose shared arguments are invalid (ldc < n): refused before anything is
    # allocated for its entries; a negative extent next to a transposed operand in a batch.
    for entry in ["sgemm_batch_strided", "sgemm_batch", "s8s8s32_batch_strided", "f16f16f16_batch"]:
        add(case(entry, 19, 19, 19, ldc=18, batch=2**31 - 1))
    add(case("dgemm_batch_strided", 12, I64_MIN, 10, ta=1, tb=1, lda=14, ldb=17, batch=3))
    add(case("sgemm_batch_strided", I64_MIN, 4, 3, ta=1, tb=1, batch=2))
    # GEMV and DOT: increments (sa: incx, sb: incy, as value % 5 - 2), both layouts (bias), the
    # caller's modes, a subnormal alpha, invalid arguments.
    inc = {1: 3, 2: 4, -1: 1, -2: 0, 0: 2}
    for entry in ["sgemv_", "dgemv_", "cblas_sgemv", "cblas_dgemv", "sdot_", "ddot_", "cblas_sdot",
                  "cblas_ddot"]:
        for j, (m, n) in enumerate([(1, 1), (3, 5), (17, 9), (64, 33), (0, 4), (7, 0)]):
            for ix, iy in [(1, 1), (2, -1), (-2, 2)]:
                mode = modes[(j + ix) % len(modes)]
                add(case(entry, m, n, 1, ta=j % 2, lda=max(m, n, 1) + j % 2, sa=inc[ix], sb=inc[iy],
                         alpha=[0.75, 1.0, -1.0, 0.0, 2.0, sub][j], beta=[0.0, 1.0, 0.5, 2.0, 0.0, 1.0][j],
                         bias=j % 2, **mode))
        add(case(entry, 3, 3, 1, lda=3, sa=3, sb=3, alpha=sub, ftz=True, daz=True, data=((3, 0), (3, 0), (0, 0))))
        add(case(entry, 3, 3, 1, lda=3, sa=2, sb=3))   # incx 0
        add(case(entry, 3, 3, 1, lda=3, sa=3, sb=2))   # incy 0
        add(case(entry, 3, 3, 1, lda=1, sa=3, sb=3))   # lda too small
        add(case(entry, 3, 3, 1, ta=3, lda=3, sa=3, sb=3))
    # Products of one triangle (m is n; the handle byte is uplo: 0 upper, 1 lower, 2 invalid),
    # across the blocking and on several threads.
    for entry in ["sgemmt", "dgemmt"]:
        for uplo in range(3):
            for j, (n, k) in enumerate([(1, 1), (5, 3), (40, 17), (130, 70)]):
                add(case(entry, n, n, k, ta=j % 2, tb=(j + uplo) % 2, alpha=[1.0, 0.5, -1.0, 0.0][j],
                         beta=[0.0, 2.0, 1.0, 0.5][j], threads=1 + j % 3, handle=uplo))
    # Invalid enums, NULLs, short leading dimensions.
    for entry in ["sgemm", "bf16bf16f32", "s8s8s32_batch", "sgemm_epilogue", "sgemm_", "cblas_dgemm"]:
        add(case(entry, 3, 3, 3, ta=2))
        add(case(entry, 3, 3, 3, tb=-1))
        add(case(entry, 3, 3, 3, lda=2))
        add(case(entry, 3, 3, 3, ldc=2, daz=True, alpha=sub))
        add(case(entry, 3, 3, 3, bias=4, activation=100))
        add(case(entry, 3, 3, 3, nulls=4))
        add(case(entry, 3, 3, 3, nulls=0x10 | 1, batch=3))
        add(case(entry, 3, 3, 3, nulls=0x20, batch=3))
    return cases


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "corpus", "gemm_fuzz")
    os.makedirs(out, exist_ok=True)
    for data in corpus():
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

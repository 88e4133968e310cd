"""invar.torch: inside batch_invariant() CPU matrix products are invar's (bits equal to
invar.matmul), a small transformer gives each sequence the same bits alone or in a batch of 24,
forward and backward, at any thread count; outside the mode PyTorch's own kernels are back, and
give the model other bits (which shows the mode is what the model ran on)."""

import math
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import invar  # noqa: E402
import invar.torch  # noqa: E402
from conftest import assert_same_bits  # noqa: E402

DTYPES = [torch.float32, torch.float64, torch.bfloat16]


class TinyTransformer(torch.nn.Module):
    """Embeddings, one attention block and an MLP: every kind of product a decoder makes."""

    def __init__(self, vocab=50, d=96, heads=4, ff=192):
        super().__init__()
        self.heads = heads
        self.emb = torch.nn.Embedding(vocab, d)
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.ff1 = torch.nn.Linear(d, ff)
        self.ff2 = torch.nn.Linear(ff, d)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, x):  # x: (batch, T, d) embeddings
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        o = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(o)
        x = x + self.ff2(torch.nn.functional.gelu(self.ff1(self.ln2(x))))
        return self.head(x)


def model_and_inputs(dtype, batch=24, t=7):
    torch.manual_seed(0)
    model = TinyTransformer().to(dtype)
    tokens = torch.randint(0, 50, (batch, t))
    return model, tokens


def forward_each(model, tokens):
    """Outputs and input gradients of the whole batch, and of each sequence run alone."""
    def run(tok):
        x = model.emb(tok).detach().requires_grad_(True)
        y = model(x)
        y.float().square().sum().backward()
        return y.detach(), x.grad
    together = run(tokens)
    alone = [run(tokens[i : i + 1]) for i in range(tokens.shape[0])]
    return together, alone


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_model_rows_alone_equal_rows_in_the_batch(dtype):
    model, tokens = model_and_inputs(dtype)
    with invar.torch.batch_invariant():
        (y, gx), alone = forward_each(model, tokens)
    for i, (yi, gi) in enumerate(alone):
        assert_same_bits(y[i : i + 1], yi)
        assert_same_bits(gx[i : i + 1], gi)


def test_the_mode_is_what_the_model_runs_on():
    """Outside the mode the model runs PyTorch's own kernels and its outputs differ from the
    mode's, so the bits the mode gives are the mode's doing. Whether PyTorch's own outputs also
    change with the batch depends on the BLAS it calls: over OpenBLAS they do on these shapes,
    over the reference BLAS (one plain loop per element) they do not, so that is reported, not
    asserted."""
    model, tokens = model_and_inputs(torch.float32)
    with invar.torch.batch_invariant():
        (inside, inside_grad), _ = forward_each(model, tokens)
    assert not invar.torch.is_enabled()
    (outside, outside_grad), alone = forward_each(model, tokens)
    assert not torch.equal(inside, outside)
    assert not torch.equal(inside_grad, outside_grad)
    variant = any(not torch.equal(outside[i : i + 1], yi) for i, (yi, _) in enumerate(alone))
    print(f"PyTorch's own kernels batch-variant here: {variant}")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_products_in_the_mode_are_invars(dtype, monkeypatch):
    torch.manual_seed(1)
    a, b = torch.randn(7, 96).to(dtype), torch.randn(96, 96).to(dtype)
    bias = torch.randn(96).to(dtype)
    stack_a, stack_b = torch.randn(3, 7, 96).to(dtype), torch.randn(3, 96, 5).to(dtype)
    expected_mm = invar.matmul(a, b)
    expected_bmm = invar.matmul(stack_a, stack_b)
    expected_addmm = invar.gemm(a, b, bias.expand(7, 96).contiguous(), beta=1.0)
    before = torch.mm(a, b)
    # Every product in the mode must reach invar: count the calls of the package's entry points
    # (PyTorch's own kernels may give the same bits on some shapes, so equal bits alone would not
    # show that the mode is active).
    calls = []
    for name in ("matmul", "gemm"):
        real = getattr(invar, name)

        def counted(*args, _real=real, **kwargs):
            calls.append(1)
            return _real(*args, **kwargs)

        monkeypatch.setattr(invar, name, counted)

    def routed(product):
        before_calls = len(calls)
        result = product()
        assert len(calls) > before_calls, "the product did not reach invar"
        return result

    with invar.torch.batch_invariant():
        assert_same_bits(routed(lambda: torch.mm(a, b)), expected_mm)
        assert_same_bits(routed(lambda: a @ b), expected_mm)
        assert_same_bits(routed(lambda: torch.bmm(stack_a, stack_b)), expected_bmm)
        assert_same_bits(routed(lambda: stack_a @ stack_b), expected_bmm)
        assert_same_bits(routed(lambda: torch.addmm(bias, a, b)), expected_addmm)
        assert_same_bits(
            routed(lambda: torch.nn.functional.linear(a, b.t().contiguous(), bias)), expected_addmm)
        assert_same_bits(routed(lambda: torch.mv(a, b[:, 0])), expected_mm[:, 0])
        assert_same_bits(
            routed(lambda: torch.baddbmm(torch.zeros(3, 7, 5, dtype=dtype), stack_a, stack_b)),
            expected_bmm)
    # Registrations removed on exit: PyTorch's own kernel again, and invar is not called.
    assert not invar.torch.is_enabled()
    outside = len(calls)
    assert_same_bits(torch.mm(a, b), before)
    assert len(calls) == outside


def test_enable_disable_and_nesting(monkeypatch):
    a, b = torch.randn(7, 96), torch.randn(96, 96)
    expected = invar.matmul(a, b)
    calls = []
    real = invar.matmul

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(invar, "matmul", counted)
    invar.torch.enable()
    try:
        with invar.torch.batch_invariant():
            pass
        assert invar.torch.is_enabled()  # the inner block leaves the outer state
        assert_same_bits(a @ b, expected)
        assert len(calls) == 1
    finally:
        invar.torch.disable()
    assert not invar.torch.is_enabled()
    a @ b
    assert len(calls) == 1  # PyTorch's own kernel again
    invar.torch.disable()  # twice is harmless


def test_threads_and_other_dtypes_in_the_mode():
    model, tokens = model_and_inputs(torch.float32)
    with invar.torch.batch_invariant():
        with invar.threads(1):
            (y1, g1), _ = forward_each(model, tokens[:4])
        with invar.threads(2):
            (y2, g2), _ = forward_each(model, tokens[:4])
        ints = torch.arange(12).reshape(3, 4) @ torch.arange(8).reshape(4, 2)
    assert_same_bits(y1, y2)
    assert_same_bits(g1, g2)
    assert torch.equal(ints, torch.arange(12).reshape(3, 4) @ torch.arange(8).reshape(4, 2))


@pytest.mark.skipif("OpenMP" not in torch.__config__.parallel_info(), reason="PyTorch without OpenMP")
def test_the_mode_computes_on_pytorch_s_openmp_threads():
    # A fresh process, so that invar's own threads have not started before the mode.
    code = r"""
import os
import torch
import invar, invar.torch

def invar_workers():
    names = (open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))
    return sorted(n for n in names if n.startswith("invar-w"))

torch.set_num_threads(2)
invar.set_num_threads(2)
a = torch.randn(384, 320)
b = torch.randn(320, 448)
with invar.torch.batch_invariant():
    assert invar.info()["threads_on"].startswith("OpenMP"), invar.info()["threads_on"]
    in_mode = a @ b
    assert invar_workers() == [], invar_workers()
assert invar.info()["threads_on"] == "invar"
alone = invar.matmul(a.numpy(), b.numpy())
assert invar_workers() == ["invar-w1"], invar_workers()
assert in_mode.numpy().tobytes() == alone.tobytes()
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr

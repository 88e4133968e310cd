// invar._invar: the compiled half of the Python package. Each function translates Python arrays
// into calls of the C API (include/invar/invar.h) and keeps their bits; the pure-Python half
// (python/invar/__init__.py) adds the context managers, info() parsing and threadpoolctl.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <string>

#include "invar/invar.h"
#include "invar/invar.hpp"
#include "python/src/arrays.h"
#include "python/src/fingerprint.h"
#include "python/src/products.h"

namespace nb = nanobind;
using namespace nb::literals;
using invar::python::Packed;

NB_MODULE(_invar, m) {
  m.doc() = "invar's compiled bindings; use the invar package.";

  m.def("matmul", &invar::python::matmul, "a"_a, "b"_a, "out"_a = nb::none(),
        R"(Matrix product with numpy.matmul's rules, computed by invar.

Every element is one fma chain over k in increasing order, so the result's bits do not depend on
the batch, the element's position in it, the thread count, the instruction set or the machine.

a, b: numpy arrays, PyTorch CPU tensors or any DLPack / buffer-protocol array.
  1-D operands are promoted to a row (a) or a column (b) and the added axis removed;
  leading dimensions broadcast. Types: float32, float64, bfloat16 (ml_dtypes or torch), float16
  (result of the inputs' type, rounded once from the float32 chain), int8/uint8 x int8 -> int32.
out: optional array of the result's shape with contiguous rows, written in place and returned;
  a float32 out with bfloat16/float16 inputs keeps the float32 chain unrounded.
b may also be the result of invar.pack_b.

Returns a numpy array, a torch tensor when a (or b) is one, or out.)");

  m.def("gemm", &invar::python::gemm, "a"_a, "b"_a, "c"_a = nb::none(), nb::kw_only(),
        "alpha"_a = 1.0, "beta"_a = 0.0, "trans_a"_a = false, "trans_b"_a = false,
        R"(C <- alpha * op(A) @ op(B) + beta * C on 2-D arrays, returning C.

op(X) is X.T when trans_X. With c=None a new array is returned (beta must be 0). beta == 0 never
reads c (NaN in c does not leak); alpha and beta are float32 for the 16-bit types and int32 for
the 8-bit ones.)");

  m.def("linear", &invar::python::linear, "x"_a, "w"_a, "bias"_a = nb::none(),
        "activation"_a = nb::none(),
        R"(x @ w.T + bias, then the activation, in one pass (torch.nn.functional.linear's layout).

x: (..., in_features); w: (out_features, in_features) or invar.pack_b(w, trans=True);
bias: (out_features,) or None; activation: None, 'relu', 'gelu_tanh' or 'silu' (invar's own
fixed sequences of IEEE operations, the same bits everywhere). float32, float64, bfloat16 and
float16; with 16-bit x and w (and bias of their type) the chain, bias and activation run in float32
and each element is rounded once at the end. Packed weights: float32, float64, or int8 packed
for x's type (invar.pack_b(w, a_dtype=...)).)");

  nb::class_<Packed>(m, "PackedB",
                     "Weights packed once into the kernels' layout; op(B) is shape (k, n). Use as "
                     "b of invar.matmul or w of invar.linear. Belongs to the instruction-set path "
                     "that packed it.")
      .def_prop_ro(
          "shape", [](const Packed& p) { return nb::make_tuple(p.k, p.n); }, "op(B)'s shape (k, n)")
      .def_prop_ro(
          "dtype", [](const Packed& p) { return invar::python::kind_name(p.kind); },
          "element type name")
      .def_prop_ro(
          "nbytes", [](const Packed& p) { return invar_packed_bytes(p.handle); },
          "bytes held by the packed panels")
      .def("__repr__", [](const Packed& p) {
        return "invar.PackedB(shape=(" + std::to_string(p.k) + ", " + std::to_string(p.n) +
               "), dtype=" + invar::python::kind_name(p.kind) + ")";
      });

  m.def("pack_b", &invar::python::pack_b, "w"_a, "trans"_a = false, nb::kw_only(),
        "a_dtype"_a = nb::none(), nb::rv_policy::take_ownership,
        R"(Packs op(B) (w, or w.T when trans) once for reuse by every product with it.

float32, float64 or int8. For torch.nn.Linear weights (out, in) use trans=True: the result is then
usable as invar.linear(x, packed) and invar.matmul(x, packed) == x @ w.T, with exactly the bits of
the unpacked product. int8 weights are packed for one type of x: a_dtype 'int8' (the default) or
'uint8' (the integer kernels differ with x's signedness); the products give int32.)");

  m.def(
      "set_num_threads",
      [](int n) {
        if (n < 0 || n > 1024)
          throw nb::value_error("invar.set_num_threads: n must be in 0..1024 (0: the default)");
        const int now = invar_set_num_threads(n);
        if (now == 0) throw nb::value_error(invar_last_error());
        return now;
      },
      "n"_a,
      "Sets the thread count of invar's default context (0: INVAR_NUM_THREADS or the physical "
      "cores); returns the count now in force. Results are the same bits at every count.");

  m.def(
      "get_num_threads",
      [] {
        try {
          return invar::Context::default_context().num_threads();
        } catch (const invar::Error& e) {
          throw nb::value_error(e.what());
        }
      },
      "The thread count of invar's default context.");

  m.def(
      "use_openmp_threads",
      [](bool on) -> std::string {
        try {
          invar::Context& context = invar::Context::default_context();
          if (!on) {
            context.use_own_threads();
            return "";
          }
          return context.use_openmp_threads();
        } catch (const invar::Unsupported& e) {
          throw std::runtime_error(e.what());
        } catch (const invar::Error& e) {
          throw nb::value_error(e.what());
        }
      },
      "on"_a = true,
      "Runs invar's parallel products on the threads of the OpenMP runtime already loaded in the "
      "process (PyTorch's, for one) instead of invar's own, or (on=False) back on invar's own. "
      "Returns the runtime's library name ('' with on=False); RuntimeError when none is loaded. "
      "The bits are the same either way.");
  m.def(
      "team_runner",
      [] {
        try {
          return invar::Context::default_context().team_runner();
        } catch (const invar::Error& e) {
          throw nb::value_error(e.what());
        }
      },
      "Whose threads the default context's products run on: '' for invar's own, else e.g. "
      "'OpenMP (libgomp.so.1)'.");

  m.def(
      "version", [] { return std::string(invar_version()); }, "The library version.");
  m.def(
      "isa",
      [] {
        const char* isa = invar_isa();
        if (isa == nullptr) throw nb::value_error(invar_last_error());
        return std::string(isa);
      },
      "The micro-kernel path in use: avx512, avx2, neon or generic.");
  m.def(
      "config", [] { return std::string(invar_get_config()); },
      "One line describing the build and the default context (invar_get_config).");
  m.def(
      "fingerprint_results",
      [] {
        std::string bytes;
        {
          nb::gil_scoped_release release;
          bytes = invar::python::fingerprint_results();
        }
        return nb::bytes(bytes.data(), bytes.size());
      },
      "The bytes `invar fingerprint` hashes; invar.fingerprint() returns their SHA-256.");
}

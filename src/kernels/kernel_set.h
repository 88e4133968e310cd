// KernelSet: what one instruction-set path offers the driver.
//
// The driver is compiled once, for every element type and ISA, against the type-erased
// GemmKernel below: a tile shape, element sizes, what the blocking needs to know of the kernel,
// and function pointers: packing A and B and the micro-kernel, and optional ones (edge tiles,
// packing B on the first pass, releasing per-thread state, asking permission, the tiles over
// A in place, the direct kernels) that the driver uses when set. Only the kernel folders and the
// API layer know element types. ISA translation units use no standard-library templates or shared
// inline code (the ODR trap: tests/isa_objects_odr.sh).
//
// Each path's set is written in a file of its own, kernels/sets/<path>.cpp, built with the
// baseline flags: its GemmKernels as designated initializers over the typed kernel functions,
// each erased to the field's signature by erase<&f> (kernels/sets/erase.h). kernel_set.cpp is the
// registry over them.
//
// A path is usable when it was compiled into this build (ISA folders are only built for their
// architecture) and the CPU supports it (arch/cpu_features.h).
#ifndef INVAR_KERNELS_KERNEL_SET_H_
#define INVAR_KERNELS_KERNEL_SET_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include "invar/types.h"
#include "kernels/ukernel.h"

namespace invar::kernels {

struct GemmKernel {
  const char* name = nullptr;  // e.g. "sgemm_avx2_6x16"
  int mr = 0;
  int nr = 0;
  int a_in_bytes = 0;      // element size of the caller's A
  int b_in_bytes = 0;      // element size of the caller's B
  int a_packed_bytes = 0;  // element size of a packed A panel
  int b_packed_bytes = 0;  // element size of a packed B panel
  int c_bytes = 0;         // element size of C (and of the accumulators)
  // Panels group k steps by this many (the int16 pairs of the integer kernels: 2, the byte quads
  // of the VNNI kernels: 4, the AMX chunks: 64; ukernel.h); every k-block but a product's last
  // is a multiple of it deep. 1 for the floating-point kernels.
  int k_unit = 1;
  // Whether the micro-kernel keeps its pace with B micro-panels streaming from L2/L3, so that
  // KC is sized for a deeper k-loop rather than for both micro-panels in L1
  // (blocking::TileShape::b_streams). Measured per kernel.
  bool b_streams = false;
  // Whether the packed B block is sized for L2 rather than L3 (blocking::TileShape::
  // b_block_in_l2). Measured per kernel and core.
  bool b_block_in_l2 = false;
  // Whether both micro-panels stream from L2, KC deep, the A block a few micro-panels
  // (blocking::TileShape::panels_from_l2). Measured per kernel and core.
  bool panels_from_l2 = false;

  // Packs an mc x kc block of alpha * op(A); op(A)[r][c] = src[(r * rs + c * cs) elements].
  void (*pack_a)(int64_t mc, int64_t kc, const void* src, int64_t rs, int64_t cs, const void* alpha,
                 void* dst) = nullptr;
  // Packs a kc x nc block of op(B).
  void (*pack_b)(int64_t kc, int64_t nc, const void* src, int64_t rs, int64_t cs,
                 void* dst) = nullptr;
  // One whole MR x NR tile (see ukernel.h). alpha and beta point to scalars of C's type; the
  // floating-point kernels ignore alpha (their pack_a has folded it into A), the integer ones
  // apply it to each k-block's sums.
  void (*ukernel)(int64_t kc, const void* a_panel, const void* b_panel, void* c, int64_t ldc,
                  AccInit init, const void* alpha, const void* beta) = nullptr;
  // Optional (nullptr: the driver runs partial tiles on a scratch tile): the same chains on a
  // partial tile, rows x cols of C (1 <= rows <= MR, 1 <= cols <= NR) from whole panels,
  // touching nothing else of C.
  void (*ukernel_edge)(int64_t rows, int64_t cols, int64_t kc, const void* a_panel,
                       const void* b_panel, void* c, int64_t ldc, AccInit init, const void* alpha,
                       const void* beta) = nullptr;
  // Optional (nullptr: not offered): the whole tile over a row-major op(B) of the input type read
  // in place (NR columns, rows ldb apart), which also stores B's packed micro-panel at b_panel,
  // as pack_b makes it. The driver runs it for a B block's first row of tiles, so the block is
  // packed on that pass instead of before it.
  void (*ukernel_packing_b)(int64_t kc, const void* a_panel, const void* b, int64_t ldb,
                            void* b_panel, void* c, int64_t ldc, AccInit init, const void* alpha,
                            const void* beta) = nullptr;
  // Optional (nullptr: nothing to do): run on each thread that ran this kernel's tiles, after its
  // last tile of a product, to give back per-thread state the tiles keep from one to the next
  // (the AMX kernels' tile configuration).
  void (*release)() = nullptr;
  // Optional (nullptr: always): whether this process may run the kernel, asked before each
  // product that would (the callee memoizes its answer; the AMX kernels': the OS's permission
  // for tile data, requested on the first call). Where it says no, kernel_for gives the set's
  // `fallback` set's kernel instead.
  bool (*permitted)() = nullptr;
  // Optional (nullptr: not offered): the micro-kernel over A in place (ukernel.h): any m x n block
  // over k steps from a row-major A in place (alpha 1) and a B in NR-column groups, gs elements
  // apart, rows ldb apart (a row-major B in place, or packed panels).
  void (*ukernel_a_in_place)(int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
                             const void* b, int64_t ldb, int64_t gs, void* c, int64_t ldc,
                             AccInit init, const void* beta) = nullptr;
  // Optional (nullptr: not offered): the unpacked kernel for m <= direct_mr (at least
  // kDirectMaxRows) with a row-major B, any number of columns, direct_nr the width of its basic
  // group (see ukernel.h). direct_panels takes as many rows.
  int direct_mr = 0;
  int direct_nr = 0;
  void (*direct)(int64_t m, int64_t n, int64_t k, const void* alpha, const void* a, int64_t a_rs,
                 int64_t a_cs, const void* b, int64_t ldb, void* c, int64_t ldc, AccInit init,
                 const void* beta) = nullptr;
  // Optional (nullptr: not offered): the direct kernel for any m over a
  // row-major B taking its arguments as one record (ukernel.h: DirectArgs), the tiny lane's, and
  // the same over a strided batch's entries: the two are offered together (sets.h, well_formed).
  DirectArgsFn direct_args = nullptr;
  DirectBatchFn direct_batch = nullptr;
  // Optional: the direct kernel over prepacked panels (K x nr, row stride nr), its `ldb`
  // argument being the distance between panels in elements; it walks several panels at once.
  void (*direct_panels)(int64_t m, int64_t n, int64_t k, const void* alpha, const void* a,
                        int64_t a_rs, int64_t a_cs, const void* panels, int64_t panel_stride,
                        void* c, int64_t ldc, AccInit init, const void* beta) = nullptr;
  // Up to how many panels (n <= a_in_place_panels * nr) a product is faster with B packed alone
  // into L2 and A read in place by direct_panels than with A packed for the micro-kernel: packed
  // A pays for itself only over enough tiles (gemm_driver.h; the kernel's own tiles over A in
  // place have their limit there, driver::kInPlaceTilePanels). 0: never.
  int a_in_place_panels = 0;
  // The same limit for a team of two or more threads (measured apart: the team splits the rows
  // of A and shares the packing of B, and the balance against the loop nest moves with it).
  int a_in_place_team_panels = 0;
  // Optional: the same with B stored transposed (op(B)[k][j] at b[j * ldb + k]), the layout of
  // x * W^T; direct_t_nr columns per basic group.
  int direct_t_nr = 0;
  void (*direct_t)(int64_t m, int64_t n, int64_t k, const void* alpha, const void* a, int64_t a_rs,
                   int64_t a_cs, const void* b, int64_t ldb, void* c, int64_t ldc, AccInit init,
                   const void* beta) = nullptr;
  // Optional: direct_t's form for a W the caches hold (driver::plan_direct decides): twice the
  // columns in flight, so twice the chains per fma latency for few rows, over twice the rows of W
  // at once, which costs where W comes from memory. The same chains as direct_t.
  decltype(direct_t) direct_t_cached = nullptr;
  // Optional: direct_t's form for one thread alone streaming a W the caches do not hold
  // (driver::plan_direct decides), where one core reads more rows of W at once than a team's
  // members together should. The same chains as direct_t.
  decltype(direct_t) direct_t_alone = nullptr;
  // Optional, bf16 and f16 kernels only: direct_panels over prepacked panels that keep the
  // caller's 16-bit values (K x nr, row stride nr, unwidened: half the bytes of f32 panels),
  // widened in registers; the decode step over 16-bit prepacked weights (api/packed16.cpp).
  void (*direct_panels_16bit)(int64_t m, int64_t n, int64_t k, const void* alpha, const void* a,
                              int64_t a_rs, int64_t a_cs, const void* panels, int64_t panel_stride,
                              void* c, int64_t ldc, AccInit init, const void* beta) = nullptr;
};

struct KernelSet {
  Isa isa = Isa::kGeneric;
  GemmKernel sgemm;  // f32
  GemmKernel dgemm;  // f64
  // bf16 and f16 operands, widened exactly to f32 while packing, then the f32 micro-kernel:
  // the bits of sgemm on the widened operands. Their direct kernels (the decode step) widen
  // in registers instead (ukernel.h, WidenedDirectFn).
  GemmKernel sbgemm;
  GemmKernel shgemm;
  // s8 x s8 and u8 x s8 -> s32, exact modulo 2^32, on the int16 pair panels of ukernel.h (the
  // byte quads of the VNNI kernels on CPUs with AVX-512 VNNI). Their
  // pack_a ignores alpha (A is packed unscaled); the ukernel applies alpha to each k-block's sums
  // (ukernel.h says why that is the contract). No direct path: every product packs.
  GemmKernel s8gemm;
  GemmKernel u8gemm;
  // The set whose kernels run the products of a kernel here that is not permitted (its
  // `permitted` says no); needed only where some kernel has `permitted`.
  const KernelSet* fallback = nullptr;
};

// The kernel of `set` for callers' A elements of type In (float, double, bf16, f16, int8_t,
// uint8_t); the one place that maps element types to kernels. A kernel the process may not run
// (GemmKernel::permitted) gives way to the fallback set's.
template <class In>
const GemmKernel& kernel_for(const KernelSet& set) {
  const GemmKernel* k = nullptr;
  if constexpr (std::is_same_v<In, float>)
    k = &set.sgemm;
  else if constexpr (std::is_same_v<In, double>)
    k = &set.dgemm;
  else if constexpr (std::is_same_v<In, bf16>)
    k = &set.sbgemm;
  else if constexpr (std::is_same_v<In, f16>)
    k = &set.shgemm;
  else if constexpr (std::is_same_v<In, int8_t>)
    k = &set.s8gemm;
  else {
    static_assert(std::is_same_v<In, uint8_t>, "no kernel for this element type");
    k = &set.u8gemm;
  }
  if (k->permitted != nullptr && !k->permitted()) return kernel_for<In>(*set.fallback);
  return *k;
}

// The set for `isa`, or nullptr when that path was not compiled into this build. Where a path
// has forms tuned for different cores (kernels/sets/x86.h, avx512.cpp), the one for this CPU.
const KernelSet* compiled_kernel_set(Isa isa);

// Every form of `isa`'s set compiled into this build, compiled_kernel_set(isa) first (empty when
// the path was not compiled): the tests run each form on any CPU that supports the path.
std::vector<const KernelSet*> compiled_kernel_sets(Isa isa);

// Whether this CPU can run `isa` (independent of whether it was compiled).
bool cpu_supports(Isa isa);

// Paths compiled in and supported by this CPU, best first.
std::vector<Isa> available_isas();

}  // namespace invar::kernels

#endif  // INVAR_KERNELS_KERNEL_SET_H_

// The kernel sets of the instruction-set paths, one file each beside this header, and what the
// registry (kernels/kernel_set.cpp) asks them for. Each set file lists its GemmKernels as plain
// designated initializers: which typed functions (erase.h) and which measured properties a
// path's kernels have. These files are built with the baseline flags (they hold templates and
// the registry's data, the ODR trap of kernel_set.h), and only for a target with the path
// (CMakeLists.txt).
#ifndef INVAR_KERNELS_SETS_SETS_H_
#define INVAR_KERNELS_SETS_SETS_H_

#include <type_traits>
#include <vector>

#include "kernels/kernel_set.h"

namespace invar::kernels::sets {

// What the suite asserts of every compiled set (tests/ukernel_test.cpp): the fields every kernel
// needs, and the ones that go together (a direct kernel takes a decode step's rows; a limit on A
// in place needs the kernel that reads it; a B block sized for L2 is packed before its row of
// tiles, and no kernel streams it). Not a static_assert in the set files: under
// -fsanitize=undefined GCC does not fold a function's address against null at compile time.
constexpr bool well_formed(const GemmKernel& k) {
  return k.name != nullptr && k.mr > 0 && k.nr > 0 && k.a_in_bytes > 0 && k.b_in_bytes > 0 &&
         k.a_packed_bytes > 0 && k.b_packed_bytes > 0 && k.c_bytes > 0 && k.k_unit > 0 &&
         k.pack_a != nullptr && k.pack_b != nullptr && k.ukernel != nullptr &&
         (k.direct == nullptr || (k.direct_mr >= kDirectMaxRows && k.direct_nr > 0)) &&
         (k.direct_t == nullptr || k.direct_t_nr > 0) &&
         (k.direct_t_cached == nullptr || k.direct_t != nullptr) &&
         (k.direct_t_alone == nullptr || k.direct_t != nullptr) &&
         (k.direct_panels == nullptr || k.direct != nullptr) &&
         ((k.direct_args == nullptr) == (k.direct_batch == nullptr)) &&
         ((k.a_in_place_panels == 0 && k.a_in_place_team_panels == 0) ||
          k.direct_panels != nullptr) &&
         (!k.b_block_in_l2 || (!k.b_streams && k.ukernel_packing_b == nullptr));
}
constexpr bool well_formed(const KernelSet& s) {
  return well_formed(s.sgemm) && well_formed(s.dgemm) && well_formed(s.sbgemm) &&
         well_formed(s.shgemm) && well_formed(s.s8gemm) && well_formed(s.u8gemm);
}

// A set's bf16 and f16 kernels (KernelSet::sbgemm, shgemm): operands widened exactly to f32 while
// packing, then the set's f32 tile (its masked edge tiles too); their decode step widens them in
// registers instead (ukernel.h, WidenedDirectFn). A set states what its two share once, as a
// WidenedTile, and what each has of its own as a Widening; widened<T> makes the GemmKernel:
//
//   .sbgemm = widened<bf16>(kWidenedTile, {.name = "sbgemm_avx2_6x16", .pack_a = ..., ...}),
//
// The fields keep GemmKernel's names and order (designated initializers), and erase<&f> converts
// to them as it does to GemmKernel's.
struct WidenedTile {
  int mr = 0;
  int nr = 0;
  bool b_streams = false;
  decltype(GemmKernel::ukernel) ukernel = nullptr;
  decltype(GemmKernel::ukernel_edge) ukernel_edge = nullptr;
  int direct_nr = 0;  // the column groups of the decode-step kernels
  int direct_t_nr = 0;
};
struct Widening {
  const char* name = nullptr;
  decltype(GemmKernel::pack_a) pack_a = nullptr;  // widening to f32
  decltype(GemmKernel::pack_b) pack_b = nullptr;
  decltype(GemmKernel::direct) direct = nullptr;  // the decode step, widening in registers
  decltype(GemmKernel::direct_t) direct_t = nullptr;
  decltype(GemmKernel::direct_panels_16bit) direct_panels_16bit = nullptr;
};
template <class T>
constexpr GemmKernel widened(const WidenedTile& tile, const Widening& own) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "a 16-bit type widened to f32");
  return {
      .name = own.name,
      .mr = tile.mr,
      .nr = tile.nr,
      .a_in_bytes = sizeof(T),
      .b_in_bytes = sizeof(T),
      .a_packed_bytes = sizeof(float),
      .b_packed_bytes = sizeof(float),
      .c_bytes = sizeof(float),
      .b_streams = tile.b_streams,
      .pack_a = own.pack_a,
      .pack_b = own.pack_b,
      .ukernel = tile.ukernel,
      .ukernel_edge = tile.ukernel_edge,
      .direct_mr = kDirectMaxRows,
      .direct_nr = tile.direct_nr,
      .direct = own.direct,
      .direct_t_nr = tile.direct_t_nr,
      .direct_t = own.direct_t,
      .direct_panels_16bit = own.direct_panels_16bit,
  };
}

// Portable C++, every target (generic.cpp).
const KernelSet& generic_set();

// The x86 sets' per-core form, the same bits in each (kernel_set.cpp picks it for the CPU).
struct X86Form {
  bool b_in_l3 = false;  // B blocks sized for L3, streaming (AMD's cores); else for L2
  // The AVX-512 tiles fold A's broadcast into each fma (cores on 256-bit halves); else they load
  // it into a register once for its row's fmas (avx512.cpp).
  bool folded_broadcasts = false;
};

#if defined(INVAR_HAVE_AVX2)
// The AVX2 set with B blocks in L3 (AMD's cores) or in L2 (the others'; avx2.cpp).
const KernelSet& avx2_set(bool b_in_l3);
#endif

#if defined(INVAR_HAVE_AVX512)
// The AVX-512 set for this CPU's extensions (VNNI, AMX) in the given form (avx512.cpp).
const KernelSet& avx512_set(X86Form form);
// Every form of the AVX-512 set the tests hold to the chain on this CPU: avx512_set(form) first
// (kernel_set.h, compiled_kernel_sets).
std::vector<const KernelSet*> avx512_sets(X86Form form);
#endif

#if defined(INVAR_HAVE_NEON)
const KernelSet& neon_set();  // neon.cpp
#endif

}  // namespace invar::kernels::sets

#endif  // INVAR_KERNELS_SETS_SETS_H_

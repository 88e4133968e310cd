// What is packing?
//
// The micro-kernel streams its operands from two small buffers laid out in exactly the order it
// reads them, so that every load is contiguous, aligned and already in cache:
//
//   packed A block (mc x kc): ceil(mc / MR) micro-panels, each kc groups of MR values;
//                              element (i, p) of panel r is alpha * op(A)[r*MR + i][p].
//   packed B block (kc x nc): ceil(nc / NR) micro-panels, each kc groups of NR values;
//                              element (p, j) of panel s is op(B)[p][s*NR + j].
//
// Rows past mc and columns past nc are zero, so every micro-panel is whole. Packing also absorbs
// the transposes: the source element (r, c) of op(X) lives at src[r * rs + c * cs], which covers
// both a row-major matrix (rs = ld, cs = 1) and its transpose (rs = 1, cs = ld).
//
// alpha is folded into A here: alpha * a is one rounded multiply, exactly the contract's first
// operation (and skipped when alpha == 1, which is exact). Its cost, a copy of each A block once
// per column block of C, is what buys contiguous aligned loads in the kernel.
//
// These packers are portable C++ built with the baseline flags. They are explicitly instantiated
// in pack.cpp for the tile shapes the kernels use; ISA translation units never instantiate them
// (an -mavx512f copy of a template could be the one the linker keeps).
//
// Names: a packer is named for the panels it writes, the same way wherever it lives.
//   - Portable packers (this folder): pack_<a|b>[_<layout>], templated on the source type and the
//     tile's MR or NR. <layout> names the panel layout when it is not this header's plain one
//     (pairs, quads, chunks, bf16_pairs: kernels/ukernel.h), and the file is pack[_<layout>].cpp
//     (the AMX chunks, whose remainder is quads, live with the quads).
//   - ISA packers (src/kernels/<isa>/, beside their kernels): <family>_<isa>_pack_<a|b><R>[_t].
//     <family> says what is packed as the kernels' names do: sgemm f32, dgemm f64, sbgemm bf16
//     and shgemm f16 (widened to f32), igemm int8 (s8s8s32 or u8s8s32 where A's signedness changes
//     the bytes). <R> is the panel's MR or NR, and _t marks an operand stored transposed (without
//     it the operand is row-major): sgemm_avx2_pack_a6_t, sgemm_avx2_pack_b16. A file holds the
//     packers of one operand and layout, every width and the 16-bit and signed forms beside the
//     first: <family>_<isa>_pack_<a|b>[_t].cpp, or <family>_<isa>_pack.cpp for both operands.
#ifndef INVAR_PACK_PACK_H_
#define INVAR_PACK_PACK_H_

#include <cstdint>

#include "invar/types.h"

namespace invar::pack {

// Src is the caller's element type: float or double, packed as they are, or bf16 or f16,
// widened exactly to f32 on the way (numeric/half.h), so the kernels only ever see f32 or f64.
template <class Src>
struct Packed {
  using type = Src;
};
template <>
struct Packed<bf16> {
  using type = float;
};
template <>
struct Packed<f16> {
  using type = float;
};
template <class Src>
using packed_t = typename Packed<Src>::type;

template <class Src, int MR>
void pack_a(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, packed_t<Src> alpha,
            packed_t<Src>* dst);

template <class Src, int NR>
void pack_b(int64_t kc, int64_t nc, const Src* src, int64_t rs, int64_t cs, packed_t<Src>* dst);

// Integer operands (int8_t or uint8_t) pack into the int16 pair panels of the integer
// micro-kernels (kernels/ukernel.h): each element widened exactly to int16, k steps interleaved
// two by two, an odd last step alone, rows past mc and columns past nc zero. A panel holds
// exactly kc * MR (kc * NR) int16 values, so the driver's panel offsets hold. alpha is not folded
// in: an int16 cannot hold alpha * a, so the kernels apply alpha to each k-block's int32 sums.
// Defined in pack_pairs.cpp for the tile shapes of the integer kernels.
template <class Src, int MR>
void pack_a_pairs(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, int16_t* dst);

template <class Src, int NR>
void pack_b_pairs(int64_t kc, int64_t nc, const Src* src, int64_t rs, int64_t cs, int16_t* dst);

// bf16 operands (their raw bits) pack into the pair panels of the AVX512_BF16 kernels (layout in
// kernels/avx512/bf16/bf16.h): two k steps per 32-bit lane, step 2q in the high half, an odd
// last step alone, rows past mc and columns past nc zero; A negated when `negate` (alpha -1).
// A panel holds exactly kc * MR (kc * NR) values. Defined in pack_bf16_pairs.cpp.
template <int MR>
void pack_a_bf16_pairs(int64_t mc, int64_t kc, const uint16_t* src, int64_t rs, int64_t cs,
                       bool negate, uint16_t* dst);

template <int NR>
void pack_b_bf16_pairs(int64_t kc, int64_t nc, const uint16_t* src, int64_t rs, int64_t cs,
                       uint16_t* dst);

// The byte quad panels of the VNNI integer kernels (layout in kernels/ukernel.h): op(A) as
// unsigned bytes (s8 values plus 128), op(B) as s8, k steps in quads, the last kc % 4 steps one
// by one, rows past mc and columns past nc zero. A panel holds exactly kc * MR (kc * NR) bytes.
// Defined in pack_quads.cpp for the tile shapes of those kernels.
template <class Src, int MR>
void pack_a_quads(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, uint8_t* dst);

template <int NR>
void pack_b_quads(int64_t kc, int64_t nc, const int8_t* src, int64_t rs, int64_t cs, int8_t* dst);

// The A panels of the AMX integer kernels (layout in kernels/ukernel.h): chunks of 64 steps, each
// row's 64 bytes side by side, as op(A)'s own bytes; the last kc % 64 steps as pack_a_quads
// writes them (s8 plus 128); rows past mc zero (their quads 128 for s8, the value 0). A panel
// holds exactly kc * MR bytes. Defined in pack_quads.cpp for the AMX tile's MR.
template <class Src, int MR>
void pack_a_chunks(int64_t mc, int64_t kc, const Src* src, int64_t rs, int64_t cs, uint8_t* dst);

}  // namespace invar::pack

#endif  // INVAR_PACK_PACK_H_

// The Advanced SIMD vector operations of f32 (4 lanes) and f64 (2 lanes) that the NEON tiles are
// written over (kernels/tile_body.h). For the translation units of this folder only (internal
// linkage keeps each unit's copy its own). AArch64 has no masked loads or stores: the NEON sets
// have no edge kernels (the driver runs partial tiles on a scratch tile), so nothing here
// instantiates the masked forms.
//
// kFmaByLane: the tiles load a step's A values as whole vectors (one load for kLanes rows) and
// multiply by lane (fmla by element: c + b * a[lane], fused, one rounding, the same chain step as
// fma), rather than broadcasting each value from memory: two loads where there would be eight
// for the 8-row f32 tile.
#ifndef INVAR_KERNELS_NEON_VEC_H_
#define INVAR_KERNELS_NEON_VEC_H_

#include <arm_neon.h>

namespace invar::kernels::neon {
namespace {

struct F32Vec {
  using T = float;
  using V = float32x4_t;
  using Mask = int;  // never used: no masked forms
  static constexpr int kLanes = 4;
  static constexpr bool kFmaByLane = true;
  static V zero() { return vdupq_n_f32(0.0f); }
  static V set1(T x) { return vdupq_n_f32(x); }
  static V load(const T* p) { return vld1q_f32(p); }
  static void store(T* p, V v) { vst1q_f32(p, v); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
  static V fma(V a, V b, V c) { return vfmaq_f32(c, a, b); }
  static V fma_bcast(const T* a, V b, V c) { return vfmaq_n_f32(c, b, *a); }
  // c + b * a[kLane], one rounding.
  template <int kLane>
  static V fma_lane(V a, V b, V c) {
    return vfmaq_laneq_f32(c, b, a, kLane);
  }
};

struct F64Vec {
  using T = double;
  using V = float64x2_t;
  using Mask = int;  // never used: no masked forms
  static constexpr int kLanes = 2;
  static constexpr bool kFmaByLane = true;
  static V zero() { return vdupq_n_f64(0.0); }
  static V set1(T x) { return vdupq_n_f64(x); }
  static V load(const T* p) { return vld1q_f64(p); }
  static void store(T* p, V v) { vst1q_f64(p, v); }
  static V mul(V a, V b) { return vmulq_f64(a, b); }
  static V fma(V a, V b, V c) { return vfmaq_f64(c, a, b); }
  static V fma_bcast(const T* a, V b, V c) { return vfmaq_n_f64(c, b, *a); }
  // c + b * a[kLane], one rounding.
  template <int kLane>
  static V fma_lane(V a, V b, V c) {
    return vfmaq_laneq_f64(c, b, a, kLane);
  }
};

}  // namespace
}  // namespace invar::kernels::neon

#endif  // INVAR_KERNELS_NEON_VEC_H_

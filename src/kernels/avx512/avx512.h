// AVX-512F micro-kernels. Compiled with -mavx512f -mavx2 -mfma (cmake/InvarIsa.cmake); only
// declared here.
#ifndef INVAR_KERNELS_AVX512_AVX512_H_
#define INVAR_KERNELS_AVX512_AVX512_H_

#include "kernels/ukernel.h"

namespace invar::kernels::avx512 {

// How the f32 and f64 tiles read A's broadcast: loaded into a register once per row and step
// (vbroadcastss, then the row's fmas), or folded into each fma's memory operand ({1to16}: one
// instruction where there were two, vec.h's F32VecMemBcast). The same chains and bits either way,
// another instruction mix (kernels/sets/avx512.cpp says which core takes which). Each entry point
// below is a template over it, instantiated for both forms in its own unit.
enum class Broadcast { kRegister, kFolded };

// 12 x 32: 24 zmm accumulators (12 rows x 2 vectors of 16), two B vectors, one broadcast of A,
// 5 of the 32 registers to spare. 24 independent chains cover 2 FMA pipes x 4 cycles of latency
// three times over.
inline constexpr int kSgemmMr = 12;
inline constexpr int kSgemmNr = 32;
template <Broadcast>
void sgemm_avx512_12x32(int64_t kc, const float* a_panel, const float* b_panel, float* c,
                        int64_t ldc, AccInit init, float beta);
// The same chains on a partial tile: rows x cols of C (1..12 x 1..32) from the same whole
// panels, C read and written under masks; nothing outside the block is touched.
template <Broadcast>
void sgemm_avx512_12x32_edge(int64_t rows, int64_t cols, int64_t kc, const float* a_panel,
                             const float* b_panel, float* c, int64_t ldc, AccInit init, float beta);
// The whole tile over B in place (row-major, 32 columns, rows ldb apart), storing B's packed
// micro-panel at b_panel (64-byte aligned) as it reads it: the same chains and the same panel.
template <Broadcast>
void sgemm_avx512_12x32_packing_b(int64_t kc, const float* a_panel, const float* b, int64_t ldb,
                                  float* b_panel, float* c, int64_t ldc, AccInit init, float beta);
// The same tiles over A in place and B in NR-column groups (ukernel.h's micro-kernel over A in
// place).
template <Broadcast>
void sgemm_avx512_12x32_a_in_place(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                   const float* b, int64_t ldb, int64_t gs, float* c, int64_t ldc,
                                   AccInit init, float beta);
// Packs an mc x kc block of alpha * A, A row-major (rows lda apart), into its 12-row panels
// (pack.h's layout): the same values as the portable packer, sixteen steps of a panel at a time.
void sgemm_avx512_pack_a12(int64_t mc, int64_t kc, const float* a, int64_t lda, float alpha,
                           float* dst);

// 12 x 16 doubles: the same register plan as the f32 tile, each zmm holding 8 doubles.
inline constexpr int kDgemmMr = 12;
inline constexpr int kDgemmNr = 16;
template <Broadcast>
void dgemm_avx512_12x16(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                        int64_t ldc, AccInit init, double beta);
template <Broadcast>
void dgemm_avx512_12x16_edge(int64_t rows, int64_t cols, int64_t kc, const double* a_panel,
                             const double* b_panel, double* c, int64_t ldc, AccInit init,
                             double beta);
template <Broadcast>
void dgemm_avx512_12x16_a_in_place(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                                   const double* b, int64_t ldb, int64_t gs, double* c, int64_t ldc,
                                   AccInit init, double beta);

// 12 x 32 int32 over byte quads (ukernel.h), for CPUs with AVX-512 BW and VNNI: the f32 tile's
// register plan with vpdpbusd for the fma, four k steps per instruction. The s8 form also keeps
// two correction vectors (ukernel.h). Built from vnni/ with -mavx512bw -mavx512vnni.
// The direct kernels over a row-major B (ukernel.h; m <= avx2::kDirectMr rows, 16 and 8 columns
// per basic group as the AVX2 ones), 512-bit for up to kDirectMaxRows rows, and their record
// forms (m <= kDirectMaxRows; ukernel.h: DirectArgs).
void sgemm_avx512_direct_16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                            int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                            int64_t ldc, AccInit init, float beta);
void dgemm_avx512_direct_8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                           int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                           int64_t ldc, AccInit init, double beta);
void sgemm_avx512_direct_args(const DirectArgs& args);
void dgemm_avx512_direct_args(const DirectArgs& args);
void sgemm_avx512_direct_batch(const DirectArgs& first, int64_t count, int64_t a_stride,
                               int64_t b_stride, int64_t c_stride);
void dgemm_avx512_direct_batch(const DirectArgs& first, int64_t count, int64_t a_stride,
                               int64_t b_stride, int64_t c_stride);

inline constexpr int kIgemmMr = 12;
inline constexpr int kIgemmNr = 32;
void s8s8s32_avx512vnni_12x32(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c,
                              int64_t ldc, AccInit init, int32_t alpha, int32_t beta);
void u8s8s32_avx512vnni_12x32(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c,
                              int64_t ldc, AccInit init, int32_t alpha, int32_t beta);
// Their edge forms: rows x cols of the tile (1..12 x 1..32), C under masks.
void s8s8s32_avx512vnni_12x32_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                                   const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init,
                                   int32_t alpha, int32_t beta);
void u8s8s32_avx512vnni_12x32_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                                   const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init,
                                   int32_t alpha, int32_t beta);

// 32 x 32 int32 over AMX tiles (ukernel.h), for CPUs with AMX-INT8 whose OS lets the process use
// the tiles: four 16 x 16 C tiles, two A and two B tiles, 64 k steps per tile product; the last
// kc % 64 steps on zmm registers as the VNNI kernel runs them. Built from amx/ with -mamx-tile
// -mamx-int8 on top of the VNNI kernels' flags.
inline constexpr int kIgemmAmxMr = 32;
inline constexpr int kIgemmAmxNr = 32;
void s8s8s32_amx_32x32(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c,
                       int64_t ldc, AccInit init, int32_t alpha, int32_t beta);
void u8s8s32_amx_32x32(int64_t kc, const uint8_t* a_panel, const int8_t* b_panel, int32_t* c,
                       int64_t ldc, AccInit init, int32_t alpha, int32_t beta);
// Their edge forms: rows x cols of the tile (1..32 x 1..32), C under masks.
// The tiles stay configured on the calling thread after these kernels return; amx_release_tiles
// releases them (and does nothing on a thread whose tiles are not configured).
void amx_release_tiles();
void s8s8s32_amx_32x32_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                            const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init,
                            int32_t alpha, int32_t beta);
void u8s8s32_amx_32x32_edge(int64_t rows, int64_t cols, int64_t kc, const uint8_t* a_panel,
                            const int8_t* b_panel, int32_t* c, int64_t ldc, AccInit init,
                            int32_t alpha, int32_t beta);

// Byte quad packers for row-major operands (any other layout takes pack/pack_quads.cpp's): an
// mc x kc block of A (row stride lda; s8 stored as a + 128) into 12-row panels, a kc x nc
// block of B (row stride ldb) into 32-column panels. The same bytes as the portable packer.
void s8s8s32_avx512vnni_pack_a12(int64_t mc, int64_t kc, const int8_t* a, int64_t lda,
                                 uint8_t* dst);
void u8s8s32_avx512vnni_pack_a12(int64_t mc, int64_t kc, const uint8_t* a, int64_t lda,
                                 uint8_t* dst);
void igemm_avx512vnni_pack_b32(int64_t kc, int64_t nc, const int8_t* b, int64_t ldb, int8_t* dst);

}  // namespace invar::kernels::avx512

#endif  // INVAR_KERNELS_AVX512_AVX512_H_

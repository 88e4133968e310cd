// invar — the C++ names of the element types and instruction-set paths.
//
// The vocabulary shared by the C++ API (invar.hpp, which includes this header) and the library's
// lower layers (kernels, packing, numeric), which need these names and nothing else of the API:
// bf16 and f16 are the C API's 16-bit types under their C++ names, so both APIs pass the same
// bits, and Isa names the micro-kernel paths with the flags each is built with.
#ifndef INVAR_TYPES_H_
#define INVAR_TYPES_H_

#include "invar/export.h"
#include "invar/invar.h"

namespace invar {

// 16-bit floating-point elements, held as their bit patterns (the C API's types): bfloat16 (the
// upper half of an f32) and IEEE-754 binary16. Products of them accumulate in f32.
using bf16 = ::invar_bf16;
using f16 = ::invar_f16;

// The micro-kernel paths. kAuto picks the best one both compiled in and supported by the CPU.
enum class Isa {
  kAuto = 0,
  kGeneric,  // portable C++ with std::fma; baseline flags of the target
  kAvx2,     // x86-64, AVX2 + FMA3 + F16C; built with -mavx2 -mfma -mf16c
  kAvx512,   // x86-64, AVX-512F; built with -mavx512f -mavx2 -mfma -mf16c
  kNeon,     // AArch64 Advanced SIMD; baseline flags
};

INVAR_API const char* isa_name(Isa isa);

}  // namespace invar

#endif  // INVAR_TYPES_H_

// Fused epilogues: what happens to each element of C once its chain has ended (after the last
// k-block, exactly once): C[i][j] = act(acc + bias), where bias is bias[i] (one per row), bias[j]
// (one per column) or nothing, and the addition is one rounded add.
//
// The activations are invar's own, a fixed sequence of IEEE-754 multiplies, adds and divides
// (compiled with -ffp-contract=off, no library calls), so every machine computes the same bits:
//   relu(x) = x < 0 ? +0 : x                      (NaN and -0 pass through)
//   silu(x) = x / (1 + exp(-x))
//   gelu(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
//   tanh(y) = 1 - 2 / (exp(2y) + 1)
//   exp(x)  = 2^n * p(r), n = x / ln 2 rounded to nearest, r = x - n * ln 2 (in two parts),
//             p the Taylor polynomial of degree 7 (f32) or 13 (f64) by Horner's rule.
// They are accurate to a few units in the last place in the ranges that matter, not correctly
// rounded; what they promise is the same bits everywhere.
#ifndef INVAR_NUMERIC_EPILOGUE_H_
#define INVAR_NUMERIC_EPILOGUE_H_

#include <cstdint>

namespace invar::numeric {

enum class Bias : int { kNone = 0, kPerRow = 1, kPerColumn = 2 };
enum class Activation : int { kNone = 0, kRelu = 1, kGeluTanh = 2, kSilu = 3 };

// Type-erased for the driver: elem_bytes is 4 (float) or 8 (double).
struct Epilogue {
  Bias bias = Bias::kNone;
  const void* bias_values = nullptr;  // m (per row) or n (per column) elements
  Activation activation = Activation::kNone;
  int elem_bytes = 4;

  bool empty() const { return bias == Bias::kNone && activation == Activation::kNone; }
};

// Applies `e` to the rows x cols block of C at c (row stride ldc elements), whose top-left element
// is C[row0][col0].
void apply_epilogue(const Epilogue& e, void* c, int64_t ldc, int64_t rows, int64_t cols,
                    int64_t row0, int64_t col0);

// The activations one value at a time (exposed for the tests).
float activate(Activation a, float x);
double activate(Activation a, double x);

}  // namespace invar::numeric

#endif  // INVAR_NUMERIC_EPILOGUE_H_

// Type erasure of the kernel functions: erase<F>.
//
// The driver calls every kernel through GemmKernel's function pointers, whose parameters are
// untyped (kernel_set.h): operands as `const void*` / `void*`, alpha and beta as `const void*` to a
// scalar of C's type. The kernel folders write typed functions (ukernel.h). `erase<&f>` stands for
// the untyped form of f, as the field it initializes needs it:
//
//   GemmKernel{.ukernel = erase<&avx2::sgemm_avx2_6x16>, ...}
//
// converts to a pointer to a function of the field's signature that casts each untyped argument
// to f's parameter, in order, and calls f:
//   - a `const void*` / `void*` argument for a pointer parameter: static_cast to it;
//   - a `const void*` argument for a scalar parameter (alpha, beta): the scalar it points to;
//   - any other argument (sizes, strides, AccInit) as it is.
// A typed function with one parameter fewer than the field takes no alpha (the floating-point
// micro-kernels, whose pack_a folds alpha into A, and the integer packers, which pack A
// unscaled): every GemmKernel signature that carries alpha carries it just before its last
// parameter, and that argument is dropped. Anything else that does not line up, say a double
// kernel in a float field or a kernel of the wrong shape, does not compile.
//
// The wrapper is a call of f with the arguments cast (a jump, once compiled), so a kernel costs
// what it cost when it was called directly. It is instantiated in the baseline-flags set files
// only (kernels/sets/), never in an ISA folder's translation units (the ODR trap of kernel_set.h).
#ifndef INVAR_KERNELS_SETS_ERASE_H_
#define INVAR_KERNELS_SETS_ERASE_H_

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace invar::kernels::sets {
namespace erase_detail {

// One untyped argument as the typed parameter P.
template <class P, class Arg>
P cast(Arg arg) {
  if constexpr (std::is_same_v<P, Arg>) {
    return arg;
  } else if constexpr (std::is_pointer_v<P>) {
    static_assert(std::is_same_v<Arg, void*> || (std::is_same_v<Arg, const void*> &&
                                                 std::is_const_v<std::remove_pointer_t<P>>),
                  "an operand pointer where the field passes another argument, or a const one");
    return static_cast<P>(arg);
  } else {
    static_assert(std::is_same_v<Arg, const void*> && std::is_arithmetic_v<P>,
                  "a scalar parameter where the field passes neither it nor its address");
    return *static_cast<const P*>(arg);
  }
}

template <auto F, class Field, class Typed = decltype(F)>
struct Thunk;

template <auto F, class R, class... Arg, class... P>
struct Thunk<F, R (*)(Arg...), R (*)(P...)> {
  static constexpr std::size_t kArgs = sizeof...(Arg);
  static_assert(sizeof...(P) == kArgs || sizeof...(P) + 1 == kArgs,
                "the typed function takes neither the field's arguments nor all but alpha");
  static constexpr bool kDropsAlpha = sizeof...(P) + 1 == kArgs;
  // The untyped argument that typed parameter j takes.
  static constexpr std::size_t source(std::size_t j) {
    return kDropsAlpha && j >= kArgs - 2 ? j + 1 : j;
  }
  using Args = std::tuple<Arg...>;
  static_assert(!kDropsAlpha || std::is_same_v<std::tuple_element_t<kArgs - 2, Args>, const void*>,
                "the argument dropped is not alpha's address");

  template <std::size_t... J>
  static R invoke(std::index_sequence<J...>, Args args) {
    return F(cast<P, std::tuple_element_t<source(J), Args>>(std::get<source(J)>(args))...);
  }
  static R call(Arg... args) { return invoke(std::index_sequence_for<P...>{}, Args(args...)); }
};

template <auto F>
struct Erased {
  static_assert(std::is_pointer_v<decltype(F)> &&
                    std::is_function_v<std::remove_pointer_t<decltype(F)>>,
                "erase<F> takes a pointer to a function");
  template <class R, class... Arg>
  using Field = R (*)(Arg...);
  template <class R, class... Arg>
  constexpr operator Field<R, Arg...>() const {
    return &Thunk<F, Field<R, Arg...>>::call;
  }
};

}  // namespace erase_detail

template <auto F>
inline constexpr erase_detail::Erased<F> erase{};

}  // namespace invar::kernels::sets

#endif  // INVAR_KERNELS_SETS_ERASE_H_

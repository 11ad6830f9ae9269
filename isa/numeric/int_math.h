#pragma once
// Integer helpers used everywhere a size is rounded to a unit (blocks, fractals, bursts): one definition,
// so a kernel, the cost model and the footprints cannot round differently. Mixed operand types compute in
// their common type (callers pass non-negative values).
#include <bit>
#include <concepts>
#include <type_traits>

namespace npusim::isa {

// a / b as a shift when b is a power of two: the footprint of every vector instruction divides by its lane
// and block counts (powers of two for every element size), and a 64-bit division costs tens of cycles.
template <std::integral A, std::integral B>
constexpr std::common_type_t<A, B> div_by(A a, B b) {
  using T = std::common_type_t<A, B>;
  using U = std::make_unsigned_t<T>;
  const U ub = U(b);
  return (ub & (ub - 1)) == 0 ? T(U(a) >> std::countr_zero(ub)) : T(a) / T(b);
}

template <std::integral A, std::integral B>
constexpr std::common_type_t<A, B> ceil_div(A a, B b) {
  using T = std::common_type_t<A, B>;
  return (T(a) + T(b) - 1) / T(b);
}
template <std::integral A, std::integral B>
constexpr std::common_type_t<A, B> round_up(A a, B m) {
  return ceil_div(a, m) * m;
}
template <std::integral A, std::integral B>
constexpr std::common_type_t<A, B> round_down(A a, B m) {
  using T = std::common_type_t<A, B>;
  return T(a) / T(m) * T(m);
}

}  // namespace npusim::isa

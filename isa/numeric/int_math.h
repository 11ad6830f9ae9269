#pragma once
// Integer helpers used everywhere a size is rounded to a unit (blocks, fractals, bursts): one definition,
// so a kernel, the cost model and the footprints cannot round differently. Mixed operand types compute in
// their common type (callers pass non-negative values).
#include <concepts>
#include <type_traits>

namespace npusim::isa {

template <std::integral A, std::integral B>
constexpr std::common_type_t<A, B> ceil_div(A a, B b) {
  using T = std::common_type_t<A, B>;
  return (T(a) + T(b) - 1) / T(b);
}
template <std::integral A, std::integral B>
constexpr std::common_type_t<A, B> round_up(A a, B m) { return ceil_div(a, m) * m; }
template <std::integral A, std::integral B>
constexpr std::common_type_t<A, B> round_down(A a, B m) {
  using T = std::common_type_t<A, B>;
  return T(a) / T(m) * T(m);
}

}  // namespace npusim::isa

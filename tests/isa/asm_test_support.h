#pragma once
// Test support for the text form: member-wise access to every instruction struct that does NOT go through
// the field tables under test. members(s) ties every data member of an aggregate (found by counting how
// many initialisers it accepts), so a field missing from a table shows up as a round-trip mismatch.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <utility>

#include "isa/text/asm.h"

namespace npusim::isa::asm_test {

// Converts to anything; only used in unevaluated aggregate-initialisation probes.
struct AnyField {
  template <class T>
  operator T() const;
};

template <class S, class... A>
constexpr int arity() {
  if constexpr (requires { S{A{}..., AnyField{}}; }) return arity<S, A..., AnyField>();
  else return static_cast<int>(sizeof...(A));
}

// A tuple of references to every data member of S, in declaration order.
template <class S>
auto members(S& s) {
  constexpr int n = arity<std::remove_const_t<S>>();
  static_assert(n <= 14, "extend members() for larger structs");
  if constexpr (n == 0) {
    return std::tie();
  } else if constexpr (n == 1) {
    auto& [a] = s;
    return std::tie(a);
  } else if constexpr (n == 2) {
    auto& [a, b] = s;
    return std::tie(a, b);
  } else if constexpr (n == 3) {
    auto& [a, b, c] = s;
    return std::tie(a, b, c);
  } else if constexpr (n == 4) {
    auto& [a, b, c, d] = s;
    return std::tie(a, b, c, d);
  } else if constexpr (n == 5) {
    auto& [a, b, c, d, e] = s;
    return std::tie(a, b, c, d, e);
  } else if constexpr (n == 6) {
    auto& [a, b, c, d, e, f] = s;
    return std::tie(a, b, c, d, e, f);
  } else if constexpr (n == 7) {
    auto& [a, b, c, d, e, f, g] = s;
    return std::tie(a, b, c, d, e, f, g);
  } else if constexpr (n == 8) {
    auto& [a, b, c, d, e, f, g, h] = s;
    return std::tie(a, b, c, d, e, f, g, h);
  } else if constexpr (n == 9) {
    auto& [a, b, c, d, e, f, g, h, i] = s;
    return std::tie(a, b, c, d, e, f, g, h, i);
  } else if constexpr (n == 10) {
    auto& [a, b, c, d, e, f, g, h, i, j] = s;
    return std::tie(a, b, c, d, e, f, g, h, i, j);
  } else if constexpr (n == 11) {
    auto& [a, b, c, d, e, f, g, h, i, j, k] = s;
    return std::tie(a, b, c, d, e, f, g, h, i, j, k);
  } else if constexpr (n == 12) {
    auto& [a, b, c, d, e, f, g, h, i, j, k, l] = s;
    return std::tie(a, b, c, d, e, f, g, h, i, j, k, l);
  } else if constexpr (n == 13) {
    auto& [a, b, c, d, e, f, g, h, i, j, k, l, m] = s;
    return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m);
  } else {
    auto& [a, b, c, d, e, f, g, h, i, j, k, l, m, o] = s;
    return std::tie(a, b, c, d, e, f, g, h, i, j, k, l, m, o);
  }
}

// Doubles are equal when their bits are (so -0 != +0), or when both are NaN (payloads are not kept).
template <class T>
bool same_member(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b) || (std::isnan(a) && std::isnan(b));
  else return a == b;
}

// Index of the first member where a and b differ, or -1.
template <class S>
int first_difference(const S& a, const S& b) {
  int index = -1;
  [&]<size_t... I>(std::index_sequence<I...>) {
    [[maybe_unused]] auto ta = members(a);
    [[maybe_unused]] auto tb = members(b);
    ((index < 0 && !same_member(std::get<I>(ta), std::get<I>(tb)) ? index = static_cast<int>(I) : 0), ...);
  }
  (std::make_index_sequence<static_cast<size_t>(arity<S>())>{});
  return index;
}

inline testing::AssertionResult same_instr(const Instr& a, const Instr& b) {
  if (a.index() != b.index())
    return testing::AssertionFailure() << "kinds differ: " << to_asm(a) << " vs " << to_asm(b);
  const int diff = std::visit([&]<class S>(const S& sa) { return first_difference(sa, std::get<S>(b)); }, a);
  if (diff < 0) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "member #" << diff << " differs: " << to_asm(a) << " vs " << to_asm(b);
}

// Number of values of each enum the structs use (the random generator draws from this range).
template <class E>
inline constexpr int kEnumCount = 0;
template <>
inline constexpr int kEnumCount<DType> = 8;
template <>
inline constexpr int kEnumCount<Pipe> = kNumPipes;
template <>
inline constexpr int kEnumCount<Buf> = kNumBufs;
template <>
inline constexpr int kEnumCount<RoundMode> = 6;
template <>
inline constexpr int kEnumCount<Quant> = 3;
template <>
inline constexpr int kEnumCount<CmpOp> = 6;
template <>
inline constexpr int kEnumCount<VBinOp> = 6;
template <>
inline constexpr int kEnumCount<VScalarOp> = 4;
template <>
inline constexpr int kEnumCount<VUnaryOp> = 7;
template <>
inline constexpr int kEnumCount<VRedOp> = 3;
template <>
inline constexpr int kEnumCount<SAluOp> = 12;

// The default-constructed instruction of variant alternative `kind`.
inline Instr default_instr(size_t kind) {
  return [&]<size_t... I>(std::index_sequence<I...>) {
    Instr result;
    ((kind == I ? (result = std::variant_alternative_t<I, Instr>{}, 0) : 0), ...);
    return result;
  }
  (std::make_index_sequence<std::variant_size_v<Instr>>{});
}

}  // namespace npusim::isa::asm_test

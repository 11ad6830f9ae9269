#pragma once
// The visitor idiom for std::visit over Instr: Overloaded{[](const Mmad&) {...}, [](const VAdd&) {...}}.
// The deduction guide is spelled out because clang 14 (the fuzz build) lacks C++20 aggregate deduction.
namespace npusim::isa {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace npusim::isa

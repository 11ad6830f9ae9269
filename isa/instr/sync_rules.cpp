#include "isa/instr/sync_rules.h"

#include <utility>

namespace npusim::isa {

namespace {
using P = Pipe;
// Both directions are listed explicitly where the hardware has both events.
constexpr std::pair<Pipe, Pipe> kCubePairs[] = {
    {P::MTE2, P::MTE1}, {P::MTE1, P::MTE2}, {P::MTE1, P::M},    {P::M, P::MTE1},    {P::MTE2, P::M},
    {P::M, P::MTE2},    {P::M, P::FIX},     {P::FIX, P::M},     {P::MTE2, P::FIX},  {P::FIX, P::MTE2},
    {P::MTE1, P::FIX},  {P::FIX, P::MTE1},  {P::MTE1, P::MTE3}, {P::MTE3, P::MTE1}, {P::MTE2, P::MTE3},
    {P::MTE3, P::MTE2}, {P::FIX, P::MTE3},  {P::S, P::MTE2},    {P::MTE2, P::S},    {P::S, P::MTE3},
    {P::MTE3, P::S},    {P::FIX, P::S},     {P::M, P::S},       {P::FIX, P::FIX}};
constexpr std::pair<Pipe, Pipe> kVectorPairs[] = {
    {P::MTE2, P::V},    {P::V, P::MTE2}, {P::V, P::MTE3}, {P::MTE3, P::V}, {P::MTE2, P::MTE3},
    {P::MTE3, P::MTE2}, {P::S, P::V},    {P::V, P::S},    {P::S, P::MTE2}, {P::MTE2, P::S},
    {P::S, P::MTE3},    {P::MTE3, P::S}, {P::V, P::V}};
// A coupled core has both sets plus the vector <-> cube hand-over of L0C -> UB (executed by V).
constexpr std::pair<Pipe, Pipe> kCoupledExtra[] = {{P::M, P::V}, {P::V, P::M}, {P::V, P::MTE1}, {P::MTE1, P::V}};

template <size_t N>
constexpr bool listed(const std::pair<Pipe, Pipe> (&pairs)[N], Pipe s, Pipe d) {
  for (const auto& [a, b] : pairs)
    if (a == s && b == d) return true;
  return false;
}

constexpr bool pair_rule(Pipe src, Pipe dst, CoreKind kind) {
  switch (kind) {
    case CoreKind::Cube: return listed(kCubePairs, src, dst);
    case CoreKind::Vector: return listed(kVectorPairs, src, dst);
    case CoreKind::Coupled:  // no FixPipe on coupled parts (hardware.md §1): L0C leaves through V
      if (src == Pipe::FIX || dst == Pipe::FIX) return false;
      return listed(kCubePairs, src, dst) || listed(kVectorPairs, src, dst) || listed(kCoupledExtra, src, dst);
  }
  return false;
}

// The rule as a table, built at compile time: the scalar unit checks every set / wait it issues.
struct PairTable {
  bool ok[3][kNumPipes][kNumPipes] = {};
};
constexpr PairTable make_pair_table() {
  PairTable t;
  for (int k = 0; k < 3; ++k)
    for (int s = 0; s < kNumPipes; ++s)
      for (int d = 0; d < kNumPipes; ++d) t.ok[k][s][d] = pair_rule(Pipe(s), Pipe(d), CoreKind(k));
  return t;
}
constexpr PairTable kPairTable = make_pair_table();
}  // namespace

std::string_view core_kind_name(CoreKind k) {
  constexpr std::string_view n[] = {"aic", "aiv", "coupled"};
  return n[static_cast<int>(k)];
}

bool event_pair_valid(Pipe src, Pipe dst, CoreKind kind) {
  const auto s = size_t(src), d = size_t(dst), k = size_t(kind);
  return s < size_t(kNumPipes) && d < size_t(kNumPipes) && k < 3 && kPairTable.ok[k][s][d];
}

bool core_has_pipe(CoreKind kind, Pipe p) {
  switch (p) {
    case Pipe::S:
    case Pipe::ALL:
    case Pipe::MTE2:
    case Pipe::MTE3: return true;
    case Pipe::V: return kind != CoreKind::Cube;
    case Pipe::M:
    case Pipe::MTE1: return kind != CoreKind::Vector;
    case Pipe::FIX: return kind == CoreKind::Cube;
  }
  return false;
}

}  // namespace npusim::isa

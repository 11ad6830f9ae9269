#include "sim/check/run_shadow.h"

#include <cstring>

namespace npusim::sim {

void RunShadow::Chunk::insert(size_t r, const GranuleState& s) {
  if (n == 0) {
    first = s;
    n = 1;
    return;
  }
  if (n > more_cap) {  // `more` must hold n states after the insertion (ranks 1..n)
    const uint32_t cap = more_cap == 0 ? 2 : 2 * more_cap;
    auto bigger = std::make_unique<GranuleState[]>(cap);
    if (more_cap) std::memcpy(bigger.get(), more.get(), sizeof(GranuleState) * (n - 1));
    more = std::move(bigger);
    more_cap = cap;
  }
  const GranuleState copy = s;  // s may be one of the states about to move
  if (r == 0) {
    std::memmove(more.get() + 1, more.get(), sizeof(GranuleState) * (n - 1));
    more[0] = first;
    first = copy;
  } else {
    std::memmove(more.get() + r, more.get() + r - 1, sizeof(GranuleState) * (n - r));
    more[r - 1] = copy;
  }
  ++n;
}

// The states are first, more[0], more[1], ... (ranks 0, 1, 2, ...).
void RunShadow::Chunk::erase(size_t r, size_t count) {
  if (count == 0) return;
  const size_t rest = n - r - count;  // states after the erased ones: they move down by `count`
  if (rest > 0) {
    if (r == 0) {
      first = more[count - 1];
      std::memmove(more.get(), more.get() + count, sizeof(GranuleState) * (rest - 1));
    } else {
      std::memmove(more.get() + r - 1, more.get() + r - 1 + count, sizeof(GranuleState) * rest);
    }
  }
  n -= static_cast<uint32_t>(count);
}

void RunShadow::clear() {
  for (Chunk& c : chunks_) {  // keeps the chunks' capacity for the next launch
    c.heads = 0;
    c.n = 0;
  }
  if (chunks_.empty()) chunks_.resize(1);
  nonempty_.assign((chunks_.size() + 63) / 64, 0);
  set_head_bit(0);  // only the sentinel, at granule 0 = size_
  size_ = 0;
}

void RunShadow::grow_to(uint64_t granules) {
  const uint64_t old = size_, n = granules > 2 * old ? granules : 2 * old;
  if (chunks_.size() < (n >> 6) + 1) chunks_.resize((n >> 6) + 1);
  nonempty_.resize((chunks_.size() + 63) / 64, 0);
  // The old sentinel at `old` becomes the head of the new granules [old, n), which nothing has touched.
  chunks_[old >> 6].heads &= ~(uint64_t{1} << (old & 63));  // (set again just below: summary unchanged)
  insert_head(old, GranuleState{});
  set_head_bit(n);
  size_ = n;
  merge_with_previous(old);
}

void RunShadow::erase_heads(uint64_t a, uint64_t b) {
  const uint64_t ca = a >> 6, cb = (b - 1) >> 6;
  const uint64_t from_a = ~uint64_t{0} << (a & 63), to_b = ~uint64_t{0} >> (63 - ((b - 1) & 63));
  auto erase = [&](uint64_t ci, uint64_t mask) {  // the heads of chunk ci under mask: consecutive ranks
    Chunk& c = chunks_[ci];
    const uint64_t gone = c.heads & mask;
    if (gone == 0) return;
    c.erase(static_cast<size_t>(std::popcount(c.heads & ((gone & -gone) - 1))),
            static_cast<size_t>(std::popcount(gone)));
    set_chunk_heads(ci, c.heads & ~mask);
  };
  if (ca == cb) {
    erase(ca, from_a & to_b);
    return;
  }
  erase(ca, from_a);
  // The chunks in between lose all their heads: visit only those that have any, through the summary.
  for (uint64_t ci = ca + 1; ci < cb;) {
    const uint64_t s = nonempty_[ci >> 6] >> (ci & 63);
    if (s == 0) {
      ci = (ci | 63) + 1;
      continue;
    }
    ci += static_cast<uint64_t>(std::countr_zero(s));
    if (ci >= cb) break;
    chunks_[ci].n = 0;
    set_chunk_heads(ci, 0);
    ++ci;
  }
  erase(cb, to_b);
}

std::vector<RunShadow::Run> RunShadow::runs() const {
  std::vector<Run> out;
  for (uint64_t h = 0; h < size_;) {
    const uint64_t e = head_after(h);
    out.push_back(Run{h, e, st(h)});
    h = e;
  }
  return out;
}

}  // namespace npusim::sim

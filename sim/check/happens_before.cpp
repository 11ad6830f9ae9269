#include "sim/check/happens_before.h"

#include <algorithm>
#include <cstring>

namespace npusim::sim {

void VectorClock::resize_to(size_t n) {
  if (n <= n_) return;
  n_ = n;
  c_.resize(blocks_of(n) * kBlock, 0);
  nz_.resize((blocks_of(n) + 63) / 64, 0);
}

VectorClock& VectorClock::operator=(const VectorClock& o) {
  if (this == &o) return *this;
  if (o.n_ != n_) {  // a different shape: a plain copy
    n_ = o.n_, c_ = o.c_, nz_ = o.nz_;
    return *this;
  }
  for (size_t w = 0; w < nz_.size(); ++w)
    for (uint64_t m = nz_[w] | o.nz_[w]; m; m &= m - 1) {
      const size_t k = (w * 64 + size_t(std::countr_zero(m))) * kBlock;
      std::memcpy(c_.data() + k, o.c_.data() + k, kBlock * sizeof(uint32_t));
    }
  nz_ = o.nz_;
  return *this;
}

// Branch-free inside a block so that it vectorises (8 lanes of 32 bits: one AVX2 max).
bool VectorClock::join(const VectorClock& o) {
  resize_to(o.n_);
  uint32_t grew = 0;
  o.for_each_block([&](size_t k) {
    uint32_t* m = c_.data() + k * kBlock;
    const uint32_t* r = o.c_.data() + k * kBlock;
    for (size_t i = 0; i < kBlock; ++i) {
      const uint32_t v = std::max(m[i], r[i]);
      grew |= v ^ m[i];
      m[i] = v;
    }
  });
  for (size_t w = 0; w < o.nz_.size(); ++w) nz_[w] |= o.nz_[w];
  return grew != 0;
}

void VectorClock::clear() {
  for_each_block([&](size_t k) { std::fill_n(c_.data() + k * kBlock, kBlock, 0u); });
  std::fill(nz_.begin(), nz_.end(), 0);
}

void VectorClock::set_block(size_t k, const uint32_t* v) {
  std::memcpy(c_.data() + k * kBlock, v, kBlock * sizeof(uint32_t));
  mark(k);
}

// Every clock starts at zero, so epoch 0 never names an event: shadow state uses it as "no access".
HappensBefore::HappensBefore(size_t agents)
    : clocks_(agents, VectorClock(agents)), own_(agents, 0), done_(agents, 0), versions_(agents, 0) {}

}  // namespace npusim::sim

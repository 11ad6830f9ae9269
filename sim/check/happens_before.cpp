#include "sim/check/happens_before.h"

#include <algorithm>

namespace npusim::sim {

void VectorClock::join(const VectorClock& o) {
  if (o.c_.size() > c_.size()) c_.resize(o.c_.size(), 0);
  for (size_t i = 0; i < o.c_.size(); ++i) c_[i] = std::max(c_[i], o.c_[i]);
}

// Every clock starts at zero, so epoch 0 never names an event: shadow state uses it as "no access".
HappensBefore::HappensBefore(size_t agents) : clocks_(agents, VectorClock(agents)), versions_(agents, 0) {}

uint32_t HappensBefore::tick(AgentId a) { return ++clocks_[a][a]; }

// Branch-free so that it vectorises: with 8 agents per core a clock has hundreds of entries, and pipes
// acquire the scalar unit's clock whenever it moved.
void HappensBefore::acquire(AgentId a, const VectorClock& released) {
  VectorClock& mine = clocks_[a];
  const size_t n = std::min(released.size(), mine.size());
  uint32_t* m = mine.data();
  const uint32_t* r = released.data();
  uint32_t grew = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = std::max(m[i], r[i]);
    grew |= v ^ m[i];
    m[i] = v;
  }
  if (grew) ++versions_[a];
}

void HappensBefore::assign(AgentId a, const uint32_t* clock) {
  std::copy(clock, clock + clocks_.size(), clocks_[a].data());
}

}  // namespace npusim::sim

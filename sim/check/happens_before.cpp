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

void HappensBefore::acquire(AgentId a, const VectorClock& released) {
  VectorClock& mine = clocks_[a];
  bool changed = false;
  for (size_t i = 0; i < released.size() && i < mine.size(); ++i) {
    const auto agent = static_cast<AgentId>(i);
    if (released[agent] > mine[agent]) {
      mine[agent] = released[agent];
      changed = true;
    }
  }
  if (changed) ++versions_[a];
}

}  // namespace npusim::sim

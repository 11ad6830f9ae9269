#include "sim/trace/trace_aggregates.h"

#include <algorithm>
#include <limits>

namespace npusim::sim {

uint32_t StageSpans::open(int core, std::string label) {
  spans_.push_back({core, std::move(label)});
  return static_cast<uint32_t>(spans_.size());
}

void StageSpans::add(uint32_t id, uint64_t start, uint64_t end) {
  if (id == 0 || id > spans_.size()) return;
  StageSpan& s = spans_[id - 1];
  s.start = std::min(s.start, start);
  s.end = std::max(s.end, end);
  ++s.instructions;
}

void CounterWindows::queue_depth(int core, int lane, uint64_t cycle, uint32_t depth) {
  if (!on() || core < 0 || lane < 0 || lane >= kCounterLanes) return;
  if (depths_.size() <= size_t(core)) depths_.resize(size_t(core) + 1);
  auto& rows = depths_[size_t(core)];
  const size_t w = size_t(cycle / window_);
  if (rows.size() <= w) rows.resize(w + 1, Depths{});
  const auto d = static_cast<uint16_t>(std::min<uint32_t>(depth, std::numeric_limits<uint16_t>::max()));
  rows[w][size_t(lane)] = std::max(rows[w][size_t(lane)], d);
}

void CounterWindows::traffic(uint64_t start, uint64_t end, const TrafficBytes& b) {
  if (!on()) return;
  end = std::max(end, start + 1);  // an instantaneous transfer counts in its cycle's window
  const size_t last = size_t((end - 1) / window_);
  if (traffic_.size() <= last) traffic_.resize(last + 1);
  const double span = static_cast<double>(end - start);
  for (size_t w = size_t(start / window_); w <= last; ++w) {
    const uint64_t lo = std::max<uint64_t>(start, w * window_), hi = std::min<uint64_t>(end, (w + 1) * window_);
    const double share = static_cast<double>(hi - lo) / span;
    TrafficBytes& t = traffic_[w];
    t.read += b.read * share, t.write += b.write * share, t.l2_hit += b.l2_hit * share, t.hbm += b.hbm * share;
  }
}

}  // namespace npusim::sim

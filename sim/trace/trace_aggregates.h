#pragma once
// What the trace sums up while the run streams its slices, written when the trace closes: the kernel's pipeline
// stages as spans (CoreCtx::stage) and the counter tracks (pipe queue depths per core, GM / L2 / HBM traffic of
// the chip), both per window of simulated cycles. Memory: one record per stage, one small row per window.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace npusim::sim {

// A stage: from the earliest start to the latest end of the instructions issued under it, waits left out (a
// stage that begins by waiting for its data starts when the data is there).
struct StageSpan {
  int core = 0;
  std::string label;  // "C1 u3 b5": the kernel's stage name, unit and block
  uint64_t start = UINT64_MAX, end = 0, instructions = 0;
  bool empty() const { return instructions == 0; }
};

class StageSpans {
 public:
  uint32_t open(int core, std::string label);  // the new stage's id (>= 1)
  void add(uint32_t id, uint64_t start, uint64_t end);
  const std::vector<StageSpan>& spans() const { return spans_; }  // spans()[id - 1]

 private:
  std::vector<StageSpan> spans_;
};

// Bytes moved between the cores and GM in one transfer, by where they went.
struct TrafficBytes {
  double read = 0, write = 0, l2_hit = 0, hbm = 0;
};

inline constexpr int kCounterLanes = 7;  // queue depths of the trace's seven lanes

class CounterWindows {
 public:
  explicit CounterWindows(uint64_t window_cycles) : window_(window_cycles) {}
  bool on() const { return window_ > 0; }
  uint64_t window() const { return window_; }
  // The queue of `lane` on `core` held `depth` instructions at `cycle`: the window keeps its maximum.
  void queue_depth(int core, int lane, uint64_t cycle, uint32_t depth);
  // A transfer's bytes, spread over [start, end) in proportion to each window's share.
  void traffic(uint64_t start, uint64_t end, const TrafficBytes& b);

  using Depths = std::array<uint16_t, kCounterLanes>;
  const std::vector<std::vector<Depths>>& depths() const { return depths_; }  // [core][window]
  const std::vector<TrafficBytes>& traffic() const { return traffic_; }       // [window]

 private:
  uint64_t window_;
  std::vector<std::vector<Depths>> depths_;
  std::vector<TrafficBytes> traffic_;
};

}  // namespace npusim::sim

#pragma once
// Streams the per-instruction trace to disk while the simulation runs: Chrome trace-event JSON (opens in
// Perfetto / chrome://tracing; one process per core, each AIC followed by its two AIVs; one thread per pipe
// the core uses, the scalar unit included; one slice per instruction, waits in category "wait" drawn grey; flow
// arrows from each set to the wait it releases; the kernel's stages as spans; counter tracks of queue depths and
// GM traffic) and instructions.csv, either plain or gzip-compressed.
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>

#include "isa/instr/instr.h"
#include "sim/trace/trace_aggregates.h"
#include "sim/trace/trace_file.h"

namespace npusim::sim {

struct TraceFilter {
  std::optional<std::set<int>> cores;  // only these global core indices
  uint64_t from_cycle = 0;             // only slices overlapping [from_cycle, to_cycle)
  uint64_t to_cycle = UINT64_MAX;
};

struct TraceOptions {
  bool gzip = false;               // write both files gzip-compressed (the caller names them .gz)
  uint64_t counter_cycles = 1000;  // window of the counter tracks in cycles; 0 = no counter tracks
  uint64_t max_bytes = 0;          // both files together on disk at most; 0 = no limit
};

// close() of a trace that reached TraceOptions::max_bytes: nothing past the limit was written and both files are
// removed; the estimates are the files' sizes had the whole run been written (the withheld text at the
// compression ratio of what was written).
class TraceTooLarge : public std::runtime_error {
 public:
  TraceTooLarge(uint64_t json_bytes, uint64_t csv_bytes, uint64_t limit, uint64_t limit_cycle);
  uint64_t json_bytes, csv_bytes, limit, limit_cycle;  // limit_cycle: the slice end at which the limit was reached
};

struct TraceSlice {
  int core = 0;                   // global core index (the JSON's pid is core + 1: viewers treat pid 0 as special)
  std::string core_name;          // "aic0", "aiv1", "core0" (coupled)
  isa::Pipe pipe = isa::Pipe::S;  // the lane: JSON tid = pid * 10 + pipe index; S and ALL use the scalar lane
  uint64_t start = 0, end = 0;    // cycles
  uint64_t id = 0;                // instruction id, unique in the launch
  std::string text;               // assembly text
  uint64_t bytes = 0;             // bytes moved (DMA) or touched
  uint64_t flops = 0;             // arithmetic operations (mmad: 2*m*n*k)
  // On a set: the id of the flow arrow that starts at this instruction (flow() later draws its head).
  // Recording the tail with the set keeps it next to the set in the file, where Perfetto binds it to the
  // set even when the next instruction on the lane starts on the same (sub-nanosecond) instant.
  std::optional<uint64_t> flow_out;
  uint32_t stage = 0;  // the stage (open_stage) the instruction was issued under; 0 = none
};

class TraceWriter {
 public:
  // Either path may be empty to skip that file. clock_mhz converts cycles to the JSON's microseconds.
  TraceWriter(const std::string& json_path, const std::string& csv_path, double clock_mhz, TraceFilter filter = {},
              TraceOptions options = {});
  ~TraceWriter();  // close(), errors swallowed: call close() to see them
  // Writes the stage spans and counter tracks, closes the JSON array and both files. Later calls do nothing.
  void close();
  void slice(const TraceSlice& s);
  // A kernel stage begins on `core` (CoreCtx::stage): the instructions issued under the returned id until the
  // core's next stage form one span, drawn at close() on the core's process.
  uint32_t open_stage(int core, std::string label);
  // Counter samples: a pipe queue's depth after a push or pop; the bytes of one GM transfer over [start, end).
  void queue_depth(int core, isa::Pipe pipe, uint64_t cycle, uint32_t depth);
  void traffic(uint64_t start, uint64_t end, const TrafficBytes& bytes);
  bool counters_on() const { return counters_.on(); }
  // A flow arrow from the set instruction that ended at from_cycle on (from_core, from_pipe) to the first
  // slice that starts at or after to_cycle on (to_core, to_pipe): the wait, or, when the wait's slice spans
  // the stall, the instruction its release let through (to_cycle = the release). If the set's slice carried
  // flow_out == flow_id, the tail is already written and from_cycle is not used.
  void flow(uint64_t flow_id, int from_core, isa::Pipe from_pipe, uint64_t from_cycle, int to_core, isa::Pipe to_pipe,
            uint64_t to_cycle);
  // Names a core's process (called once per core before its slices; a core's first slice names it from
  // TraceSlice::core_name if this was not called; its lanes are named by their first event). Repeated calls
  // are ignored.
  void name_core(int core, const std::string& core_name);
  uint64_t slices_written() const { return written_; }
  bool over_limit() const { return limit_cycle_.has_value(); }

 private:
  bool keep(int core, uint64_t start, uint64_t end) const;
  bool keep_core(int core) const;
  bool keep_point(int core, uint64_t half_cycle) const;
  uint64_t picoseconds(uint64_t half_cycles) const;  // simulated time of a half-cycle count
  void emit(std::string_view event);                 // one traceEvents element, comma-separated
  // emit() of the element fill(text) appends, formatted straight into the file's chunk.
  template <class Fill>
  void emit_as(Fill&& fill) {
    json_.append([&](std::string& text) {
      text += first_ ? "\n" : ",\n";
      fill(text);
    });
    first_ = false;
  }
  void write_csv_row(const TraceSlice& s);
  void write_stage_spans();
  void write_queue_counters();
  void write_traffic_counters();
  void counter_event(int64_t pid, const std::string& name, uint64_t window, const std::string& args);
  void emit_flow_tail(uint64_t flow_id, int core, int lane, uint64_t half_cycle, uint64_t cycle);
  void name_lane(int core, int lane);
  TraceFile json_, csv_;
  double cycles_per_us_;
  TraceFilter filter_;
  TraceOptions options_;
  StageSpans stages_;
  CounterWindows counters_;
  std::vector<uint8_t> lanes_used_;  // per core: bit k = lane k had a queue sample
  bool first_ = true;
  uint64_t written_ = 0;
  std::optional<uint64_t> limit_cycle_;  // set when the files reached options_.max_bytes
  void check_limit(uint64_t cycle);
  // Per core (looked up for every slice, so an index, not a tree): bit 7 = its process is named, bit k < 7 = lane
  // k's thread is named.
  std::vector<uint8_t> named_;
  uint8_t& named_bits(int core);
  static constexpr uint8_t kCoreNamed = 0x80;
  std::unordered_set<uint64_t> open_flows_;  // flow tails written with their set, heads not yet
};

}  // namespace npusim::sim

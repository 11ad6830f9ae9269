// Streams the trace: every event is formatted and written the moment it is recorded, so memory stays flat
// however long the run. Layout, units and the reasons behind them: traces/README.md.
#include "sim/trace/trace_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

namespace npusim::sim {
namespace {

// Lane names mirror the vendor simulator's trace.json (msprof op simulator) so its users feel at home.
constexpr int kLanes = 7;
constexpr std::array<std::string_view, kLanes> kLaneNames = {"SCALAR", "VECTOR", "CUBE", "MTE1",
                                                             "MTE2",   "MTE3",   "FIXP"};
static_assert(static_cast<int>(isa::Pipe::FIX) == kLanes - 1, "one lane per isa::Pipe before ALL");

// pipe_of() gives ALL for pipe_barrier(all) and sync_all: the scalar unit is what waits on them, so they
// are drawn on its lane.
int lane_of(isa::Pipe pipe) {
  if (pipe == isa::Pipe::ALL) return 0;
  int lane = static_cast<int>(pipe);
  if (lane >= kLanes) throw std::invalid_argument("trace: pipe value " + std::to_string(lane) + " is not an isa::Pipe");
  return lane;
}

void check_core(int core) {
  if (core < 0) throw std::invalid_argument("trace: core index " + std::to_string(core) + " is negative");
}

// Perfetto treats pid 0 as the kernel's idle process and rewrites tid 0 to the pid, and older versions
// key threads by tid alone: so pids start at 1 and every lane's tid is unique in the whole trace.
int64_t pid_of(int core) { return int64_t{core} + 1; }
// The chip's own process (its counter tracks): far above any core's pid.
constexpr int64_t kChipPid = 1000000;
int64_t tid_of(int core, int lane) { return pid_of(core) * 10 + lane; }

// A JSON string literal; nlohmann does the escaping (quotes, backslashes, control characters) and
// replaces invalid UTF-8 instead of throwing, so no instruction text can break the file.
std::string json_string(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The per-instruction hot path appends into one reused buffer (a trace writes a line per instruction: temporary
// strings cost more than the simulation). Plain printable ASCII, nearly every instruction text, needs no escaping.
void append_json_string(std::string& out, std::string_view text) {
  const bool plain =
      std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (!plain) {
    out += json_string(text);
    return;
  }
  out += '"';
  out += text;
  out += '"';
}

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// RFC 4180 field: wrapped in double quotes, inner quotes doubled.
void append_csv_quoted(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}
std::string csv_quoted(std::string_view text) {
  std::string out;
  append_csv_quoted(out, text);
  return out;
}

std::string csv_field(std::string_view text) {
  bool plain = text.find_first_of(",\"\r\n") == std::string_view::npos;
  return plain ? std::string(text) : csv_quoted(text);
}

// The slice name is the mnemonic, so viewers colour and aggregate by instruction kind.
std::string_view mnemonic(std::string_view text) {
  const std::string_view head = text.substr(0, text.find(' '));
  return head.empty() ? std::string_view("?") : head;
}

// Microseconds with exactly 6 decimals, from whole picoseconds (integer arithmetic: no float printing).
void append_us(std::string& out, uint64_t ps) {
  append_uint(out, ps / 1000000);
  char frac[6];
  uint64_t f = ps % 1000000;
  for (int i = 5; i >= 0; --i, f /= 10) frac[i] = char('0' + f % 10);
  out += '.';
  out.append(frac, 6);
}
std::string format_us(uint64_t ps) {
  std::string out;
  append_us(out, ps);
  return out;
}

// The process order: each AIC followed by its two AIVs (aic k, then aiv 2k and 2k + 1: the pair its cross-core
// flags talk to), so a pipeline reads top to bottom; other names (coupled cores) keep the core index.
int64_t process_order(int core, const std::string& name) {
  const bool aic = name.rfind("aic", 0) == 0, aiv = name.rfind("aiv", 0) == 0;
  if ((!aic && !aiv) || name.size() < 4 || name.find_first_not_of("0123456789", 3) != std::string::npos) return core;
  const int64_t k = std::stoll(name.substr(3));
  return aic ? 3 * k : 3 * (k / 2) + 1 + k % 2;
}

// Slices that stand for a pipe or the scalar unit waiting, not working: category "wait" and the viewers' grey.
bool is_wait(std::string_view mnemonic) {
  return mnemonic == "wait_flag" || mnemonic == "cross_wait" || mnemonic == "pipe_barrier" || mnemonic == "sync_all";
}

std::string hex_id(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
  return buf;
}

void append_pid_tid(std::string& out, int core, int lane) {
  out += "\"pid\":";
  append_uint(out, uint64_t(pid_of(core)));
  out += ",\"tid\":";
  append_uint(out, uint64_t(tid_of(core, lane)));
}

std::string lane_pid_tid(int core, int lane) {
  std::string out;
  append_pid_tid(out, core, lane);
  return out;
}

}  // namespace

TraceWriter::TraceWriter(const std::string& json_path, const std::string& csv_path, double clock_mhz,
                         TraceFilter filter, TraceOptions options)
    : cycles_per_us_(clock_mhz), filter_(std::move(filter)), options_(options), counters_(options.counter_cycles) {
  if (!std::isfinite(clock_mhz) || clock_mhz <= 0)
    throw std::invalid_argument("trace: clock_mhz must be a positive number, got " + std::to_string(clock_mhz));
  if (filter_.from_cycle >= filter_.to_cycle)
    throw std::invalid_argument("trace window " + std::to_string(filter_.from_cycle) + ":" +
                                std::to_string(filter_.to_cycle) + " is empty: FROM must be below TO");
  if (!json_path.empty()) {
    json_.open(json_path, options_.gzip);
    nlohmann::ordered_json filter_json = {
        {"cores", nullptr}, {"from_cycle", filter_.from_cycle}, {"to_cycle", nullptr}};
    if (filter_.cores) filter_json["cores"] = *filter_.cores;
    if (filter_.to_cycle != UINT64_MAX) filter_json["to_cycle"] = filter_.to_cycle;
    nlohmann::ordered_json other = {{"generator", "npusim"},
                                    {"trace_format_version", 1},
                                    {"clock_mhz", clock_mhz},
                                    {"ts_unit", "us"},
                                    {"lanes", kLaneNames},
                                    {"filter", filter_json},
                                    {"counter_window_cycles", options_.counter_cycles}};
    // traceEvents comes last so that the array can stay open while the run streams into it.
    json_.write("{\"displayTimeUnit\":\"ns\",\"otherData\":" + other.dump() + ",\"traceEvents\":[");
  }
  if (!csv_path.empty()) {
    csv_.open(csv_path, options_.gzip);
    csv_.write("core,core_name,pipe,start,end,cycles,id,bytes,flops,instruction,stage\n");
  }
}

TraceWriter::~TraceWriter() {
  try {
    close();
  } catch (const std::exception&) {  // a destructor must not throw; callers that care call close()
  }
}

TraceTooLarge::TraceTooLarge(uint64_t json_bytes_, uint64_t csv_bytes_, uint64_t limit_, uint64_t limit_cycle_)
    : std::runtime_error("the trace would take about " + std::to_string(json_bytes_ + csv_bytes_) +
                         " bytes, over its limit of " + std::to_string(limit_)),
      json_bytes(json_bytes_),
      csv_bytes(csv_bytes_),
      limit(limit_),
      limit_cycle(limit_cycle_) {}

void TraceWriter::close() {
  if (json_.is_open()) {
    write_stage_spans();
    write_queue_counters();
    write_traffic_counters();
    json_.write("\n]}\n");
    json_.close();
  }
  csv_.close();
  if (limit_cycle_) {
    std::error_code ec;
    for (const TraceFile* f : {&json_, &csv_})
      if (!f->path().empty()) std::filesystem::remove(f->path(), ec);
    const uint64_t cycle = *limit_cycle_;
    limit_cycle_.reset();  // a second close() does nothing
    throw TraceTooLarge(json_.estimated_bytes(), csv_.estimated_bytes(), options_.max_bytes, cycle);
  }
}

// Past the limit both files only count what they would have written (the run goes on: its report stays valid).
void TraceWriter::check_limit(uint64_t cycle) {
  if (options_.max_bytes == 0 || limit_cycle_ || json_.disk_bytes() + csv_.disk_bytes() <= options_.max_bytes) return;
  limit_cycle_ = cycle;
  json_.withhold(), csv_.withhold();
}

void TraceWriter::name_core(int core, const std::string& core_name) {
  check_core(core);
  if (!keep_core(core) || (named_bits(core) & kCoreNamed)) return;
  named_bits(core) |= kCoreNamed;
  if (!json_.is_open()) return;
  std::string pid = "\"pid\":" + std::to_string(pid_of(core));
  emit("{\"name\":\"process_name\",\"ph\":\"M\"," + pid + ",\"args\":{\"name\":" + json_string(core_name) + "}}");
  emit("{\"name\":\"process_sort_index\",\"ph\":\"M\"," + pid +
       ",\"args\":{\"sort_index\":" + std::to_string(process_order(core, core_name)) + "}}");
}

static_assert(kLanes < 8, "bit 7 of TraceWriter::named_ marks the core's process");
uint8_t& TraceWriter::named_bits(int core) {
  if (named_.size() <= size_t(core)) named_.resize(size_t(core) + 1);
  return named_[size_t(core)];
}

// A lane is named when its first event is written, so lanes a core never uses do not appear.
void TraceWriter::name_lane(int core, int lane) {
  if (!json_.is_open() || (named_bits(core) & (1u << lane))) return;
  named_bits(core) |= uint8_t(1u << lane);
  std::string ids = lane_pid_tid(core, lane);
  emit("{\"name\":\"thread_name\",\"ph\":\"M\"," + ids + ",\"args\":{\"name\":\"" + std::string(kLaneNames[lane]) +
       "\"}}");
  emit("{\"name\":\"thread_sort_index\",\"ph\":\"M\"," + ids + ",\"args\":{\"sort_index\":" + std::to_string(lane) +
       "}}");
}

void TraceWriter::slice(const TraceSlice& s) {
  check_core(s.core);
  int lane = lane_of(s.pipe);
  if (s.end < s.start)
    throw std::invalid_argument("trace: instruction " + std::to_string(s.id) + " ends (cycle " + std::to_string(s.end) +
                                ") before it starts (cycle " + std::to_string(s.start) + "): " + s.text);
  const std::string_view name = mnemonic(s.text);  // a view: no allocation per slice
  if (s.stage && !is_wait(name)) stages_.add(s.stage, s.start, s.end);
  if (!keep(s.core, s.start, s.end)) return;
  if (!(named_bits(s.core) & kCoreNamed)) name_core(s.core, s.core_name);
  if (json_.is_open()) {
    // dur is the difference of the two rounded instants, so back-to-back slices touch exactly.
    uint64_t start_ps = picoseconds(2 * s.start), end_ps = picoseconds(2 * s.end);
    name_lane(s.core, lane);
    emit_as([&](std::string& e) {
      e += "{\"name\":";
      append_json_string(e, name);
      e += is_wait(name) ? ",\"cat\":\"wait\",\"cname\":\"grey\",\"ph\":\"X\"," : ",\"cat\":\"instr\",\"ph\":\"X\",";
      append_pid_tid(e, s.core, lane);
      e += ",\"ts\":";
      append_us(e, start_ps);
      e += ",\"dur\":";
      append_us(e, end_ps - start_ps);
      e += ",\"args\":{\"instr\":";
      append_json_string(e, s.text);
      for (const auto& [key, v] : {std::pair{",\"cycles\":", s.end - s.start},
                                   {",\"bytes\":", s.bytes},
                                   {",\"flops\":", s.flops},
                                   {",\"id\":", s.id},
                                   {",\"start_cycle\":", s.start},
                                   {",\"end_cycle\":", s.end}}) {
        e += key;
        append_uint(e, v);
      }
      e += "}}";
    });
    if (s.flow_out) {
      emit_flow_tail(*s.flow_out, s.core, lane, s.end > s.start ? 2 * s.end - 1 : 2 * s.start, s.end);
      open_flows_.insert(*s.flow_out);
    }
  }
  if (csv_.is_open()) write_csv_row(s);
  ++written_;
  check_limit(s.end);
}

// Viewers attach a flow event to a slice by time, and Perfetto, which rounds to whole nanoseconds, to
// whichever slice it has open on the lane when it reads the event: a tail placed exactly on a boundary
// may attach to a neighbour. So the tail sits half a cycle inside the set's last cycle and, when the set
// was recorded with flow_out, directly after the set's slice in the file; the head binds to the next slice
// (the one starting at to_cycle), placed half a cycle before it, so it can never bind to a wait that began
// earlier (Perfetto would flip such an arrow).
void TraceWriter::flow(uint64_t flow_id, int from_core, isa::Pipe from_pipe, uint64_t from_cycle, int to_core,
                       isa::Pipe to_pipe, uint64_t to_cycle) {
  check_core(from_core);
  check_core(to_core);
  int from_lane = lane_of(from_pipe), to_lane = lane_of(to_pipe);
  bool tail_written = open_flows_.erase(flow_id) > 0;
  uint64_t tail_half = from_cycle > 0 ? 2 * from_cycle - 1 : 0;
  if (!tail_written && !keep_point(from_core, tail_half)) return;
  if (!keep_point(to_core, 2 * to_cycle) || !json_.is_open()) return;
  if (!tail_written) emit_flow_tail(flow_id, from_core, from_lane, tail_half, from_cycle);
  name_lane(to_core, to_lane);
  emit("{\"name\":\"sync\",\"cat\":\"sync\",\"ph\":\"f\",\"id\":" + std::to_string(flow_id) + "," +
       lane_pid_tid(to_core, to_lane) + ",\"ts\":" + format_us(picoseconds(to_cycle > 0 ? 2 * to_cycle - 1 : 0)) +
       ",\"args\":{\"cycle\":" + std::to_string(to_cycle) + "}}");
}

void TraceWriter::emit_flow_tail(uint64_t flow_id, int core, int lane, uint64_t half_cycle, uint64_t cycle) {
  name_lane(core, lane);
  emit("{\"name\":\"sync\",\"cat\":\"sync\",\"ph\":\"s\",\"id\":" + std::to_string(flow_id) + "," +
       lane_pid_tid(core, lane) + ",\"ts\":" + format_us(picoseconds(half_cycle)) +
       ",\"args\":{\"cycle\":" + std::to_string(cycle) + "}}");
}

bool TraceWriter::keep_core(int core) const { return !filter_.cores || filter_.cores->count(core) > 0; }

// A slice is kept when it overlaps [from_cycle, to_cycle); an instant (start == end) counts as its cycle.
bool TraceWriter::keep(int core, uint64_t start, uint64_t end) const {
  bool after_from = end > filter_.from_cycle || (end == start && start >= filter_.from_cycle);
  return keep_core(core) && start < filter_.to_cycle && after_from;
}

// A flow end is kept when the cycle holding it lies in the window, so the slice it binds to is kept too.
bool TraceWriter::keep_point(int core, uint64_t half_cycle) const {
  uint64_t cycle = half_cycle / 2;
  return keep_core(core) && cycle >= filter_.from_cycle && cycle < filter_.to_cycle;
}

// Whole picoseconds: cycle resolution for any clock below 1 THz. The product is rounded once, in 80-bit
// long double, the same on every x86-64 host.
uint64_t TraceWriter::picoseconds(uint64_t half_cycles) const {
  return static_cast<uint64_t>(std::roundl(static_cast<long double>(half_cycles) * 500000.0L / cycles_per_us_));
}

void TraceWriter::emit(std::string_view event) {
  emit_as([event](std::string& e) { e += event; });
}

void TraceWriter::write_csv_row(const TraceSlice& s) {
  const bool staged = s.stage > 0 && s.stage <= stages_.spans().size();
  csv_.append([&](std::string& r) {
    append_uint(r, uint64_t(s.core));
    r += ',';
    r += csv_field(s.core_name);
    r += ',';
    r += kLaneNames[lane_of(s.pipe)];
    for (uint64_t v : {s.start, s.end, s.end - s.start, s.id, s.bytes, s.flops}) {
      r += ',';
      append_uint(r, v);
    }
    r += ',';
    append_csv_quoted(r, s.text);
    r += ',';
    if (staged) r += csv_field(stages_.spans()[s.stage - 1].label);
    r += '\n';
  });
}

uint32_t TraceWriter::open_stage(int core, std::string label) {
  check_core(core);
  return stages_.open(core, std::move(label));
}

void TraceWriter::queue_depth(int core, isa::Pipe pipe, uint64_t cycle, uint32_t depth) {
  check_core(core);
  const int lane = lane_of(pipe);
  if (lanes_used_.size() <= size_t(core)) lanes_used_.resize(size_t(core) + 1);
  lanes_used_[size_t(core)] |= uint8_t(1u << lane);
  counters_.queue_depth(core, lane, cycle, depth);
}

void TraceWriter::traffic(uint64_t start, uint64_t end, const TrafficBytes& bytes) {
  counters_.traffic(start, end, bytes);
}

// Stages overlap on a core (the next block's loads start while this one's results drain), so they are async
// slices ("b" / "e" pairs keyed by a process-local id), which viewers lay out on rows of their own under the
// core, not "X" slices, which must nest.
void TraceWriter::write_stage_spans() {
  const auto& spans = stages_.spans();
  for (size_t i = 0; i < spans.size(); ++i) {
    const StageSpan& sp = spans[i];
    if (sp.empty() || !keep(sp.core, sp.start, sp.end)) continue;
    const std::string head = "{\"name\":" + json_string(sp.label) + ",\"cat\":\"stage\",\"ph\":\"";
    const std::string ids = "\",\"id2\":{\"local\":\"" + hex_id(i + 1) + "\"}," + lane_pid_tid(sp.core, 0);
    emit(head + "b" + ids + ",\"ts\":" + format_us(picoseconds(2 * sp.start)) +
         ",\"args\":{\"start_cycle\":" + std::to_string(sp.start) + ",\"end_cycle\":" + std::to_string(sp.end) +
         ",\"cycles\":" + std::to_string(sp.end - sp.start) + ",\"instructions\":" + std::to_string(sp.instructions) +
         "}}");
    emit(head + "e" + ids + ",\"ts\":" + format_us(picoseconds(2 * sp.end)) + "}");
  }
}

void TraceWriter::counter_event(int64_t pid, const std::string& name, uint64_t window, const std::string& args) {
  emit("{\"name\":" + json_string(name) + ",\"cat\":\"counter\",\"ph\":\"C\",\"pid\":" + std::to_string(pid) +
       ",\"ts\":" + format_us(picoseconds(2 * window * counters_.window())) + ",\"args\":{" + args + "}}");
}

// Per core, the deepest each used lane's queue got in each window; an event only where a value changes, and a
// closing one back to zero, so a steady pipeline costs a few events.
void TraceWriter::write_queue_counters() {
  const auto& depths = counters_.depths();
  const uint64_t w = counters_.window();
  for (size_t core = 0; core < depths.size(); ++core) {
    if (!keep_core(int(core)) || depths[core].empty()) continue;
    const uint8_t used = lanes_used_[core];
    CounterWindows::Depths last{};
    bool first = true;
    auto args_of = [&](const CounterWindows::Depths& d) {
      std::string a;
      for (int lane = 0; lane < kLanes; ++lane)
        if (used & (1u << lane))
          a += (a.empty() ? "\"" : ",\"") + std::string(kLaneNames[size_t(lane)]) +
               "\":" + std::to_string(d[size_t(lane)]);
      return a;
    };
    for (size_t i = 0; i < depths[core].size(); ++i) {
      const uint64_t lo = i * w, hi = lo + w;
      if (hi <= filter_.from_cycle || lo >= filter_.to_cycle || (!first && depths[core][i] == last)) continue;
      counter_event(pid_of(int(core)), "queue depth", i, args_of(depths[core][i]));
      last = depths[core][i], first = false;
    }
    const uint64_t end_window = depths[core].size();
    if (!first && end_window * w < filter_.to_cycle)
      counter_event(pid_of(int(core)), "queue depth", end_window, args_of({}));
  }
}

// Chip-wide bytes per cycle in each window, on a process of their own above the cores.
void TraceWriter::write_traffic_counters() {
  const auto& t = counters_.traffic();
  if (t.empty()) return;
  const uint64_t w = counters_.window();
  const std::string pid = "\"pid\":" + std::to_string(kChipPid);
  emit("{\"name\":\"process_name\",\"ph\":\"M\"," + pid + ",\"args\":{\"name\":\"chip\"}}");
  emit("{\"name\":\"process_sort_index\",\"ph\":\"M\"," + pid + ",\"args\":{\"sort_index\":-1}}");
  auto rate = [&](double bytes) { return nlohmann::json(bytes / double(w)).dump(); };
  std::string last;
  for (size_t i = 0; i <= t.size(); ++i) {
    const uint64_t lo = i * w, hi = lo + w;
    if (hi <= filter_.from_cycle || lo >= filter_.to_cycle) continue;
    const TrafficBytes b = i < t.size() ? t[i] : TrafficBytes{};
    const std::string args = "\"read\":" + rate(b.read) + ",\"write\":" + rate(b.write) +
                             ",\"l2_hit\":" + rate(b.l2_hit) + ",\"hbm\":" + rate(b.hbm);
    if (args == last) continue;
    counter_event(kChipPid, "GM traffic (B/cycle)", i, args);
    last = args;
  }
}

}  // namespace npusim::sim

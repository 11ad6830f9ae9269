#include "sim/check/check_runner.h"

#include <algorithm>

namespace npusim::sim {

CheckRunner::CheckRunner(const HappensBefore& hb, std::vector<int> core_of_agent, std::vector<std::string> core_names,
                         bool check_gm, bool threaded, std::vector<uint8_t> hazards)
    : hb_(hb), core_names_(std::move(core_names)), threaded_(threaded), mirror_(threaded ? hb.agents() : 0) {
  checker_ =
      std::make_unique<RaceChecker>(threaded ? mirror_ : hb, std::move(core_of_agent), check_gm, std::move(hazards));
  if (!threaded_) return;
  logged_version_.assign(hb.agents(), UINT64_MAX);  // the first access of every agent copies its clock
  current_ = std::make_unique<Batch>();
  thread_ = std::thread([this] { worker(); });
}

CheckRunner::~CheckRunner() {
  if (!threaded_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void CheckRunner::set_read_only(std::vector<std::pair<uint64_t, uint64_t>> ranges) {
  checker_->set_read_only(std::move(ranges));  // before the first access: the thread has nothing to check yet
}

void CheckRunner::check_inline(AgentId a, uint32_t epoch, const AccessEvent& e, std::span<const AccessRange> ranges) {
  checker_->on_access(a, epoch, InstrRef{e.id, e.core, core_names_[size_t(e.core)], e.pipe, e.cycle, {}, &e.instr},
                      ranges);
}

void CheckRunner::on_access(AgentId a, uint32_t epoch, const AccessEvent& e, std::span<const AccessRange> ranges) {
  if (ranges.empty()) return;
  if (!threaded_) return check_inline(a, epoch, e, ranges);
  Batch& b = *current_;
  log(a, epoch, hb_.done(a), false, e, ranges.size());
  b.ranges.insert(b.ranges.end(), ranges.begin(), ranges.end());
  if (b.records.size() == kBatchRecords) hand_over();
}

void CheckRunner::on_barrier(AgentId a, uint32_t epoch, uint32_t done_before, const AccessEvent& e) {
  if (!threaded_)
    return checker_->on_barrier(a, epoch, done_before,
                                InstrRef{e.id, e.core, core_names_[size_t(e.core)], e.pipe, e.cycle, {}, &e.instr});
  log(a, epoch, done_before, true, e, 0);
  if (current_->records.size() == kBatchRecords) hand_over();
}

CheckRunner::Record& CheckRunner::log(AgentId a, uint32_t epoch, uint32_t done, bool barrier, const AccessEvent& e,
                                      size_t n_ranges) {
  Batch& b = *current_;
  uint32_t clock = kNoClock;
  if (hb_.version(a) != logged_version_[a]) {  // an acquire changed more than a's own entry: copy its blocks
    logged_version_[a] = hb_.version(a);
    clock = static_cast<uint32_t>(b.clocks.size());
    const VectorClock& vc = hb_.clock(a);
    b.clocks.push_back(0);  // the block count, then per block its index and its entries
    vc.for_each_block([&](size_t k) {
      ++b.clocks[clock];
      b.clocks.push_back(static_cast<uint32_t>(k));
      const uint32_t* v = vc.data() + k * VectorClock::kBlock;
      b.clocks.insert(b.clocks.end(), v, v + VectorClock::kBlock);
    });
  }
  b.records.push_back(Record{a, epoch, done, barrier, static_cast<uint32_t>(b.ranges.size()),
                             static_cast<uint32_t>(n_ranges), clock, e.id, e.core, e.pipe, e.cycle, e.instr});
  return b.records.back();
}

void CheckRunner::hand_over() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return full_.size() < kBatchesInFlight || error_; });
  full_.push_back(std::move(current_));
  if (!free_.empty()) {
    current_ = std::move(free_.back());
    free_.pop_back();
  } else {
    current_ = std::make_unique<Batch>();
  }
  lock.unlock();
  cv_.notify_all();
}

void CheckRunner::finish() {
  if (threaded_) {
    if (!current_->records.empty()) hand_over();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return (full_.empty() && !busy_) || error_; });
    if (error_) std::rethrow_exception(error_);
  }
  checker_->close_barriers();  // (the checker thread is idle now)
}

void CheckRunner::replay(const Batch& b) {
  for (const Record& r : b.records) {
    if (r.clock != kNoClock) {
      VectorClock& vc = mirror_.mutable_clock(r.agent);
      vc.clear();
      const uint32_t* p = b.clocks.data() + r.clock;
      for (uint32_t i = 0, n = *p++; i < n; ++i) {
        const uint32_t k = *p++;
        vc.set_block(k, p);
        p += VectorClock::kBlock;
      }
    }
    mirror_.assign_own(r.agent, r.epoch);  // the logged clock's own entry may be older: ticks move only this
    const InstrRef ref{r.id, r.core, core_names_[size_t(r.core)], r.pipe, r.cycle, {}, &r.instr};
    if (r.barrier) {
      checker_->on_barrier(r.agent, r.epoch, r.done, ref);
      continue;
    }
    mirror_.assign_done(r.agent, r.done);
    checker_->on_access(r.agent, r.epoch, ref,
                        std::span<const AccessRange>(b.ranges.data() + r.first_range, r.n_ranges));
  }
}

void CheckRunner::worker() {
  for (;;) {
    std::unique_ptr<Batch> b;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return !full_.empty() || stop_; });
      if (full_.empty()) return;  // stopping with nothing left
      b = std::move(full_.front());
      full_.pop_front();
      busy_ = true;
    }
    cv_.notify_all();  // room for the simulation thread
    try {
      if (!error_) replay(*b);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = std::current_exception();
    }
    b->records.clear(), b->ranges.clear(), b->clocks.clear();
    {
      std::lock_guard<std::mutex> lock(mu_);
      free_.push_back(std::move(b));
      busy_ = false;
    }
    cv_.notify_all();
  }
}

}  // namespace npusim::sim

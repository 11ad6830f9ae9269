#include "sim/engine/engine.h"

#include <mutex>

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "sim/engine/stack_switch.h"

namespace npusim::sim {

// The process's one SystemC module. SystemC elaborates one module tree per process (a second one after
// sc_start fails with E529), so engines do not own a module: they take turns on this one, whose thread runs the
// event queue of the engine that called run(). Built at the first engine, never destroyed (SystemC keeps it).
class Engine::Module : public sc_core::sc_module {
 public:
  static Module& instance() {
    static Module* m = [] {
      sc_core::sc_set_time_resolution(1, sc_core::SC_NS);  // one resolution unit = one core cycle (once per process)
      sc_core::sc_report_handler::set_actions(sc_core::SC_ID_INSTANCE_EXISTS_, sc_core::SC_DO_NOTHING);
      return new Module("npusim_chip");
    }();
    return *m;
  }
  sc_core::sc_event start;
  Engine* current = nullptr;  // the engine whose run() is in progress
  std::mutex running;         // one run at a time: sc_start is not reentrant (callers on several host threads queue)
  // ThreadSanitizer's view of the two coroutines (stack_switch.h; null without it): SystemC does not announce
  // its switches to it, so the thread announces its own: to the caller of run() before each wait, back to itself
  // after each.
  void* tsan_loop = stack_switch::tsan_create();
  void* tsan_caller = nullptr;
  template <class... A>
  void wait_for(const A&... what) {
    stack_switch::tsan_switch(tsan_caller);
    sc_core::wait(what...);
    stack_switch::tsan_switch(tsan_loop);
  }

 private:
  explicit Module(sc_core::sc_module_name n) : sc_module(n) {
    sc_core::sc_spawn_options opt;
    sc_core::sc_spawn([this] { loop(); }, "event_loop", &opt);
  }
  // The thread first runs at the first sc_start (SystemC initialises processes then, and a notification made
  // before it would be lost), so it drives the current engine first and then waits for the next run.
  void loop() {
    stack_switch::tsan_switch(tsan_loop);
    for (;;) {
      current->drive();
      wait_for(start);
    }
  }
};

Engine::Engine(EventHandler& handler) : handler_(handler), module_(&Module::instance()) {}

Engine::~Engine() = default;

// SystemC time is shared by every engine of the process: an engine's cycle is SystemC's time minus its offset_,
// fixed at each run() so that its clock continues where its previous run ended (0 for a new engine), whatever
// other engines ran in between.
uint64_t Engine::sc_cycle() const { return sc_core::sc_time_stamp().value() - offset_; }

// Time is synchronised with SystemC once per quantum (TLM-2.0 style temporal decoupling): events within
// kQuantum cycles of SystemC's time run back to back, each at its own cycle (now_), and the thread waits
// only when the next event lies beyond the quantum, for exactly as long as it takes to reach that event.
// The order of events, and so every result, is that of waiting for each one; only SystemC sees time in
// steps (nothing else runs in this SystemC kernel to see the difference).
void Engine::drive() {
  // SystemC time moves only in this thread's waits, so it is read once per wait, not once per event.
  uint64_t sc_now = sc_cycle();
  while (!queue_.empty() && !stopped_) {
    const Event e = queue_.pop();
    if (e.cycle >= sc_now + kQuantum) {
      module_->wait_for(sc_core::sc_time::from_value(e.cycle - sc_now));
      sc_now = sc_cycle();
    }
    now_ = e.cycle;
    handler_.on_event(e);
    if (++events_ % 4096 == 0 && tick_every_) tick_();
  }
  queue_.clear();
  // The launch ends at now_: bring SystemC there before it returns from sc_start.
  if (sc_now = sc_cycle(); now_ > sc_now) module_->wait_for(sc_core::sc_time::from_value(now_ - sc_now));
}

void Engine::run(const std::function<void()>& tick, uint64_t tick_every) {
  const std::lock_guard<std::mutex> lock(module_->running);
  tick_ = tick;
  tick_every_ = tick ? tick_every : 0;  // (ticks come every 4096 events; tick_every only switches them on)
  stopped_ = false;
  offset_ = sc_core::sc_time_stamp().value() - now_;
  module_->current = this;
  module_->start.notify(sc_core::SC_ZERO_TIME);
  module_->tsan_caller = stack_switch::tsan_current();
  sc_core::sc_start();  // returns when the loop waits for the next start with nothing else pending
  stack_switch::asan_back_on_thread_stack();
  module_->current = nullptr;
}

}  // namespace npusim::sim

#include "sim/engine/engine.h"

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

namespace npusim::sim {

class Engine::Module : public sc_core::sc_module {
 public:
  Module(sc_core::sc_module_name n, Engine& e) : sc_module(n), engine_(e) {
    sc_core::sc_spawn_options opt;
    sc_core::sc_spawn([this] { engine_.loop(); }, "event_loop", &opt);
  }
  sc_core::sc_event start;

 private:
  Engine& engine_;
};

Engine::Engine(EventHandler& handler) : handler_(handler) {
  module_ = std::make_unique<Module>("npusim_chip", *this);
}

Engine::~Engine() = default;

// The thread first runs at the first sc_start (SystemC initialises processes then, and a notification made
// before it would be lost), so it processes the queue first and then waits for the next run.
//
// Time is synchronised with SystemC once per quantum (TLM-2.0 style temporal decoupling): events within
// kQuantum cycles of SystemC's time run back to back, each at its own cycle (now_), and the thread waits
// only when the next event lies beyond the quantum, for exactly as long as it takes to reach that event.
// The order of events, and so every result, is that of waiting for each one; only SystemC sees time in
// steps (nothing else runs in this SystemC kernel to see the difference).
void Engine::loop() {
  for (;;) {
    // SystemC time moves only in this thread's waits, so it is read once per wait, not once per event.
    uint64_t sc_now = sc_core::sc_time_stamp().value();
    while (!queue_.empty() && !stopped_) {
      const Event e = queue_.pop();
      if (e.cycle >= sc_now + kQuantum) {
        sc_core::wait(sc_core::sc_time::from_value(e.cycle - sc_now));
        sc_now = sc_core::sc_time_stamp().value();
      }
      now_ = e.cycle;
      handler_.on_event(e);
      if (++events_ % 4096 == 0 && tick_every_) tick_();
    }
    queue_.clear();
    // The launch ends at now_: bring SystemC there before it returns from sc_start.
    if (sc_now = sc_core::sc_time_stamp().value(); now_ > sc_now)
      sc_core::wait(sc_core::sc_time::from_value(now_ - sc_now));
    sc_core::wait(module_->start);
  }
}

void Engine::run(const std::function<void()>& tick, uint64_t tick_every) {
  tick_ = tick;
  tick_every_ = tick ? tick_every : 0;  // (ticks come every 4096 events; tick_every only switches them on)
  stopped_ = false;
  now_ = sc_core::sc_time_stamp().value();
  module_->start.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();  // returns when the loop waits for the next start with nothing else pending
}

}  // namespace npusim::sim

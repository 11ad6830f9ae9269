#pragma once
// The simulation engine: the thread of the process's one SystemC module drives the chip-level event queue of
// the engine that is running (engines take turns on that module: sim/README.md "Machines per process"). SystemC owns
// simulated time: before running an event the thread waits until sc_time_stamp() reaches the event's cycle
// (1 SystemC ns = 1 core cycle). The pipes are state machines advanced by pipe events; the kernel programs are
// fibers resumed by scalar events when what they wait for happens. So a simulated instruction costs a few
// heap operations and, only when the scalar unit really stalls, one fiber switch (sim/README.md "Engine").
#include <cstdint>
#include <functional>
#include <memory>

#include "sim/engine/event_queue.h"

namespace npusim::sim {

// What runs an event (the machine). An interface, not a std::function: it is called for every event.
class EventHandler {
 public:
  virtual void on_event(const Event& e) = 0;

 protected:
  ~EventHandler() = default;
};

class Engine {
 public:
  static constexpr uint64_t kQuantum = 1024;  // cycles between synchronisations with SystemC time (engine.cpp)
  // The first engine of the process elaborates the SystemC module; later ones reuse it.
  explicit Engine(EventHandler& handler);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  uint64_t now() const { return now_; }
  void schedule(uint64_t cycle, uint32_t core, EventKind kind, uint8_t pipe = 0) {
    queue_.push(cycle, core, kind, pipe);
  }
  // Runs events (sc_start) until the queue is empty or stop() was called; `tick` is called every
  // `tick_every` events (progress display) from inside the run. Runs of engines on different host threads
  // queue (one at a time per process).
  void run(const std::function<void()>& tick, uint64_t tick_every);
  void stop() { stopped_ = true; }
  void set_reverse_ties(bool on) { queue_.set_reverse_ties(on); }
  uint64_t events_run() const { return events_; }

 private:
  class Module;
  void drive();               // the module's thread: this engine's events until the queue is empty or stopped
  uint64_t sc_cycle() const;  // SystemC's time on this engine's clock
  EventQueue queue_;
  EventHandler& handler_;
  Module* module_;
  std::function<void()> tick_;
  uint64_t tick_every_ = 0, now_ = 0, events_ = 0, offset_ = 0;
  bool stopped_ = false;
};

}  // namespace npusim::sim

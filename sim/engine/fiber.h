#pragma once
// A kernel program's coroutine (Boost.Context): the scalar unit runs plain C++ kernel code that must stop
// where the hardware's scalar unit would stall (a full queue, a wait, a GM load) and continue later at its
// simulated time. Only the engine resumes a fiber; only the fiber's body yields. A switch costs ~15 ns, which
// is why kernel programs are fibers and not SystemC threads (whose every wake goes through the scheduler).
#include <cstddef>
#include <functional>
#include <memory>

namespace npusim::sim {

class Fiber {
 public:
  Fiber(std::function<void()> body, size_t stack_bytes);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;
  // Runs the body until it yields or returns (from the engine).
  void resume();
  // Returns to the engine until the next resume (from inside the body).
  void yield();
  bool done() const { return done_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool done_ = false;
};

}  // namespace npusim::sim

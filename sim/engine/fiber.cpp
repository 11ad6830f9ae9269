#include "sim/engine/fiber.h"

#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace npusim::sim {

namespace ctx = boost::context;

namespace {

// AddressSanitizer must be told about every stack switch (sanitizer/common_interface_defs.h): unannotated, it
// takes a fiber stack for the thread's, ignores the unpoisoning an exception thrown on it asks for, and later
// reports the stale red zones on the engine's stack as overflows. The annotations compile to nothing in the
// release build.
struct StackBounds {
  const void* bottom = nullptr;
  size_t size = 0;
};

void start_switch([[maybe_unused]] void** save_fake, [[maybe_unused]] StackBounds to) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(save_fake, to.bottom, to.size);
#endif
}

void finish_switch([[maybe_unused]] void* fake, [[maybe_unused]] StackBounds* from) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(fake, from ? &from->bottom : nullptr, from ? &from->size : nullptr);
#endif
}

// fixedsize_stack that remembers where the stack is, for the annotations.
struct RecordingStack {
  ctx::fixedsize_stack inner;
  StackBounds* bounds;
  ctx::stack_context allocate() {
    ctx::stack_context sc = inner.allocate();
    *bounds = {static_cast<char*>(sc.sp) - sc.size, sc.size};
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept { inner.deallocate(sc); }
};

}  // namespace

struct Fiber::Impl {
  ctx::fiber self;         // the fiber while it is suspended
  ctx::fiber sink;         // the engine while the fiber runs
  StackBounds stack;       // the fiber's stack
  StackBounds engine;      // the stack that resumed it
  void* engine_fake = nullptr;  // ASan's fake stack of the engine while the fiber runs
  void* fiber_fake = nullptr;   // ASan's fake stack of the fiber while it is suspended
};

Fiber::Fiber(std::function<void()> body, size_t stack_bytes) : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.self = ctx::fiber(std::allocator_arg, RecordingStack{ctx::fixedsize_stack(stack_bytes), &im.stack},
                       [this, &im, body = std::move(body)](ctx::fiber&& sink) mutable {
                         finish_switch(nullptr, &im.engine);
                         im.sink = std::move(sink);
                         body();  // catches everything of its own; must not throw
                         done_ = true;
                         start_switch(nullptr, im.engine);  // this stack ends here
                         return std::move(im.sink);
                       });
}

// A fiber destroyed while suspended is unwound by Boost (forced_unwind through the body); the machine resumes
// every fiber to its end before destroying it, so this only happens on an internal error path.
Fiber::~Fiber() = default;

void Fiber::resume() {
  if (done_) return;
  start_switch(&impl_->engine_fake, impl_->stack);
  impl_->self = std::move(impl_->self).resume();
  finish_switch(impl_->engine_fake, nullptr);
}

void Fiber::yield() {
  start_switch(&impl_->fiber_fake, impl_->engine);
  impl_->sink = std::move(impl_->sink).resume();
  finish_switch(impl_->fiber_fake, &impl_->engine);
}

}  // namespace npusim::sim

#include "sim/engine/fiber.h"

#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>

#include "sim/engine/stack_switch.h"

namespace npusim::sim {

namespace ctx = boost::context;
namespace sw = stack_switch;

namespace {

// Thrown out of yield() when a suspended fiber is destroyed: the body unwinds on its own stack, as any other
// exception, instead of through Boost's forced unwind.
struct Cancelled {};

// fixedsize_stack that remembers where the stack is, for the sanitizers (stack_switch.h).
struct RecordingStack {
  ctx::fixedsize_stack inner;
  sw::Stack* bounds;
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
  bool cancelled = false;  // set by the destructor of an unfinished fiber
  // For the sanitizers (nothing in a release build): each switch is announced (stack_switch.h).
  sw::Stack stack;              // the fiber's stack
  sw::Stack engine;             // the stack that resumed it (recorded at each resume)
  void* engine_fake = nullptr;  // ASan's fake frames of the engine while the fiber runs
  void* fiber_fake = nullptr;   // ASan's fake frames of the fiber while it is suspended
  void* tsan_fiber = sw::tsan_create();
  void* tsan_engine = nullptr;  // ThreadSanitizer's fiber that resumed it
};

Fiber::Fiber(std::function<void()> body, size_t stack_bytes) : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.self = ctx::fiber(std::allocator_arg, RecordingStack{ctx::fixedsize_stack(stack_bytes), &im.stack},
                       [this, &im, body = std::move(body)](ctx::fiber&& sink) mutable {
                         sw::asan_finish(nullptr, &im.engine);
                         im.sink = std::move(sink);
                         try {
                           if (!im.cancelled) body();  // catches everything of its own but Cancelled
                         } catch (const Cancelled&) {}
                         done_ = true;
                         sw::asan_start(nullptr, im.engine);  // this stack ends here
                         sw::tsan_switch(im.tsan_engine);
                         return std::move(im.sink);
                       });
}

// The machine resumes every fiber to its end before destroying it; one destroyed earlier (an error path, or
// never started) is resumed once more and unwinds from its yield with Cancelled.
Fiber::~Fiber() {
  if (!done_) {
    impl_->cancelled = true;
    resume();
  }
  sw::tsan_destroy(impl_->tsan_fiber);
}

void Fiber::resume() {
  if (done_) return;
  Impl& im = *impl_;
  im.tsan_engine = sw::tsan_current();
  sw::asan_start(&im.engine_fake, im.stack);
  sw::tsan_switch(im.tsan_fiber);
  im.self = std::move(im.self).resume();
  sw::asan_finish(im.engine_fake, nullptr);
}

void Fiber::yield() {
  Impl& im = *impl_;
  sw::asan_start(&im.fiber_fake, im.engine);
  sw::tsan_switch(im.tsan_engine);
  im.sink = std::move(im.sink).resume();
  sw::asan_finish(im.fiber_fake, &im.engine);
  if (im.cancelled) throw Cancelled{};
}

}  // namespace npusim::sim

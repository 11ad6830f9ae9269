#include "sim/engine/fiber.h"

#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>

namespace npusim::sim {

namespace ctx = boost::context;

namespace {

// Thrown out of yield() when a suspended fiber is destroyed: the body unwinds on its own stack, as any other
// exception, instead of through Boost's forced unwind.
struct Cancelled {};

}  // namespace

struct Fiber::Impl {
  ctx::fiber self;         // the fiber while it is suspended
  ctx::fiber sink;         // the engine while the fiber runs
  bool cancelled = false;  // set by the destructor of an unfinished fiber
};

Fiber::Fiber(std::function<void()> body, size_t stack_bytes) : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.self = ctx::fiber(std::allocator_arg, ctx::fixedsize_stack(stack_bytes),
                       [this, &im, body = std::move(body)](ctx::fiber&& sink) mutable {
                         im.sink = std::move(sink);
                         try {
                           if (!im.cancelled) body();  // catches everything of its own but Cancelled
                         } catch (const Cancelled&) {
                         }
                         done_ = true;
                         return std::move(im.sink);
                       });
}

// The machine resumes every fiber to its end before destroying it; one destroyed earlier (an error path, or
// never started) is resumed once more and unwinds from its yield with Cancelled.
Fiber::~Fiber() {
  if (done_) return;
  impl_->cancelled = true;
  resume();
}

void Fiber::resume() {
  if (done_) return;
  impl_->self = std::move(impl_->self).resume();
}

void Fiber::yield() {
  impl_->sink = std::move(impl_->sink).resume();
  if (impl_->cancelled) throw Cancelled{};
}

}  // namespace npusim::sim

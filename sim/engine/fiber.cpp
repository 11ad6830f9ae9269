#include "sim/engine/fiber.h"

#include <boost/context/fiber.hpp>

namespace npusim::sim {

namespace ctx = boost::context;

struct Fiber::Impl {
  ctx::fiber self;   // the fiber while it is suspended
  ctx::fiber sink;   // the engine while the fiber runs
};

Fiber::Fiber(std::function<void()> body, size_t stack_bytes) : impl_(std::make_unique<Impl>()) {
  impl_->self = ctx::fiber(std::allocator_arg, ctx::fixedsize_stack(stack_bytes),
                           [this, body = std::move(body)](ctx::fiber&& sink) mutable {
                             impl_->sink = std::move(sink);
                             body();  // catches everything of its own; must not throw
                             done_ = true;
                             return std::move(impl_->sink);
                           });
}

// A fiber destroyed while suspended is unwound by Boost (forced_unwind through the body); the machine resumes
// every fiber to its end before destroying it, so this only happens on an internal error path.
Fiber::~Fiber() = default;

void Fiber::resume() {
  if (!done_) impl_->self = std::move(impl_->self).resume();
}

void Fiber::yield() { impl_->sink = std::move(impl_->sink).resume(); }

}  // namespace npusim::sim

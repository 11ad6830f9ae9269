#include "sim/engine/stack_switch.h"

#include <pthread.h>

namespace npusim::sim::stack_switch {

namespace {

[[maybe_unused]] Stack this_thread_stack() {
  Stack s;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return s;
  void* bottom = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &bottom, &size) == 0) s = {bottom, size};
  pthread_attr_destroy(&attr);
  return s;
}

}  // namespace

void asan_back_on_thread_stack() {
#if defined(NPUSIM_ASAN)
  thread_local const Stack mine = this_thread_stack();
  if (!mine.size) return;
  void* fake = nullptr;
  asan_start(&fake, mine);
  asan_finish(fake, nullptr);
#endif
}

}  // namespace npusim::sim::stack_switch

#pragma once
// What the sanitizers must be told when the engine switches stacks (the kernels' Boost.Context fibers, the
// SystemC thread's coroutine). Unannotated, AddressSanitizer takes one stack for another: it then ignores the
// unpoisoning an exception asks for (__asan_handle_no_return) and later reports the stale red zones as stack
// overflows; ThreadSanitizer mixes the coroutines' shadow call stacks. The interfaces are the sanitizers' own
// (sanitizer/common_interface_defs.h, sanitizer/tsan_interface.h); in a build without them every call here
// compiles to nothing.
#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPUSIM_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define NPUSIM_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(NPUSIM_ASAN)
#define NPUSIM_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(NPUSIM_TSAN)
#define NPUSIM_TSAN 1
#endif

#if defined(NPUSIM_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(NPUSIM_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace npusim::sim::stack_switch {

// A stack's lowest address and size, as AddressSanitizer's fiber interface takes them.
struct Stack {
  const void* bottom = nullptr;
  size_t size = 0;
};

// AddressSanitizer: call asan_start immediately before a switch to `to` (fake_save: where the leaving stack's
// fake frames are kept, nullptr when it ends for good) and asan_finish immediately after arriving (fake: what
// asan_start saved for this stack; from, if not null, receives the stack that was left).
inline void asan_start([[maybe_unused]] void** fake_save, [[maybe_unused]] Stack to) {
#if defined(NPUSIM_ASAN)
  __sanitizer_start_switch_fiber(fake_save, to.bottom, to.size);
#endif
}
inline void asan_finish([[maybe_unused]] void* fake, [[maybe_unused]] Stack* from) {
#if defined(NPUSIM_ASAN)
  __sanitizer_finish_switch_fiber(fake, from ? &from->bottom : nullptr, from ? &from->size : nullptr);
#endif
}

// SystemC's coroutines announce their switches to AddressSanitizer themselves, but announce the return to the
// thread's own stack with no bounds (a null stack of size 0): from then on ASan knows no stack for the thread and
// skips every __asan_handle_no_return. Called when sc_start has returned, this announces the thread's real stack
// again (a switch from the current stack to itself).
void asan_back_on_thread_stack();

// ThreadSanitizer: one fiber object per coroutine (the thread's own is tsan_current()); tsan_switch immediately
// before a switch to it.
inline void* tsan_current() {
#if defined(NPUSIM_TSAN)
  return __tsan_get_current_fiber();
#else
  return nullptr;
#endif
}
inline void* tsan_create() {
#if defined(NPUSIM_TSAN)
  return __tsan_create_fiber(0);
#else
  return nullptr;
#endif
}
inline void tsan_destroy([[maybe_unused]] void* fiber) {
#if defined(NPUSIM_TSAN)
  if (fiber) __tsan_destroy_fiber(fiber);
#endif
}
inline void tsan_switch([[maybe_unused]] void* fiber) {
#if defined(NPUSIM_TSAN)
  __tsan_switch_to_fiber(fiber, 0);
#endif
}

}  // namespace npusim::sim::stack_switch

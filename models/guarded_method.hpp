// A SystemC method process that ends with its owner. SystemC keeps every
// process to the end of the program and cannot remove one, so a module
// that goes before or between sc_start calls (a TlmNetwork built and
// dropped while a platform is elaborated) would leave an SC_METHOD calling
// its freed object. A GuardedMethod's process calls its body while the
// GuardedMethod lives; once it is gone, the process's next run returns
// without a next_trigger, so it never runs again.
#pragma once
#include <memory>
#include <systemc>

namespace nwn {

class GuardedMethod {
 public:
  GuardedMethod() = default;
  GuardedMethod(const GuardedMethod&) = delete;
  GuardedMethod& operator=(const GuardedMethod&) = delete;
  ~GuardedMethod() { *alive_ = false; }

  // Spawns the process `name` (a child of the module being built), run at
  // the simulation's start, then as `body`'s next_trigger calls ask.
  template <typename Body>
  void start(const char* name, Body body) {
    sc_core::sc_spawn_options method;
    method.spawn_method();
    sc_core::sc_spawn(
        [alive = alive_, body] {
          if (*alive) body();
        },
        name, &method);
  }

 private:
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace nwn

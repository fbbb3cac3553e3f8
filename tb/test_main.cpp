// libsystemc defines main(), which calls sc_main: the tests run from here.
#include <gtest/gtest.h>

#include <cstdlib>

#include <systemc>  // declares sc_main extern "C"

static const bool banner_silenced = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

int sc_main(int argc, char** argv) {
  (void)banner_silenced;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

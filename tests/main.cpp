// SystemC owns main() and calls sc_main; Catch2 runs from here. One elaboration per process:
// ctest starts every test case in a process of its own (catch_discover_tests).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int argc, char** argv) { return Catch::Session().run(argc, argv); }

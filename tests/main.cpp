// SystemC owns main() and calls sc_main; Catch2 runs from here. One elaboration per process:
// ctest starts every test case in a process of its own (catch_discover_tests).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int argc, char** argv) { return Catch::Session().run(argc, argv); }

#ifdef GPUVP_SANITIZED
// LeakSanitizer without the threads' stacks as roots: its stop-the-world tracer can crash
// (signal 11) reading the main thread's stack after SystemC's coroutines have run (the
// checker's nb_transport cases did, by the binary's layout; example:minimal_soc turns leak
// checking off for the same crash). Without those roots it reports more, never less.
extern "C" const char* __lsan_default_options() { return "use_stacks=0"; }
#endif

// A libFuzzer program's main() is libFuzzer's; SystemC's library still needs an sc_main to link.
#include <cstdio>
#include <cstdlib>

extern "C" int sc_main(int, char**) {  // C linkage, as <systemc> declares it
    std::fputs("sc_main is not used by a libFuzzer program\n", stderr);
    std::abort();
}

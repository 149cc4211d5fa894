// How `gpuvp sweep` reads its axes (the runs themselves: tests/program/cli.cpp).
#include "sc_main/sweep/sweep.h"

#include <catch2/catch.hpp>

TEST_CASE("sweep values split at top-level commas only", "[sweep]") {
    using V = std::vector<std::string>;
    CHECK(gpuvp::split_values("200,1000,5000") == V{"200", "1000", "5000"});
    CHECK(gpuvp::split_values("[1,2],[3,4]") == V{"[1,2]", "[3,4]"});
    CHECK(gpuvp::split_values("{a: 1, b: 2},x") == V{"{a: 1, b: 2}", "x"});
    CHECK(gpuvp::split_values("'a,b',\"c,d\"") == V{"'a,b'", "\"c,d\""});
    CHECK(gpuvp::split_values("fifo") == V{"fifo"});
}

// How `gpuvp sweep` reads its axes, and the progress line of a batch of runs (the runs
// themselves: tests/program/cli.cpp).
#include "sc_main/batch/batch.h"
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

TEST_CASE("a batch's progress line: done of all, running, failed, time left at the pace so far", "[sweep][progress]") {
    CHECK(gpuvp::batch_progress(3, 10, 1, 4, 6.0) == "[3/10] 4 running, 1 failed, about 14 s left");
    CHECK(gpuvp::batch_progress(9, 10, 0, 4, 9.0) == "[9/10] 1 running, 0 failed, about 1 s left");
    CHECK(gpuvp::batch_progress(10, 10, 2, 4, 9.0) == "[10/10] 2 failed");
}

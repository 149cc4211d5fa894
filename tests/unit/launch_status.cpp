// A kernel's or a draw's status (sc_main/record/launch_status.h): typed by the run, written as
// text by the writers only, read back by one reader. No simulation.
#include "sc_main/record/launch_status.h"
#include "sc_main/record/run_record.h"

#include <catch2/catch.hpp>

using gpuvp::LaunchStatus;
using State = LaunchStatus::State;

namespace {

// text() and back: the same status, and the same text again.
LaunchStatus round_trip(const LaunchStatus& s) {
    const LaunchStatus back = LaunchStatus::from_text(s.text());
    CHECK(back.text() == s.text());
    return back;
}

}  // namespace

TEST_CASE("launch status: each state's words and back", "[status]") {
    CHECK(LaunchStatus().text() == "ok");
    CHECK(LaunchStatus().ok());
    const LaunchStatus failed(State::failed, "kernel fault: memory fault at 0x40");
    CHECK(failed.text() == "kernel fault: memory fault at 0x40");
    const LaunchStatus stopped(State::not_processed, "queue stopped by invalid header at packet 0");
    CHECK(stopped.text() == "not processed: queue stopped by invalid header at packet 0");
    const LaunchStatus idle(State::unfinished, ": the simulated machine went idle with the kernel unfinished");
    CHECK(idle.text() == "did not complete: the simulated machine went idle with the kernel unfinished");
    CHECK(LaunchStatus(State::unfinished, " by max_sim_ns").text() == "did not complete by max_sim_ns");
    for (const LaunchStatus& s : {LaunchStatus(), failed, stopped, idle}) CHECK(round_trip(s) == s);
    CHECK_FALSE(failed.ok());
    CHECK(idle.unfinished());
    CHECK_FALSE(stopped.unfinished());
}

TEST_CASE("launch status: instances name how many and the first", "[status]") {
    LaunchStatus s(State::unfinished, " by max_sim_ns; the host had not rung its doorbell");
    s.instances = LaunchStatus::Instances{3, 10, 7};
    CHECK(s.text() ==
          "3 of 10 instances did not end ok; the first, instance 7: did not complete by max_sim_ns; the host had not rung its doorbell");
    CHECK_FALSE(s.ok());
    CHECK(s.unfinished());  // the first's state
    const LaunchStatus back = round_trip(s);
    CHECK(back == s);
    REQUIRE(back.instances);
    CHECK(back.instances->first == 7);
    // A set whose first instance has no words (neither failed nor left): still not ok.
    LaunchStatus none(State::failed, "");
    none.instances = LaunchStatus::Instances{1, 2, 0};
    CHECK(none.text() == "1 of 2 instances did not end ok; the first, instance 0: ");
    CHECK(round_trip(none) == none);
}

TEST_CASE("launch status: a note after the detail, and an ok status noted fails", "[status]") {
    LaunchStatus s(State::failed, "kernel fault");
    s.note("sm[0] block 0: warp 1 waits for lock 0");
    CHECK(s.text() == "kernel fault; sm[0] block 0: warp 1 waits for lock 0");
    LaunchStatus was_ok;
    was_ok.note("warp 0 holds lock 0");
    CHECK_FALSE(was_ok.ok());
    CHECK(was_ok.text() == "ok; warp 0 holds lock 0");
    CHECK(round_trip(was_ok) == was_ok);
}

TEST_CASE("launch status: any other text reads as a failure with that text", "[status]") {
    for (const char* text : {"", "failed", "invalid kernel descriptor: kernel_object: 0x0", "okay", "not processed",
                             "12 of instances did not end ok", "did not completely finish"}) {
        INFO(text);
        const LaunchStatus s = LaunchStatus::from_text(text);
        CHECK(s.text() == text);
        CHECK_FALSE(s.ok());
    }
    CHECK(LaunchStatus::from_text("did not completely finish").state == State::unfinished);  // (its words lead)
    CHECK(LaunchStatus::from_text("okay").state == State::failed);
}

TEST_CASE("launch status: results.json holds the text, and reads back the state", "[status]") {
    gpuvp::KernelRecord k;
    k.name = "k";
    k.status = LaunchStatus(State::not_processed, "queue stopped by invalid header at packet 0");
    const auto j = gpuvp::fields::to_json(k);
    CHECK(j["status"] == "not processed: queue stopped by invalid header at packet 0");
    std::string text;
    gpuvp::fields::append_json(text, k, 0);
    CHECK(text.find("\"status\": \"not processed: queue stopped by invalid header at packet 0\"") != std::string::npos);
    gpuvp::KernelRecord back;
    gpuvp::fields::from_json(j, back, "kernels[0]");
    CHECK(back.status.state == State::not_processed);
    auto wrong = j;
    wrong["status"] = 3;
    CHECK_THROWS_WITH(gpuvp::fields::from_json(wrong, back, "kernels[0]"),
                      "kernels[0].status: a string expected, found number");
}

// The TLM-2.0 base-protocol checker (models/checker/protocol_checker.h): a correct initiator and
// target through it (nothing changes, nothing is reported), then for every rule a deliberately
// wrong initiator or target and exactly that rule reported; the backward DMI invalidation; nb
// calls forwarded; binding to simple, multi-passthrough and plain sockets. One elaboration per
// process: every TEST_CASE builds its own small top and runs sc_start once.
#include <gpuvp/models/checker/protocol_checker.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/memory/memory.h>
#include <gpuvp/models/memory/router.h>
#include "tests/files.h"

#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>
#include <utility>
#include <vector>

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;
using tlm::tlm_generic_payload;

namespace {

sc_time t_ns(double v) { return sc_time(v, SC_NS); }

// A correct memory target's behaviour over `bytes`, shared by the targets below.
void serve(std::vector<unsigned char>& bytes, tlm_generic_payload& gp, sc_time& delay, sc_time latency) {
    const uint64_t a = gp.get_address(), n = gp.get_data_length();
    if (a >= bytes.size() || n > bytes.size() - a) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (gp.is_read() || gp.is_write()) {
        if (!gp.get_data_ptr()) {
            gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        if (gp.is_read()) std::memcpy(gp.get_data_ptr(), &bytes[a], n);
        else std::memcpy(&bytes[a], gp.get_data_ptr(), n);
    }
    delay += latency;
    gp.set_dmi_allowed(true);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned serve_dbg(std::vector<unsigned char>& bytes, tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    if (a >= bytes.size() || !gp.get_data_ptr()) return 0;
    const unsigned n = unsigned(std::min<uint64_t>(gp.get_data_length(), bytes.size() - a));
    if (gp.is_read()) std::memcpy(gp.get_data_ptr(), &bytes[a], n);
    else if (gp.is_write()) std::memcpy(&bytes[a], gp.get_data_ptr(), n);
    return n;
}

// A stimulus: `body` runs in an SC_THREAD (or, for `method`, once in an SC_METHOD), `body2`
// in a second SC_THREAD. Records the DMI invalidations and nb_transport_bw calls it receives.
struct Stim : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Stim> socket;
    std::function<void()> body, body2;
    bool finished = false;
    std::vector<std::pair<uint64_t, uint64_t>> invalidations;
    std::vector<tlm::tlm_phase> bw_phases;
    sc_core::sc_event bw_event;

    SC_HAS_PROCESS(Stim);
    Stim(sc_core::sc_module_name name, bool method = false) : sc_module(name), socket("socket") {
        socket.register_invalidate_direct_mem_ptr(this, &Stim::invalidate);
        socket.register_nb_transport_bw(this, &Stim::nb_transport_bw);
        if (method) {
            SC_METHOD(run);  // no sensitivity: runs once, at initialisation
        } else {
            SC_THREAD(run);
            set_stack_size(1 << 20);  // Catch's assertions run on this coroutine's stack
        }
        SC_THREAD(run2);
        set_stack_size(1 << 20);
    }
    void run() {
        if (body) body();
        finished = true;
    }
    void run2() {
        if (body2) body2();
    }
    void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { invalidations.emplace_back(start, end); }
    tlm::tlm_sync_enum nb_transport_bw(tlm_generic_payload&, tlm::tlm_phase& phase, sc_time&) {
        bw_phases.push_back(phase);
        bw_event.notify(SC_ZERO_TIME);
        return tlm::TLM_COMPLETED;
    }

    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t address, void* data, unsigned length,
                                    sc_time& delay) {
        tlm_generic_payload gp;
        prepare(gp, cmd, address, data, length);
        socket->b_transport(gp, delay);
        return gp.get_response_status();
    }
    unsigned dbg(tlm::tlm_command cmd, uint64_t address, void* data, unsigned length) {
        tlm_generic_payload gp;
        prepare(gp, cmd, address, data, length);
        return socket->transport_dbg(gp);
    }
    bool dmi(tlm::tlm_command cmd, uint64_t address, tlm::tlm_dmi& out) {
        tlm_generic_payload gp;
        unsigned char dummy = 0;
        prepare(gp, cmd, address, &dummy, 1);
        out.init();
        return socket->get_direct_mem_ptr(gp, out);
    }
};

// A memory target of 4 KiB with a 10 ns latency; a hook replaces one of its behaviours with a
// wrong one. Records the payload and delay objects it was given.
struct Target : sc_core::sc_module {
    tlm_utils::simple_target_socket<Target> socket;
    std::vector<unsigned char> bytes = std::vector<unsigned char>(0x1000);
    sc_time latency = t_ns(10);
    std::vector<const tlm_generic_payload*> payloads;
    std::vector<const sc_time*> delay_objects;
    std::vector<sc_time> delays_in;
    std::function<void(tlm_generic_payload&, sc_time&)> b_hook;
    std::function<unsigned(tlm_generic_payload&)> dbg_hook;
    std::function<bool(tlm_generic_payload&, tlm::tlm_dmi&)> dmi_hook;

    explicit Target(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
        socket.register_b_transport(this, &Target::b_transport);
        socket.register_transport_dbg(this, &Target::transport_dbg);
        socket.register_get_direct_mem_ptr(this, &Target::get_direct_mem_ptr);
    }
    void b_transport(tlm_generic_payload& gp, sc_time& delay) {
        payloads.push_back(&gp);
        delay_objects.push_back(&delay);
        delays_in.push_back(delay);
        if (b_hook) b_hook(gp, delay);
        else correct(gp, delay);
    }
    void correct(tlm_generic_payload& gp, sc_time& delay) { serve(bytes, gp, delay, latency); }
    unsigned transport_dbg(tlm_generic_payload& gp) { return dbg_hook ? dbg_hook(gp) : serve_dbg(bytes, gp); }
    bool get_direct_mem_ptr(tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
        return dmi_hook ? dmi_hook(gp, dmi) : correct_dmi(gp, dmi);
    }
    bool correct_dmi(tlm_generic_payload&, tlm::tlm_dmi& dmi) {
        dmi.set_dmi_ptr(bytes.data());
        dmi.set_start_address(0);
        dmi.set_end_address(bytes.size() - 1);
        dmi.allow_read_write();
        dmi.set_read_latency(latency);
        dmi.set_write_latency(latency);
        return true;
    }
    void invalidate(uint64_t start, uint64_t end) { socket->invalidate_direct_mem_ptr(start, end); }
};

// init -> checker -> target.
struct Top {
    ProtocolLog log;
    Stim init;
    ProtocolChecker checker;
    Target target;
    explicit Top(bool method = false) : init("init", method), checker("checker", log), target("target") {
        init.socket.bind(checker.in);
        checker.out.bind(target.socket);
    }
    void run() {
        sc_core::sc_start();
        REQUIRE(init.finished);  // the stimulus ran to its end
    }
};

bool documented(const std::string& rule) {
    const auto& rules = protocol_rules();
    return std::any_of(rules.begin(), rules.end(), [&](const auto& r) { return r.first == rule; });
}

// Exactly `n` violations were recorded, every one of them of `rule`, at the checker.
void require_only(const ProtocolLog& log, const std::string& rule, size_t n = 1) {
    INFO(log.summary());
    REQUIRE(documented(rule));
    for (const ProtocolViolation& v : log.violations()) {
        CHECK(v.rule == rule);
        CHECK(v.checker == "checker");
        CHECK_FALSE(v.detail.empty());
    }
    REQUIRE(log.violations().size() == n);
    REQUIRE(log.violation_count() == n);
    REQUIRE(log.count(rule) == n);
}

}  // namespace

// ------------------------------------------------------------------------------------------
// Correct traffic
// ------------------------------------------------------------------------------------------

TEST_CASE("checker: a correct initiator and target pass through unchanged with no violations", "[checker]") {
    Top top;
    std::vector<unsigned char> written = {1, 2, 3, 4, 5, 6, 7, 8}, read(8), dbg_read(4);
    const tlm_generic_payload* sent = nullptr;
    const sc_time* sent_delay = nullptr;
    sc_time delay_after_write, delay_after_read, time_before, time_after;
    tlm::tlm_response_status write_status{}, read_status{}, ignore_status{};
    bool read_dmi_hint = false;
    unsigned dbg_written = 0, dbg_count = 0;
    bool granted = false;
    tlm::tlm_dmi dmi;
    top.init.body = [&] {
        // A write with 5 ns of local time: the target adds its 10 ns, nothing else does.
        tlm_generic_payload gp;
        sc_time d = t_ns(5);
        prepare(gp, tlm::TLM_WRITE_COMMAND, 0x100, written.data(), 8);
        sent = &gp;
        sent_delay = &d;
        time_before = sc_core::sc_time_stamp();
        top.init.socket->b_transport(gp, d);
        time_after = sc_core::sc_time_stamp();
        write_status = gp.get_response_status();
        delay_after_write = d;
        sc_core::wait(d);
        // Read it back; the target's DMI hint comes back as the target set it.
        tlm_generic_payload rd;
        sc_time d2 = SC_ZERO_TIME;
        prepare(rd, tlm::TLM_READ_COMMAND, 0x100, read.data(), 8);
        top.init.socket->b_transport(rd, d2);
        read_status = rd.get_response_status();
        read_dmi_hint = rd.is_dmi_allowed();
        delay_after_read = d2;
        sc_time d3 = SC_ZERO_TIME;
        ignore_status = top.init.access(tlm::TLM_IGNORE_COMMAND, 0x100, read.data(), 4, d3);
        // Debug: a write of 4 bytes at 0x200 and a read of them.
        unsigned char w[4] = {9, 8, 7, 6};
        dbg_written = top.init.dbg(tlm::TLM_WRITE_COMMAND, 0x200, w, 4);
        dbg_count = top.init.dbg(tlm::TLM_READ_COMMAND, 0x200, dbg_read.data(), 4);
        granted = top.init.dmi(tlm::TLM_READ_COMMAND, 0x20, dmi);
    };
    top.run();

    INFO(top.log.summary());
    CHECK(top.log.clean());
    CHECK(top.log.violations().empty());
    // The same payload and delay objects reach the target; the response, data and delay come back as it set them.
    REQUIRE(top.target.payloads.size() == 3);
    CHECK(top.target.payloads[0] == sent);
    CHECK(top.target.delay_objects[0] == sent_delay);
    CHECK(top.target.delays_in[0] == t_ns(5));
    CHECK(time_after == time_before);
    CHECK(write_status == tlm::TLM_OK_RESPONSE);
    CHECK(delay_after_write == t_ns(15));
    CHECK(std::equal(written.begin(), written.end(), top.target.bytes.begin() + 0x100));
    CHECK(read_status == tlm::TLM_OK_RESPONSE);
    CHECK(read == written);
    CHECK(read_dmi_hint);
    CHECK(delay_after_read == t_ns(10));
    CHECK(ignore_status == tlm::TLM_OK_RESPONSE);
    CHECK(dbg_written == 4);
    CHECK(dbg_count == 4);
    CHECK(dbg_read == std::vector<unsigned char>{9, 8, 7, 6});
    CHECK(granted);
    CHECK(dmi.get_dmi_ptr() == top.target.bytes.data());
    CHECK(dmi.get_start_address() == 0);
    CHECK(dmi.get_end_address() == 0xfff);
    CHECK(dmi.is_read_write_allowed());
    CHECK(dmi.get_read_latency() == t_ns(10));
    // What it counted.
    CHECK(top.log.checkers() == 1);
    CHECK(top.log.checker_names() == std::vector<std::string>{"checker"});
    CHECK(top.log.transactions() == 3);
    CHECK(top.checker.transactions() == 3);
    CHECK(top.log.debug_transactions() == 2);
    CHECK(top.log.dmi_requests() == 1);
    CHECK(top.log.dmi_grants() == 1);
    REQUIRE(top.checker.dmi_regions().size() == 1);
    CHECK(top.checker.dmi_regions()[0].start == 0);
    CHECK(top.checker.dmi_regions()[0].end == 0xfff);
    CHECK(top.checker.dmi_regions()[0].pointer == top.target.bytes.data());
}

TEST_CASE("checker: a target that waits out the annotation and takes it off the delay is not flagged", "[checker]") {
    Top top;
    // Synchronises: waits the delay it was given, zeroes it, then adds its latency; a second
    // call waits only part of it and keeps the rest.
    top.target.b_hook = [&](tlm_generic_payload& gp, sc_time& d) {
        if (d > t_ns(10)) {
            sc_core::wait(t_ns(10));
            d -= t_ns(10);
        } else {
            sc_core::wait(d);
            d = SC_ZERO_TIME;
        }
        top.target.correct(gp, d);
    };
    sc_time first, second, end_first, end_second;
    top.init.body = [&] {
        unsigned char b[4] = {};
        sc_time d = t_ns(5);
        top.init.access(tlm::TLM_READ_COMMAND, 0, b, 4, d);
        first = d;
        end_first = sc_core::sc_time_stamp();
        sc_time d2 = t_ns(30);
        top.init.access(tlm::TLM_READ_COMMAND, 0, b, 4, d2);
        second = d2;
        end_second = sc_core::sc_time_stamp();
    };
    top.run();
    INFO(top.log.summary());
    CHECK(top.log.clean());
    CHECK(end_first == t_ns(5));
    CHECK(first == t_ns(10));
    CHECK(end_second == t_ns(15));
    CHECK(second == t_ns(30));
}

// ------------------------------------------------------------------------------------------
// b_transport: the initiator's side
// ------------------------------------------------------------------------------------------

TEST_CASE("checker: response-status-initialised when the initiator calls with a response already set", "[checker]") {
    Top top;
    top.init.body = [&] {
        for (int i = 0; i < 2; ++i) {
            unsigned char b[4] = {};
            tlm_generic_payload gp;
            sc_time d = SC_ZERO_TIME;
            prepare(gp, tlm::TLM_READ_COMMAND, 0x10, b, 4);
            gp.set_response_status(tlm::TLM_OK_RESPONSE);  // wrong: must be TLM_INCOMPLETE_RESPONSE
            top.init.socket->b_transport(gp, d);
        }
    };
    top.run();
    require_only(top.log, "response-status-initialised", 2);
    // Both recorded, one warning: once per rule per checker.
    CHECK(sc_core::sc_report_handler::get_count(ProtocolLog::kReportType) == 1);
    CHECK(top.log.transactions() == 2);
    CHECK(top.target.payloads.size() == 2);  // forwarded all the same
}

TEST_CASE("checker: dmi-hint-initialised when the initiator calls with the DMI hint set", "[checker]") {
    Top top;
    top.init.body = [&] {
        unsigned char b[4] = {};
        tlm_generic_payload gp;
        sc_time d = SC_ZERO_TIME;
        prepare(gp, tlm::TLM_READ_COMMAND, 0x10, b, 4);
        gp.set_dmi_allowed(true);
        top.init.socket->b_transport(gp, d);
    };
    top.run();
    require_only(top.log, "dmi-hint-initialised");
}

TEST_CASE("checker: command-valid when the initiator sends an unknown command", "[checker]") {
    Top top;
    top.init.body = [&] {
        unsigned char b[4] = {};
        sc_time d = SC_ZERO_TIME;
        // 3: the one value outside read/write/ignore the enum can hold without undefined behaviour
        top.init.access(tlm::tlm_command(3), 0x10, b, 4, d);
    };
    top.run();
    require_only(top.log, "command-valid");
}

TEST_CASE("checker: data-pointer-set when a write has no data pointer", "[checker]") {
    Top top;
    top.init.body = [&] {
        sc_time d = SC_ZERO_TIME;
        top.init.access(tlm::TLM_WRITE_COMMAND, 0x10, nullptr, 4, d);
    };
    top.run();
    require_only(top.log, "data-pointer-set");
}

TEST_CASE("checker: data-length-nonzero when a read has data length 0", "[checker]") {
    Top top;
    top.init.body = [&] {
        unsigned char b[4] = {};
        tlm_generic_payload gp;
        sc_time d = SC_ZERO_TIME;
        prepare(gp, tlm::TLM_READ_COMMAND, 0x10, b, 0);
        gp.set_streaming_width(4);
        top.init.socket->b_transport(gp, d);
    };
    top.run();
    require_only(top.log, "data-length-nonzero");
}

TEST_CASE("checker: streaming-width-nonzero when a read has streaming width 0", "[checker]") {
    Top top;
    top.init.body = [&] {
        unsigned char b[4] = {};
        tlm_generic_payload gp;
        sc_time d = SC_ZERO_TIME;
        prepare(gp, tlm::TLM_READ_COMMAND, 0x10, b, 4);
        gp.set_streaming_width(0);
        top.init.socket->b_transport(gp, d);
    };
    top.run();
    require_only(top.log, "streaming-width-nonzero");
}

TEST_CASE("checker: byte-enable-length-set when byte enables come with length 0", "[checker]") {
    Top top;
    top.init.body = [&] {
        unsigned char b[4] = {1, 2, 3, 4}, be[4] = {0xff, 0, 0xff, 0};
        tlm_generic_payload gp;
        sc_time d = SC_ZERO_TIME;
        prepare(gp, tlm::TLM_WRITE_COMMAND, 0x10, b, 4);
        gp.set_byte_enable_ptr(be);
        gp.set_byte_enable_length(0);
        top.init.socket->b_transport(gp, d);
    };
    top.run();
    require_only(top.log, "byte-enable-length-set");
}

TEST_CASE("checker: address-range-no-wrap when a read runs past the top of the address space", "[checker]") {
    Top top;
    tlm::tlm_response_status status{};
    top.init.body = [&] {
        unsigned char b[4] = {};
        sc_time d = SC_ZERO_TIME;
        status = top.init.access(tlm::TLM_READ_COMMAND, ~uint64_t(0) - 1, b, 4, d);
    };
    top.run();
    require_only(top.log, "address-range-no-wrap");
    CHECK(status == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // the target's answer, unchanged
}

TEST_CASE("checker: payload-not-in-flight when a payload is sent again before its b_transport returned", "[checker]") {
    Top top;
    top.target.b_hook = [&](tlm_generic_payload& gp, sc_time& d) {
        sc_core::wait(t_ns(10));  // both calls are in the target at 5 ns
        top.target.correct(gp, d);
    };
    unsigned char b[4] = {};
    tlm_generic_payload shared;
    prepare(shared, tlm::TLM_READ_COMMAND, 0x10, b, 4);
    top.init.body = [&] {
        sc_time d = SC_ZERO_TIME;
        top.init.socket->b_transport(shared, d);
    };
    top.init.body2 = [&] {
        sc_core::wait(t_ns(5));
        sc_time d = SC_ZERO_TIME;
        top.init.socket->b_transport(shared, d);  // wrong: the first thread's call has not returned
    };
    top.run();
    require_only(top.log, "payload-not-in-flight");
    CHECK(top.log.violations()[0].at == t_ns(5));
    CHECK(top.log.transactions() == 2);
}

TEST_CASE("checker: b-transport-in-thread when b_transport is called from an SC_METHOD", "[checker]") {
    Top top(true);
    tlm::tlm_response_status status{};
    top.init.body = [&] {
        unsigned char b[4] = {};
        sc_time d = SC_ZERO_TIME;
        status = top.init.access(tlm::TLM_READ_COMMAND, 0x10, b, 4, d);  // the target does not wait: it completes
    };
    top.run();
    require_only(top.log, "b-transport-in-thread");
    CHECK(status == tlm::TLM_OK_RESPONSE);
}

// ------------------------------------------------------------------------------------------
// b_transport: the target's side
// ------------------------------------------------------------------------------------------

TEST_CASE("checker: response-status-set when the target returns TLM_INCOMPLETE_RESPONSE", "[checker]") {
    Top top;
    top.target.b_hook = [&](tlm_generic_payload& gp, sc_time& d) {
        std::memcpy(gp.get_data_ptr(), &top.target.bytes[gp.get_address()], gp.get_data_length());
        d += top.target.latency;  // and forgets the response status
    };
    top.init.body = [&] {
        unsigned char b[4] = {};
        sc_time d = SC_ZERO_TIME;
        top.init.access(tlm::TLM_READ_COMMAND, 0x10, b, 4, d);
    };
    top.run();
    require_only(top.log, "response-status-set");
}

TEST_CASE("checker: timing-annotation-not-decreasing when the target drops the delay without waiting", "[checker]") {
    Top top;
    top.target.b_hook = [&](tlm_generic_payload& gp, sc_time& d) {
        top.target.correct(gp, d);
        d = SC_ZERO_TIME;  // wrong: the response would come before the request
    };
    top.init.body = [&] {
        unsigned char b[4] = {};
        sc_time d = t_ns(5);
        top.init.access(tlm::TLM_READ_COMMAND, 0x10, b, 4, d);
    };
    top.run();
    require_only(top.log, "timing-annotation-not-decreasing");
}

TEST_CASE("checker: attributes-unchanged when the target returns a different data length", "[checker]") {
    Top top;
    top.target.b_hook = [&](tlm_generic_payload& gp, sc_time& d) {
        top.target.correct(gp, d);
        gp.set_data_length(2);
    };
    top.init.body = [&] {
        unsigned char b[4] = {};
        sc_time d = SC_ZERO_TIME;
        top.init.access(tlm::TLM_READ_COMMAND, 0x10, b, 4, d);
    };
    top.run();
    require_only(top.log, "attributes-unchanged");
}

TEST_CASE("checker: write-data-unchanged when the target writes into a write's data", "[checker]") {
    Top top;
    top.target.b_hook = [&](tlm_generic_payload& gp, sc_time& d) {
        top.target.correct(gp, d);
        gp.get_data_ptr()[2] ^= 0xff;
    };
    top.init.body = [&] {
        unsigned char b[4] = {1, 2, 3, 4};
        sc_time d = SC_ZERO_TIME;
        top.init.access(tlm::TLM_WRITE_COMMAND, 0x10, b, 4, d);
    };
    top.run();
    require_only(top.log, "write-data-unchanged");
}

// ------------------------------------------------------------------------------------------
// Debug transport
// ------------------------------------------------------------------------------------------

TEST_CASE("checker: debug-data-pointer-set when a debug read has no data pointer", "[checker]") {
    Top top;
    unsigned n = 99;
    top.init.body = [&] { n = top.init.dbg(tlm::TLM_READ_COMMAND, 0x10, nullptr, 4); };
    top.run();
    require_only(top.log, "debug-data-pointer-set");
    CHECK(n == 0);
    CHECK(top.log.debug_transactions() == 1);
}

TEST_CASE("checker: debug-count-within-length when the target returns more bytes than asked", "[checker]") {
    Top top;
    top.target.dbg_hook = [&](tlm_generic_payload& gp) { return serve_dbg(top.target.bytes, gp) + 4; };
    unsigned n = 0;
    top.init.body = [&] {
        unsigned char b[4] = {};
        n = top.init.dbg(tlm::TLM_READ_COMMAND, 0x10, b, 4);
    };
    top.run();
    require_only(top.log, "debug-count-within-length");
    CHECK(n == 8);  // passed back as the target returned it
}

TEST_CASE("checker: debug-no-wait when the target waits in transport_dbg", "[checker]") {
    Top top;
    top.target.dbg_hook = [&](tlm_generic_payload& gp) {
        sc_core::wait(SC_ZERO_TIME);  // even a delta cycle is a wait
        return serve_dbg(top.target.bytes, gp);
    };
    top.init.body = [&] {
        unsigned char b[4] = {};
        top.init.dbg(tlm::TLM_READ_COMMAND, 0x10, b, 4);
    };
    top.run();
    require_only(top.log, "debug-no-wait");
}

// ------------------------------------------------------------------------------------------
// DMI
// ------------------------------------------------------------------------------------------

TEST_CASE("checker: dmi-descriptor-initialised when the initiator passes a used descriptor", "[checker]") {
    Top top;
    bool granted = false;
    top.init.body = [&] {
        tlm_generic_payload gp;
        unsigned char dummy = 0;
        prepare(gp, tlm::TLM_READ_COMMAND, 0x10, &dummy, 1);
        tlm::tlm_dmi dmi;
        dmi.set_start_address(0x10);    // wrong: left from an earlier use, no init()
        dmi.set_read_latency(t_ns(3));
        granted = top.init.socket->get_direct_mem_ptr(gp, dmi);
    };
    top.run();
    require_only(top.log, "dmi-descriptor-initialised");
    CHECK(granted);
}

TEST_CASE("checker: dmi-pointer-set when the target grants DMI with a null pointer", "[checker]") {
    Top top;
    top.target.dmi_hook = [&](tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
        top.target.correct_dmi(gp, dmi);
        dmi.set_dmi_ptr(nullptr);
        return true;
    };
    top.init.body = [&] {
        tlm::tlm_dmi dmi;
        top.init.dmi(tlm::TLM_READ_COMMAND, 0x10, dmi);
    };
    top.run();
    require_only(top.log, "dmi-pointer-set");
    CHECK(top.checker.dmi_regions().empty());  // nothing usable to track
}

TEST_CASE("checker: dmi-region-valid when the granted region does not hold the address", "[checker]") {
    Top top;
    top.target.dmi_hook = [&](tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
        top.target.correct_dmi(gp, dmi);
        dmi.set_dmi_ptr(top.target.bytes.data() + 0x800);
        dmi.set_start_address(0x800);  // wrong: the request was for 0x10
        return true;
    };
    top.init.body = [&] {
        tlm::tlm_dmi dmi;
        top.init.dmi(tlm::TLM_READ_COMMAND, 0x10, dmi);
    };
    top.run();
    require_only(top.log, "dmi-region-valid");
}

TEST_CASE("checker: dmi-access-granted when a write request is granted read only", "[checker]") {
    Top top;
    top.target.dmi_hook = [&](tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
        top.target.correct_dmi(gp, dmi);
        dmi.allow_read();  // wrong with true: a write was asked for
        return true;
    };
    bool read_ok = false;
    top.init.body = [&] {
        tlm::tlm_dmi dmi;
        read_ok = top.init.dmi(tlm::TLM_READ_COMMAND, 0x10, dmi);  // read granted for a read: fine
        top.init.dmi(tlm::TLM_WRITE_COMMAND, 0x10, dmi);
    };
    top.run();
    require_only(top.log, "dmi-access-granted");
    CHECK(read_ok);
    CHECK(top.log.dmi_requests() == 2);
}

TEST_CASE("checker: dmi-no-wait when the target waits in get_direct_mem_ptr", "[checker]") {
    Top top;
    top.target.dmi_hook = [&](tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
        sc_core::wait(t_ns(1));
        return top.target.correct_dmi(gp, dmi);
    };
    top.init.body = [&] {
        tlm::tlm_dmi dmi;
        top.init.dmi(tlm::TLM_READ_COMMAND, 0x10, dmi);
    };
    top.run();
    require_only(top.log, "dmi-no-wait");
}

TEST_CASE("checker: invalidate_direct_mem_ptr reaches the initiator and drops the overlapping regions", "[checker]") {
    Top top;
    // Grants one 256-byte page around the address.
    top.target.dmi_hook = [&](tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
        const uint64_t start = gp.get_address() & ~uint64_t(0xff);
        dmi.set_dmi_ptr(top.target.bytes.data() + start);
        dmi.set_start_address(start);
        dmi.set_end_address(start + 0xff);
        dmi.allow_read_write();
        return true;
    };
    size_t after_grants = 0, after_first = 0;
    top.init.body = [&] {
        tlm::tlm_dmi dmi;
        top.init.dmi(tlm::TLM_READ_COMMAND, 0x10, dmi);
        top.init.dmi(tlm::TLM_WRITE_COMMAND, 0x210, dmi);
        top.init.dmi(tlm::TLM_READ_COMMAND, 0x220, dmi);  // the same page again: still one region for it
        after_grants = top.checker.dmi_regions().size();
        sc_core::wait(t_ns(5));
        top.target.invalidate(0x280, 0x3ff);  // overlaps the page at 0x200 only
        after_first = top.checker.dmi_regions().size();
        top.target.invalidate(0, ~uint64_t(0));
    };
    top.run();
    INFO(top.log.summary());
    CHECK(top.log.clean());
    CHECK(after_grants == 2);
    CHECK(after_first == 1);
    CHECK(top.checker.dmi_regions().empty());
    CHECK(top.log.invalidations() == 2);
    CHECK(top.init.invalidations ==
          std::vector<std::pair<uint64_t, uint64_t>>{{0x280, 0x3ff}, {0, ~uint64_t(0)}});
}

// ------------------------------------------------------------------------------------------
// nb_transport, binding, the log
// ------------------------------------------------------------------------------------------

namespace {

// Accepts BEGIN_REQ and answers BEGIN_RESP 10 ns later on the backward path.
struct NbTarget : sc_core::sc_module {
    tlm_utils::simple_target_socket<NbTarget> socket;
    tlm_generic_payload* pending = nullptr;
    sc_core::sc_event respond;
    tlm::tlm_sync_enum bw_result{};

    SC_HAS_PROCESS(NbTarget);
    explicit NbTarget(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
        socket.register_nb_transport_fw(this, &NbTarget::nb_transport_fw);
        SC_THREAD(run);
    }
    tlm::tlm_sync_enum nb_transport_fw(tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time&) {
        if (phase != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
        pending = &gp;
        respond.notify(t_ns(10));
        return tlm::TLM_ACCEPTED;
    }
    void run() {
        sc_core::wait(respond);
        pending->set_response_status(tlm::TLM_OK_RESPONSE);
        tlm::tlm_phase phase = tlm::BEGIN_RESP;
        sc_time t = SC_ZERO_TIME;
        bw_result = socket->nb_transport_bw(*pending, phase, t);
    }
};

}  // namespace

TEST_CASE("checker: nb_transport calls are forwarded both ways and counted but not checked", "[checker]") {
    ProtocolLog log;
    Stim init("init");
    ProtocolChecker checker("checker", log);
    NbTarget target("target");
    init.socket.bind(checker.in);
    checker.out.bind(target.socket);
    tlm::tlm_sync_enum fw_result{};
    tlm::tlm_response_status status{};
    init.body = [&] {
        unsigned char b[4] = {};
        tlm_generic_payload gp;
        prepare(gp, tlm::TLM_READ_COMMAND, 0x10, b, 4);
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        sc_time t = SC_ZERO_TIME;
        fw_result = init.socket->nb_transport_fw(gp, phase, t);
        sc_core::wait(init.bw_event);
        status = gp.get_response_status();
    };
    sc_core::sc_start();
    REQUIRE(init.finished);
    CHECK(log.clean());
    CHECK(fw_result == tlm::TLM_ACCEPTED);
    CHECK(init.bw_phases == std::vector<tlm::tlm_phase>{tlm::BEGIN_RESP});
    CHECK(target.bw_result == tlm::TLM_COMPLETED);
    CHECK(status == tlm::TLM_OK_RESPONSE);
    CHECK(log.nb_transport_calls() == 2);
    CHECK(checker.nb_transport_calls() == 2);
    CHECK(log.transactions() == 0);
}

namespace {

// An initiator on a plain tlm_initiator_socket<> (implements the backward interface itself).
struct PlainInitiator : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
    tlm::tlm_initiator_socket<> socket;
    std::function<void()> body;
    bool finished = false;
    std::vector<std::pair<uint64_t, uint64_t>> invalidations;

    SC_HAS_PROCESS(PlainInitiator);
    explicit PlainInitiator(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
        socket.bind(*this);
        SC_THREAD(run);
        set_stack_size(1 << 20);
    }
    void run() {
        if (body) body();
        finished = true;
    }
    tlm::tlm_sync_enum nb_transport_bw(tlm_generic_payload&, tlm::tlm_phase&, sc_time&) override {
        return tlm::TLM_COMPLETED;
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override {
        invalidations.emplace_back(start, end);
    }
};

// A target on a multi_passthrough_target_socket; can invalidate DMI.
struct MultiTarget : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<MultiTarget> socket;
    std::vector<unsigned char> bytes = std::vector<unsigned char>(0x1000);

    explicit MultiTarget(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
        socket.register_b_transport(this, &MultiTarget::b_transport);
        socket.register_transport_dbg(this, &MultiTarget::transport_dbg);
    }
    void b_transport(int, tlm_generic_payload& gp, sc_time& d) { serve(bytes, gp, d, t_ns(7)); }
    unsigned transport_dbg(int, tlm_generic_payload& gp) { return serve_dbg(bytes, gp); }
    void invalidate(uint64_t start, uint64_t end) {
        for (unsigned i = 0; i < socket.size(); ++i) socket[i]->invalidate_direct_mem_ptr(start, end);
    }
};

// A target on a plain tlm_target_socket<> (implements the forward interface itself).
struct PlainTarget : sc_core::sc_module, tlm::tlm_fw_transport_if<> {
    tlm::tlm_target_socket<> socket;
    std::vector<unsigned char> bytes = std::vector<unsigned char>(0x1000);

    explicit PlainTarget(sc_core::sc_module_name name) : sc_module(name), socket("socket") { socket.bind(*this); }
    void b_transport(tlm_generic_payload& gp, sc_time& d) override { serve(bytes, gp, d, t_ns(3)); }
    tlm::tlm_sync_enum nb_transport_fw(tlm_generic_payload&, tlm::tlm_phase&, sc_time&) override {
        return tlm::TLM_COMPLETED;
    }
    bool get_direct_mem_ptr(tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
    unsigned int transport_dbg(tlm_generic_payload& gp) override { return serve_dbg(bytes, gp); }
};

}  // namespace

TEST_CASE("checker: binds to simple and multi_passthrough and plain sockets on both sides", "[checker]") {
    // simple_initiator_socket -> a -> Router.in (multi_passthrough_target_socket)
    // tlm_initiator_socket<>  -> b -> Router.in
    // Router.out (multi_passthrough_initiator_socket) -> c -> Memory (simple_target_socket)
    //                                                  -> d -> MultiTarget (multi_passthrough_target_socket)
    //                                                  -> e -> PlainTarget (tlm_target_socket<>)
    ProtocolLog log;
    Stim init("init");
    PlainInitiator plain("plain");
    Router router("router");
    Memory mem("mem", 0x1000, t_ns(10));
    MultiTarget multi("multi");
    PlainTarget plain_target("plain_target");
    ProtocolChecker a("a", log), b("b", log), c("c", log), d("d", log), e("e", log);
    init.socket.bind(a.in);
    a.out.bind(router.in);
    plain.socket.bind(b.in);
    b.out.bind(router.in);
    router.map(0x0000, 0x1000, 0, "mem");
    router.out.bind(c.in);
    c.out.bind(mem.socket);
    router.map(0x1000, 0x1000, 0, "multi");
    router.out.bind(d.in);
    d.out.bind(multi.socket);
    router.map(0x2000, 0x1000, 0, "plain");
    router.out.bind(e.in);
    e.out.bind(plain_target.socket);

    std::vector<tlm::tlm_response_status> statuses;
    std::vector<sc_time> delays;
    std::vector<unsigned> counts;
    bool granted = false;
    tlm::tlm_dmi dmi;
    init.body = [&] {
        for (uint64_t base : {0x0000, 0x1000, 0x2000}) {
            uint32_t w = 0xC0DE0000u | uint32_t(base >> 12), r = 0;
            sc_time dw = SC_ZERO_TIME, dr = SC_ZERO_TIME;
            statuses.push_back(init.access(tlm::TLM_WRITE_COMMAND, base + 0x40, &w, 4, dw));
            statuses.push_back(init.access(tlm::TLM_READ_COMMAND, base + 0x40, &r, 4, dr));
            CHECK(r == w);
            delays.push_back(dr);
            counts.push_back(init.dbg(tlm::TLM_READ_COMMAND, base + 0x40, &r, 4));
        }
        granted = init.dmi(tlm::TLM_READ_COMMAND, 0x80, dmi);
        sc_core::wait(t_ns(10));
        multi.invalidate(0, 0xfff);  // the multi target's own addresses: 0x1000.. before the router
    };
    plain.body = [&] {
        uint32_t r = 0;
        tlm_generic_payload gp;
        sc_time t = SC_ZERO_TIME;
        sc_core::wait(t_ns(1));
        prepare(gp, tlm::TLM_READ_COMMAND, 0x1040, &r, 4);
        plain.socket->b_transport(gp, t);
        statuses.push_back(gp.get_response_status());
        CHECK(r == 0xC0DE0001u);
    };
    sc_core::sc_start();
    REQUIRE(init.finished);
    REQUIRE(plain.finished);
    INFO(log.summary());
    CHECK(log.clean());
    CHECK(log.checkers() == 5);
    CHECK(statuses == std::vector<tlm::tlm_response_status>(7, tlm::TLM_OK_RESPONSE));
    CHECK(delays == std::vector<sc_time>{t_ns(10), t_ns(7), t_ns(3)});
    CHECK(counts == std::vector<unsigned>{4, 4, 4});
    CHECK(log.transactions() == 2 * 7);  // every b_transport passes two checkers
    CHECK(a.transactions() == 6);
    CHECK(b.transactions() == 1);
    CHECK(c.transactions() + d.transactions() + e.transactions() == 7);
    CHECK(granted);
    CHECK(dmi.get_dmi_ptr() == mem.data());
    CHECK(a.dmi_regions().size() == 1);
    CHECK(c.dmi_regions().size() == 1);
    // The invalidation went back through d, the router (translated) and a and b to both initiators.
    CHECK(d.invalidations() == 1);
    CHECK(init.invalidations == std::vector<std::pair<uint64_t, uint64_t>>{{0x1000, 0x1fff}});
    CHECK(plain.invalidations == std::vector<std::pair<uint64_t, uint64_t>>{{0x1000, 0x1fff}});
    CHECK(a.dmi_regions().size() == 1);  // the memory's region does not overlap 0x1000..0x1fff
}

TEST_CASE("checker: protocol_rules are unique and documented and the log counts past its limit", "[checker]") {
    const auto& rules = protocol_rules();
    REQUIRE(rules.size() >= 20);
    std::set<std::string> ids;
    const std::string doc = test::slurp(std::string(GPUVP_SOURCE_DIR) + "/docs/models/checker.md");
    for (const auto& [id, what] : rules) {
        INFO(id);
        CHECK(ids.insert(id).second);
        CHECK_FALSE(what.empty());
        CHECK(id.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string::npos);
        CHECK(doc.find("`" + id + "`") != std::string::npos);  // in the rules table of the docs
    }

    ProtocolLog log;
    log.set_warnings(false);
    log.set_limit(2);
    for (int i = 0; i < 3; ++i) log.violation({"top.c", "response-status-set", "READ 0x" + std::to_string(i), t_ns(i)});
    log.violation({"top.c", "debug-no-wait", "transport_dbg", t_ns(4)});
    CHECK(log.violations().size() == 2);
    CHECK(log.violation_count() == 4);
    CHECK(log.count("response-status-set") == 3);
    CHECK(log.count("debug-no-wait") == 1);
    CHECK(log.count("dmi-no-wait") == 0);
    CHECK_FALSE(log.clean());
    CHECK(sc_core::sc_report_handler::get_count(ProtocolLog::kReportType) == 0);
    const std::string s = log.summary();
    CHECK(s.find("4 violations") != std::string::npos);
    CHECK(s.find("response-status-set: 3 (first: top.c at 0 s: READ 0x0)") != std::string::npos);
    CHECK(s.find("debug-no-wait: 1\n") != std::string::npos);  // counted, not kept
}

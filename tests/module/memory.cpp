// The memory blocks, one module at a time behind a stimulus initiator, with exact simulated
// times: Memory, Cache (in front of a Memory), Link and Router. One elaboration per process:
// every TEST_CASE builds its own small top and runs sc_start once (ctest runs each in a
// process of its own).
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/common/write_watch.h>
#include <gpuvp/models/memory/cache.h>
#include <gpuvp/models/memory/link.h>
#include <gpuvp/models/memory/memory.h>
#include <gpuvp/models/memory/router.h>

#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace gpuvp;
using sc_core::sc_time;
using sc_core::SC_NS;

namespace {

sc_time t_ns(double v) { return sc_time(v, SC_NS); }

// A stimulus: runs `body` in an SC_THREAD, records DMI invalidations it receives.
struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> socket;
    std::function<void()> body;
    bool finished = false;
    std::vector<std::pair<uint64_t, uint64_t>> invalidations;

    SC_HAS_PROCESS(Initiator);
    explicit Initiator(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
        socket.register_invalidate_direct_mem_ptr(this, &Initiator::invalidate);
        SC_THREAD(run);
        set_stack_size(1 << 20);  // Catch's assertions run on this coroutine's stack
    }
    void run() {
        if (body) body();
        finished = true;
    }
    void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { invalidations.emplace_back(start, end); }

    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t address, void* data, unsigned length,
                                    sc_time& delay) {
        tlm::tlm_generic_payload gp;
        gpuvp::prepare(gp, cmd, address, data, length);
        socket->b_transport(gp, delay);
        return gp.get_response_status();
    }
    tlm::tlm_response_status read(uint64_t address, void* data, unsigned length, sc_time& delay) {
        return access(tlm::TLM_READ_COMMAND, address, data, length, delay);
    }
    tlm::tlm_response_status write(uint64_t address, const void* data, unsigned length, sc_time& delay) {
        std::vector<unsigned char> copy(static_cast<const unsigned char*>(data),
                                        static_cast<const unsigned char*>(data) + length);
        return access(tlm::TLM_WRITE_COMMAND, address, copy.data(), length, delay);
    }
    unsigned dbg(tlm::tlm_command cmd, uint64_t address, void* data, unsigned length) {
        tlm::tlm_generic_payload gp;
        gpuvp::prepare(gp, cmd, address, data, length);
        return socket->transport_dbg(gp);
    }
    bool dmi(uint64_t address, tlm::tlm_dmi& out) {
        tlm::tlm_generic_payload gp;
        unsigned char dummy = 0;
        gpuvp::prepare(gp, tlm::TLM_READ_COMMAND, address, &dummy, 1);
        out.init();
        return socket->get_direct_mem_ptr(gp, out);
    }
};

// A target that records the addresses it is given and can invalidate DMI on demand.
struct Probe : sc_core::sc_module {
    tlm_utils::simple_target_socket<Probe> socket;
    std::vector<unsigned char> bytes;
    sc_time latency;
    std::vector<uint64_t> seen;      // b_transport addresses
    std::vector<uint64_t> dbg_seen;  // transport_dbg addresses
    std::vector<uint64_t> dmi_seen;  // get_direct_mem_ptr addresses

    Probe(sc_core::sc_module_name name, size_t size, sc_time lat)
        : sc_module(name), socket("socket"), bytes(size), latency(lat) {
        socket.register_b_transport(this, &Probe::b_transport);
        socket.register_transport_dbg(this, &Probe::transport_dbg);
        socket.register_get_direct_mem_ptr(this, &Probe::get_direct_mem_ptr);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
        seen.push_back(gp.get_address());
        uint64_t a = gp.get_address();
        if (a >= bytes.size() || gp.get_data_length() > bytes.size() - a) {
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (gp.is_read()) std::memcpy(gp.get_data_ptr(), &bytes[a], gp.get_data_length());
        else if (gp.is_write()) std::memcpy(&bytes[a], gp.get_data_ptr(), gp.get_data_length());
        delay += latency;
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
        dbg_seen.push_back(gp.get_address());
        uint64_t a = gp.get_address();
        if (a >= bytes.size()) return 0;
        unsigned n = unsigned(std::min<uint64_t>(gp.get_data_length(), bytes.size() - a));
        if (gp.is_read()) std::memcpy(gp.get_data_ptr(), &bytes[a], n);
        else if (gp.is_write()) std::memcpy(&bytes[a], gp.get_data_ptr(), n);
        return n;
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
        dmi_seen.push_back(gp.get_address());
        dmi.set_dmi_ptr(bytes.data());
        dmi.set_start_address(0);
        dmi.set_end_address(bytes.size() - 1);
        dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
        dmi.set_read_latency(latency);
        dmi.set_write_latency(latency);
        return true;
    }
    void invalidate(uint64_t start, uint64_t end) { socket->invalidate_direct_mem_ptr(start, end); }
};

std::vector<unsigned char> pattern(size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(seed * 31 + i * 7 + 1);
    return v;
}

void fill(Memory& m, unsigned seed) {
    for (uint64_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<unsigned char>((i * 13 + seed) ^ (i >> 8));
}

// Where a Memory's write notices go (notify_writes_to(0x5000)): each one's arrival and address.
struct Watcher : sc_core::sc_module {
    tlm_utils::simple_target_socket<Watcher> socket{"socket"};
    std::vector<std::pair<sc_time, uint64_t>> notices;  // arrival, address
    explicit Watcher(sc_core::sc_module_name n) : sc_module(n) { socket.register_b_transport(this, &Watcher::b_transport); }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
        uint64_t a = 0;
        REQUIRE((gp.is_write() && gp.get_address() == 0x5000 && gp.get_data_length() == 8));
        std::memcpy(&a, gp.get_data_ptr(), 8);
        notices.push_back({sc_core::sc_time_stamp() + delay, a});
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// An initiator before a 4 KiB memory (10 ns) whose write notices go to a Watcher.
struct Watched {
    Initiator init{"init"};
    Memory mem{"mem", 0x1000, t_ns(10)};
    Watcher watcher{"watcher"};
    Watched() {
        init.socket.bind(mem.socket);
        mem.notify.bind(watcher.socket);
        mem.notify_writes_to(0x5000);
    }
};

void run_sim(Initiator& init) {
    sc_core::sc_start();
    REQUIRE(init.finished);  // the stimulus ran to its end (a hang or an early stop fails here)
}

}  // namespace

// ------------------------------------------------------------------------------------------
// Memory
// ------------------------------------------------------------------------------------------

TEST_CASE("memory: data round trip with latency annotated into delay and not waited", "[memory]") {
    Initiator init("init");
    Memory mem("mem", 0x1000, t_ns(10));
    init.socket.bind(mem.socket);

    init.body = [&] {
        const auto out = pattern(16, 1);
        sc_time delay = t_ns(5);
        CHECK(init.write(0x100, out.data(), 16, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(15));                  // caller's 5 ns + the memory's 10 ns
        CHECK(sc_core::sc_time_stamp() == t_ns(0));  // annotated, not waited
        CHECK(std::memcmp(mem.data() + 0x100, out.data(), 16) == 0);
        CHECK(mem.data()[0xff] == 0);
        CHECK(mem.data()[0x110] == 0);

        std::vector<unsigned char> in(16, 0xee);
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.read(0x100, in.data(), 16, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(in == out);
        CHECK(delay == t_ns(10));
        CHECK(sc_core::sc_time_stamp() == t_ns(0));

        // The first and the last byte of the memory are reachable.
        unsigned char b = 0x5a;
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.write(0xfff, &b, 1, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(mem.data()[0xfff] == 0x5a);
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.write(0x0, &b, 1, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(mem.data()[0x0] == 0x5a);

        sc_core::wait(t_ns(7));
        CHECK(sc_core::sc_time_stamp() == t_ns(7));
        CHECK(mem.reads() == 1);
        CHECK(mem.writes() == 3);
    };
    run_sim(init);
    CHECK(sc_core::sc_time_stamp() == t_ns(7));
}

// The write notification (models/common/write_watch.h): a read with a WriteWatch arms its
// bytes; the next timed write touching them from anyone else sends their address, once, when
// the write is done at the memory; the watcher's own write and debug writes notify no one.
TEST_CASE("memory: a write to watched bytes notifies once, when it is done, and not for the watcher's own", "[memory][aql]") {
    Watched w;
    Initiator& init = w.init;
    Memory& mem = w.mem;
    Watcher& watcher = w.watcher;
    PayloadPool pool;

    init.body = [&] {
        uint64_t v = 1;
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(watched_transport(init.socket, pool, tlm::TLM_READ_COMMAND, 0x100, &v, 8, d) == tlm::TLM_OK_RESPONSE);
        CHECK(watched_transport(init.socket, pool, tlm::TLM_READ_COMMAND, 0x200, &v, 8, d) == tlm::TLM_OK_RESPONSE);
        CHECK(mem.watched() == 2);
        sc_core::wait(t_ns(100));
        d = t_ns(5);  // the writer's local time
        CHECK(init.write(0x104, &v, 2, d) == tlm::TLM_OK_RESPONSE);  // inside 0x100's 8 bytes
        CHECK(init.write(0x100, &v, 8, d) == tlm::TLM_OK_RESPONSE);  // disarmed: no second notice
        CHECK(debug_transport(init.socket, tlm::TLM_WRITE_COMMAND, 0x200, &v, 8) == 8);  // debug: none
        d = sc_core::SC_ZERO_TIME;
        CHECK(watched_transport(init.socket, pool, tlm::TLM_WRITE_COMMAND, 0x200, &v, 8, d) == tlm::TLM_OK_RESPONSE);
        CHECK(mem.watched() == 0);  // the watcher's own write disarmed 0x200 silently
        d = sc_core::SC_ZERO_TIME;
        CHECK(init.write(0x200, &v, 8, d) == tlm::TLM_OK_RESPONSE);
    };
    run_sim(init);
    // 100 + the writer's 5 + the memory's 10: the write is done at 115, the notice carries 0x100.
    REQUIRE(watcher.notices.size() == 1);
    CHECK(watcher.notices[0].first == t_ns(115));
    CHECK(watcher.notices[0].second == 0x100);
}

// The watch's acknowledgement, and DMI: a memory that notifies acknowledges each watch it arms,
// takes back the DMI grants over the watched bytes (a CPU writing through its pointer would not
// be seen), grants none over them while the watch is armed, and stops a grant elsewhere short of
// them; one that does not notify acknowledges nothing.
TEST_CASE("memory: an armed watch is acknowledged and takes DMI back from its bytes until it is written", "[memory][aql]") {
    Watched w;
    Initiator& init = w.init;
    Memory& mem = w.mem;
    Watcher& watcher = w.watcher;
    Initiator plain_init("plain_init");
    Memory plain("plain", 0x1000, t_ns(10));  // notifies no one
    plain_init.socket.bind(plain.socket);
    PayloadPool pool;

    auto dmi = [](Initiator& who, uint64_t address, tlm::tlm_dmi& d) {
        tlm::tlm_generic_payload gp;
        uint64_t v;
        prepare(gp, tlm::TLM_WRITE_COMMAND, address, &v, 8);
        d.init();
        return who.socket->get_direct_mem_ptr(gp, d);
    };
    init.body = [&] {
        tlm::tlm_dmi d;
        REQUIRE(dmi(init, 0x100, d));  // the whole memory, before any watch
        CHECK(d.get_start_address() == 0);
        CHECK(d.get_end_address() == 0xfff);
        uint64_t v = 1;
        sc_time t = sc_core::SC_ZERO_TIME;
        bool armed = false;
        CHECK(watched_transport(init.socket, pool, tlm::TLM_READ_COMMAND, 0x100, &v, 8, t, &armed) == tlm::TLM_OK_RESPONSE);
        CHECK(armed);
        CHECK(init.invalidations == std::vector<std::pair<uint64_t, uint64_t>>{{0x100, 0x107}});
        CHECK_FALSE(dmi(init, 0x104, d));  // refused over the watched bytes
        CHECK(d.get_start_address() == 0x100);
        CHECK(d.get_end_address() == 0x107);
        REQUIRE(dmi(init, 0x200, d));  // granted after them
        CHECK(d.get_start_address() == 0x108);
        CHECK(d.get_end_address() == 0xfff);
        CHECK(d.get_dmi_ptr() == mem.data() + 0x108);
        REQUIRE(dmi(init, 0x10, d));  // and before them
        CHECK(d.get_start_address() == 0);
        CHECK(d.get_end_address() == 0xff);
        tlm::tlm_generic_payload look;  // a plain read there: no DMI hint
        prepare(look, tlm::TLM_READ_COMMAND, 0x104, &v, 4);
        t = sc_core::SC_ZERO_TIME;
        init.socket->b_transport(look, t);
        CHECK_FALSE(look.is_dmi_allowed());
        // The writer, sent back to b_transport, is seen; then DMI covers the bytes again.
        tlm::tlm_generic_payload gp;
        prepare(gp, tlm::TLM_WRITE_COMMAND, 0x100, &v, 8);
        t = sc_core::SC_ZERO_TIME;
        init.socket->b_transport(gp, t);
        CHECK(gp.is_dmi_allowed());  // the watch is gone with the write
        CHECK(watcher.notices.size() == 1);
        REQUIRE(dmi(init, 0x104, d));
        CHECK(d.get_start_address() == 0);
        CHECK(d.get_end_address() == 0xfff);
    };
    plain_init.body = [&] {
        uint64_t v = 0;
        sc_time t = sc_core::SC_ZERO_TIME;
        bool armed = true;
        CHECK(watched_transport(plain_init.socket, pool, tlm::TLM_READ_COMMAND, 0x100, &v, 8, t, &armed) == tlm::TLM_OK_RESPONSE);
        CHECK_FALSE(armed);
        CHECK(plain.watched() == 0);
    };
    run_sim(init);
    CHECK(plain_init.finished);
}

TEST_CASE("memory: address errors and byte enable and burst errors touch nothing", "[memory]") {
    Initiator init("init");
    Memory mem("mem", 0x1000, t_ns(10));
    init.socket.bind(mem.socket);

    init.body = [&] {
        std::vector<unsigned char> buf(8, 0xaa);
        sc_time delay;
        CHECK(init.write(0x1000, buf.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // one past the end
        CHECK(init.read(0x7fff'ffff'ffff'fff8ull, buf.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(init.read(0xffff'ffff'ffff'fffcull, buf.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        // Starts inside, crosses the end: rejected whole, nothing written.
        CHECK(init.write(0xffc, buf.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        for (unsigned i = 0xffc; i < 0x1000; ++i) CHECK(mem.data()[i] == 0);
        // Exactly up to the end is fine.
        CHECK(init.write(0xff8, buf.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(mem.data()[0xfff] == 0xaa);

        // Byte enables are not supported.
        tlm::tlm_generic_payload gp;
        unsigned char data[4] = {1, 2, 3, 4};
        unsigned char be[4] = {0xff, 0, 0xff, 0};
        gpuvp::prepare(gp, tlm::TLM_WRITE_COMMAND, 0x20, data, 4);
        gp.set_byte_enable_ptr(be);
        gp.set_byte_enable_length(4);
        sc_time d2;
        init.socket->b_transport(gp, d2);
        CHECK(gp.get_response_status() == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        CHECK(mem.data()[0x20] == 0);

        // Streaming (a width below the length) is not supported.
        gpuvp::prepare(gp, tlm::TLM_WRITE_COMMAND, 0x40, data, 4);
        gp.set_streaming_width(1);
        init.socket->b_transport(gp, d2);
        CHECK(gp.get_response_status() == tlm::TLM_BURST_ERROR_RESPONSE);
        CHECK(mem.data()[0x40] == 0);
        CHECK(mem.writes() == 1);
    };
    run_sim(init);
}

TEST_CASE("memory: transport_dbg reads and writes without time and clips at the end", "[memory]") {
    Initiator init("init");
    Memory mem("mem", 0x1000, t_ns(10));
    init.socket.bind(mem.socket);
    fill(mem, 3);

    init.body = [&] {
        const auto out = pattern(16, 2);
        std::vector<unsigned char> copy = out;
        CHECK(init.dbg(tlm::TLM_WRITE_COMMAND, 0x200, copy.data(), 16) == 16);
        CHECK(std::memcmp(mem.data() + 0x200, out.data(), 16) == 0);

        std::vector<unsigned char> in(16, 0);
        CHECK(init.dbg(tlm::TLM_READ_COMMAND, 0x200, in.data(), 16) == 16);
        CHECK(in == out);

        // Clipped: only the 8 bytes before the end exist.
        std::vector<unsigned char> tail(16, 0xee);
        CHECK(init.dbg(tlm::TLM_READ_COMMAND, 0xff8, tail.data(), 16) == 8);
        CHECK(std::memcmp(tail.data(), mem.data() + 0xff8, 8) == 0);
        CHECK(tail[8] == 0xee);  // nothing copied past what exists
        std::vector<unsigned char> w(16, 0x77);
        CHECK(init.dbg(tlm::TLM_WRITE_COMMAND, 0xffc, w.data(), 16) == 4);
        CHECK(mem.data()[0xffc] == 0x77);
        CHECK(mem.data()[0xfff] == 0x77);
        CHECK(init.dbg(tlm::TLM_READ_COMMAND, 0x1000, in.data(), 16) == 0);

        CHECK(sc_core::sc_time_stamp() == t_ns(0));
        CHECK(mem.reads() == 0);   // debug accesses are not counted as traffic
        CHECK(mem.writes() == 0);
    };
    run_sim(init);
}

TEST_CASE("memory: DMI grants read/write over the whole memory and aliases its data", "[memory]") {
    Initiator init("init");
    Memory mem("mem", 0x2000, t_ns(25));
    init.socket.bind(mem.socket);

    init.body = [&] {
        // b_transport says DMI is worth asking for.
        tlm::tlm_generic_payload gp;
        unsigned char b = 0;
        gpuvp::prepare(gp, tlm::TLM_READ_COMMAND, 0x10, &b, 1);
        sc_time delay;
        init.socket->b_transport(gp, delay);
        CHECK(gp.is_dmi_allowed());

        tlm::tlm_dmi dmi;
        REQUIRE(init.dmi(0x1234, dmi));
        CHECK(dmi.get_start_address() == 0);
        CHECK(dmi.get_end_address() == 0x1fff);
        CHECK(dmi.is_read_write_allowed());
        CHECK(dmi.get_read_latency() == t_ns(25));
        CHECK(dmi.get_write_latency() == t_ns(25));
        CHECK(dmi.get_dmi_ptr() == mem.data());

        // Writes through the pointer are seen by b_transport, and the other way round.
        dmi.get_dmi_ptr()[0x300] = 0x42;
        unsigned char r = 0;
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.read(0x300, &r, 1, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(r == 0x42);
        unsigned char w = 0x99;
        CHECK(init.write(0x1fff, &w, 1, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(dmi.get_dmi_ptr()[0x1fff] == 0x99);
    };
    run_sim(init);
}

// ------------------------------------------------------------------------------------------
// Cache (64-byte lines, 20 ns hit) in front of a Memory (100 ns)
// ------------------------------------------------------------------------------------------

namespace {
struct CacheTop {
    Initiator init{"init"};
    Cache cache;
    Memory mem{"mem", 0x10000, sc_time(100, SC_NS)};
    explicit CacheTop(const CacheConfig& cfg) : cache("cache", cfg) {
        init.socket.bind(cache.upstream);
        cache.downstream.bind(mem.socket);
        fill(mem, 9);
    }
};
CacheConfig small_cache(uint32_t bytes = 1024, uint32_t ways = 2) {
    CacheConfig c;
    c.bytes = bytes;
    c.line_bytes = 64;
    c.ways = ways;
    c.hit_latency_ns = 20;
    return c;
}
}  // namespace

TEST_CASE("cache: a first read misses (hit + memory latency) and the second hits", "[memory]") {
    CacheTop top(small_cache());
    Initiator& init = top.init;

    init.body = [&] {
        std::vector<unsigned char> in(8, 0);
        sc_time delay;
        CHECK_FALSE(top.cache.contains(0x48));
        CHECK(init.read(0x48, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(120));                   // 20 ns tag check + 100 ns memory
        CHECK(sc_core::sc_time_stamp() == t_ns(0));  // annotated, not waited
        CHECK(std::memcmp(in.data(), top.mem.data() + 0x48, 8) == 0);
        CHECK(top.cache.contains(0x40));
        CHECK(top.cache.contains(0x7f));
        CHECK_FALSE(top.cache.contains(0x80));
        CHECK(top.cache.stats().read_misses == 1);
        CHECK(top.mem.reads() == 1);

        sc_core::wait(delay);  // the fill has arrived
        delay = sc_core::SC_ZERO_TIME;
        std::vector<unsigned char> in2(16, 0);
        CHECK(init.read(0x70, in2.data(), 16, delay) == tlm::TLM_OK_RESPONSE);  // same line
        CHECK(delay == t_ns(20));
        CHECK(std::memcmp(in2.data(), top.mem.data() + 0x70, 16) == 0);
        CHECK(top.cache.stats().read_hits == 1);
        CHECK(top.cache.stats().read_misses == 1);
        CHECK(top.mem.reads() == 1);  // served from the cache

        // The caller's own delay is kept: a hit with 5 ns already annotated ends at 25 ns.
        delay = t_ns(5);
        CHECK(init.read(0x40, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(25));
    };
    run_sim(init);
}

TEST_CASE("cache: a read spanning two lines completes with the slowest line", "[memory]") {
    CacheTop top(small_cache());
    Initiator& init = top.init;

    init.body = [&] {
        std::vector<unsigned char> in(16, 0);
        sc_time delay;
        CHECK(init.read(0x40, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);  // warm line 0x40
        sc_core::wait(t_ns(200));

        // 0x78..0x87: line 0x40 hits (5 + 20), line 0x80 misses (5 + 20 + 100).
        delay = t_ns(5);
        CHECK(init.read(0x78, in.data(), 16, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(125));  // the slowest, not the sum (145) nor the fastest (25)
        CHECK(std::memcmp(in.data(), top.mem.data() + 0x78, 16) == 0);
        CHECK(top.cache.stats().read_hits == 1);
        CHECK(top.cache.stats().read_misses == 2);
        CHECK(top.cache.contains(0x80));

        // Both present now: a spanning read is a hit.
        sc_core::wait(t_ns(200));
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.read(0x7c, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(20));
        CHECK(std::memcmp(in.data(), top.mem.data() + 0x7c, 8) == 0);
    };
    run_sim(init);
}

TEST_CASE("cache: a read of a line whose fill is in flight waits for the fill (MSHR hit)", "[memory]") {
    CacheTop top(small_cache());
    Initiator& init = top.init;

    init.body = [&] {
        sc_core::wait(t_ns(1000));  // start at a non-zero time: ready times are absolute
        std::vector<unsigned char> in(8, 0);
        sc_time delay;
        CHECK(init.read(0x100, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(120));
        CHECK(top.cache.contains(0x100));

        // Same sc_time, no caller delay: the line is installed but its data arrives at +120.
        sc_time d2;
        CHECK(init.read(0x108, in.data(), 8, d2) == tlm::TLM_OK_RESPONSE);
        CHECK(d2 == t_ns(120));  // not the 20 ns hit latency
        CHECK(std::memcmp(in.data(), top.mem.data() + 0x108, 8) == 0);
        CHECK(top.cache.stats().mshr_hits == 1);
        CHECK(top.cache.stats().read_hits == 0);
        CHECK(top.cache.stats().read_misses == 1);
        CHECK(top.mem.reads() == 1);  // one fill for both

        // A caller already 50 ns ahead still waits for the same fill.
        sc_time d3 = t_ns(50);
        CHECK(init.read(0x100, in.data(), 8, d3) == tlm::TLM_OK_RESPONSE);
        CHECK(d3 == t_ns(120));
        CHECK(top.cache.stats().mshr_hits == 2);

        // One that arrives after the fill pays only the hit latency.
        sc_time d4 = t_ns(110);
        CHECK(init.read(0x100, in.data(), 8, d4) == tlm::TLM_OK_RESPONSE);
        CHECK(d4 == t_ns(130));
        CHECK(top.cache.stats().mshr_hits == 2);
        CHECK(top.cache.stats().read_hits == 1);
    };
    run_sim(init);
}

TEST_CASE("cache: write-through updates memory and present lines and does not allocate", "[memory]") {
    CacheTop top(small_cache());
    Initiator& init = top.init;

    init.body = [&] {
        std::vector<unsigned char> in(8, 0);
        sc_time delay;
        CHECK(init.read(0x40, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);  // line 0x40 present
        sc_core::wait(t_ns(200));

        // A write to the present line: memory and line both take it.
        const auto out = pattern(8, 5);
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.write(0x44, out.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(100));  // the write goes through to memory
        CHECK(std::memcmp(top.mem.data() + 0x44, out.data(), 8) == 0);
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.read(0x44, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(20));  // still a hit ...
        CHECK(in == out);          // ... with the new data
        CHECK(top.mem.reads() == 1);

        // A write miss: memory takes it, no line is allocated.
        const auto out2 = pattern(8, 6);
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.write(0x300, out2.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(std::memcmp(top.mem.data() + 0x300, out2.data(), 8) == 0);
        CHECK_FALSE(top.cache.contains(0x300));
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.read(0x300, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(120));  // a miss
        CHECK(in == out2);

        // A write straddling a present line (0x40) and an absent one (0x80).
        sc_core::wait(t_ns(200));
        const auto out3 = pattern(16, 7);
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.write(0x78, out3.data(), 16, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(std::memcmp(top.mem.data() + 0x78, out3.data(), 16) == 0);
        CHECK_FALSE(top.cache.contains(0x80));
        std::vector<unsigned char> in8(8, 0);
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.read(0x78, in8.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(20));
        CHECK(std::memcmp(in8.data(), out3.data(), 8) == 0);
        CHECK(top.cache.stats().writes == 3);
    };
    run_sim(init);
}

TEST_CASE("cache: LRU evicts the least recently used way of a set", "[memory]") {
    CacheTop top(small_cache(128, 2));  // one set of two ways
    Initiator& init = top.init;

    init.body = [&] {
        unsigned char b;
        auto read_at = [&](uint64_t a) {
            sc_time d;
            CHECK(init.read(a, &b, 1, d) == tlm::TLM_OK_RESPONSE);
            sc_core::wait(t_ns(500));  // let every fill land before the next access
            return d;
        };
        const uint64_t A = 0x000, B = 0x040, C = 0x080;
        CHECK(read_at(A) == t_ns(120));
        CHECK(read_at(B) == t_ns(120));
        CHECK(read_at(A) == t_ns(20));  // A is now the most recently used; B the least
        CHECK(read_at(C) == t_ns(120));  // evicts B (FIFO would evict A)
        CHECK(top.cache.contains(A));
        CHECK_FALSE(top.cache.contains(B));
        CHECK(top.cache.contains(C));
        CHECK(read_at(A) == t_ns(20));
        CHECK(read_at(B) == t_ns(120));  // evicts C, the least recently used now
        CHECK_FALSE(top.cache.contains(C));
        CHECK(top.cache.contains(A));
        CHECK(top.cache.stats().read_misses == 4);
        CHECK(top.cache.stats().read_hits == 2);
    };
    run_sim(init);
}

TEST_CASE("cache: transport_dbg writes keep a present line current", "[memory]") {
    CacheTop top(small_cache());
    Initiator& init = top.init;

    init.body = [&] {
        std::vector<unsigned char> in(8, 0);
        sc_time delay;
        CHECK(init.read(0x40, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(t_ns(200));

        auto out = pattern(8, 11);
        auto copy = out;
        CHECK(init.dbg(tlm::TLM_WRITE_COMMAND, 0x44, copy.data(), 8) == 8);
        CHECK(std::memcmp(top.mem.data() + 0x44, out.data(), 8) == 0);

        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.read(0x44, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(20));  // a hit, with the debug-written data
        CHECK(in == out);

        std::vector<unsigned char> dbg_in(8, 0);
        CHECK(init.dbg(tlm::TLM_READ_COMMAND, 0x44, dbg_in.data(), 8) == 8);
        CHECK(dbg_in == out);
        CHECK(sc_core::sc_time_stamp() == t_ns(200));
    };
    run_sim(init);
}

TEST_CASE("cache: a downstream address error is answered with TLM_ADDRESS_ERROR_RESPONSE", "[memory]") {
    CacheTop top(small_cache());  // memory is 0x10000 bytes
    Initiator& init = top.init;

    init.body = [&] {
        std::vector<unsigned char> in(8, 0);
        sc_time delay;
        CHECK(init.read(0x10000, in.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK_FALSE(top.cache.contains(0x10000));
        CHECK(top.cache.stats().errors == 1);
        // A read whose first line is fine but whose second is outside fails whole.
        CHECK(init.read(0xfffc, in.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(init.write(0x10008, in.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK_FALSE(top.cache.contains(0x10008));
        // Byte enables are refused before anything goes downstream.
        tlm::tlm_generic_payload gp;
        unsigned char be[8] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
        gpuvp::prepare(gp, tlm::TLM_READ_COMMAND, 0x40, in.data(), 8);
        gp.set_byte_enable_ptr(be);
        gp.set_byte_enable_length(8);
        init.socket->b_transport(gp, delay);
        CHECK(gp.get_response_status() == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        CHECK_FALSE(top.cache.contains(0x40));
    };
    run_sim(init);
}

// ------------------------------------------------------------------------------------------
// Link
// ------------------------------------------------------------------------------------------

TEST_CASE("link: adds exactly its round trip to the far side latency and passes dbg and DMI", "[memory]") {
    Initiator init("init");
    Link link("link", t_ns(600));
    Memory mem("mem", 0x1000, t_ns(200));
    init.socket.bind(link.in);
    link.out.bind(mem.socket);

    init.body = [&] {
        const auto out = pattern(8, 4);
        sc_time delay = t_ns(5);
        CHECK(init.write(0x80, out.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(805));
        CHECK(std::memcmp(mem.data() + 0x80, out.data(), 8) == 0);
        std::vector<unsigned char> in(8, 0);
        delay = sc_core::SC_ZERO_TIME;
        CHECK(init.read(0x80, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(800));
        CHECK(in == out);
        CHECK(sc_core::sc_time_stamp() == t_ns(0));
        CHECK(link.transactions() == 2);
        // Errors come back through it unchanged.
        CHECK(init.read(0x1000, in.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);

        // Debug transport: straight through, no time, not counted.
        auto d = pattern(4, 8);
        auto copy = d;
        CHECK(init.dbg(tlm::TLM_WRITE_COMMAND, 0xffe, copy.data(), 4) == 2);  // clipped by the memory
        CHECK(mem.data()[0xffe] == d[0]);
        CHECK(mem.data()[0xfff] == d[1]);
        std::vector<unsigned char> r(2, 0);
        CHECK(init.dbg(tlm::TLM_READ_COMMAND, 0xffe, r.data(), 2) == 2);
        CHECK(r[0] == d[0]);
        CHECK(link.transactions() == 3);

        // DMI: the far side's pointer and range, latencies include the link.
        tlm::tlm_dmi dmi;
        REQUIRE(init.dmi(0x10, dmi));
        CHECK(dmi.get_dmi_ptr() == mem.data());
        CHECK(dmi.get_start_address() == 0);
        CHECK(dmi.get_end_address() == 0xfff);
        CHECK(dmi.get_read_latency() == t_ns(800));
        CHECK(dmi.get_write_latency() == t_ns(800));
        CHECK(sc_core::sc_time_stamp() == t_ns(0));
    };
    run_sim(init);
}

// ------------------------------------------------------------------------------------------
// Router
// ------------------------------------------------------------------------------------------

TEST_CASE("router: map rejects overlapping ranges", "[memory]") {
    Router router("router");
    router.map(0x1000, 0x1000, 0, "a");
    router.map(0x2000, 0x1000, 0, "b");  // adjacent: fine
    router.map(0x0, 0x1000, 0, "c");     // adjacent below: fine
    CHECK_THROWS_AS(router.map(0x1800, 0x100, 0, "inside"), std::logic_error);
    CHECK_THROWS_AS(router.map(0x2fff, 0x10, 0, "last byte"), std::logic_error);
    CHECK_THROWS_AS(router.map(0x0, 0x10000, 0, "covers all"), std::logic_error);
    CHECK_THROWS_WITH(router.map(0x1fff, 2, 0, "straddle"), Catch::Matchers::Contains("overlaps"));
    CHECK_NOTHROW(router.map(0x3000, 0x1000, 0x1000, "d"));  // target_base does not matter
}

// The overlap test compares inclusive ends, so a range that ends at the top of the 64-bit
// address space (whose exclusive end wraps to 0) still protects what it holds.
TEST_CASE("router: map detects overlap with a range ending at the top of the address space",
          "[memory]") {
    Router router("router");
    router.map(0xffff'ffff'ffff'f000ull, 0x1000, 0, "top");
    CHECK_THROWS_AS(router.map(0xffff'ffff'ffff'f800ull, 0x100, 0, "inside top"), std::logic_error);
    CHECK_THROWS_AS(router.map(0xffff'ffff'ffff'e000ull, 0x2000, 0, "reaching the top"), std::logic_error);
}

TEST_CASE("router: decodes with translation and errors unmapped and restores the address", "[memory]") {
    Initiator init("init");
    Initiator init2("init2");
    Router router("router");
    Memory mem("mem", 0x1000, t_ns(10));
    Probe probe("probe", 0x1000, t_ns(30));
    init.socket.bind(router.in);
    init2.socket.bind(router.in);
    router.map(0x10000, 0x1000, 0x0, "mem");  // port 0
    router.out.bind(mem.socket);
    router.map(0x20000, 0x100, 0x200, "probe");  // port 1: 0x20000 is the probe's 0x200
    router.out.bind(probe.socket);

    init.body = [&] {
        // Range 0: offset into the memory.
        const auto out = pattern(8, 12);
        sc_time delay = t_ns(1);
        CHECK(init.write(0x10010, out.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(11));  // the router adds nothing
        CHECK(std::memcmp(mem.data() + 0x10, out.data(), 8) == 0);

        // Range 1: translated to target_base + offset.
        tlm::tlm_generic_payload gp;
        auto data = pattern(8, 13);
        gpuvp::prepare(gp, tlm::TLM_WRITE_COMMAND, 0x20010, data.data(), 8);
        delay = sc_core::SC_ZERO_TIME;
        init.socket->b_transport(gp, delay);
        CHECK(gp.get_response_status() == tlm::TLM_OK_RESPONSE);
        CHECK(delay == t_ns(30));
        REQUIRE(probe.seen.size() == 1);
        CHECK(probe.seen[0] == 0x210);
        CHECK(std::memcmp(probe.bytes.data() + 0x210, data.data(), 8) == 0);
        CHECK(gp.get_address() == 0x20010);  // restored for the initiator

        // The last byte of a range decodes; past it does not.
        unsigned char b = 0;
        CHECK(init.read(0x200ff, &b, 1, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(probe.seen.back() == 0x2ff);
        const size_t probe_calls = probe.seen.size();
        CHECK(init.read(0x20100, &b, 1, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(init.read(0x200fc, data.data(), 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // crosses the end
        CHECK(init.read(0x0fff, &b, 1, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(init.read(0x30000, &b, 1, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(probe.seen.size() == probe_calls);  // nothing reached a target
        CHECK(mem.reads() == 0);

        // An error response also leaves the address as the initiator wrote it.
        gpuvp::prepare(gp, tlm::TLM_READ_COMMAND, 0x30000, &b, 1);
        init.socket->b_transport(gp, delay);
        CHECK(gp.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(gp.get_address() == 0x30000);
    };
    init2.body = [&] {
        sc_core::wait(t_ns(1));
        // A second initiator decodes the same way.
        std::vector<unsigned char> in(8, 0);
        sc_time delay;
        CHECK(init2.read(0x10010, in.data(), 8, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(std::memcmp(in.data(), mem.data() + 0x10, 8) == 0);
        CHECK(delay == t_ns(10));
    };
    sc_core::sc_start();
    CHECK(init.finished);
    CHECK(init2.finished);
}

TEST_CASE("router: transport_dbg and DMI are translated and invalidations reach initiators", "[memory]") {
    Initiator init("init");
    Initiator init2("init2");
    Router router("router");
    Memory mem("mem", 0x1000, t_ns(10));
    Probe probe("probe", 0x1000, t_ns(30));
    init.socket.bind(router.in);
    init2.socket.bind(router.in);
    router.map(0x10000, 0x1000, 0x0, "mem");
    router.out.bind(mem.socket);
    router.map(0x20000, 0x100, 0x200, "probe");
    router.out.bind(probe.socket);

    init.body = [&] {
        // Debug transport.
        auto out = pattern(8, 14);
        auto copy = out;
        CHECK(init.dbg(tlm::TLM_WRITE_COMMAND, 0x20020, copy.data(), 8) == 8);
        REQUIRE(probe.dbg_seen.size() == 1);
        CHECK(probe.dbg_seen[0] == 0x220);
        CHECK(std::memcmp(probe.bytes.data() + 0x220, out.data(), 8) == 0);
        std::vector<unsigned char> in(8, 0);
        CHECK(init.dbg(tlm::TLM_READ_COMMAND, 0x10ff8, in.data(), 8) == 8);
        CHECK(std::memcmp(in.data(), mem.data() + 0xff8, 8) == 0);
        CHECK(init.dbg(tlm::TLM_READ_COMMAND, 0x30000, in.data(), 8) == 0);  // unmapped

        // DMI on range 0: the whole memory, seen from 0x10000.
        tlm::tlm_dmi dmi;
        REQUIRE(init.dmi(0x10100, dmi));
        CHECK(dmi.get_start_address() == 0x10000);
        CHECK(dmi.get_end_address() == 0x10fff);
        CHECK(dmi.get_dmi_ptr() == mem.data());
        CHECK(dmi.get_read_latency() == t_ns(10));
        CHECK(dmi.is_read_write_allowed());

        // DMI on range 1: the probe grants all of itself; the router clips it to its window
        // [0x200, 0x2ff] and moves it back to [0x20000, 0x200ff].
        REQUIRE(init.dmi(0x20040, dmi));
        REQUIRE(probe.dmi_seen.size() == 1);
        CHECK(probe.dmi_seen[0] == 0x240);
        CHECK(dmi.get_start_address() == 0x20000);
        CHECK(dmi.get_end_address() == 0x200ff);
        CHECK(dmi.get_dmi_ptr() == probe.bytes.data() + 0x200);
        CHECK(dmi.get_dmi_ptr()[0x20] == out[0]);  // the pointer aliases the debug-written bytes
        CHECK(dmi.get_read_latency() == t_ns(30));

        CHECK_FALSE(init.dmi(0x30000, dmi));  // unmapped: no DMI

        // Invalidations from the probe come back translated and clipped to the window,
        // to every initiator.
        probe.invalidate(0x0, ~uint64_t(0));
        probe.invalidate(0x250, 0x260);
        probe.invalidate(0x400, 0x500);  // outside the window: nobody hears of it
        probe.invalidate(0x100, 0x1ff);  // just below the window
        const std::vector<std::pair<uint64_t, uint64_t>> expected = {{0x20000, 0x200ff}, {0x20050, 0x20060}};
        CHECK(init.invalidations == expected);
        CHECK(init2.invalidations == expected);
    };
    sc_core::sc_start();
    CHECK(init.finished);
}

TEST_CASE("router: remapping a range invalidates the DMI pointers into its old addresses", "[memory]") {
    Initiator init("init");
    Initiator init2("init2");
    Router router("router");
    Memory mem("mem", 0x1000, t_ns(10));
    init.socket.bind(router.in);
    init2.socket.bind(router.in);
    router.map(0x10000, 0x1000, 0x0, "mem");
    router.out.bind(mem.socket);
    init.body = [&] {
        tlm::tlm_dmi dmi;
        REQUIRE(init.dmi(0x10100, dmi));
        CHECK(dmi.get_start_address() == 0x10000);
        CHECK(init.invalidations.empty());
        // The window moves to 0x40000 and shows only the memory's upper half.
        router.remap(0, 0x40000, 0x800, 0x800);
        const std::vector<std::pair<uint64_t, uint64_t>> dropped = {{0x10000, 0x10fff}};
        CHECK(init.invalidations == dropped);
        CHECK(init2.invalidations == dropped);
        CHECK_FALSE(init.dmi(0x10100, dmi));  // the old addresses decode nowhere now
        REQUIRE(init.dmi(0x40010, dmi));
        CHECK(dmi.get_start_address() == 0x40000);
        CHECK(dmi.get_end_address() == 0x407ff);
        CHECK(dmi.get_dmi_ptr() == mem.data() + 0x800);
        uint32_t word = 0x5a5a5a5a;
        sc_time delay = sc_core::SC_ZERO_TIME;
        CHECK(init.write(0x40010, &word, 4, delay) == tlm::TLM_OK_RESPONSE);
        CHECK(std::memcmp(mem.data() + 0x810, &word, 4) == 0);
        CHECK(init.write(0x10010, &word, 4, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK_THROWS_AS(router.remap(1, 0, 1), std::logic_error);
        CHECK_THROWS_AS(router.remap(0, 0, 0), std::logic_error);
    };
    sc_core::sc_start();
    CHECK(init.finished);
}

// The unified shading array alone (M4, seed 003): a stimulus in place of the CP, exact times
// of its balancing against the static split and the depth-first map, and a randomised stress.
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/usa/adaptive_balance.h>
#include <gpuvp/models/usa/load_flags.h>
#include <gpuvp/models/usa/shading_policy.h>
#include <gpuvp/models/usa/static_split.h>
#include <gpuvp/models/usa/unified_shading_array.h>
#include <gpuvp/platform/system.h>
#include "tests/support.h"

#include <tlm_utils/simple_target_socket.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <fstream>
#include <map>

using namespace gpuvp;

namespace {

double ns(const sc_core::sc_time& t) { return to_ns(t); }

}  // namespace

namespace {

struct ShadingLog : Observer {
    struct State {
        ShadingState s;
        double t;
    };
    struct Move {
        uint32_t core;
        CoreType to;
        LoadFlags flags;
        double t;
    };
    std::vector<State> states;
    std::vector<Move> moves;
    std::vector<ShadingTask> tasks;
    std::vector<std::string> violations;
    uint32_t cores = 0;
    void shading_state(const ShadingState& s, const sc_core::sc_time& t) override {
        states.push_back({s, ns(t)});
        auto bad = [&](const std::string& why) { violations.push_back(why + " at " + std::to_string(ns(t)) + " ns"); };
        if (s.flags.idle_vertex > 2 || s.flags.idle_pixel > 2) bad("a flag reads 11");
        if (s.vertex_cores + s.pixel_cores != cores) bad("the split lost a core");
        if (s.busy_vertex > s.vertex_cores || s.busy_pixel > s.pixel_cores) bad("more busy cores than cores");
        // The flags are the counts of idle cores of each type, coded.
        if (s.flags.idle_vertex != load_flag(s.vertex_cores - s.busy_vertex)) bad("idle vertex flag wrong");
        if (s.flags.idle_pixel != load_flag(s.pixel_cores - s.busy_pixel)) bad("idle pixel flag wrong");
        // A ready task never waits while a core of its type is idle.
        if (s.ready_pixel && s.busy_pixel < s.pixel_cores) bad("a pixel task waits beside an idle pixel core");
    }
    void shading_reassigned(uint32_t core, CoreType to, const LoadFlags& f, const sc_core::sc_time& t) override {
        moves.push_back({core, to, f, ns(t)});
    }
    void shading_task(const ShadingTask& task) override { tasks.push_back(task); }
};

// Stands in for the command processor: writes draw descriptors at given times, takes DrawDone.
struct CpStandIn : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<CpStandIn> to_usa{"to_usa"};
    tlm_utils::simple_target_socket<CpStandIn> from_usa{"from_usa"};
    std::vector<std::pair<double, DrawDescriptor>> schedule;
    std::vector<std::pair<double, DrawDone>> done;
    explicit CpStandIn(sc_core::sc_module_name n) : sc_module(n) {
        from_usa.register_b_transport(this, &CpStandIn::receive);
        SC_HAS_PROCESS(CpStandIn);
        SC_THREAD(send);
    }
    void send() {
        for (auto& [at, d] : schedule) {
            if (at > ns(sc_core::sc_time_stamp())) wait(sc_core::sc_time(at, sc_core::SC_NS) - sc_core::sc_time_stamp());
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            REQUIRE(write_msg(to_usa, map::kUsaDraw, d, delay) == tlm::TLM_OK_RESPONSE);
            wait(delay);
        }
    }
    void receive(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        REQUIRE(gp.get_address() == map::kCpDrawDone);
        REQUIRE(gp.get_data_length() == sizeof(DrawDone));
        done.push_back({ns(sc_core::sc_time_stamp() + delay), from_bytes<DrawDone>(gp.get_data_ptr())});
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// One array on a 1 GHz clock (1 cycle = 1 ns), bus 2 cycles.
struct ArrayBench {
    ShadingLog log;
    CpStandIn cp{"cp"};
    UnifiedShadingArray usa;
    ArrayBench(const UsaConfig& c, const std::string& policy)
        : usa("usa", c, make_shading_policy(*policy_from_name<ShadingBalance>(policy), c.cores), Clock(1000), sc_core::sc_time(2, sc_core::SC_NS), &log) {
        log.cores = c.cores;
        cp.to_usa.bind(usa.regs);
        usa.to_cp.bind(cp.from_usa);
    }
    void draw(double at, uint32_t slot, uint32_t vertex_tasks, uint32_t vertex_cycles, uint32_t pixel_per_vertex,
              uint32_t pixel_cycles) {
        cp.schedule.push_back({at, DrawDescriptor{slot, vertex_tasks, vertex_cycles, pixel_per_vertex, pixel_cycles, 0, slot}});
    }
    void run() { sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS)); }
    std::string types() const {
        std::string s;
        for (const auto& c : usa.cores()) s += c.type == CoreType::vertex ? 'V' : 'P';
        return s;
    }
};

// `f` in a child process (one elaboration per process); its numbers, none if it failed.
std::vector<double> in_child(const std::function<std::vector<double>()>& f) {
    const std::string bytes = test::in_child([&] {
        const std::vector<double> v = f();
        return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
    });
    std::vector<double> v(bytes.size() / sizeof(double));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(double));
    return v;
}

UsaConfig small(uint32_t cores, uint32_t vertex) {
    UsaConfig c;
    c.cores = cores;
    c.vertex_cores = vertex;
    c.balance_cycles = 1;
    c.switch_cycles = 10;
    c.vertex_fetch_cycles = 4;
    c.pixel_setup_cycles = 2;
    return c;
}

const ShadingTask& task_on(const ShadingLog& log, uint32_t core, CoreType type, uint64_t index) {
    for (const auto& t : log.tasks)
        if (t.core == core && t.type == type && t.task == index) return t;
    throw std::runtime_error("no such task");
}

}  // namespace

TEST_CASE("M4 exact times: an idle pixel core goes to vertex work when vertex tasks wait", "[m4][timing]") {
    // 4 cores (one partial cluster): cores 0 and 1 vertex, 2 and 3 pixel. A draw of 3 vertex
    // tasks of 50 cycles, no pixel work, written at 100 ns: it arrives at 102 (bus 2).
    ArrayBench b(small(4, 2), "adaptive");
    b.draw(100, 0, 3, 50, 0, 0);
    b.run();
    REQUIRE(b.log.violations.empty());
    // At 102 cores 0 and 1 take tasks 0 and 1 (the SSC's vertex fetch unit: 4 cycles each, one
    // at a time). Flags 00/10: core 2, the first idle pixel core, goes to vertex at once.
    REQUIRE(b.log.moves.size() == 1);
    CHECK(b.log.moves[0].core == 2);
    CHECK(b.log.moves[0].to == CoreType::vertex);
    CHECK(b.log.moves[0].flags == LoadFlags{0, 2});
    CHECK(b.log.moves[0].t == 102);
    const auto& t0 = task_on(b.log, 0, CoreType::vertex, 0);
    const auto& t1 = task_on(b.log, 1, CoreType::vertex, 1);
    const auto& t2 = task_on(b.log, 2, CoreType::vertex, 2);
    CHECK(ns(t0.assigned) == 102);
    CHECK(ns(t0.start) == 106);
    CHECK(ns(t0.end) == 156);
    CHECK(ns(t1.start) == 110);
    CHECK(ns(t1.end) == 160);
    // Core 2 takes task 2 at 102: its inputs come at 114, after the unit's first two; it held
    // pixel shader state, so it loads vertex state meanwhile (10 cycles, done at 112).
    CHECK(ns(t2.assigned) == 102);
    CHECK(t2.switched);
    CHECK(ns(t2.start) == 114);
    CHECK(ns(t2.end) == 164);
    // Then 00/01: the last idle pixel core stays pixel. The draw is done when task 2 ends.
    REQUIRE(b.cp.done.size() == 1);
    CHECK(b.cp.done[0].first == 164);
    CHECK(b.cp.done[0].second.draw_slot == 0);
    CHECK(b.cp.done[0].second.error == 0);
    CHECK(b.types() == "VVVP");
    CHECK(b.usa.stats().reassignments == 1);
    CHECK(b.usa.stats().switches == 1);
}

TEST_CASE("M4 exact times: idle vertex cores go to pixel work one per balancer cycle and one comes back", "[m4][timing]") {
    // Cores 0-2 vertex, core 3 pixel. One vertex task (20 cycles) making 8 pixel tasks (30).
    ArrayBench b(small(4, 3), "adaptive");
    b.draw(100, 0, 1, 20, 8, 30);
    b.run();
    REQUIRE(b.log.violations.empty());
    // 102: core 0 takes the vertex task (inputs 106, ends 126); flags 10/01: balanced.
    CHECK(ns(task_on(b.log, 0, CoreType::vertex, 0).end) == 126);
    // 126: 8 pixel tasks ready; core 3 takes one. Flags 10/00: core 0 to pixel at 126, then
    // 10/00 again: core 1 at 127, then 01/00 (the last idle vertex core): core 2 at 128.
    // Then 00/00: nothing. When the array drains, 00/10 hands core 0 back to vertex at 198.
    REQUIRE(b.log.moves.size() == 4);
    const std::vector<std::tuple<uint32_t, CoreType, uint8_t, uint8_t, double>> want = {
        {0, CoreType::pixel, 2, 0, 126}, {1, CoreType::pixel, 2, 0, 127}, {2, CoreType::pixel, 1, 0, 128},
        {0, CoreType::vertex, 0, 2, 198}};
    for (size_t i = 0; i < want.size(); ++i) {
        INFO("move " << i);
        CHECK(b.log.moves[i].core == std::get<0>(want[i]));
        CHECK(b.log.moves[i].to == std::get<1>(want[i]));
        CHECK(b.log.moves[i].flags.idle_vertex == std::get<2>(want[i]));
        CHECK(b.log.moves[i].flags.idle_pixel == std::get<3>(want[i]));
        CHECK(b.log.moves[i].t == std::get<4>(want[i]));
    }
    // Pixel setup: 2 cycles a task through the SSC's one unit; a switched core's shader state
    // takes 10 cycles from the move.
    CHECK(ns(task_on(b.log, 3, CoreType::pixel, 0).start) == 128);
    CHECK(ns(task_on(b.log, 3, CoreType::pixel, 0).end) == 158);
    CHECK(ns(task_on(b.log, 0, CoreType::pixel, 1).start) == 136);  // switched: 126 + 10
    CHECK(ns(task_on(b.log, 1, CoreType::pixel, 2).start) == 137);
    CHECK(ns(task_on(b.log, 2, CoreType::pixel, 3).start) == 138);
    CHECK(ns(task_on(b.log, 3, CoreType::pixel, 4).start) == 160);
    CHECK(ns(task_on(b.log, 2, CoreType::pixel, 7).end) == 202);  // its inputs wait for tasks 5 and 6: 172
    REQUIRE(b.cp.done.size() == 1);
    CHECK(b.cp.done[0].first == 202);
    CHECK(b.types() == "VPPP");
}

TEST_CASE("M4 the static split never moves a core and the same draw takes longer", "[m4][timing][baseline]") {
    ArrayBench b(small(4, 3), "static");
    b.draw(100, 0, 1, 20, 8, 30);
    b.run();
    REQUIRE(b.log.violations.empty());
    CHECK(b.log.moves.empty());
    CHECK(b.types() == "VVVP");
    // Core 3 alone runs the 8 pixel tasks one after another from 126: 128 + 8 x 30 + setup.
    REQUIRE(b.cp.done.size() == 1);
    CHECK(b.cp.done[0].first == 128 + 30 + 7 * 32);
}

TEST_CASE("M4 while only pixel work is pending every core becomes pixel then one goes back", "[m4]") {
    UsaConfig c = small(16, 8);
    ArrayBench b(c, "adaptive");
    b.draw(100, 0, 1, 10, 400, 50);  // one vertex task, then only pixel work
    b.run();
    REQUIRE(b.log.violations.empty());
    bool all_pixel = false;
    for (const auto& st : b.log.states) {
        if (st.s.ready_vertex == 0 && st.s.ready_pixel > 0 && st.s.pixel_cores == 16) all_pixel = true;
        if (all_pixel && st.s.ready_pixel > 0) CHECK(st.s.pixel_cores == 16);  // and it stays so
    }
    CHECK(all_pixel);
    // Drained: the 00/10 row gave one idle core back to vertex, and 01/10 is balanced.
    CHECK(b.log.states.back().s.vertex_cores == 1);
    CHECK(b.log.states.back().s.flags == LoadFlags{1, 2});
    CHECK(b.log.moves.back().to == CoreType::vertex);
}

TEST_CASE("M4 while only vertex work is pending exactly one core stays pixel", "[m4]") {
    ArrayBench b(small(16, 8), "adaptive");
    b.draw(100, 0, 300, 40, 0, 0);  // vertex work only
    b.run();
    REQUIRE(b.log.violations.empty());
    bool one_left = false;
    for (const auto& st : b.log.states) {
        CHECK(st.s.pixel_cores >= 1);  // never the last one: the 00/01 row
        if (st.s.ready_vertex > 0 && st.s.pixel_cores == 1) one_left = true;
        if (one_left && st.s.ready_vertex > 0) CHECK(st.s.pixel_cores == 1);
    }
    CHECK(one_left);
    // 7 moves, one per balancer cycle from the draw's arrival at 102.
    REQUIRE(b.log.moves.size() == 7);
    for (size_t i = 0; i < 7; ++i) {
        CHECK(b.log.moves[i].to == CoreType::vertex);
        CHECK(b.log.moves[i].t == 102 + double(i));
    }
    CHECK(b.types().find('P') == b.types().rfind('P'));
}

TEST_CASE("M4 breadth first spreads the moved cores over the clusters and depth first fills SSC1", "[m4][baseline]") {
    // 16 cores, 4 vertex (breadth first: cores 0, 8, 1, 9). Vertex work only: pixel cores move.
    std::map<std::string, std::vector<double>> moved;
    for (const char* policy : {"adaptive", "adaptive-depth-first"})
        moved[policy] = in_child([policy] {
            ArrayBench b(small(16, 4), policy);
            b.draw(100, 0, 200, 40, 0, 0);
            b.run();
            std::vector<double> cores;
            for (const auto& m : b.log.moves) cores.push_back(m.core);
            if (!b.log.violations.empty()) cores.clear();
            return cores;
        });
    CHECK(moved["adaptive"] == std::vector<double>{2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7});
    CHECK(moved["adaptive-depth-first"] == std::vector<double>{2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14});
}

TEST_CASE("M4 with the depth-first map moved cores crowd SSC1's vertex fetch unit and the draw ends later", "[m4][timing][baseline]") {
    // 16 cores in 2 SSCs; vertex cores 0 and 8 (one per SSC). Six vertex tasks of 40 cycles,
    // 20 cycles of vertex fetch each. Pixel cores move to vertex one per cycle from 102:
    // breadth first cores 1, 9, 2, 10 (three tasks per SSC); depth first 1, 2, 3, 4 (five
    // tasks through SSC1's unit, one through SSC2's).
    std::map<std::string, std::vector<double>> end;
    for (const char* policy : {"adaptive", "adaptive-depth-first"})
        end[policy] = in_child([policy] {
            UsaConfig c = small(16, 2);
            c.vertex_fetch_cycles = 20;
            c.switch_cycles = 0;
            ArrayBench b(c, policy);
            b.draw(100, 0, 6, 40, 0, 0);
            b.run();
            return b.cp.done.size() == 1 ? std::vector<double>{b.cp.done[0].first} : std::vector<double>{};
        });
    CHECK(end["adaptive"] == std::vector<double>{102 + 3 * 20 + 40});              // 202
    CHECK(end["adaptive-depth-first"] == std::vector<double>{102 + 5 * 20 + 40});  // 242
}

TEST_CASE("M4 the pixel queue holds back vertex tasks until there is room for their pixel tasks", "[m4]") {
    UsaConfig c = small(4, 2);
    c.pixel_queue = 8;
    ArrayBench b(c, "static");
    b.draw(100, 0, 4, 10, 8, 100);  // each vertex task makes 8 pixel tasks: one at a time fits
    b.run();
    REQUIRE(b.log.violations.empty());
    CHECK(b.usa.stats().pixel_queue_peak <= 8);
    // Vertex task 1 starts the moment the last of task 0's 8 pixel tasks goes to a core: only
    // then has the queue room for its own 8.
    double v1 = -1, last_pixel_of_v0 = -1;
    for (const auto& t : b.log.tasks) {
        if (t.type == CoreType::vertex && t.task == 1) v1 = ns(t.assigned);
        if (t.type == CoreType::pixel && t.task < 8) last_pixel_of_v0 = std::max(last_pixel_of_v0, ns(t.assigned));
    }
    CHECK(v1 > ns(task_on(b.log, 0, CoreType::vertex, 0).end));
    CHECK(v1 == last_pixel_of_v0);
    REQUIRE(b.cp.done.size() == 1);
    CHECK(b.usa.stats().tasks[1] == 32);
}

TEST_CASE("M4 a draw descriptor the array cannot run comes back as invalid", "[m4][errors]") {
    UsaConfig c = small(4, 2);
    c.max_draws = 2;
    ArrayBench b(c, "adaptive");
    b.draw(100, 5, 1, 10, 0, 0);   // slot beyond max_draws
    b.draw(110, 0, 0, 10, 0, 0);   // no vertex task
    b.draw(120, 1, 2, 10, 1, 10);  // fine
    b.run();
    REQUIRE(b.cp.done.size() == 3);
    CHECK(b.cp.done[0].second.error == uint32_t(KernelError::invalid_draw));
    CHECK(b.cp.done[1].second.error == uint32_t(KernelError::invalid_draw));
    CHECK(b.cp.done[2].second.error == 0);
    CHECK(b.usa.stats().invalid_draws == 2);
}

namespace {
void stress(const std::string& policy) {
    UsaConfig c = small(20, 7);  // a partial last cluster
    c.max_draws = 8;
    c.pixel_queue = 64;
    ArrayBench b(c, policy);
    uint64_t pixel = 0, vertex = 0;
    for (uint32_t i = 0; i < 8; ++i) {
        const uint32_t v = 20 + 37 * i % 90, ppv = (i * 5) % 13, vc = 30 + 17 * i % 70, pc = 20 + 29 * i % 60;
        b.draw(100 + 400.0 * i, i, v, vc, ppv, pc);
        vertex += v;
        pixel += uint64_t(v) * ppv;
    }
    b.run();
    for (const auto& v : b.log.violations) FAIL_CHECK(v);
    CHECK(b.log.violations.empty());
    REQUIRE(b.cp.done.size() == 8);
    for (const auto& d : b.cp.done) CHECK(d.second.error == 0);
    CHECK(b.usa.stats().tasks[0] == vertex);
    CHECK(b.usa.stats().tasks[1] == pixel);
    CHECK(b.usa.stats().reassignments > 20);
    // No core runs two tasks at once.
    std::map<uint32_t, double> free_at;
    std::vector<ShadingTask> tasks = b.log.tasks;
    std::sort(tasks.begin(), tasks.end(), [](const auto& x, const auto& y) { return x.assigned < y.assigned; });
    for (const auto& t : tasks) {
        CHECK(ns(t.assigned) >= free_at[t.core]);
        free_at[t.core] = ns(t.end);
    }
}
}  // namespace

// One elaboration per process: a test case per policy.
TEST_CASE("M4 stress with the breadth-first map: many overlapping draws keep every invariant", "[m4][stress]") {
    stress("adaptive");
}
TEST_CASE("M4 stress with the depth-first map: many overlapping draws keep every invariant", "[m4][stress]") {
    stress("adaptive-depth-first");
}

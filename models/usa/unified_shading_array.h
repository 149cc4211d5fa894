// The unified shading array (M4): n unified shading cores in shader clusters (SSC) of 8, each
// core idle or busy and vertex- or pixel-typed, running one task of its type at a time. Draws
// arrive from the command processor; a draw's vertex tasks queue in arrival order, and each
// finished vertex task makes its pixel tasks ready. A ready task goes to the first idle core of
// its type in breadth-first order (SSC1 core1, SSC2 core1, ...), under every policy; the
// initial split makes the first vertex_cores cores in that order vertex-typed. Each SSC has one vertex fetch unit and one
// pixel setup unit that a task's inputs pass through, one task at a time. After every change
// the array recomputes its two load flags and lets its policy reassign idle cores (at most
// one per balance_cycles). See docs/models/usa.md.
#pragma once
#include <gpuvp/models/common/inbox.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/common/stats.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/usa/shading_policy.h>
#include <gpuvp/models/usa/usa_config.h>

#include <gpuvp/models/common/tlm_util.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <array>
#include <deque>
#include <memory>
#include <queue>
#include <vector>

namespace gpuvp {

// A row of the core table (kUsaCoreTable + core * 32), read through transport_dbg.
struct UsaCoreRow {
    uint8_t type;        // CoreType
    uint8_t busy;
    uint8_t cluster;     // SSC index from 0
    uint8_t position;    // core index within its SSC from 0
    uint32_t draw_slot;  // busy: the task's draw
    uint64_t task;       // busy: the task's index within its draw and type
    uint64_t end_ps;     // busy: when it ends
    uint64_t tasks_run;
};
static_assert(sizeof(UsaCoreRow) == 32);

// A row of the draw table (kUsaDrawTable + slot * 32).
struct UsaDrawRow {
    uint32_t valid;
    uint32_t vertex_tasks;
    uint32_t vertex_started;
    uint32_t vertex_done;
    uint32_t pixel_tasks_per_vertex_task;
    uint32_t pixel_done;
    uint64_t packet_index;
};
static_assert(sizeof(UsaDrawRow) == 32);

class UnifiedShadingArray : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<UnifiedShadingArray> regs;  // draws in; flags and tables (debug)
    tlm_utils::simple_initiator_socket<UnifiedShadingArray> to_cp;  // draw done

    UnifiedShadingArray(sc_core::sc_module_name name, const UsaConfig& config, std::unique_ptr<ShadingPolicy> policy,
                        const Clock& clock, sc_core::sc_time bus, Observer* observer = nullptr);

    struct Core {
        CoreType type = CoreType::vertex;
        CoreType loaded = CoreType::vertex;  // the type whose shader state the core holds
        bool busy = false;
        uint32_t draw = 0;
        uint64_t task = 0;
        bool switched = false;  // the running task loaded shader state first
        sc_core::sc_time assigned, start, end;
        sc_core::sc_time busy_time;
        uint64_t tasks = 0;
    };
    struct Stats {
        STATS_RECORD;
        uint64_t draws = 0, invalid_draws = 0;  // invalid: refused descriptors
        uint64_t tasks[2] = {0, 0};        // by CoreType
        sc_core::sc_time busy[2];          // core time busy, by the type of the task
        uint64_t reassignments = 0;
        uint64_t to_type[2] = {0, 0};      // reassignments that made a core vertex / pixel
        uint64_t switches = 0;             // tasks that loaded the other type's shader state
        uint64_t pixel_queue_peak = 0;     // ready pixel tasks waiting for a core, at most
        sc_core::sc_time active;           // time with a task running or ready (counted at each change)
        sc_core::sc_time flags_time[3][3]; // active time by (idle vertex, idle pixel) flags
        // The counts as results.json's usa section names them (its times, tasks by type,
        // utilization and clusters are figures the run derives from the rest).
        template <class S, class V>
        static void fields(S& s, V& v) {
            v("reassignments", s.reassignments, Doc{"count", "cores that changed type"});
            v("to_vertex", s.to_type[0], Doc{"count", "reassignments to vertex"});
            v("to_pixel", s.to_type[1], Doc{"count", "reassignments to pixel"});
            v("shader_switches", s.switches, Doc{"count", "tasks that loaded the other type's shader state"});
            v("draws_refused", s.invalid_draws, Doc{"count", "draw descriptors refused"});
            v("pixel_queue_peak", s.pixel_queue_peak, Doc{"tasks", "ready pixel tasks waiting for a core, at most"});
        }
    };

    const std::vector<Core>& cores() const { return cores_; }
    LoadFlags flags() const { return state_.flags; }
    const ShadingState& state() const { return state_; }  // as last published
    const Stats& stats() const { return stats_; }
    const ShadingPolicy& policy() const { return *policy_; }
    const UsaConfig& config() const { return cfg_; }

private:
    struct Draw {
        bool valid = false;
        DrawDescriptor d{};
        uint32_t vertex_started = 0, vertex_done = 0;
        uint64_t pixel_done = 0;
    };
    struct PixelTask {
        uint32_t draw;
        uint64_t index;
    };

    void b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int, tlm::tlm_generic_payload& gp);
    bool read_register(uint64_t address, unsigned char* data, unsigned length) const;
    void run();
    void accept(const DrawDescriptor& d);
    void finish(uint32_t core);
    void settle();
    void dispatch();
    void assign(uint32_t core, CoreType type, uint32_t draw, uint64_t task);
    int first_idle(CoreType type) const;
    void draw_done(uint32_t slot, KernelError e);
    ShadingState current() const;
    void publish();
    std::vector<CoreView> view() const;

    UsaConfig cfg_;
    std::unique_ptr<ShadingPolicy> policy_;
    Clock clock_;
    sc_core::sc_time bus_;
    Observer* observer_;
    sc_core::sc_event wake_;  // before the inbox that notifies it
    Inbox<DrawDescriptor> arrivals_{wake_};
    std::vector<Core> cores_;
    std::vector<uint32_t> order_;  // breadth first: the initial split and task placement
    std::vector<Draw> draws_;
    std::vector<std::array<sc_core::sc_time, 2>> unit_free_;  // per SSC: vertex fetch, pixel setup
    std::deque<uint32_t> vertex_ready_;                       // draws with vertex tasks left, in arrival order
    std::deque<PixelTask> pixel_ready_;
    uint64_t pixel_reserved_ = 0;  // pixel queue entries: ready pixel tasks and those running vertex tasks make
    using End = std::pair<sc_core::sc_time, uint32_t>;  // (end, core)
    std::priority_queue<End, std::vector<End>, std::greater<End>> ends_;
    sc_core::sc_time next_decision_;  // the balancer's next chance
    bool decision_pending_ = false;
    ShadingState state_;
    sc_core::sc_time state_since_;
    Stats stats_;
    PayloadPool payloads_;  // for its transactions (tlm_util.h)
};

}  // namespace gpuvp

// A streaming multiprocessor: the block status register table, N hardware warp slots, the
// register file and shared memory accounting, the instruction schedule unit (ISU) with its
// kernel contexts. Warps execute the abstract ISA fetched through the L1I (`to_l1i`) and load
// and store through the L1D (`to_l1d`); the caches are wired beside the SM by the GPU. One
// issue scheduler picks among ready warps, `issue_width` per cycle.
#pragma once
#include "models/common/inbox.h"
#include "models/common/isa.h"
#include "models/common/messages.h"
#include "models/common/observer.h"
#include "models/common/timing.h"
#include "models/common/sm_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <deque>
#include <queue>
#include <string>
#include <vector>

namespace gpuvp {

// The order in which the SM logic controller starts the warps of its blocks.
enum class WarpStartOrder {
    arrival,   // the oldest block first (fifo)
    priority,  // the highest-priority block first, re-chosen before every warp (M1)
};

// The SM's policies: the logic controller's warp start order (M1) and whether the ISU
// prefetches a kernel's arguments beside its first instruction fetch (M5).
struct SmPolicy {
    WarpStartOrder order = WarpStartOrder::arrival;
    bool kernarg_prefetch = false;
};

class StreamingMultiprocessor : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<StreamingMultiprocessor> regs;  // GLC, WLM
    tlm_utils::simple_initiator_socket<StreamingMultiprocessor> to_glc;        // release notices
    tlm_utils::simple_initiator_socket<StreamingMultiprocessor> to_l1i;        // instruction fetch
    tlm_utils::simple_initiator_socket<StreamingMultiprocessor> to_l1d;        // loads and stores

    StreamingMultiprocessor(sc_core::sc_module_name name, uint32_t id, const SmConfig& config,
                            uint32_t line_bytes, const Clock& clock, sc_core::sc_time bus,
                            SmPolicy policy = {}, Observer* observer = nullptr);

    // One row of the block status register table (also its transport_dbg image).
    struct BlockRow {
        uint32_t kernel_slot;
        uint32_t priority;
        uint64_t block_id;
        uint32_t regs_needed;        // registers still needed by its not-yet-started warps
        uint32_t shared_needed;      // shared memory not yet allocated (0 once the block holds it)
        uint32_t undispatched_warps;
        uint32_t running_warps;
    };
    static_assert(sizeof(BlockRow) == 32);

    struct Stats {
        uint64_t instructions = 0, warps_run = 0, blocks_run = 0, fetches = 0, kernarg_prefetches = 0;
        uint32_t resident_warps_max = 0;
        sc_core::sc_time busy;  // time with at least one warp resident
    };
    const Stats& stats() const { return stats_; }
    sc_core::sc_time busy_time() const;  // including the current busy stretch
    uint32_t id() const { return id_; }
    uint32_t free_registers() const { return free_regs_; }
    uint32_t free_slots() const { return free_slots_; }

private:
    struct Block {
        BlockRow row;
        BlockDescriptor desc;
        uint32_t next_warp = 0;      // index of the next warp to start
        uint32_t done_warps = 0;
        uint32_t at_barrier = 0;
        std::vector<uint32_t> barrier_waiters;  // warp slots
        bool holds_shared = false;
        uint64_t arrival = 0;        // order of arrival
        KernelError error = KernelError::none;
    };
    struct IbufLine {
        uint64_t address = ~0ull;
        sc_core::sc_time ready_at;
        std::vector<unsigned char> bytes;
    };
    struct LoopFrame {
        uint64_t body_pc;
        uint32_t remaining;
    };
    struct Warp {
        bool active = false;
        bool at_barrier = false;
        uint32_t block = 0;          // index into blocks_
        uint32_t index = 0;          // warp index within its block
        uint64_t pc = 0;
        sc_core::sc_time ready_at, start;
        std::array<IbufLine, 2> ibuf;  // the line being executed and the one prefetched after it
        std::array<LoopFrame, kMaxLoopDepth> loops{};
        unsigned loop_depth = 0;
        uint64_t global_base = 0, global_size = 0;
        bool started = false;  // the ISU has sent its first fetch (and any kernarg prefetch)
        uint64_t accesses = 0;
        uint64_t instructions = 0;
    };
    struct KernelContext {
        IsuContext regs{};
        uint32_t reported = 0;    // stages already reported by this SM (bit per Stage)
        bool prefetched = false;  // M5: this SM has prefetched the kernel's arguments
        sc_core::sc_time prefetch_done;  // M5: when the last line of that prefetch is acknowledged
    };
    struct ReadyEntry {
        sc_core::sc_time at;
        uint64_t seq;
        uint32_t slot;
        bool operator>(const ReadyEntry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };

    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    void run();
    void admit(const sc_core::sc_time& now);
    Block* pick_block();
    void start_warp(uint32_t block_index, const sc_core::sc_time& now);
    // One step of a warp: fetch or execute one instruction. Returns true if it issued.
    bool step(uint32_t slot, const sc_core::sc_time& now);
    bool ensure_fetched(Warp& w, const sc_core::sc_time& now);
    sc_core::sc_time prefetch_kernargs(const Warp& w, const sc_core::sc_time& now);
    void execute(uint32_t slot, Warp& w, const Instruction& in, const sc_core::sc_time& now);
    void memory_access(Warp& w, Block& b, const Instruction& in, const sc_core::sc_time& now);
    void finish_warp(uint32_t slot, const sc_core::sc_time& now);
    void fail(uint32_t slot, KernelError e, const sc_core::sc_time& now, uint64_t address = 0);
    void release_barrier(Block& b, const sc_core::sc_time& now);
    void make_ready(uint32_t slot, const sc_core::sc_time& at);
    void send_notice(SmNotice n);
    void send_status();
    void report(uint32_t kernel_slot, Stage s, const sc_core::sc_time& t);
    uint32_t highest_priority() const;
    void table_changed(const Block& b, const sc_core::sc_time& t);

    uint32_t id_;
    SmConfig cfg_;
    SmPolicy policy_;
    Clock clock_;
    sc_core::sc_time bus_;
    Observer* observer_;
    std::string tag_;  // "sm[3]"
    uint32_t line_bytes_;

    std::vector<KernelContext> contexts_;
    std::vector<Block> blocks_;          // rows; a finished row is reused
    std::vector<bool> block_used_;
    std::vector<Warp> warps_;            // one per hardware warp slot
    std::vector<uint32_t> idle_slots_;   // a stack, lowest slot on top
    std::priority_queue<ReadyEntry, std::vector<ReadyEntry>, std::greater<>> ready_;
    sc_core::sc_event arrival_event_;
    Inbox<BlockDescriptor> arrivals_{arrival_event_};
    uint64_t seq_ = 0, arrivals_seen_ = 0;
    uint32_t free_regs_, free_slots_, free_shared_;
    uint32_t resident_warps_ = 0;
    bool status_dirty_ = false;  // a status notice is owed to the GLC
    sc_core::sc_time busy_since_;
    std::vector<unsigned char> scratch_;
    Stats stats_;
};

}  // namespace gpuvp

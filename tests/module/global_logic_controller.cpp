// The GLC as a module (models/glc/global_logic_controller.h): a stimulus registers a kernel as
// the WLM does, two stand-in SMs take block descriptors and send notices back when told, and a
// stand-in CP takes the KernelDone. 1 GHz, bus 2 cycles, a decision 12 cycles, a descriptor 0
// (GlcConfig's defaults) unless a test says otherwise.
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/messages.h>
#include <gpuvp/models/common/timing.h>
#include <gpuvp/models/common/tlm_util.h>
#include <gpuvp/models/glc/global_logic_controller.h>

#include <catch2/catch.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <vector>

using namespace gpuvp;

namespace {

double at(const sc_core::sc_time& t) { return to_ns(t); }

// An SM: records the descriptors it gets; sends the notices it is given at their times.
struct SmStandIn : sc_core::sc_module {
    tlm_utils::simple_target_socket<SmStandIn> regs{"regs"};
    tlm_utils::simple_initiator_socket<SmStandIn> to_glc{"to_glc"};
    std::vector<std::pair<double, BlockDescriptor>> blocks;
    std::vector<std::pair<double, uint32_t>> drained;  // (time, kernel slot): M3's KernelDrained
    std::vector<std::pair<double, SmNotice>> script;
    explicit SmStandIn(sc_core::sc_module_name n) : sc_module(n) {
        regs.register_b_transport(this, &SmStandIn::receive);
        SC_HAS_PROCESS(SmStandIn);
        SC_THREAD(run);
    }
    void receive(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        if (gp.get_address() == map::kSmKernelDrained) {
            REQUIRE(gp.get_data_length() == sizeof(KernelDrained));
            drained.push_back({at(sc_core::sc_time_stamp() + delay), from_bytes<KernelDrained>(gp.get_data_ptr()).kernel_slot});
            return;
        }
        REQUIRE(gp.get_address() == map::kSmDispatch);
        blocks.push_back({at(sc_core::sc_time_stamp() + delay), from_bytes<BlockDescriptor>(gp.get_data_ptr())});
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void run() {
        for (auto& [t, n] : script) {
            wait(ns(t) - sc_core::sc_time_stamp());
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            REQUIRE(write_msg(to_glc, map::kGlcSmNotice, n, d) == tlm::TLM_OK_RESPONSE);
        }
    }
};

// The WLM (registers kernels at their times) and the CP (records KernelDone).
struct FrontStandIn : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<FrontStandIn> to_glc{"to_glc"};
    tlm_utils::simple_target_socket<FrontStandIn> cp{"cp"};
    std::vector<std::pair<double, KernelRegistration>> kernels;
    std::vector<std::pair<double, KernelDone>> done;
    explicit FrontStandIn(sc_core::sc_module_name n) : sc_module(n) {
        cp.register_b_transport(this, &FrontStandIn::receive);
        SC_HAS_PROCESS(FrontStandIn);
        SC_THREAD(run);
    }
    void run() {
        for (auto& [t, r] : kernels) {
            if (ns(t) > sc_core::sc_time_stamp()) wait(ns(t) - sc_core::sc_time_stamp());
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            REQUIRE(write_msg(to_glc, map::kGlcRegisterKernel, r, d) == tlm::TLM_OK_RESPONSE);
        }
    }
    void receive(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
        REQUIRE(gp.get_address() == map::kCpKernelDone);
        done.push_back({at(sc_core::sc_time_stamp() + delay), from_bytes<KernelDone>(gp.get_data_ptr())});
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

SmConfig sm_of(uint32_t slots) {
    SmConfig c;
    c.warp_slots = slots;
    c.registers = 4096;
    c.shared_memory = 4096;
    return c;
}

// `blocks` blocks of 64 work-items (2 warps of 32), 256 registers per warp.
KernelRegistration kernel(uint32_t slot, uint32_t priority, uint32_t blocks) {
    KernelRegistration r{};
    r.kernel_slot = slot;
    r.priority = priority;
    r.regs_per_warp = 256;
    r.warps_per_block = 2;
    r.threads_per_block = 64;
    r.blocks = blocks;
    r.grid_size[0] = 64 * blocks;
    r.grid_size[1] = r.grid_size[2] = 1;
    r.workgroup_size[0] = 64;
    r.workgroup_size[1] = r.workgroup_size[2] = 1;
    return r;
}

SmNotice notice(uint32_t sm, NoticeKind kind, uint64_t block = 0) {
    SmNotice n{};
    n.sm = sm;
    n.kind = kind;
    n.block_id = block;
    return n;
}

struct GlcBench {
    FrontStandIn front{"front"};
    SmStandIn sm0{"sm0"}, sm1{"sm1"};
    GlobalLogicController glc;
    GlcBench(uint32_t slots, DispatchPolicy policy, ScalarPolicy scalar = ScalarPolicy::per_warp,
             GlcConfig config = GlcConfig{})
        : glc("glc", {sm_of(slots), sm_of(slots)}, 4, config, Clock(1000), ns(2), make_placement_policy(policy),
              nullptr, scalar) {
        front.to_glc.bind(glc.regs);
        sm0.to_glc.bind(glc.regs);
        sm1.to_glc.bind(glc.regs);
        glc.to_sm.bind(sm0.regs);
        glc.to_sm.bind(sm1.regs);
        glc.to_cp.bind(front.cp);
    }
};

}  // namespace

TEST_CASE("glc module fifo: as many whole blocks as fit per decision, round robin over the SMs, and KernelDone after the last block_done",
          "[module][glc][timing]") {
    GlcBench b(4, DispatchPolicy::fifo);  // an SM holds 2 blocks of 2 warps
    b.front.kernels = {{0, kernel(0, 0, 5)}};
    b.sm0.script = {{100, notice(0, NoticeKind::block_done, 0)}, {200, notice(0, NoticeKind::block_done, 1)},
                    {210, notice(0, NoticeKind::block_done, 4)}};
    b.sm1.script = {{150, notice(1, NoticeKind::block_done, 2)}, {160, notice(1, NoticeKind::block_done, 3)}};
    sc_core::sc_start(ns(1000));
    // The registration arrives at 2; each decision takes 12 cycles and places what fits: blocks
    // 0 and 1 on SM 0 at 14, 2 and 3 on SM 1 at 26. Block 4 waits for room: the SMs here send
    // no status notice, so their rows stay full (the next test frees one).
    std::vector<std::pair<double, uint64_t>> placed;  // (time, block)
    for (const auto* sm : {&b.sm0, &b.sm1})
        for (const auto& [t, d] : sm->blocks) placed.push_back({t, d.block_id});
    CHECK(placed == std::vector<std::pair<double, uint64_t>>{{14, 0}, {14, 1}, {26, 2}, {26, 3}});
    const BlockDescriptor& d = b.sm1.blocks.at(0).second;
    CHECK((d.kernel_slot == 0 && d.warps == 2 && d.threads == 64 && d.regs_per_warp == 256 && d.shared_bytes == 0));
    CHECK(b.front.done.empty());  // block 4 never placed
    CHECK(b.glc.blocks_dispatched() == 4);
}

namespace {
// Decision 12 cycles, descriptor 3: the registration arrives at 2; the first decision ends at
// 14, its two descriptors are written by 17 and 20 (SM 0); the next decision starts at 20 and
// ends at 32, its descriptors 35 and 38 (SM 1); then nothing fits.
void check_decision_and_descriptors(DispatchPolicy policy) {
    GlcBench b(4, policy, ScalarPolicy::multilevel, GlcConfig{12, 3});
    b.front.kernels = {{0, kernel(0, 0, 4)}};
    sc_core::sc_start(ns(1000));
    std::vector<std::pair<double, uint64_t>> placed;  // (time, block)
    for (const auto* sm : {&b.sm0, &b.sm1})
        for (const auto& [t, d] : sm->blocks) placed.push_back({t, d.block_id});
    CHECK(placed == std::vector<std::pair<double, uint64_t>>{{17, 0}, {20, 1}, {35, 2}, {38, 3}});
    // M3's word that the kernel is drained goes after its last descriptor, to every SM.
    CHECK(b.sm0.drained == std::vector<std::pair<double, uint32_t>>{{38, 0}});
    CHECK(b.sm1.drained == std::vector<std::pair<double, uint32_t>>{{38, 0}});
}
}  // namespace

TEST_CASE("glc module fifo: a placement costs a decision and a descriptor per block, each written after the one before",
          "[module][glc][timing]") {
    check_decision_and_descriptors(DispatchPolicy::fifo);
}
TEST_CASE("glc module priority-block: a placement costs a decision and a descriptor per block, as under fifo",
          "[module][glc][timing]") {
    check_decision_and_descriptors(DispatchPolicy::priority_block);
}
TEST_CASE("glc module priority-warp: a placement costs a decision and a descriptor per block, as under fifo",
          "[module][glc][timing]") {
    check_decision_and_descriptors(DispatchPolicy::priority_warp);
}

TEST_CASE("glc module multilevel: every SM is told that a kernel gets no more blocks when its last block is placed",
          "[module][glc][m3][timing]") {
    GlcBench b(4, DispatchPolicy::fifo, ScalarPolicy::multilevel);
    b.front.kernels = {{0, kernel(1, 0, 3)}};
    sc_core::sc_start(ns(1000));
    // Blocks 0 and 1 at 14 (SM 0), block 2 at 26 (SM 1): the last placement is followed at once
    // by a KernelDrained to each SM, SM 0 included, though it got none of the last blocks.
    REQUIRE(b.sm1.blocks.size() == 1);
    CHECK(b.sm1.blocks[0].first == 26);
    CHECK(b.sm0.drained == std::vector<std::pair<double, uint32_t>>{{26, 1}});
    CHECK(b.sm1.drained == std::vector<std::pair<double, uint32_t>>{{26, 1}});
}

TEST_CASE("glc module per-warp: the SMs are not told when a kernel is drained", "[module][glc][m3][timing]") {
    GlcBench b(4, DispatchPolicy::fifo);  // the prior art has no kernel-level scalars to keep
    b.front.kernels = {{0, kernel(1, 0, 3)}};
    sc_core::sc_start(ns(1000));
    CHECK(b.sm0.blocks.size() + b.sm1.blocks.size() == 3);
    CHECK(b.sm0.drained.empty());
    CHECK(b.sm1.drained.empty());
}

TEST_CASE("glc module: a full SM gets no block until its status notice counts the blocks sent",
          "[module][glc][timing]") {
    GlcBench b(2, DispatchPolicy::fifo);  // one block (2 warps) fills an SM
    b.front.kernels = {{0, kernel(0, 0, 3)}};
    SmNotice free = notice(0, NoticeKind::status);
    free.free_regs = 4096;
    free.free_slots = 2;
    free.free_shared = 4096;
    free.highest_priority = kNoPriority;
    free.blocks_seen = 1;  // it counts block 0
    b.sm0.script = {{100, notice(0, NoticeKind::block_done, 0)}, {100, free}};
    sc_core::sc_start(ns(1000));
    // Blocks 0 and 1 at 14 and 26 fill both SMs; block 2 waits for SM 0's status notice (sent
    // at 100, there at 102) and is placed 12 cycles later.
    REQUIRE(b.sm0.blocks.size() == 2);
    CHECK(b.sm0.blocks[0].first == 14);
    CHECK(b.sm1.blocks.at(0).first == 26);
    CHECK(b.sm0.blocks[1].first == 114);
    CHECK(b.sm0.blocks[1].second.block_id == 2);
    CHECK(b.front.done.empty());  // blocks 1 and 2 never finished
}

TEST_CASE("glc module priority-block: a high-priority kernel registered later takes the next decision",
          "[module][glc][timing]") {
    GlcBench b(4, DispatchPolicy::priority_block);
    b.front.kernels = {{0, kernel(0, 2, 6)}, {5, kernel(1, 0, 2)}};
    sc_core::sc_start(ns(1000));
    // The low-priority kernel (there at 2) gets the first decision: as many whole blocks as SM
    // 0 holds (2), placed at 14. The high-priority kernel arrived at 7, during it: the next
    // decision is its, 2 blocks on SM 1 at 26. Then nothing fits.
    std::vector<std::pair<double, uint32_t>> placed;  // (time, kernel)
    for (const auto* sm : {&b.sm0, &b.sm1})
        for (const auto& [t, d] : sm->blocks) placed.push_back({t, d.kernel_slot});
    CHECK(placed == std::vector<std::pair<double, uint32_t>>{{14, 0}, {14, 0}, {26, 1}, {26, 1}});
    CHECK(b.sm1.blocks.at(0).second.priority == 0);
}

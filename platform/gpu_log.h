// The GPU's log through SystemC's sc_report, with a verbosity per block. It is an Observer
// placed in front of the user's: every block already tells its observer what happens, so
// the log needs no code in the blocks. Each message is an SC_INFO report of type
// "gpuvp/<block class>" ("gpuvp/cp", "gpuvp/wlm", "gpuvp/glc", "gpuvp/sm", "gpuvp/arbiter",
// "gpuvp/usa"), its text "<time> <instance>: <what>", e.g.
//   Info: gpuvp/cp: 6403.0 ns gpu.cp: kernel slot 0 (queue 0 packet 0) completed
// Levels: SC_LOW problems (a packet refused, a kernel or draw failed, a lock deadlock): shown
// at SystemC's default verbosity (SC_MEDIUM); SC_HIGH kernels and draws accepted and
// completed; SC_FULL doorbells, interrupts, barrier packets, draw progress, core
// reassignments, launch stages, blocks placed and finished; SC_DEBUG warps, lock events,
// scalar pools, shading tasks and states, register-table rows.
#pragma once
#include <gpuvp/models/common/observer.h>

#include <map>
#include <string>
#include <vector>

namespace gpuvp {

class GpuLog : public Observer {
public:
    // `gpu`: the Gpu's hierarchical name; `levels`: GpuConfig::log (block -> verbosity; see
    // there; check_config has checked its keys); `next`: the observer every event goes on to
    // (may be null).
    GpuLog(const std::string& gpu, const std::map<std::string, int>& levels, uint32_t sms, Observer* next);

    void doorbell(uint32_t queue, uint64_t value, const sc_core::sc_time& t) override;
    void kernel_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_core::sc_time& doorbell,
                         const sc_core::sc_time& t) override;
    void kernel_stage(uint32_t slot, Stage s, const sc_core::sc_time& t) override;
    void kernel_completed(uint32_t slot, KernelError e, const sc_core::sc_time& t) override;
    void barrier_done(uint32_t queue, uint64_t packet, const sc_core::sc_time& start, const sc_core::sc_time& end) override;
    void packet_rejected(uint32_t queue, uint64_t packet, const PacketCheck& why, const sc_core::sc_time& t) override;
    void block_started(uint32_t slot, uint64_t block, uint32_t sm, const sc_core::sc_time& t) override;
    void block_finished(uint32_t slot, uint64_t block, uint32_t sm, const sc_core::sc_time& t) override;
    void warp_finished(const WarpRecord& w) override;
    bool wants_table_updates() const override;
    bool wants_table_values() const override;
    void table_update(const TableSource& source, const char* table, uint64_t row, const std::string& values,
                      const sc_core::sc_time& t) override;
    void irq(bool level, const sc_core::sc_time& t) override;
    void lock_event(const LockEvent& e) override;
    void scalar_pool(uint32_t sm, const std::array<uint32_t, 4>& used, const sc_core::sc_time& t) override;
    void lock_stalled(uint32_t kernel_slot, const std::string& state, const sc_core::sc_time& t) override;
    void draw_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_core::sc_time& doorbell,
                       const sc_core::sc_time& t) override;
    void draw_stage(uint32_t slot, DrawStage s, const sc_core::sc_time& t) override;
    void draw_completed(uint32_t slot, KernelError e, const sc_core::sc_time& t) override;
    void shading_task(const ShadingTask& task) override;
    void shading_state(const ShadingState& s, const sc_core::sc_time& t) override;
    void shading_reassigned(uint32_t core, CoreType to, const LoadFlags& decided_on, const sc_core::sc_time& t) override;

private:
    bool logs_tables() const;
    enum Block : uint8_t { cp, wlm, glc, usa, sm, arbiter, block_count };
    // The verbosity of a block instance (`index`: the SM for sm and arbiter): its own level if
    // configured, else its class's, else "*"'s, else -1 (follow the global verbosity).
    int configured(Block b, uint32_t index) const;
    bool on(Block b, uint32_t index, int verbosity) const;
    void report(Block b, uint32_t index, int verbosity, const sc_core::sc_time& t, const std::string& text) const;

    std::string gpu_;
    std::vector<int> class_level_;           // per Block; -1: not configured
    std::vector<int> sm_level_, arbiter_level_;  // per SM; -1: not configured
    int table_level_ = -1;                   // the highest configured level of a block with tables
};

}  // namespace gpuvp

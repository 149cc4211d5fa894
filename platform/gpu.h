// The GPU as one reusable module with exactly three outward ports:
//   mmio   TLM target: command processor registers, doorbells, device memory aperture (BAR)
//   sysmem TLM initiator: every access the GPU makes to host/system memory
//   irq    interrupt output (level, active high)
// Inside: command processor, workload manager, global logic controller, SMs (each with
// L1I/L1D and a lock arbiter), the unified shading array, the memory fabric, L2, device memory
// and the device-host link.
#pragma once
#include <gpuvp/models/checker/checked_bindings.h>
#include <gpuvp/models/common/observer.h>
#include <gpuvp/models/cp/command_processor.h>
#include <gpuvp/models/glc/global_logic_controller.h>
#include <gpuvp/models/memory/cache.h>
#include <gpuvp/models/memory/link.h>
#include <gpuvp/models/memory/memory.h>
#include <gpuvp/models/memory/router.h>
#include <gpuvp/models/sm/core_clock.h>
#include <gpuvp/models/sm/lock_arbiter.h>
#include <gpuvp/models/sm/sm.h>
#include <gpuvp/models/usa/unified_shading_array.h>
#include <gpuvp/models/wlm/workload_manager.h>
#include <gpuvp/platform/gpu_config.h>
#include <gpuvp/platform/gpu_log.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpuvp {

class Gpu : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Gpu> mmio;
    tlm::tlm_initiator_socket<> sysmem;
    sc_core::sc_out<bool> irq;

    // `protocol`: put a TLM-2.0 base-protocol checker on every internal connection, reporting
    // there (models/checker/protocol_checker.h); null: none.
    Gpu(sc_core::sc_module_name name, const GpuConfig& config, Observer* observer = nullptr,
        ProtocolLog* protocol = nullptr);

    // Read-only views for results and tests (a real SoC reaches the GPU through its ports).
    const CommandProcessor& cp() const { return *cp_; }
    const GlobalLogicController& glc() const { return *glc_; }
    uint32_t sm_count() const { return uint32_t(sms_.size()); }
    const StreamingMultiprocessor& sm(uint32_t i) const { return *sms_.at(i); }
    const Cache& l1i(uint32_t sm) const { return *l1i_.at(sm); }
    const Cache& l1d(uint32_t sm) const { return *l1d_.at(sm); }
    const LockArbiter& arbiter(uint32_t sm) const { return *arbiters_.at(sm); }
    const UnifiedShadingArray& usa() const { return *usa_; }
    const Cache& l2() const { return *l2_; }
    const Memory& device_memory() const { return *device_memory_; }
    const Clock& clock() const { return clock_; }

    // Lets the SMs run ahead of SystemC's time, exactly (core_clock.h): call it with the end of
    // each sc_start you make (sc_time_stamp() + its duration); the SMs simulate nothing at or
    // past it before SystemC gets there. Without it (time zero) the SMs never run ahead: as
    // correct, slower. docs/integration.md, "Running ahead".
    void run_ahead_until(const sc_core::sc_time& end) { core_clock_->run_ahead_until(end); }
    // How far the GPU has simulated: SystemC's time, or the SMs' cycle where they ran ahead of
    // it. A run cut at its sc_start's end reached the same point whatever the slices it ran in,
    // though SystemC's last event time differs with them.
    sc_core::sc_time reached() const { return std::max(sc_core::sc_time_stamp(), core_clock_->now()); }

    // The watchdog (platform.watchdog_ns; 0: off). While kernels or draws are in flight it
    // looks every watchdog_ns at the GPU's forward progress: instructions executed outside
    // critical sections, critical sections completed, blocks placed, packets processed,
    // kernels and draws completed, shading tasks run. If none happened in a whole window, the
    // GPU is hung (deadlocked or livelocked): the handler gets a report with the state dump.
    // Without a handler the GPU reports SC_REPORT_ERROR("gpuvp/watchdog", ...), whose default
    // action throws out of sc_start.
    struct HangReport {
        sc_core::sc_time at;           // when the watchdog saw it
        sc_core::sc_time since;        // the start of the window without progress
        uint32_t in_flight = 0;        // kernels and draws launched and not complete
        std::vector<std::string> state;  // state_dump() at that time
        std::string text() const;      // a heading line, then the state, a line each
    };
    void on_hang(std::function<void(const HangReport&)> handler) { on_hang_ = std::move(handler); }
    // The GPU's state in lines of text: queues and kernel/draw slots (CP), the kernel and SM
    // tables (GLC), each SM's block table, active warps and lock owners, the shading array.
    std::vector<std::string> state_dump() const;
    // The forward-progress count the watchdog compares.
    uint64_t progress() const;

private:
    void mmio_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned mmio_dbg(tlm::tlm_generic_payload& gp);
    bool route(tlm::tlm_generic_payload& gp, bool& to_cp);
    unsigned debug_aperture(tlm::tlm_generic_payload& gp);
    void watch();  // the watchdog: runs at each launch and every watchdog_ns while busy
    void look_at(const sc_core::sc_time& t);  // the watchdog looks again at t, in steps (one notification pending)

    GpuConfig cfg_;
    CheckedBindings connect_;  // the checkers between the blocks (declared first: destroyed last)
    std::unique_ptr<GpuLog> log_;  // in front of the caller's observer: sc_report messages
    Clock clock_;
    sc_core::sc_time inbound_;  // host -> GPU crossing of the link (one way)
    tlm_utils::simple_initiator_socket<Gpu> to_cp_, to_bar_;
    tlm_utils::simple_initiator_socket<Gpu> debug_glc_;                   // transport_dbg only
    tlm_utils::multi_passthrough_initiator_socket<Gpu> debug_sm_;         // transport_dbg only
    tlm_utils::multi_passthrough_initiator_socket<Gpu> debug_arbiter_;    // transport_dbg only
    tlm_utils::simple_initiator_socket<Gpu> debug_usa_;                   // transport_dbg only
    tlm_utils::simple_initiator_socket<Gpu> debug_wlm_;                   // transport_dbg only
    tlm_utils::simple_initiator_socket<Gpu> debug_cp_done_;               // transport_dbg only
    std::unique_ptr<CommandProcessor> cp_;
    std::unique_ptr<WorkloadManager> wlm_;
    std::unique_ptr<GlobalLogicController> glc_;
    std::unique_ptr<CoreClock> core_clock_;  // runs every SM
    std::vector<std::unique_ptr<StreamingMultiprocessor>> sms_;
    std::vector<std::unique_ptr<Cache>> l1i_, l1d_;  // beside each SM
    std::vector<std::unique_ptr<LockArbiter>> arbiters_;  // one per SM (M2)
    std::unique_ptr<UnifiedShadingArray> usa_;            // M4
    std::unique_ptr<Router> fabric_;
    std::unique_ptr<Cache> l2_;
    std::unique_ptr<Memory> device_memory_;
    std::unique_ptr<Link> link_;
    std::function<void(const HangReport&)> on_hang_;
    sc_core::sc_event watchdog_event_;
    bool timer_pending_ = false;  // watchdog_event_ is notified for timer_at_
    sc_core::sc_time timer_at_;
    bool watching_ = false;
    uint64_t watched_progress_ = 0;
    sc_core::sc_time window_start_;
};

}  // namespace gpuvp

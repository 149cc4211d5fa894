#include <gpuvp/platform/gpu.h>
#include <gpuvp/models/common/memory_map.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace gpuvp {

using sc_core::sc_time;

namespace {
// The config if every parameter is in its range and the rules across them hold; else throws
// std::invalid_argument naming each problem by its hierarchical name ("gpu.sm.warp_slots").
const GpuConfig& checked(const GpuConfig& config, const std::string& gpu) {
    std::string msg;
    for (const ConfigProblem& p : check_config(config)) msg += "\n  " + gpu + "." + p.param + ": " + p.message;
    if (!msg.empty()) throw std::invalid_argument(gpu + ": the configuration is not usable:" + msg);
    return config;
}
}  // namespace

Gpu::Gpu(sc_core::sc_module_name name, const GpuConfig& config, Observer* observer, ProtocolLog* protocol)
    : sc_module(name), mmio("mmio"), sysmem("sysmem"), irq("irq"), cfg_(checked(config, this->name())),
      connect_(protocol),
      clock_(config.platform.clock_mhz),
      inbound_(sc_time(config.platform.memory.link_latency_ns / 2, sc_core::SC_NS)), to_cp_("to_cp"),
      to_bar_("to_bar"), debug_glc_("debug_glc"), debug_sm_("debug_sm"), debug_arbiter_("debug_arbiter"),
      debug_usa_("debug_usa"), debug_wlm_("debug_wlm"), debug_cp_done_("debug_cp_done") {
    const PlatformConfig& p = cfg_.platform;
    log_ = std::make_unique<GpuLog>(this->name(), cfg_.log, p.sms, observer);
    observer = log_.get();  // every block reports to the log, which passes each event on
    const sc_time bus = clock_.cycles(p.bus_cycles);
    auto policy = make_placement_policy(cfg_.policy.dispatch, cfg_.platform.glc.second_sm);
    auto shading = make_shading_policy(cfg_.policy.shading, p.usa.cores);

    DispatchLimits limits;
    std::vector<SmConfig> sm_configs;  // each SM's: the class's with its instance's own values
    for (uint32_t i = 0; i < p.sms; ++i) sm_configs.push_back(p.sm_of(i));
    limits.max_group_segment = p.largest_sm().shared_memory;  // no SM holds more
    limits.max_blocks = p.cp.max_blocks;
    DrawLimits draw_limits;
    draw_limits.max_vertex_tasks = p.usa.max_vertex_tasks;
    draw_limits.max_pixel_tasks_per_vertex_task = std::min(draw_limits.max_pixel_tasks_per_vertex_task, p.usa.pixel_queue);
    cp_ = std::make_unique<CommandProcessor>("cp", p.cp, p.sm.max_kernels, limits, p.usa.max_draws, draw_limits, clock_,
                                             bus, observer);
    usa_ = std::make_unique<UnifiedShadingArray>("usa", p.usa, std::move(shading), clock_, bus, observer);
    wlm_ = std::make_unique<WorkloadManager>("wlm", sm_configs, p.wlm, clock_, bus, observer);
    glc_ = std::make_unique<GlobalLogicController>("glc", sm_configs, p.sm.max_kernels, p.glc, clock_, bus,
                                                   std::move(policy), observer, cfg_.policy.scalar);
    fabric_ = std::make_unique<Router>("fabric");
    CacheConfig l2{p.memory.l2_bytes, p.memory.line_bytes, p.memory.l2_ways, p.memory.l2_latency_ns};
    l2_ = std::make_unique<Cache>("l2", l2);
    device_memory_ = std::make_unique<Memory>("device_memory", p.memory.device_bytes,
                                              sc_time(p.memory.device_latency_ns, sc_core::SC_NS));
    link_ = std::make_unique<Link>("link", sc_time(p.memory.link_latency_ns, sc_core::SC_NS));

    // The fabric: system memory below kDeviceBase (through the link), device memory above.
    fabric_->map(0, map::kDeviceBase, 0, "system memory");
    connect_(fabric_->out, link_->in);
    fabric_->map(map::kDeviceBase, p.memory.device_bytes, 0, "device memory");
    connect_(fabric_->out, l2_->upstream);
    connect_(l2_->downstream, device_memory_->socket);
    connect_(link_->out, sysmem);

    // Control paths.
    connect_(to_cp_, cp_->mmio);
    connect_(to_bar_, fabric_->in);
    connect_(debug_glc_, glc_->regs);
    connect_(cp_->mem, fabric_->in);
    connect_(cp_->to_wlm, wlm_->regs);
    cp_->irq.bind(irq);
    connect_(cp_->to_usa, usa_->regs);
    connect_(usa_->to_cp, cp_->internal);
    connect_(debug_usa_, usa_->regs);
    connect_(debug_wlm_, wlm_->regs);
    connect_(debug_cp_done_, cp_->internal);
    connect_(wlm_->mem, fabric_->in);
    connect_(wlm_->to_glc, glc_->regs);
    connect_(wlm_->to_cp, cp_->internal);
    connect_(glc_->to_cp, cp_->internal);
    const double l1 = p.memory.l1_latency_ns;
    core_clock_ = std::make_unique<CoreClock>("core_clock");
    for (uint32_t i = 0; i < p.sms; ++i) {
        const std::string n = "sm[" + std::to_string(i) + "]";
        const SmPolicy policy{warp_start_order(cfg_.policy.dispatch), cfg_.policy.launch, cfg_.policy.lock,
                              cfg_.policy.scalar, cfg_.policy.issue};
        auto sm = std::make_unique<StreamingMultiprocessor>(n.c_str(), i, sm_configs[i], p.memory.line_bytes, clock_, bus,
                                                            *core_clock_, policy, observer);
        auto l1i = std::make_unique<Cache>(("l1i[" + std::to_string(i) + "]").c_str(), CacheConfig{p.sm.l1i_bytes, p.memory.line_bytes, p.sm.l1_ways, l1});
        auto l1d = std::make_unique<Cache>(("l1d[" + std::to_string(i) + "]").c_str(), CacheConfig{p.sm.l1d_bytes, p.memory.line_bytes, p.sm.l1_ways, l1});
        auto arbiter = std::make_unique<LockArbiter>(("arbiter[" + std::to_string(i) + "]").c_str(), i,
                                                     2 * sm_configs[i].warp_slots, clock_, bus, p.sm.arbiter_cycles, observer);
        connect_(glc_->to_sm, sm->regs);
        connect_(sm->to_arbiter, arbiter->regs);
        connect_(arbiter->to_sm, sm->regs);
        connect_(debug_arbiter_, arbiter->regs);
        connect_(wlm_->to_isu, sm->regs);
        connect_(sm->to_glc, glc_->regs);
        connect_(debug_sm_, sm->regs);
        connect_(sm->to_l1i, l1i->upstream);
        connect_(sm->to_l1d, l1d->upstream);
        connect_(l1i->downstream, fabric_->in);
        connect_(l1d->downstream, fabric_->in);
        sms_.push_back(std::move(sm));
        l1i_.push_back(std::move(l1i));
        l1d_.push_back(std::move(l1d));
        arbiters_.push_back(std::move(arbiter));
    }

    mmio.register_b_transport(this, &Gpu::mmio_b_transport);
    mmio.register_transport_dbg(this, &Gpu::mmio_dbg);
    if (p.watchdog_ns > 0) {
        SC_HAS_PROCESS(Gpu);
        SC_METHOD(watch);
        sensitive << watchdog_event_ << cp_->in_flight_event();
        dont_initialize();
    }
}

// --- The watchdog ---------------------------------------------------------------------------

uint64_t Gpu::progress() const {
    uint64_t n = cp_->packets_processed() + cp_->completions() + glc_->blocks_dispatched();
    for (const auto& sm : sms_) n += sm->progress();
    const auto& u = usa_->stats();
    return n + u.tasks[0] + u.tasks[1];
}

// Woken when kernels or draws are launched or complete (it starts watching if it was not, and
// stops when nothing is in flight: an idle GPU has no pending watchdog event) and by its own
// window's end.
void Gpu::watch() {
    const sc_time now = sc_core::sc_time_stamp();
    if (timer_pending_ && timer_at_ <= now) timer_pending_ = false;  // it has fired
    if (cp_->in_flight() == 0) {
        watchdog_event_.cancel();  // nothing left to watch: the run may end now
        timer_pending_ = false;
        watching_ = false;
        return;
    }
    const sc_time window(double(cfg_.platform.watchdog_ns), sc_core::SC_NS);
    if (watching_ && now < window_start_ + window) {
        look_at(window_start_ + window);  // a step on the way to the window's end
        return;
    }
    const uint64_t p = progress();
    if (watching_ && p == watched_progress_) {
        HangReport r{now, window_start_, cp_->in_flight(), state_dump()};
        watching_ = false;
        if (on_hang_) on_hang_(r);
        else SC_REPORT_ERROR("gpuvp/watchdog", r.text().c_str());
        return;
    }
    watching_ = true;
    watched_progress_ = p;
    window_start_ = now;
    look_at(now + window);
}

// The watchdog's timer goes to the window's end in steps of 1/64 window. A timed
// notification cancelled before its time (when the GPU goes idle, after every short kernel of
// a launch storm) stays in SystemC's event queue until that time: with one 5 ms notification
// per launch, the queue held thousands and every timed event of the simulation paid for its
// depth. A step lives 64 times shorter. The looks in between only take the next step.
void Gpu::look_at(const sc_time& t) {
    const sc_time now = sc_core::sc_time_stamp();
    const sc_time step = std::max(sc_time(double(cfg_.platform.watchdog_ns) / 64, sc_core::SC_NS),
                                  sc_core::sc_get_time_resolution());
    const sc_time at = std::min(t, now + step);
    if (timer_pending_ && timer_at_ <= at) return;  // an earlier look comes first and steps on
    watchdog_event_.notify(at - now);
    timer_pending_ = true;
    timer_at_ = at;
}

std::string Gpu::HangReport::text() const {
    std::ostringstream o;
    o << "no forward progress from " << since << " to " << at << " with " << in_flight
      << " kernel(s) or draw(s) in flight: the GPU is deadlocked or livelocked";
    for (const std::string& line : state) o << "\n  " << line;
    return o.str();
}

std::vector<std::string> Gpu::state_dump() const {
    std::vector<std::string> out;
    cp_->describe(out);
    const GlcTables& t = glc_->tables();
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        const KernelRow& r = t.kernels[k];
        if (!r.valid) continue;
        out.push_back("glc kernel slot " + std::to_string(k) + ": priority " + std::to_string(r.priority) + ", " +
                      std::to_string(r.blocks) + " blocks: " + std::to_string(r.undispatched) + " undispatched, " +
                      std::to_string(r.dispatched) + " dispatched, " + std::to_string(r.finished) + " finished; " +
                      std::to_string(r.warps_per_block) + " warps, " + std::to_string(r.regs_per_block) +
                      " registers, " + std::to_string(r.shared_per_block) + " bytes of shared memory a block");
    }
    // SMs with nothing on them and a GLC row that agrees are summed up in one line.
    std::string idle;
    auto is_idle = [&](size_t i) {
        const SmConfig c = cfg_.platform.sm_of(uint32_t(i));
        const SmRow& r = t.sms[i];
        return sms_[i]->free_slots() == c.warp_slots && r.free_slots == c.warp_slots && r.free_regs == c.registers &&
               r.free_shared == c.shared_memory;
    };
    for (size_t i = 0; i < t.sms.size(); ++i) {
        const SmRow& r = t.sms[i];
        if (is_idle(i)) {
            idle += (idle.empty() ? "" : ", ") + std::string("sm[") + std::to_string(i) + "]";
            continue;
        }
        out.push_back("glc sm[" + std::to_string(i) + "] row: " + std::to_string(r.free_slots) + " free warp slots, " +
                      std::to_string(r.free_regs) + " free registers, " + std::to_string(r.free_shared) +
                      " bytes of shared memory free, highest priority " +
                      (r.highest_priority == kNoPriority ? std::string("none") : std::to_string(r.highest_priority)));
    }
    for (size_t i = 0; i < sms_.size(); ++i)
        if (!is_idle(i)) sms_[i]->describe(out);
    if (!idle.empty()) out.push_back("idle (no warps, and so in the GLC's table): " + idle);
    const auto& cores = usa_->cores();
    uint32_t busy[2] = {0, 0}, type[2] = {0, 0};
    for (const auto& c : cores) {
        ++type[size_t(c.type)];
        busy[size_t(c.type)] += c.busy;
    }
    if (usa_->stats().draws > 0)
        out.push_back("usa: " + std::to_string(type[0]) + " vertex cores (" + std::to_string(busy[0]) + " busy), " +
                      std::to_string(type[1]) + " pixel cores (" + std::to_string(busy[1]) + " busy), " +
                      std::to_string(usa_->stats().draws) + " draws received");
    return out;
}

// mmio offsets below kRegsSize are the CP's registers; from kBar on, device memory.
bool Gpu::route(tlm::tlm_generic_payload& gp, bool& to_cp) {
    const uint64_t a = gp.get_address(), n = gp.get_data_length();
    if (a < map::kRegsSize && n <= map::kRegsSize - a) {
        to_cp = true;
        return true;
    }
    const uint64_t size = cfg_.platform.memory.device_bytes;
    if (a >= map::kBar && a - map::kBar < size && n <= size - (a - map::kBar)) {
        to_cp = false;
        gp.set_address(a - map::kBar + map::kDeviceBase);
        return true;
    }
    return false;
}

void Gpu::mmio_b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
    const uint64_t a = gp.get_address();
    bool to_cp;
    if (!route(gp, to_cp)) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    delay += inbound_;  // the request crosses the link
    if (to_cp) to_cp_->b_transport(gp, delay);
    else to_bar_->b_transport(gp, delay);
    if (gp.is_read()) delay += inbound_;  // and a read's data crosses back
    gp.set_address(a);
}

// The debug aperture: the GLC's and every SM's registers and tables, for debuggers and tests.
unsigned Gpu::debug_aperture(tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    unsigned n = 0;
    if (a >= map::kDebugGlc && a < map::kDebugGlc + map::kDebugStride) {
        gp.set_address(a - map::kDebugGlc);
        n = debug_glc_->transport_dbg(gp);
    } else if (a >= map::kDebugSm && a < map::kDebugSm + map::kDebugStride * sms_.size()) {
        gp.set_address((a - map::kDebugSm) % map::kDebugStride);
        n = debug_sm_[int((a - map::kDebugSm) / map::kDebugStride)]->transport_dbg(gp);
    } else if (a >= map::kDebugArbiter && a < map::kDebugArbiter + map::kDebugStride * arbiters_.size()) {
        gp.set_address((a - map::kDebugArbiter) % map::kDebugStride);
        n = debug_arbiter_[int((a - map::kDebugArbiter) / map::kDebugStride)]->transport_dbg(gp);
    } else if (a >= map::kDebugUsa && a < map::kDebugUsa + map::kDebugStride) {
        gp.set_address(a - map::kDebugUsa);
        n = debug_usa_->transport_dbg(gp);
    } else if (a >= map::kDebugWlm && a < map::kDebugWlm + map::kDebugStride) {
        gp.set_address(a - map::kDebugWlm);
        n = debug_wlm_->transport_dbg(gp);
    } else if (a >= map::kDebugCpDone && a < map::kDebugCpDone + map::kDebugStride) {
        gp.set_address(a - map::kDebugCpDone);
        n = debug_cp_done_->transport_dbg(gp);
    }
    gp.set_address(a);
    return n;
}

unsigned Gpu::mmio_dbg(tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    bool to_cp;
    if (a >= map::kDebugGlc && a < map::kBar) return debug_aperture(gp);
    if (!route(gp, to_cp)) return 0;
    unsigned n = to_cp ? to_cp_->transport_dbg(gp) : to_bar_->transport_dbg(gp);
    gp.set_address(a);
    return n;
}

}  // namespace gpuvp

#include <gpuvp/models/usa/unified_shading_array.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>
#include <cstring>

namespace gpuvp {

using sc_core::sc_time;

UnifiedShadingArray::UnifiedShadingArray(sc_core::sc_module_name name, const UsaConfig& config,
                                         std::unique_ptr<ShadingPolicy> policy, const Clock& clock, sc_time bus,
                                         Observer* observer)
    : sc_module(name), regs("regs"), to_cp("to_cp"), cfg_(config), policy_(std::move(policy)), clock_(clock),
      bus_(bus), observer_(observer), cores_(config.cores), order_(breadth_first_order(config.cores)),
      draws_(config.max_draws), unit_free_(clusters_for(config.cores)) {
    for (uint32_t k = 0; k < order_.size(); ++k) {
        const CoreType t = k < cfg_.vertex_cores ? CoreType::vertex : CoreType::pixel;
        cores_[order_[k]].type = cores_[order_[k]].loaded = t;
    }
    state_ = current();
    regs.register_b_transport(this, &UnifiedShadingArray::b_transport);
    regs.register_transport_dbg(this, &UnifiedShadingArray::transport_dbg);
    SC_HAS_PROCESS(UnifiedShadingArray);
    SC_THREAD(run);
}

// --- Registers ----------------------------------------------------------------------------

void UnifiedShadingArray::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
    if (reject_unsupported(gp)) return;
    delay += bus_;
    if (gp.is_write() && gp.get_address() == map::kUsaDraw && gp.get_data_length() == sizeof(DrawDescriptor)) {
        arrivals_.post_in(from_bytes<DrawDescriptor>(gp.get_data_ptr()), delay);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    const bool ok = gp.is_read() && read_register(gp.get_address(), gp.get_data_ptr(), gp.get_data_length());
    gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

unsigned UnifiedShadingArray::transport_dbg(int, tlm::tlm_generic_payload& gp) {
    if (!gp.is_read()) return 0;
    return read_register(gp.get_address(), gp.get_data_ptr(), gp.get_data_length()) ? gp.get_data_length() : 0;
}

bool UnifiedShadingArray::read_register(uint64_t a, unsigned char* data, unsigned n) const {
    if (a == map::kUsaFlags) {
        if (n != 4) return false;
        const uint32_t v = uint32_t(state_.flags.idle_vertex) | uint32_t(state_.flags.idle_pixel) << 2 |
                           (state_.vertex_cores & 0xff) << 8 | (state_.pixel_cores & 0xff) << 16;
        std::memcpy(data, &v, 4);
        return true;
    }
    auto table = [&](uint64_t base, size_t rows, auto row_of) {
        if (a < base || a + n > base + rows * map::kTableRowBytes) return false;
        for (uint64_t off = a - base; off < a - base + n;) {  // whole or partial rows
            const size_t r = size_t(off / map::kTableRowBytes);
            const auto row = row_of(r);
            const uint64_t in_row = off % map::kTableRowBytes;
            const uint64_t take = std::min<uint64_t>(map::kTableRowBytes - in_row, a - base + n - off);
            std::memcpy(data + (off - (a - base)), reinterpret_cast<const unsigned char*>(&row) + in_row, take);
            off += take;
        }
        return true;
    };
    if (a >= map::kUsaCoreTable && a < map::kUsaDrawTable)
        return table(map::kUsaCoreTable, cores_.size(), [&](size_t i) {
            const Core& c = cores_[i];
            UsaCoreRow r{};
            r.type = uint8_t(c.type);
            r.busy = c.busy;
            r.cluster = uint8_t(cluster_of(uint32_t(i)));
            r.position = uint8_t(i % kCoresPerCluster);
            if (c.busy) {
                r.draw_slot = c.draw;
                r.task = c.task;
                r.end_ps = uint64_t(to_ns(c.end) * 1000 + 0.5);
            }
            r.tasks_run = c.tasks;
            return r;
        });
    if (a >= map::kUsaDrawTable)
        return table(map::kUsaDrawTable, draws_.size(), [&](size_t i) {
            const Draw& d = draws_[i];
            UsaDrawRow r{};
            if (d.valid) {
                r.valid = 1;
                r.vertex_tasks = d.d.vertex_tasks;
                r.vertex_started = d.vertex_started;
                r.vertex_done = d.vertex_done;
                r.pixel_tasks_per_vertex_task = d.d.pixel_tasks_per_vertex_task;
                r.pixel_done = uint32_t(d.pixel_done);
                r.packet_index = d.d.packet_index;
            }
            return r;
        });
    return false;
}

// --- The array ----------------------------------------------------------------------------

void UnifiedShadingArray::run() {
    for (;;) {
        const sc_time now = sc_core::sc_time_stamp();
        while (!ends_.empty() && ends_.top().first <= now) {
            const uint32_t core = ends_.top().second;
            ends_.pop();
            finish(core);
        }
        while (arrivals_.due(now)) accept(arrivals_.pop());
        settle();
        sc_time next = sc_core::sc_max_time();
        if (!ends_.empty()) next = ends_.top().first;
        if (!arrivals_.empty()) next = std::min(next, arrivals_.next());
        if (decision_pending_) next = std::min(next, next_decision_);
        if (next == sc_core::sc_max_time()) wait(wake_);
        else wait(next - now, wake_);
    }
}

void UnifiedShadingArray::accept(const DrawDescriptor& d) {
    const sc_time now = sc_core::sc_time_stamp();
    if (d.draw_slot < draws_.size() && draws_[d.draw_slot].valid) {
        ++stats_.invalid_draws;  // a slot in use: the CP never does this; the draw there runs on
        return;
    }
    const bool valid = d.draw_slot < draws_.size() && d.vertex_tasks > 0 &&
                       d.vertex_cycles > 0 && (d.pixel_tasks_per_vertex_task == 0 || d.pixel_cycles > 0) &&
                       d.pixel_tasks_per_vertex_task <= cfg_.pixel_queue;
    if (!valid) {
        ++stats_.invalid_draws;
        DrawDone done{d.draw_slot, uint32_t(KernelError::invalid_draw)};
        sc_time delay = sc_core::SC_ZERO_TIME;
        write_msg(to_cp, payloads_, map::kCpDrawDone, done, delay);
        return;
    }
    Draw& w = draws_[d.draw_slot];
    w = Draw{};
    w.valid = true;
    w.d = d;
    ++stats_.draws;
    vertex_ready_.push_back(d.draw_slot);
    if (observer_) observer_->draw_stage(d.draw_slot, DrawStage::arrived, now);
}

void UnifiedShadingArray::finish(uint32_t i) {
    Core& c = cores_[i];
    c.busy = false;
    c.busy_time += c.end - c.assigned;
    ++c.tasks;
    stats_.busy[size_t(c.type)] += c.end - c.assigned;
    ++stats_.tasks[size_t(c.type)];
    if (observer_) observer_->shading_task(ShadingTask{i, c.type, c.draw, c.task, c.assigned, c.start, c.end, c.switched});
    Draw& d = draws_[c.draw];
    if (c.type == CoreType::vertex) {
        ++d.vertex_done;
        for (uint32_t k = 0; k < d.d.pixel_tasks_per_vertex_task; ++k)
            pixel_ready_.push_back(PixelTask{c.draw, uint64_t(c.task) * d.d.pixel_tasks_per_vertex_task + k});
        stats_.pixel_queue_peak = std::max<uint64_t>(stats_.pixel_queue_peak, pixel_ready_.size());
        if (d.vertex_done == d.d.vertex_tasks && observer_)
            observer_->draw_stage(c.draw, DrawStage::vertex_done, c.end);
    } else {
        ++d.pixel_done;
    }
    if (d.vertex_done == d.d.vertex_tasks && d.pixel_done == uint64_t(d.d.vertex_tasks) * d.d.pixel_tasks_per_vertex_task)
        draw_done(c.draw, KernelError::none);
}

void UnifiedShadingArray::draw_done(uint32_t slot, KernelError e) {
    draws_[slot].valid = false;
    if (observer_) observer_->draw_stage(slot, DrawStage::tasks_done, sc_core::sc_time_stamp());
    sc_time delay = sc_core::SC_ZERO_TIME;  // a posted write
    write_msg(to_cp, payloads_, map::kCpDrawDone, DrawDone{slot, uint32_t(e)}, delay);
}

int UnifiedShadingArray::first_idle(CoreType type) const {
    for (uint32_t i : order_)
        if (!cores_[i].busy && cores_[i].type == type) return int(i);
    return -1;
}

// Ready tasks to idle cores of their type: pixel tasks in the order they became ready, then
// vertex tasks in draw order while the pixel queue has room for what they will produce (pixel
// tasks first, so the room they free this instant counts).
void UnifiedShadingArray::dispatch() {
    while (!pixel_ready_.empty()) {
        const int core = first_idle(CoreType::pixel);
        if (core < 0) break;
        const PixelTask t = pixel_ready_.front();
        pixel_ready_.pop_front();
        --pixel_reserved_;
        assign(uint32_t(core), CoreType::pixel, t.draw, t.index);
    }
    while (!vertex_ready_.empty()) {
        Draw& d = draws_[vertex_ready_.front()];
        if (pixel_reserved_ + d.d.pixel_tasks_per_vertex_task > cfg_.pixel_queue) break;
        const int core = first_idle(CoreType::vertex);
        if (core < 0) break;
        pixel_reserved_ += d.d.pixel_tasks_per_vertex_task;
        if (d.vertex_started == 0 && observer_)
            observer_->draw_stage(vertex_ready_.front(), DrawStage::first_task, sc_core::sc_time_stamp());
        assign(uint32_t(core), CoreType::vertex, vertex_ready_.front(), d.vertex_started++);
        if (d.vertex_started == d.d.vertex_tasks) vertex_ready_.pop_front();
    }
}

// The core becomes busy now. Its inputs pass its cluster's unit of the task's type (one task
// at a time); a core that last ran the other type loads that type's shader state meanwhile.
void UnifiedShadingArray::assign(uint32_t i, CoreType type, uint32_t draw, uint64_t task) {
    const sc_time now = sc_core::sc_time_stamp();
    Core& c = cores_[i];
    sc_time& unit = unit_free_[cluster_of(i)][size_t(type)];
    const uint32_t input = type == CoreType::vertex ? cfg_.vertex_fetch_cycles : cfg_.pixel_setup_cycles;
    unit = std::max(now, unit) + clock_.cycles(input);
    sc_time ready = unit;
    c.switched = c.loaded != type;
    if (c.switched) {
        ready = std::max(ready, now + clock_.cycles(cfg_.switch_cycles));
        c.loaded = type;
        ++stats_.switches;
    }
    const Draw& d = draws_[draw];
    c.busy = true;
    c.draw = draw;
    c.task = task;
    c.assigned = now;
    c.start = ready;
    c.end = ready + clock_.cycles(type == CoreType::vertex ? d.d.vertex_cycles : d.d.pixel_cycles);
    ends_.push({c.end, i});
}

// After a change: tasks to idle cores, then the balancer (one reassignment per chance), then
// tasks again for a reassigned core.
void UnifiedShadingArray::settle() {
    const sc_time now = sc_core::sc_time_stamp();
    dispatch();
    decision_pending_ = false;
    while (auto r = policy_->rebalance(view())) {
        if (now < next_decision_) {  // the balancer had its chance less than balance_cycles ago
            decision_pending_ = true;
            break;
        }
        publish();  // the flags the decision reads
        Core& c = cores_[r->core];
        c.type = r->to;
        ++stats_.reassignments;
        ++stats_.to_type[size_t(r->to)];
        next_decision_ = now + clock_.cycles(cfg_.balance_cycles);
        if (observer_) observer_->shading_reassigned(r->core, r->to, r->flags, now);
        dispatch();
    }
    publish();
}

// The flags, the split, busy cores and ready tasks as they are now.
ShadingState UnifiedShadingArray::current() const {
    ShadingState s;
    s.flags = load_flags(view());
    for (const Core& c : cores_) {
        (c.type == CoreType::vertex ? s.vertex_cores : s.pixel_cores)++;
        if (c.busy) (c.type == CoreType::vertex ? s.busy_vertex : s.busy_pixel)++;
    }
    for (uint32_t d : vertex_ready_) s.ready_vertex += draws_[d].d.vertex_tasks - draws_[d].vertex_started;
    s.ready_pixel = pixel_ready_.size();
    return s;
}

// Tells the observer when the state changed, and adds the time since the last change to the
// active time of the flags that held.
void UnifiedShadingArray::publish() {
    const sc_time now = sc_core::sc_time_stamp();
    const ShadingState s = current();
    if (s == state_) return;
    if (state_since_ < now && (state_.busy_vertex + state_.busy_pixel + state_.ready_vertex + state_.ready_pixel) > 0) {
        stats_.active += now - state_since_;
        stats_.flags_time[state_.flags.idle_vertex][state_.flags.idle_pixel] += now - state_since_;
    }
    state_ = s;
    state_since_ = now;
    if (observer_) observer_->shading_state(s, now);
}

std::vector<CoreView> UnifiedShadingArray::view() const {
    std::vector<CoreView> v(cores_.size());
    for (size_t i = 0; i < cores_.size(); ++i) v[i] = CoreView{!cores_[i].busy, cores_[i].type};
    return v;
}

}  // namespace gpuvp

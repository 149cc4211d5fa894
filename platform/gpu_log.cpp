#include <gpuvp/platform/gpu_log.h>
#include <gpuvp/platform/gpu_config.h>

#include <cstdio>

namespace gpuvp {

using sc_core::sc_time;

namespace {

const char* const kTypes[] = {"gpuvp/cp", "gpuvp/wlm", "gpuvp/glc", "gpuvp/usa", "gpuvp/sm", "gpuvp/arbiter"};
const char* const kNames[] = {"cp", "wlm", "glc", "usa", "sm", "arbiter"};

std::string ns(const sc_time& t) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f ns", t.to_seconds() * 1e9);
    return b;
}

const char* draw_stage_text(DrawStage s) {
    switch (s) {
    case DrawStage::arrived: return "arrived in the array";
    case DrawStage::first_task: return "first vertex task on a core";
    case DrawStage::vertex_done: return "last vertex task done";
    case DrawStage::tasks_done: return "last task done";
    case DrawStage::count: break;
    }
    return "?";
}

}  // namespace

GpuLog::GpuLog(const std::string& gpu, const std::map<std::string, int>& levels, uint32_t sms, Observer* next)
    : Observer(next), gpu_(gpu), class_level_(block_count, -1), sm_level_(sms, -1), arbiter_level_(sms, -1) {
    const int all = levels.count("*") ? levels.at("*") : -1;
    for (int b = 0; b < block_count; ++b)
        if (auto it = levels.find(kNames[b]); it != levels.end()) class_level_[b] = it->second;
        else class_level_[b] = all;
    for (uint32_t i = 0; i < sms; ++i) {
        const std::string n = "[" + std::to_string(i) + "]";
        if (auto it = levels.find("sm" + n); it != levels.end()) sm_level_[i] = it->second;
        if (auto it = levels.find("arbiter" + n); it != levels.end()) arbiter_level_[i] = it->second;
    }
    for (const auto& [key, level] : levels)
        if (key == "*" || key.rfind("glc", 0) == 0 || key.rfind("sm", 0) == 0) table_level_ = std::max(table_level_, level);
}

int GpuLog::configured(Block b, uint32_t index) const {
    if (b == sm && index < sm_level_.size() && sm_level_[index] >= 0) return sm_level_[index];
    if (b == arbiter && index < arbiter_level_.size() && arbiter_level_[index] >= 0) return arbiter_level_[index];
    return class_level_[b];
}

bool GpuLog::on(Block b, uint32_t index, int verbosity) const {
    const int level = configured(b, index);
    return verbosity <= (level >= 0 ? level : sc_core::sc_report_handler::get_verbosity_level());
}

void GpuLog::report(Block b, uint32_t index, int verbosity, const sc_time& t, const std::string& text) const {
    std::string instance = gpu_ + "." + kNames[b];
    if ((b == sm || b == arbiter) && index != ~0u) instance += "[" + std::to_string(index) + "]";
    // A block with its own level bypasses the global filter: report at SC_NONE so it shows.
    const int v = configured(b, index) >= 0 ? int(sc_core::SC_NONE) : verbosity;
    sc_core::sc_report_handler::report(sc_core::SC_INFO, kTypes[b], (ns(t) + " " + instance + ": " + text).c_str(), v,
                                       __FILE__, __LINE__);
}

// ---- CP

void GpuLog::doorbell(uint32_t queue, uint64_t value, const sc_time& t) {
    if (on(cp, 0, sc_core::SC_FULL))
        report(cp, 0, sc_core::SC_FULL, t, "doorbell of queue " + std::to_string(queue) + ": " + std::to_string(value));
    Observer::doorbell(queue, value, t);
}

void GpuLog::kernel_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_time& doorbell, const sc_time& t) {
    if (on(cp, 0, sc_core::SC_HIGH))
        report(cp, 0, sc_core::SC_HIGH, t,
               "kernel packet " + std::to_string(packet) + " of queue " + std::to_string(queue) + " in kernel slot " +
                   std::to_string(slot));
    Observer::kernel_accepted(slot, queue, packet, doorbell, t);
}

void GpuLog::kernel_stage(uint32_t slot, Stage s, const sc_time& t) {
    Block b = s <= Stage::launched                                                 ? cp
              : s <= Stage::isu_written                                            ? wlm
              : s <= Stage::first_block_dispatched || s == Stage::last_block_done ? glc
                                                                                   : sm;
    if (on(b, ~0u, sc_core::SC_FULL))
        report(b, ~0u, sc_core::SC_FULL, t, "kernel slot " + std::to_string(slot) + ": " + stage_name(s));
    Observer::kernel_stage(slot, s, t);
}

void GpuLog::kernel_completed(uint32_t slot, KernelError e, const sc_time& t) {
    const int v = e == KernelError::none ? sc_core::SC_HIGH : sc_core::SC_LOW;
    if (on(cp, 0, v))
        report(cp, 0, v, t,
               "kernel slot " + std::to_string(slot) +
                   (e == KernelError::none ? " completed" : std::string(" failed: ") + kernel_error_text(e)));
    Observer::kernel_completed(slot, e, t);
}

void GpuLog::barrier_done(uint32_t queue, uint64_t packet, const sc_time& start, const sc_time& end) {
    if (on(cp, 0, sc_core::SC_FULL))
        report(cp, 0, sc_core::SC_FULL, end,
               "barrier packet " + std::to_string(packet) + " of queue " + std::to_string(queue) + " done");
    Observer::barrier_done(queue, packet, start, end);
}

void GpuLog::packet_rejected(uint32_t queue, uint64_t packet, const PacketCheck& why, const sc_time& t) {
    if (on(cp, 0, sc_core::SC_LOW))
        report(cp, 0, sc_core::SC_LOW, t,
               "packet " + std::to_string(packet) + " of queue " + std::to_string(queue) + " refused (" +
                   queue_error_name(why.error) + ", field " + why.field + (why.detail.empty() ? "" : ": " + why.detail) +
                   "): the queue stops");
    Observer::packet_rejected(queue, packet, why, t);
}

void GpuLog::irq(bool level, const sc_time& t) {
    if (on(cp, 0, sc_core::SC_FULL)) report(cp, 0, sc_core::SC_FULL, t, level ? "irq raised" : "irq lowered");
    Observer::irq(level, t);
}

// ---- SMs and arbiters

void GpuLog::block_started(uint32_t slot, uint64_t block, uint32_t s, const sc_time& t) {
    if (on(sm, s, sc_core::SC_FULL))
        report(sm, s, sc_core::SC_FULL, t, "block " + std::to_string(block) + " of kernel slot " + std::to_string(slot) + " placed");
    Observer::block_started(slot, block, s, t);
}

void GpuLog::block_finished(uint32_t slot, uint64_t block, uint32_t s, const sc_time& t) {
    if (on(sm, s, sc_core::SC_FULL))
        report(sm, s, sc_core::SC_FULL, t,
               "block " + std::to_string(block) + " of kernel slot " + std::to_string(slot) + " finished");
    Observer::block_finished(slot, block, s, t);
}

void GpuLog::warp_finished(const WarpRecord& w) {
    if (on(sm, w.sm, sc_core::SC_DEBUG))
        report(sm, w.sm, sc_core::SC_DEBUG, w.end,
               "warp " + std::to_string(w.warp) + " of block " + std::to_string(w.block) + " left slot " +
                   std::to_string(w.slot) + " after " + std::to_string(w.instructions) + " instructions");
    Observer::warp_finished(w);
}

// Whether this log writes table updates itself (it writes their values when it does).
bool GpuLog::logs_tables() const {
    return table_level_ >= sc_core::SC_DEBUG || sc_core::sc_report_handler::get_verbosity_level() >= sc_core::SC_DEBUG;
}

bool GpuLog::wants_table_updates() const { return logs_tables() || Observer::wants_table_updates(); }

bool GpuLog::wants_table_values() const { return logs_tables() || Observer::wants_table_values(); }

void GpuLog::table_update(const TableSource& source, const char* table, uint64_t row, const std::string& values,
                          const sc_time& t) {
    const Block b = source.glc() ? glc : sm;
    const uint32_t index = source.glc() ? 0 : source.sm;
    if (on(b, index, sc_core::SC_DEBUG))
        report(b, index, sc_core::SC_DEBUG, t, std::string(table) + " row " + std::to_string(row) + ": " + values);
    Observer::table_update(source, table, row, values, t);
}

void GpuLog::lock_event(const LockEvent& e) {
    const Block b = e.slot == ~0u ? arbiter : sm;
    if (on(b, e.sm, sc_core::SC_DEBUG))
        report(b, e.sm, sc_core::SC_DEBUG, e.t,
               std::string(lock_event_name(e.kind)) + ": warp " + std::to_string(e.warp) + " of block " +
                   std::to_string(e.block) + ", lock " + std::to_string(e.lock));
    Observer::lock_event(e);
}

void GpuLog::scalar_pool(uint32_t s, const std::array<uint32_t, 4>& used, const sc_time& t) {
    if (on(sm, s, sc_core::SC_DEBUG))
        report(sm, s, sc_core::SC_DEBUG, t,
               "scalar pool in use (kernel, workgroup, warp, slice): " + std::to_string(used[0]) + ", " +
                   std::to_string(used[1]) + ", " + std::to_string(used[2]) + ", " + std::to_string(used[3]));
    Observer::scalar_pool(s, used, t);
}

void GpuLog::lock_stalled(uint32_t kernel_slot, const std::string& state, const sc_time& t) {
    if (on(sm, ~0u, sc_core::SC_LOW))
        report(sm, ~0u, sc_core::SC_LOW, t, "lock deadlock in kernel slot " + std::to_string(kernel_slot) + ": " + state);
    Observer::lock_stalled(kernel_slot, state, t);
}

// ---- Draws and the shading array (M4)

void GpuLog::draw_accepted(uint32_t slot, uint32_t queue, uint64_t packet, const sc_time& doorbell, const sc_time& t) {
    if (on(cp, 0, sc_core::SC_HIGH))
        report(cp, 0, sc_core::SC_HIGH, t,
               "draw packet " + std::to_string(packet) + " of queue " + std::to_string(queue) + " in draw slot " +
                   std::to_string(slot));
    Observer::draw_accepted(slot, queue, packet, doorbell, t);
}

void GpuLog::draw_stage(uint32_t slot, DrawStage s, const sc_time& t) {
    if (on(usa, 0, sc_core::SC_FULL))
        report(usa, 0, sc_core::SC_FULL, t, "draw slot " + std::to_string(slot) + ": " + draw_stage_text(s));
    Observer::draw_stage(slot, s, t);
}

void GpuLog::draw_completed(uint32_t slot, KernelError e, const sc_time& t) {
    const int v = e == KernelError::none ? sc_core::SC_HIGH : sc_core::SC_LOW;
    if (on(cp, 0, v))
        report(cp, 0, v, t,
               "draw slot " + std::to_string(slot) +
                   (e == KernelError::none ? " completed" : std::string(" failed: ") + kernel_error_text(e)));
    Observer::draw_completed(slot, e, t);
}

void GpuLog::shading_task(const ShadingTask& task) {
    if (on(usa, 0, sc_core::SC_DEBUG))
        report(usa, 0, sc_core::SC_DEBUG, task.end,
               std::string(task.type == CoreType::vertex ? "vertex" : "pixel") + " task " + std::to_string(task.task) +
                   " of draw slot " + std::to_string(task.draw_slot) + " ended on core " + std::to_string(task.core));
    Observer::shading_task(task);
}

void GpuLog::shading_state(const ShadingState& s, const sc_time& t) {
    if (on(usa, 0, sc_core::SC_DEBUG))
        report(usa, 0, sc_core::SC_DEBUG, t,
               "flags V=" + std::to_string(s.flags.idle_vertex) + " P=" + std::to_string(s.flags.idle_pixel) +
                   ", cores " + std::to_string(s.vertex_cores) + " vertex / " + std::to_string(s.pixel_cores) +
                   " pixel, ready tasks " + std::to_string(s.ready_vertex) + " / " + std::to_string(s.ready_pixel));
    Observer::shading_state(s, t);
}

void GpuLog::shading_reassigned(uint32_t core, CoreType to, const LoadFlags& f, const sc_time& t) {
    if (on(usa, 0, sc_core::SC_FULL))
        report(usa, 0, sc_core::SC_FULL, t,
               "core " + std::to_string(core) + " to " + (to == CoreType::vertex ? "vertex" : "pixel") + " (flags V=" +
                   std::to_string(f.idle_vertex) + " P=" + std::to_string(f.idle_pixel) + ")");
    Observer::shading_reassigned(core, to, f, t);
}

}  // namespace gpuvp

#include <gpuvp/models/sm/sm.h>
#include <gpuvp/models/common/divide.h>
#include <gpuvp/models/common/memory_map.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace gpuvp {

using sc_core::sc_time;

StreamingMultiprocessor::StreamingMultiprocessor(sc_core::sc_module_name name, uint32_t id,
                                                 const SmConfig& config, uint32_t line_bytes,
                                                 const Clock& clock, sc_time bus, CoreClock& core_clock,
                                                 SmPolicy policy, Observer* observer)
    : sc_module(name), regs("regs"), to_glc("to_glc"), to_l1i("to_l1i"), to_l1d("to_l1d"), to_arbiter("to_arbiter"),
      id_(id), cfg_(config), order_(policy.order), multilevel_(policy.scalar == ScalarPolicy::multilevel),
      clock_(clock), bus_(bus), observer_(observer), tag_("sm[" + std::to_string(id) + "]"), line_bytes_(line_bytes),
      line_mask_(uint64_t(line_bytes) - 1),
      contexts_(config.max_kernels), warps_(config.warp_slots), issue_(policy.issue, config.warp_slots), core_clock_(core_clock),
      clock_index_(core_clock.attach(*this)), shared_(config.shared_memory),
      launch_(make_launch_path(policy.launch, *this, line_bytes, config.max_kernels)),
      locks_(*this, config, policy.lock, clock_, stats_.locks), scalars_(*this, config),
      free_regs_(config.registers), free_slots_(config.warp_slots), free_shared_(config.shared_memory),
      scratch_(65536), fetched_(line_bytes), lines_(line_bytes) {
    if (line_bytes < kInstructionBytes || (line_bytes & (line_bytes - 1)) != 0)
        throw std::invalid_argument(std::string(this->name()) + ": the line size must be a power of two of at least one instruction");
    regs.register_b_transport(this, &StreamingMultiprocessor::b_transport);
    regs.register_transport_dbg(this, &StreamingMultiprocessor::transport_dbg);
    for (uint32_t s = config.warp_slots; s-- > 0;) idle_slots_.push_back(s);
}

// --- Registers: dispatch, ISU kernel contexts, block status table -------------------------

void StreamingMultiprocessor::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
    const uint64_t a = gp.get_address();
    const unsigned n = gp.get_data_length();
    unsigned char* p = gp.get_data_ptr();
    if (reject_unsupported(gp)) return;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    delay += bus_;
    if (a == map::kSmDispatch && n == sizeof(BlockDescriptor) && gp.is_write()) {
        arrivals_.post_in(from_bytes<BlockDescriptor>(p), delay);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (a == map::kSmKernelDrained && n == sizeof(KernelDrained) && gp.is_write()) {  // M3, from the GLC
        drained_.post_in(from_bytes<KernelDrained>(p).kernel_slot % uint32_t(contexts_.size()), delay);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (a == map::kSmLockDecision && n == sizeof(LockDecision) && gp.is_write()) {
        decisions_.post_in(from_bytes<LockDecision>(p), delay);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    const uint64_t cpr_end = map::kSmCprTable + uint64_t(contexts_.size()) * map::kCprBytes;
    if (a >= map::kSmCprTable && a + n <= cpr_end && gp.is_write()) {  // the WLM sets a kernel's CPRs
        for (unsigned i = 0; i < n; ++i) {
            const uint64_t off = a - map::kSmCprTable + i;
            contexts_[off / map::kCprBytes].cpr[off % map::kCprBytes] = p[i];
        }
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    const uint64_t ctx_end = map::kSmIsuContext + uint64_t(contexts_.size()) * sizeof(IsuContext);
    if (a >= map::kSmIsuContext && a + n <= ctx_end && (gp.is_write() || gp.is_read())) {
        const uint64_t off = a - map::kSmIsuContext;
        for (unsigned i = 0; i < n;) {  // a run of bytes per context
            KernelContext& c = contexts_[(off + i) / sizeof(IsuContext)];
            auto* image = reinterpret_cast<unsigned char*>(&c.regs);
            const size_t at = (off + i) % sizeof(IsuContext);
            const unsigned run = unsigned(std::min<uint64_t>(n - i, sizeof(IsuContext) - at));
            if (gp.is_write()) {
                std::memcpy(image + at, p + i, run);
                if (at == 0) {  // a new kernel in this context
                    c.reported = 0;
                    launch_->kernel_loaded(uint32_t(&c - contexts_.data()));
                    c.cpr.fill(0);  // all warps equal unless the WLM writes the kernel's CPRs
                }
            } else {
                std::memcpy(p + i, image + at, run);
            }
            i += run;
        }
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (gp.is_read() && transport_dbg(0, gp) == n) gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned StreamingMultiprocessor::transport_dbg(int, tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    const unsigned n = gp.get_data_length();
    unsigned char* p = gp.get_data_ptr();
    const uint64_t ctx_end = map::kSmIsuContext + uint64_t(contexts_.size()) * sizeof(IsuContext);
    if (a >= map::kSmIsuContext && a + n <= ctx_end) {
        for (unsigned i = 0; i < n; ++i) {
            uint64_t off = a - map::kSmIsuContext + i;
            auto* image = reinterpret_cast<unsigned char*>(&contexts_[off / sizeof(IsuContext)].regs);
            if (gp.is_read()) p[i] = image[off % sizeof(IsuContext)];
            else if (gp.is_write()) image[off % sizeof(IsuContext)] = p[i];
        }
        return n;
    }
    const uint64_t cpr_end = map::kSmCprTable + uint64_t(contexts_.size()) * map::kCprBytes;
    if (gp.is_read() && a >= map::kSmCprTable && a + n <= cpr_end) {
        for (unsigned i = 0; i < n; ++i) {
            const uint64_t off = a - map::kSmCprTable + i;
            p[i] = contexts_[off / map::kCprBytes].cpr[off % map::kCprBytes];
        }
        return n;
    }
    // M2: the CPRs of each block row's warps (the arbiter reads them with b_transport).
    if (gp.is_read() && a >= map::kSmCpr && a + n <= map::kSmCpr + 2 * uint64_t(cfg_.warp_slots) * map::kCprBytes) {
        for (unsigned i = 0; i < n; ++i) {
            const uint64_t off = a - map::kSmCpr + i;
            const size_t row = off / map::kCprBytes, warp = off % map::kCprBytes;
            p[i] = row < blocks_.size() && block_used_[row] ? locks_.cpr(uint32_t(row), uint32_t(warp)) : 0;
        }
        return n;
    }
    if (gp.is_read() && a >= map::kSmShared && a + n <= map::kSmShared + shared_.size()) {
        std::memcpy(p, shared_.data() + (a - map::kSmShared), n);
        return n;
    }
    // Rows: twice the warp slots (a block bound to a second SM holds no slot yet).
    const uint64_t table_end = map::kSmBlockTable + 2 * uint64_t(cfg_.warp_slots) * sizeof(BlockRow);
    if (gp.is_read() && a >= map::kSmBlockTable && a + n <= table_end) {
        for (unsigned i = 0; i < n; ++i) {
            uint64_t off = a - map::kSmBlockTable + i;
            size_t row = off / sizeof(BlockRow);
            BlockRow r{};
            if (row < blocks_.size() && block_used_[row]) r = blocks_[row].row;
            p[i] = reinterpret_cast<const unsigned char*>(&r)[off % sizeof(BlockRow)];
        }
        return n;
    }
    return 0;
}

// --- The SM logic controller and the issue scheduler --------------------------------------

sc_time StreamingMultiprocessor::cycle(const sc_time& now) {
    cycle_ = clock_.cycle_at_or_after(now);
    issue_.release(cycle_);
    while (arrivals_.due(now)) {
        const BlockDescriptor d = arrivals_.pop();
        size_t i = std::find(block_used_.begin(), block_used_.end(), false) - block_used_.begin();
        if (i == blocks_.size()) {
            blocks_.emplace_back();
            block_used_.push_back(false);
        }
        Block& b = blocks_[i];
        b = Block{};
        b.desc = d;
        b.arrival = arrivals_seen_++;
        const uint16_t syncs = contexts_[d.kernel_slot % contexts_.size()].regs.syncs;
        b.has_barrier = (syncs & kSyncBarrier) || (multilevel_ && (syncs & kSyncWorkgroupWrite));
        b.whole_start = multilevel_ && (syncs & kSyncKernelWrite);
        locks_.block_arrived(uint32_t(i), contexts_[d.kernel_slot % contexts_.size()].cpr, d.warps);
        unstarted_warps_ += d.warps;
        needed_regs_ += uint64_t(d.warps) * d.regs_per_warp;
        needed_shared_ += d.shared_bytes;
        highest_priority_ = std::min(highest_priority_, d.priority);
        if (multilevel_) scalars_.block_arrived(uint32_t(i));
        b.row = BlockRow{d.kernel_slot, d.priority, d.block_id, d.warps * d.regs_per_warp,
                         d.shared_bytes, d.warps, 0};
        block_used_[i] = true;
        if (d.warps > 0)
            open_rows_.insert(std::upper_bound(open_rows_.begin(), open_rows_.end(), uint32_t(i)), uint32_t(i));
        status_dirty_ = true;
        if (observer_) observer_->block_started(d.kernel_slot, d.block_id, id_, now);
        table_changed(b, now);
    }
    // M3: after the arrivals (the GLC writes a kernel's last block before saying it was the last).
    while (drained_.due(now)) {
        const uint32_t kernel_slot = drained_.pop();
        if (multilevel_) scalars_.kernel_drained(kernel_slot, now);
    }
    while (decisions_.due(now)) locks_.decision(decisions_.pop(), now);
    if (locks_.trying()) locks_.check_watchdog(now);
    admit(now);
    for (uint32_t slot; (slot = issue_.pick_fetch()) != IssueScheduler::kNone;) fetch(slot, now);
    for (unsigned issued = 0; issued < cfg_.issue_width;) {
        const uint32_t slot = issue_.pick();
        if (slot == IssueScheduler::kNone) break;
        if (warps_[slot].waiting()) continue;  // stopped by a unit while it was ready
        if (step(slot, now)) {
            issue_.issued(slot);
            ++issued;
        }
    }
    admit(now);
    if (status_dirty_) send_status();  // after the logic controller has started what it can
    if (scalars_.stalled() && issue_.empty() && arrivals_.empty() && drained_.empty() && decisions_.empty() &&
        !locks_.trying())
        scalars_.check_deadlock(now);
    // The next edge with work: a warp ready, a block or decision arriving, the watchdog's look.
    uint64_t next = issue_.has_due() ? cycle_ + 1 : issue_.next_cycle();
    if (!arrivals_.empty()) next = std::min(next, clock_.cycle_at_or_after(arrivals_.next()));
    if (!decisions_.empty()) next = std::min(next, clock_.cycle_at_or_after(decisions_.next()));
    if (!drained_.empty()) next = std::min(next, clock_.cycle_at_or_after(drained_.next()));
    if (locks_.trying() && cfg_.lock_watchdog_cycles > 0)  // M2: the watchdog looks again then
        next = std::min(next, std::max(clock_.cycle_at_or_after(locks_.watchdog_at()), cycle_ + 1));
    if (next == IssueScheduler::kNever) return sc_core::sc_max_time();
    return next - cycle_ < 16 ? now + clock_.cycles(next - cycle_) : clock_.edge(next);  // (now is edge cycle_)
}

void StreamingMultiprocessor::start_warps(const sc_time& now) {
    while (free_slots_ > 0 && unstarted_warps_ > 0) {
        Block* b = pick_block();
        if (!b) return;
        if (!b->holds_shared) {
            const std::optional<uint32_t> base = shared_.allocate(b->desc.shared_bytes);
            if (base) {
                free_shared_ -= b->desc.shared_bytes;
                needed_shared_ -= b->desc.shared_bytes;
                b->holds_shared = true;
                b->shared_base = *base;
                b->row.shared_needed = 0;
            } else {
                // Not enough shared memory in one piece yet: the blocks already started go on.
                b = pick_block(true);
                if (!b) return;
            }
        }
        if (free_regs_ < b->desc.regs_per_warp) return;
        // M3: the block's scalars are reserved when its first warp really starts (a block that
        // held a reservation without starting could keep a higher-priority one out for ever).
        if (multilevel_ && !scalars_.reserve(uint32_t(b - blocks_.data()))) {
            b = pick_block(true);  // no pool room for it yet: the blocks already started go on
            if (!b || free_regs_ < b->desc.regs_per_warp) return;
        }
        start_warp(uint32_t(b - blocks_.data()), now);
    }
}

void StreamingMultiprocessor::start_warp(uint32_t bi, const sc_time& now) {
    Block& b = blocks_[bi];
    const uint32_t slot = idle_slots_.back();
    idle_slots_.pop_back();
    Warp& w = warps_[slot];
    w.active = true;
    w.at_barrier = false;
    w.block = bi;
    w.index = b.next_warp++;
    if (b.next_warp == b.desc.warps) close_row(bi);
    --unstarted_warps_;
    needed_regs_ -= b.desc.regs_per_warp;
    w.pc = contexts_[b.desc.kernel_slot].regs.pc;
    w.start = now;
    issue_.placed(slot, cycle_);
    w.loop_depth = 0;
    w.started = false;
    w.global_base = w.global_size = 0;
    w.accesses = w.instructions = 0;
    locks_.warp_started(slot, bi, w.index);
    w.slice_scalars = w.pool_stall = w.sync_wait = false;
    if (multilevel_) scalars_.warp_started(slot);
    free_regs_ -= b.desc.regs_per_warp;
    --free_slots_;
    b.row.regs_needed -= b.desc.regs_per_warp;
    --b.row.undispatched_warps;
    ++b.row.running_warps;
    if (resident_warps_++ == 0) busy_since_ = now;
    stats_.resident_warps_max = std::max(stats_.resident_warps_max, resident_warps_);
    ++stats_.warps_run;
    report(b.desc.kernel_slot, Stage::first_warp_started, now);
    make_ready_after(slot, now, cfg_.warp_launch_cycles);
    table_changed(b, now);
}

void StreamingMultiprocessor::make_ready(uint32_t slot, const sc_time& at) {
    Warp& w = warps_[slot];
    w.ready_at = at;
    issue_.make_ready(slot, clock_.cycle_at_or_after(at), !w.retaking && !buffered(w));
}

void StreamingMultiprocessor::make_ready_after(uint32_t slot, const sc_time& now, uint32_t cycles) {
    Warp& w = warps_[slot];
    w.ready_at = now + clock_.cycles(cycles);
    issue_.make_ready(slot, cycle_ + cycles, !w.retaking && !buffered(w));  // (now is edge cycle_: no division)
}

void StreamingMultiprocessor::fetch(uint32_t slot, const sc_time& now) {
    Warp& w = warps_[slot];
    if (w.waiting()) return;  // stopped by a unit while it was ready
    if (ensure_fetched(w, now)) {  // usable now (the line ahead asked for): it may issue this cycle
        w.ready_at = now;
        issue_.make_ready(slot, cycle_);
    } else if (w.ready_at <= now) {
        fail(slot, KernelError::fetch_fault, now, w.pc);  // the fetch failed
    }
}

StreamingMultiprocessor::IbufLine* StreamingMultiprocessor::ensure_fetched(Warp& w, const sc_time& now) {
    const uint64_t line = w.pc & ~line_mask_;
    auto fetch = [&](IbufLine& l, uint64_t address) {
        const uint32_t kslot = blocks_[w.block].desc.kernel_slot;
        sc_time d = core_clock_.annotation();
        drop_line(l);
        ++stats_.fetches;
        report(kslot, Stage::first_fetch_issued, now);
        if (transport(to_l1i, gp_, tlm::TLM_READ_COMMAND, address, fetched_.data(), line_bytes_, d) !=
            tlm::TLM_OK_RESPONSE)
            return false;
        l.address = address;
        l.image = lines_.intern(address, fetched_.data());
        l.ready_at = stamp() + d;
        report(kslot, Stage::first_fetch_returned, l.ready_at);
        return true;
    };
    IbufLine* cur = w.ibuf[0].address == line ? &w.ibuf[0] : w.ibuf[1].address == line ? &w.ibuf[1] : nullptr;
    if (!cur) {  // a miss in the instruction buffer: fetch this line and the next
        if (!fetch(w.ibuf[0], line)) return nullptr;
        fetch(w.ibuf[1], line + line_bytes_);
        cur = &w.ibuf[0];
        if (!w.started) {  // the ISU's first fetch: the launch path may send more beside it (M5)
            w.started = true;
            const uint32_t kslot = blocks_[w.block].desc.kernel_slot;
            cur->ready_at = launch_->first_fetch(kslot, contexts_[kslot].regs, now, cur->ready_at);
        }
    } else {
        IbufLine& other = cur == &w.ibuf[0] ? w.ibuf[1] : w.ibuf[0];
        if (other.address != line + line_bytes_) fetch(other, line + line_bytes_);  // prefetch ahead
    }
    if (cur->ready_at > now) {
        make_ready(uint32_t(&w - warps_.data()), cur->ready_at);
        return nullptr;
    }
    return cur;
}

bool StreamingMultiprocessor::read_l1d(uint64_t line, sc_time& acknowledged) {
    sc_time d = core_clock_.annotation();
    ++stats_.kernarg_prefetches;
    if (transport(to_l1d, gp_, tlm::TLM_READ_COMMAND, line, scratch_.data(), line_bytes_, d) != tlm::TLM_OK_RESPONSE)
        return false;
    acknowledged = stamp() + d;
    return true;
}

bool StreamingMultiprocessor::step(uint32_t slot, const sc_time& now) {
    Warp& w = warps_[slot];
    if (w.retaking) {  // M2: taking back the locks released at the hold limit comes first
        if (w.slice_scalars) scalars_.slices_done(slot, now);  // (M3: its last instruction's slices have ended)
        locks_.retake(slot, now);
        return true;
    }
    const IbufLine* l = fetched_line(w, now);
    if (!l) {
        if (w.ready_at <= now) fail(slot, KernelError::fetch_fault, now, w.pc);  // the fetch failed
        return false;
    }
    uint64_t word;
    std::memcpy(&word, lines_.bytes(l->image) + (w.pc & line_mask_), sizeof word);
    execute(slot, w, Instruction::decode(word), now);
    return true;
}

void StreamingMultiprocessor::execute(uint32_t slot, Warp& w, const Instruction& in, const sc_time& now) {
    Block& b = blocks_[w.block];
    // M3: the slices of the warp's last instruction have ended; a scalar instruction needs its
    // level's registers first, and without them the warp stalls (before the M2 counter counts it).
    if (w.slice_scalars) scalars_.slices_done(slot, now);
    if (in.op == Opcode::salu && multilevel_ && !scalars_.ready(slot, in, now)) return;
    // M2: the counter thread counts what a warp holding locks executes (lock and unlock aside).
    if (w.holds_locks && in.op != Opcode::lock && in.op != Opcode::unlock && !locks_.count_held_instruction(slot, now))
        return;
    ++stats_.instructions;
    ++w.instructions;
    if (!w.holds_locks && in.op != Opcode::lock && in.op != Opcode::unlock) ++progress_;  // (no locks to take back: step did that first)
    report(b.desc.kernel_slot, Stage::first_instruction_issued, now);
    uint32_t after = 1;  // cycles until the warp may issue again; a memory access sets w.ready_at instead
    uint64_t next_pc = w.pc + kInstructionBytes;
    switch (in.op) {
    case Opcode::end:
        if (w.holds_locks) return fail(slot, KernelError::lock_misuse, now, w.pc);
        finish_warp(slot, now);
        return;
    case Opcode::salu:
        if (multilevel_ && scalars_.sync_before_update(slot, in, now)) return;
        after = std::max<uint32_t>(1, in.a);
        break;
    case Opcode::valu:
        after = std::max<uint32_t>(1, in.a);
        break;
    case Opcode::load:
    case Opcode::store:
    case Opcode::kernarg_load:
        memory_access(w, b, in, now);
        if (!w.active) return;
        w.pc = next_pc;
        return make_ready(slot, w.ready_at);
    case Opcode::barrier:
        if (w.holds_locks) return fail(slot, KernelError::lock_misuse, now, w.pc);
        w.pc = next_pc;
        w.at_barrier = true;
        b.barrier_waiters.push_back(slot);
        if (++b.at_barrier == b.desc.warps - b.done_warps) release_barrier(b, now);
        return;
    case Opcode::loop_begin:
        if (w.loop_depth == kMaxLoopDepth) return fail(slot, KernelError::loop_overflow, now);
        w.loops[w.loop_depth++] = LoopFrame{next_pc, std::max<uint32_t>(1, in.b)};
        break;
    case Opcode::loop_end: {
        if (w.loop_depth == 0 || w.loops[w.loop_depth - 1].body_pc + uint64_t(in.a) * kInstructionBytes != w.pc)
            return fail(slot, KernelError::illegal_instruction, now, w.pc);
        LoopFrame& f = w.loops[w.loop_depth - 1];
        if (--f.remaining > 0) next_pc = f.body_pc;
        else --w.loop_depth;
        break;
    }
    case Opcode::if_warp:
        if (w.index >= 32 || !(in.b >> w.index & 1)) next_pc += uint64_t(in.a) * kInstructionBytes;
        break;
    case Opcode::lock:
        return locks_.execute_lock(slot, in.a, now);
    case Opcode::unlock:
        return locks_.execute_unlock(slot, in.a, now);
    default:
        return fail(slot, KernelError::illegal_instruction, now, w.pc);
    }
    w.pc = next_pc;
    make_ready_after(slot, now, after);
}

void StreamingMultiprocessor::memory_access(Warp& w, Block& b, const Instruction& in, const sc_time& now) {
    const KernelContext& ctx = contexts_[b.desc.kernel_slot];
    const uint32_t slot = uint32_t(&w - warps_.data());
    const bool is_load = in.op != Opcode::store;
    uint64_t address = 0;
    uint32_t bytes = in.b;
    if (in.op == Opcode::kernarg_load) {
        address = ctx.regs.kernarg_ptr;
        bytes = std::min<uint32_t>(ctx.regs.kernarg_size, uint32_t(scratch_.size()));
    } else if (Space(in.mod & 3) == Space::shared) {
        w.ready_at = now + clock_.cycles(cfg_.shared_latency_cycles);
        ++w.accesses;
        return;
    } else if (Space(in.mod & 3) == Space::kernarg) {
        bytes = std::min(bytes, ctx.regs.kernarg_size);
        uint64_t chunks = bytes ? ctx.regs.kernarg_size / bytes : 0;
        address = ctx.regs.kernarg_ptr + (chunks ? (w.accesses % chunks) * bytes : 0);
    } else {
        if (w.global_size == 0) return fail(slot, KernelError::no_global_buffer, now);
        bytes = uint32_t(std::min<uint64_t>(bytes, w.global_size));
        const uint64_t chunks = bytes ? quotient(w.global_size, bytes) : 0;  // (a 0-byte access has no address)
        const uint64_t n = b.desc.block_id * b.desc.warps + w.index + w.accesses * 7919;
        address = w.global_base + (chunks ? remainder(n, chunks) * bytes : 0);
    }
    ++w.accesses;
    if (bytes == 0) {
        w.ready_at = now + clock_.cycles(1);
        if (in.op == Opcode::kernarg_load) report(b.desc.kernel_slot, Stage::kernarg_load_done, w.ready_at);
        return;
    }
    sc_time d = core_clock_.annotation();
    if (transport(to_l1d, gp_, is_load ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND, address,
                  scratch_.data(), bytes, d) != tlm::TLM_OK_RESPONSE)
        return fail(slot, KernelError::memory_fault, now, address);
    w.ready_at = std::max(stamp() + d, now + clock_.cycles(1));
    if (in.op == Opcode::kernarg_load) {
        if (bytes >= 16) {
            std::memcpy(&w.global_base, &scratch_[0], 8);
            std::memcpy(&w.global_size, &scratch_[8], 8);
        }
        report(b.desc.kernel_slot, Stage::kernarg_load_done, w.ready_at);
    }
}

void StreamingMultiprocessor::release_barrier(Block& b, const sc_time& now) {
    for (uint32_t s : b.barrier_waiters) {
        warps_[s].at_barrier = false;
        make_ready(s, now + clock_.cycles(1));
    }
    b.barrier_waiters.clear();
    b.at_barrier = 0;
}

void StreamingMultiprocessor::fail(uint32_t slot, KernelError e, const sc_time& now, uint64_t address) {
    Block& b = blocks_[warps_[slot].block];
    if (b.error == KernelError::none) {
        b.error = e;
        // Warps of the block not started yet never will: count them as done (the next status
        // notice no longer counts their needs).
        const uint32_t never = b.desc.warps - b.next_warp;
        if (never > 0) close_row(uint32_t(&b - blocks_.data()));
        b.next_warp = b.desc.warps;
        unstarted_warps_ -= never;
        needed_regs_ -= uint64_t(never) * b.desc.regs_per_warp;
        b.done_warps += never;
        b.row.undispatched_warps = 0;
        b.row.regs_needed = 0;
        SmNotice n{};
        n.kind = NoticeKind::error;
        n.kernel_slot = b.desc.kernel_slot;
        n.error = uint32_t(e);
        n.block_id = b.desc.block_id;
        n.fault_address = address;
        send_notice(n);
    }
    finish_warp(slot, now);
}

std::vector<WarpRecord> StreamingMultiprocessor::resident_warps(const sc_time& now) const {
    std::vector<WarpRecord> out;
    for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
        const Warp& w = warps_[slot];
        if (!w.active) continue;
        const Block& b = blocks_[w.block];
        out.push_back(WarpRecord{id_, slot, b.desc.kernel_slot, b.desc.block_id, w.index, w.start, now, w.instructions,
                                 locks_.cpr_of(slot), locks_.took_locks(slot)});
    }
    return out;
}

void StreamingMultiprocessor::finish_warp(uint32_t slot, const sc_time& now) {
    Warp& w = warps_[slot];
    const uint32_t bi = w.block;
    Block& b = blocks_[bi];
    locks_.warp_left(slot, now);
    if (multilevel_) scalars_.warp_left(slot, now);
    if (observer_)
        observer_->warp_finished(WarpRecord{id_, slot, b.desc.kernel_slot, b.desc.block_id, w.index, w.start, now,
                                            w.instructions, locks_.cpr_of(slot), locks_.took_locks(slot)});
    w.active = false;
    w.at_barrier = false;
    issue_.left(slot);
    for (IbufLine& l : w.ibuf) drop_line(l);  // (its slot starts the next warp with an empty buffer)
    // Kept in descending order, so the lowest free slot is reused first.
    idle_slots_.insert(std::upper_bound(idle_slots_.begin(), idle_slots_.end(), slot, std::greater<>()), slot);
    free_regs_ += b.desc.regs_per_warp;
    ++free_slots_;
    if (--resident_warps_ == 0) stats_.busy += now - busy_since_;
    ++b.done_warps;
    --b.row.running_warps;
    status_dirty_ = true;
    // A warp that ended releases the barrier its block waits at, if it was the last one missing
    // (and the syncs before scalar updates, M3).
    if (b.at_barrier > 0 && b.at_barrier == b.desc.warps - b.done_warps) release_barrier(b, now);
    if (multilevel_) scalars_.sharers_left(bi, now);
    if (b.done_warps < b.desc.warps) {
        table_changed(b, now);
        return;
    }
    // The block is done: its shared memory goes back, its row is freed.
    if (b.holds_shared) {
        free_shared_ += b.desc.shared_bytes;
        shared_.free(b.shared_base, b.desc.shared_bytes);
    } else {
        needed_shared_ -= b.desc.shared_bytes;
    }
    if (multilevel_) scalars_.block_left(bi, now);
    block_used_[bi] = false;
    if (b.desc.priority == highest_priority_) highest_priority_ = highest_priority();
    ++stats_.blocks_run;
    if (observer_) observer_->block_finished(b.desc.kernel_slot, b.desc.block_id, id_, now);
    table_changed(b, now);
    SmNotice n{};
    n.kind = NoticeKind::block_done;
    n.kernel_slot = b.desc.kernel_slot;
    n.block_id = b.desc.block_id;
    send_notice(n);
}

// What the SM can still give new work, after its logic controller has started what it could:
// its free resources less what the blocks here still need (their warps not started yet, the
// shared memory of those that hold none yet).
void StreamingMultiprocessor::send_status() {
    auto less = [](uint32_t have, uint64_t need) { return uint32_t(have > need ? have - need : 0); };
    SmNotice n{};
    n.kind = NoticeKind::status;
    n.free_regs = less(free_regs_, needed_regs_);
    n.free_slots = less(free_slots_, unstarted_warps_);
    n.free_shared = std::min(less(free_shared_, needed_shared_), shared_.largest_hole());  // a block needs one piece
    n.highest_priority = highest_priority_;
    n.blocks_seen = arrivals_seen_;
    status_dirty_ = false;
    // The same values as the last notice change nothing in the GLC's tables (it has counted
    // every block up to blocks_seen already): not sent, unless the register tables are traced
    // (the GLC writes its row again then).
    const bool same = last_status_.kind == NoticeKind::status && n.free_regs == last_status_.free_regs &&
                      n.free_slots == last_status_.free_slots && n.free_shared == last_status_.free_shared &&
                      n.highest_priority == last_status_.highest_priority && n.blocks_seen == last_status_.blocks_seen;
    if (same && !(observer_ && observer_->wants_table_updates())) return;
    last_status_ = n;
    send_notice(n);
}

// The highest priority (lowest value) of the blocks here, from their rows.
uint32_t StreamingMultiprocessor::highest_priority() const {
    uint32_t p = kNoPriority;
    for (size_t i = 0; i < blocks_.size(); ++i)
        if (block_used_[i]) p = std::min(p, blocks_[i].desc.priority);
    return p;
}

void StreamingMultiprocessor::send_notice(SmNotice n) {
    n.sm = id_;
    sc_time d = core_clock_.annotation();  // posted: the GLC acts on it after the bus delay
    write_msg(to_glc, gp_, map::kGlcSmNotice, n, d);
}

void StreamingMultiprocessor::first_report(uint32_t kslot, Stage s, const sc_time& t) {
    contexts_[kslot].reported |= 1u << unsigned(s);
    if (observer_) observer_->kernel_stage(kslot, s, t);
}

void StreamingMultiprocessor::table_changed(const Block& b, const sc_time& t) {
    if (!observer_ || !observer_->wants_table_updates()) return;
    const uint64_t row = uint64_t(&b - blocks_.data());
    std::string v;
    if (!observer_->wants_table_values()) {
        // counted, not written: no text
    } else if (block_used_[row]) {
        v = "kernel " + std::to_string(b.row.kernel_slot) + " block " + std::to_string(b.row.block_id) + " prio " +
            std::to_string(b.row.priority) + " regs_needed " + std::to_string(b.row.regs_needed) +
            " undispatched_warps " + std::to_string(b.row.undispatched_warps) + " running " +
            std::to_string(b.row.running_warps);
    } else {
        v = "free";
    }
    observer_->table_update(TableSource{id_}, "block_status", row, v, t);
}

sc_time StreamingMultiprocessor::busy_time() const {
    return stats_.busy + (resident_warps_ ? sc_core::sc_time_stamp() - busy_since_ : sc_core::SC_ZERO_TIME);
}

}  // namespace gpuvp

namespace gpuvp {

void StreamingMultiprocessor::describe(std::vector<std::string>& out) const {
    const sc_time now = sc_core::sc_time_stamp();
    std::ostringstream head;
    head << tag_ << ": " << resident_warps_ << " warps resident, " << free_slots_ << " free warp slots, " << free_regs_
         << " free registers, " << free_shared_ << " bytes of shared memory free";
    if (locks_.trying()) head << ", " << locks_.trying_warps() << " warps trying locks";
    if (scalars_.stalled()) head << ", " << scalars_.stalled_warps() << " warps waiting for scalar registers";
    out.push_back(head.str());
    for (size_t i = 0; i < blocks_.size(); ++i) {
        if (!block_used_[i]) continue;
        const Block& b = blocks_[i];
        std::ostringstream o;
        o << tag_ << " block row " << i << ": kernel slot " << b.row.kernel_slot << ", block " << b.row.block_id
          << ", priority " << b.row.priority << ", " << b.row.running_warps << " warps running, "
          << b.row.undispatched_warps << " to start, " << b.done_warps << " done";
        if (b.at_barrier) o << ", " << b.at_barrier << " at the block barrier";
        if (b.row.regs_needed) o << ", needs " << b.row.regs_needed << " registers";
        if (b.row.shared_needed) o << ", needs " << b.row.shared_needed << " bytes of shared memory";
        out.push_back(o.str());
    }
    for (size_t s = 0; s < warps_.size(); ++s) {
        const Warp& w = warps_[s];
        if (!w.active) continue;
        const Block& b = blocks_[w.block];
        std::ostringstream o;
        o << tag_ << " warp slot " << s << ": kernel slot " << b.desc.kernel_slot << ", block " << b.desc.block_id
          << ", warp " << w.index << " (CPR " << unsigned(locks_.cpr_of(uint32_t(s))) << "), pc " << hex(w.pc) << ", "
          << w.instructions << " instructions";
        locks_.describe(uint32_t(s), o);
        if (w.at_barrier) o << ": waits at the block barrier";
        else if (w.pool_stall) o << ": waits for scalar registers";
        else if (w.sync_wait) o << ": waits for its sharers before a scalar update";
        else if (w.lock_wait == LockWait::arbiter) o << ": its lock request is with the arbiter";
        else if (w.lock_wait == LockWait::parked) o << ": parked until the lock is released";
        else if (w.lock_wait == LockWait::backoff) o << ": backing off until " << w.ready_at;
        else if (w.ready_at > now) o << ": busy until " << w.ready_at;
        else o << ": ready to issue";
        out.push_back(o.str());
    }
}

}  // namespace gpuvp

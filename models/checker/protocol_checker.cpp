#include <gpuvp/models/checker/protocol_checker.h>
#include <gpuvp/models/common/tlm_util.h>

#include <algorithm>
#include <sstream>

namespace gpuvp {

namespace {

std::string command_name(tlm::tlm_command c) {
    switch (c) {
    case tlm::TLM_READ_COMMAND: return "READ";
    case tlm::TLM_WRITE_COMMAND: return "WRITE";
    case tlm::TLM_IGNORE_COMMAND: return "IGNORE";
    }
    return "command " + std::to_string(int(c));
}

bool is_read_or_write(tlm::tlm_command c) { return c == tlm::TLM_READ_COMMAND || c == tlm::TLM_WRITE_COMMAND; }

// "WRITE 0x100 length 4", how every detail starts.
std::string describe(const tlm::tlm_generic_payload& gp) {
    return command_name(gp.get_command()) + " " + hex(gp.get_address()) + " length " +
           std::to_string(gp.get_data_length());
}

std::string access_name(tlm::tlm_dmi::dmi_access_e a) {
    switch (a) {
    case tlm::tlm_dmi::DMI_ACCESS_NONE: return "none";
    case tlm::tlm_dmi::DMI_ACCESS_READ: return "read";
    case tlm::tlm_dmi::DMI_ACCESS_WRITE: return "write";
    case tlm::tlm_dmi::DMI_ACCESS_READ_WRITE: return "read/write";
    }
    return "access " + std::to_string(int(a));
}

// Where the simulation is: a call that let time or a delta cycle pass has waited (a wait that
// resumes within the same evaluation phase cannot be seen).
struct Moment {
    sc_core::sc_time time = sc_core::sc_time_stamp();
    sc_dt::uint64 delta = sc_core::sc_delta_count();
    bool passed() const { return sc_core::sc_time_stamp() != time || sc_core::sc_delta_count() != delta; }
    std::string since() const {
        return "called at " + time.to_string() + " (delta " + std::to_string(delta) + "), returned at " +
               sc_core::sc_time_stamp().to_string() + " (delta " + std::to_string(sc_core::sc_delta_count()) + ")";
    }
};

}  // namespace

// ------------------------------------------------------------------------------------------
// The rules
// ------------------------------------------------------------------------------------------

const std::vector<std::pair<std::string, std::string>>& protocol_rules() {
    static const std::vector<std::pair<std::string, std::string>> rules = {
        // b_transport, as the initiator calls it
        {"response-status-initialised", "b_transport is called with the response status TLM_INCOMPLETE_RESPONSE"},
        {"dmi-hint-initialised", "b_transport is called with the DMI hint (dmi_allowed) false"},
        {"command-valid", "the command is TLM_READ_COMMAND, TLM_WRITE_COMMAND or TLM_IGNORE_COMMAND"},
        {"data-pointer-set", "a b_transport read or write has a non-null data pointer"},
        {"data-length-nonzero", "a b_transport read or write has a data length above 0"},
        {"streaming-width-nonzero", "a b_transport read or write has a streaming width above 0"},
        {"byte-enable-length-set", "a byte-enable pointer comes with a byte-enable length above 0"},
        {"address-range-no-wrap", "the bytes a read or write addresses do not wrap past the top of the 64-bit address space"},
        {"payload-not-in-flight", "a payload object is not passed to b_transport again before its earlier b_transport has returned"},
        {"b-transport-in-thread", "b_transport is not called from an SC_METHOD (a target may wait in it)"},
        // b_transport, as the target returns it
        {"response-status-set", "b_transport returns with a response status other than TLM_INCOMPLETE_RESPONSE"},
        {"timing-annotation-not-decreasing", "b_transport returns with sc_time_stamp() + delay no earlier than at the call"},
        {"attributes-unchanged", "b_transport returns with command, data pointer, data length, byte-enable pointer and length and streaming width as the initiator set them"},
        {"write-data-unchanged", "b_transport of a write returns with the data array unchanged"},
        // debug transport
        {"debug-data-pointer-set", "a transport_dbg read or write with a data length above 0 has a non-null data pointer"},
        {"debug-count-within-length", "transport_dbg returns a byte count no larger than the data length"},
        {"debug-no-wait", "transport_dbg returns without simulated time or a delta cycle passing"},
        // DMI
        {"dmi-descriptor-initialised", "get_direct_mem_ptr is given a DMI descriptor in its initial state (tlm_dmi::init())"},
        {"dmi-pointer-set", "get_direct_mem_ptr returning true gives a non-null DMI pointer"},
        {"dmi-region-valid", "get_direct_mem_ptr returning true gives a region with start <= end that holds the requested address"},
        {"dmi-access-granted", "get_direct_mem_ptr returning true grants what was asked: read for a read, write for a write (read/write for either), some access for IGNORE"},
        {"dmi-no-wait", "get_direct_mem_ptr and invalidate_direct_mem_ptr return without simulated time or a delta cycle passing"},
    };
    return rules;
}

// ------------------------------------------------------------------------------------------
// ProtocolLog
// ------------------------------------------------------------------------------------------

void ProtocolLog::violation(ProtocolViolation v) {
    ++total_violations_;
    ++per_rule_[v.rule];
    if (warnings_ && warned_.emplace(v.checker, v.rule).second) {
        std::string msg = v.checker + ": " + v.rule + ": " + v.detail + " (further violations of this rule here are recorded without a warning)";
        SC_REPORT_WARNING(kReportType, msg.c_str());
    }
    if (violations_.size() < limit_) violations_.push_back(std::move(v));
}

uint64_t ProtocolLog::count(const std::string& rule) const {
    auto it = per_rule_.find(rule);
    return it == per_rule_.end() ? 0 : it->second;
}

std::string ProtocolLog::summary() const {
    std::ostringstream s;
    s << "TLM-2.0 base protocol: " << checkers() << " checkers, " << transactions_ << " b_transport, "
      << debug_transactions_ << " transport_dbg, " << dmi_requests_ << " DMI requests (" << dmi_grants_
      << " granted), " << invalidations_ << " DMI invalidations, " << nb_transport_calls_
      << " nb_transport calls (not checked); " << total_violations_ << " violations\n";
    for (const auto& [rule, n] : per_rule_) {
        s << "  " << rule << ": " << n;
        for (const ProtocolViolation& v : violations_)
            if (v.rule == rule) {
                s << " (first: " << v.checker << " at " << v.at << ": " << v.detail << ")";
                break;
            }
        s << "\n";
    }
    return s.str();
}

// ------------------------------------------------------------------------------------------
// ProtocolChecker
// ------------------------------------------------------------------------------------------

ProtocolChecker::ProtocolChecker(sc_core::sc_module_name name, ProtocolLog& log)
    : sc_module(name), in("in"), out("out"), log_(log) {
    in.bind(*this);
    out.bind(*this);
    log_.add_checker(this->name());
}

void ProtocolChecker::report(const char* rule, std::string detail) {
    log_.violation({name(), rule, std::move(detail), sc_core::sc_time_stamp()});
}

// What the initiator owes the target when it calls b_transport (clause 14: the attributes'
// initial values; 11.1.1: the caller's process).
void ProtocolChecker::check_request(const tlm::tlm_generic_payload& gp) {
    const tlm::tlm_command cmd = gp.get_command();
    auto what = [&] { return describe(gp); };  // built only for a violation
    if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
        report("response-status-initialised", what() + ": called with response status " + gp.get_response_string());
    if (gp.is_dmi_allowed()) report("dmi-hint-initialised", what() + ": called with the DMI hint set");
    if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND && cmd != tlm::TLM_IGNORE_COMMAND)
        report("command-valid", what() + ": b_transport of an unknown command");
    if (is_read_or_write(cmd)) {
        if (!gp.get_data_ptr()) report("data-pointer-set", what() + ": null data pointer");
        if (gp.get_data_length() == 0) report("data-length-nonzero", what() + ": data length 0");
        if (gp.get_streaming_width() == 0) report("streaming-width-nonzero", what() + ": streaming width 0");
        // A streamed burst covers [address, address + streaming width - 1] again and again.
        const uint64_t span = gp.get_streaming_width() ? std::min(gp.get_streaming_width(), gp.get_data_length())
                                                       : gp.get_data_length();
        if (span > 0 && gp.get_address() + (span - 1) < gp.get_address())
            report("address-range-no-wrap", what() + ": " + std::to_string(span) + " bytes from " +
                                                hex(gp.get_address()) + " wrap past " + hex(~uint64_t(0)));
    }
    if (gp.get_byte_enable_ptr() && gp.get_byte_enable_length() == 0)
        report("byte-enable-length-set", what() + ": byte-enable pointer with byte-enable length 0");
    if (std::find(in_flight_.begin(), in_flight_.end(), &gp) != in_flight_.end())
        report("payload-not-in-flight", what() + ": this payload object's earlier b_transport has not returned");
    const sc_core::sc_process_handle caller = sc_core::sc_get_current_process_handle();
    if (caller.proc_kind() == sc_core::SC_METHOD_PROC_)
        report("b-transport-in-thread", what() + ": called from SC_METHOD " + std::string(caller.name()));
}

// What the target (and everything between) owes the initiator when b_transport returns.
void ProtocolChecker::check_response(const tlm::tlm_generic_payload& gp, const Request& sent,
                                     const std::vector<unsigned char>& write_data) {
    auto what = [&] {
        return command_name(sent.command) + " " + hex(gp.get_address()) + " length " + std::to_string(sent.length);
    };
    if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
        report("response-status-set", what() + ": returned with TLM_INCOMPLETE_RESPONSE");
    std::string changed;
    auto note = [&](bool differs, const char* attribute) {
        if (differs) changed += (changed.empty() ? "" : ", ") + std::string(attribute);
    };
    note(gp.get_command() != sent.command, "command");
    note(gp.get_data_ptr() != sent.data, "data pointer");
    note(gp.get_data_length() != sent.length, "data length");
    note(gp.get_byte_enable_ptr() != sent.byte_enables, "byte-enable pointer");
    note(gp.get_byte_enable_length() != sent.byte_enable_length, "byte-enable length");
    note(gp.get_streaming_width() != sent.streaming_width, "streaming width");
    if (!changed.empty()) report("attributes-unchanged", what() + ": returned with a different " + changed);
    if (!write_data.empty() && gp.get_data_ptr() == sent.data && gp.get_data_length() == sent.length &&
        !std::equal(write_data.begin(), write_data.end(), sent.data)) {
        size_t i = 0;
        while (write_data[i] == sent.data[i]) ++i;
        report("write-data-unchanged", what() + ": data byte " + std::to_string(i) + " changed from " +
                                           hex(write_data[i]) + " to " + hex(sent.data[i]));
    }
}

void ProtocolChecker::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++transactions_;
    ++log_.transactions_;
    check_request(gp);

    const Request sent{gp.get_command(),         gp.get_data_ptr(),           gp.get_data_length(),
                       gp.get_byte_enable_ptr(), gp.get_byte_enable_length(), gp.get_streaming_width()};
    std::vector<unsigned char> write_data;
    if (sent.command == tlm::TLM_WRITE_COMMAND && sent.data) write_data.assign(sent.data, sent.data + sent.length);
    const sc_core::sc_time called_at = sc_core::sc_time_stamp(), delay_in = delay;

    // Taken off the list however the call ends (a target may throw).
    struct InFlight {
        std::vector<const tlm::tlm_generic_payload*>& list;
        const tlm::tlm_generic_payload* gp;
        ~InFlight() { list.erase(std::find(list.begin(), list.end(), gp)); }
    } in_flight{in_flight_, &gp};
    in_flight_.push_back(&gp);

    out->b_transport(gp, delay);

    check_response(gp, sent, write_data);
    // The transaction's end, as annotated, cannot come before its start: a target may wait and
    // take time off the delay, but not more than it waited.
    if (sc_core::sc_time_stamp() + delay < called_at + delay_in)
        report("timing-annotation-not-decreasing",
               command_name(sent.command) + " " + hex(gp.get_address()) + ": called at " + called_at.to_string() +
                   " with delay " + delay_in.to_string() + ", returned at " + sc_core::sc_time_stamp().to_string() +
                   " with delay " + delay.to_string() + " (" + (sc_core::sc_time_stamp() + delay).to_string() +
                   " < " + (called_at + delay_in).to_string() + ")");
}

unsigned int ProtocolChecker::transport_dbg(tlm::tlm_generic_payload& gp) {
    ++debug_transactions_;
    ++log_.debug_transactions_;
    const tlm::tlm_command cmd = gp.get_command();
    auto what = [&] { return "transport_dbg " + describe(gp); };
    const unsigned length = gp.get_data_length();
    if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND && cmd != tlm::TLM_IGNORE_COMMAND)
        report("command-valid", what() + ": unknown command");
    if (is_read_or_write(cmd) && length > 0 && !gp.get_data_ptr())
        report("debug-data-pointer-set", what() + ": null data pointer");

    const Moment before;
    const unsigned n = out->transport_dbg(gp);
    if (before.passed()) report("debug-no-wait", what() + ": " + before.since());
    if (n > length) report("debug-count-within-length", what() + ": returned " + std::to_string(n) + " bytes");
    return n;
}

bool ProtocolChecker::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
    ++dmi_requests_;
    ++log_.dmi_requests_;
    const tlm::tlm_command cmd = gp.get_command();
    const uint64_t address = gp.get_address();
    auto what = [&] { return "get_direct_mem_ptr " + command_name(cmd) + " " + hex(address); };
    if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND && cmd != tlm::TLM_IGNORE_COMMAND)
        report("command-valid", what() + ": unknown command");
    // Targets and interconnects only narrow or add to the descriptor: it must start from init().
    std::string set;
    auto note = [&](bool differs, const char* field) {
        if (differs) set += (set.empty() ? "" : ", ") + std::string(field);
    };
    note(dmi.get_dmi_ptr() != nullptr, "pointer");
    note(!dmi.is_none_allowed(), "granted access");
    note(dmi.get_start_address() != 0, "start address");
    note(dmi.get_end_address() != ~sc_dt::uint64(0), "end address");
    note(dmi.get_read_latency() != sc_core::SC_ZERO_TIME, "read latency");
    note(dmi.get_write_latency() != sc_core::SC_ZERO_TIME, "write latency");
    if (!set.empty()) report("dmi-descriptor-initialised", what() + ": descriptor given with " + set + " already set");

    const Moment before;
    const bool ok = out->get_direct_mem_ptr(gp, dmi);
    if (before.passed()) report("dmi-no-wait", what() + ": " + before.since());
    if (!ok) return ok;

    ++log_.dmi_grants_;
    const uint64_t start = dmi.get_start_address(), end = dmi.get_end_address();
    const auto access = dmi.get_granted_access();
    auto region = [&] { return "[" + hex(start) + ", " + hex(end) + "] " + access_name(access); };
    if (!dmi.get_dmi_ptr()) report("dmi-pointer-set", what() + ": granted " + region() + " with a null pointer");
    if (start > end || address < start || address > end)
        report("dmi-region-valid", what() + ": granted " + region() + (start > end ? " (start above end)" : " (address outside)"));
    const bool enough = cmd == tlm::TLM_READ_COMMAND    ? dmi.is_read_allowed()
                        : cmd == tlm::TLM_WRITE_COMMAND ? dmi.is_write_allowed()
                        : cmd == tlm::TLM_IGNORE_COMMAND ? !dmi.is_none_allowed()
                                                         : true;
    if (!enough) report("dmi-access-granted", what() + ": returned true but granted " + region());

    if (dmi.get_dmi_ptr() && start <= end) {
        dmi_regions_.erase(std::remove_if(dmi_regions_.begin(), dmi_regions_.end(),
                                          [&](const DmiRegion& r) { return r.start == start && r.end == end; }),
                           dmi_regions_.end());
        dmi_regions_.push_back({start, end, access, dmi.get_dmi_ptr()});
    }
    return ok;
}

void ProtocolChecker::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
    ++invalidations_;
    ++log_.invalidations_;
    // Every region granted here that overlaps the range is gone, for the initiator as for us.
    dmi_regions_.erase(std::remove_if(dmi_regions_.begin(), dmi_regions_.end(),
                                      [&](const DmiRegion& r) { return r.start <= end && start <= r.end; }),
                       dmi_regions_.end());
    const Moment before;
    in->invalidate_direct_mem_ptr(start, end);
    if (before.passed())
        report("dmi-no-wait", "invalidate_direct_mem_ptr [" + hex(start) + ", " + hex(end) + "]: " + before.since());
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
    ++nb_transport_calls_;
    ++log_.nb_transport_calls_;
    return out->nb_transport_fw(gp, phase, delay);
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
    ++nb_transport_calls_;
    ++log_.nb_transport_calls_;
    return in->nb_transport_bw(gp, phase, delay);
}

}  // namespace gpuvp

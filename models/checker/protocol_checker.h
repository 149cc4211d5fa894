// A TLM-2.0 base-protocol checker (IEEE 1666-2011, clauses 11 and 14): an inline module between
// an initiator socket and a target socket. It forwards every call unchanged (same payload
// object, same delay object, same return value, no time added) and records what breaks the
// base protocol's rules for blocking transport, debug transport and DMI in a ProtocolLog.
// Non-blocking transport (nb_transport_fw/bw) is forwarded and counted, not checked.
#pragma once
#include <systemc>
#include <tlm>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpuvp {

struct ProtocolViolation {
    std::string checker;  // the checker's sc_module name (which connection)
    std::string rule;     // a stable id from protocol_rules(), e.g. "response-status-initialised"
    std::string detail;   // what was seen: command, address, length, times
    sc_core::sc_time at;  // simulation time when it was seen
};

// Collects what every checker of a platform sees. Owned by whoever builds the platform (no
// globals); it must outlive the checkers that report to it.
class ProtocolLog {
public:
    // Records a violation (the first `limit()` are kept with their detail, all are counted).
    // The first violation of each rule at each checker also issues SC_REPORT_WARNING (message
    // type kReportType) unless warnings are off; nothing stops the simulation.
    void violation(ProtocolViolation v);
    const std::vector<ProtocolViolation>& violations() const { return violations_; }
    uint64_t violation_count() const { return total_violations_; }  // kept or not
    uint64_t count(const std::string& rule) const;                  // violations of one rule
    bool clean() const { return total_violations_ == 0; }

    uint64_t transactions() const { return transactions_; }              // b_transport calls, all checkers
    uint64_t debug_transactions() const { return debug_transactions_; }  // transport_dbg calls
    uint64_t dmi_requests() const { return dmi_requests_; }              // get_direct_mem_ptr calls
    uint64_t dmi_grants() const { return dmi_grants_; }                  // ... that returned true
    uint64_t invalidations() const { return invalidations_; }            // invalidate_direct_mem_ptr calls
    uint64_t nb_transport_calls() const { return nb_transport_calls_; }  // forward and backward
    uint32_t checkers() const { return uint32_t(checker_names_.size()); }  // checkers registered
    const std::vector<std::string>& checker_names() const { return checker_names_; }

    void set_warnings(bool on) { warnings_ = on; }
    void set_limit(size_t kept) { limit_ = kept; }
    size_t limit() const { return limit_; }

    // A few lines for a closing report: the counts, then each rule broken (id, count, first detail).
    std::string summary() const;

    static constexpr const char* kReportType = "gpuvp/protocol_checker";

private:
    friend class ProtocolChecker;
    void add_checker(const std::string& name) { checker_names_.push_back(name); }

    std::vector<ProtocolViolation> violations_;
    std::map<std::string, uint64_t> per_rule_;
    std::set<std::pair<std::string, std::string>> warned_;  // (checker, rule)
    uint64_t total_violations_ = 0;
    uint64_t transactions_ = 0, debug_transactions_ = 0, dmi_requests_ = 0, dmi_grants_ = 0;
    uint64_t invalidations_ = 0, nb_transport_calls_ = 0;
    std::vector<std::string> checker_names_;
    bool warnings_ = true;
    size_t limit_ = 10000;
};

class ProtocolChecker : public sc_core::sc_module,
                        public tlm::tlm_fw_transport_if<>,
                        public tlm::tlm_bw_transport_if<> {
public:
    tlm::tlm_target_socket<32> in;      // bind the initiator's socket here
    tlm::tlm_initiator_socket<32> out;  // and this to the target's socket

    ProtocolChecker(sc_core::sc_module_name name, ProtocolLog& log);

    // A DMI region granted through this checker and not invalidated since.
    struct DmiRegion {
        uint64_t start, end;
        tlm::tlm_dmi::dmi_access_e access;
        unsigned char* pointer;
    };
    const std::vector<DmiRegion>& dmi_regions() const { return dmi_regions_; }

    // What this connection carried (the log has the sums over all checkers).
    uint64_t transactions() const { return transactions_; }
    uint64_t debug_transactions() const { return debug_transactions_; }
    uint64_t dmi_requests() const { return dmi_requests_; }
    uint64_t invalidations() const { return invalidations_; }
    uint64_t nb_transport_calls() const { return nb_transport_calls_; }

    // Forward path (from `in`, passed on through `out`).
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override;
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay) override;
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override;
    unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override;
    // Backward path (from `out`, passed on through `in`).
    tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay) override;
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override;

private:
    void report(const char* rule, std::string detail);
    // The attributes that only the initiator may set (the address excepted: an interconnect
    // may change it), as they were when b_transport was called.
    struct Request {
        tlm::tlm_command command;
        unsigned char* data;
        unsigned length;
        unsigned char* byte_enables;
        unsigned byte_enable_length;
        unsigned streaming_width;
    };
    void check_request(const tlm::tlm_generic_payload& gp);
    void check_response(const tlm::tlm_generic_payload& gp, const Request& sent,
                        const std::vector<unsigned char>& write_data);

    ProtocolLog& log_;
    std::vector<const tlm::tlm_generic_payload*> in_flight_;  // b_transport calls not yet returned
    std::vector<DmiRegion> dmi_regions_;
    uint64_t transactions_ = 0, debug_transactions_ = 0, dmi_requests_ = 0, invalidations_ = 0;
    uint64_t nb_transport_calls_ = 0;
};

// The rules a checker applies: each id with one line of explanation (docs/models/checker.md
// has the table with what is checked and the clause of IEEE 1666-2011).
const std::vector<std::pair<std::string, std::string>>& protocol_rules();

}  // namespace gpuvp

// Binds initiator sockets to target sockets, each directly or, given a ProtocolLog, through a
// ProtocolChecker of its own: how a platform puts a checker on every one of its connections.
#pragma once
#include <gpuvp/models/checker/protocol_checker.h>

#include <memory>
#include <string>
#include <vector>

namespace gpuvp {

class CheckedBindings {
public:
    explicit CheckedBindings(ProtocolLog* log = nullptr) : log_(log) {}

    // from.bind(to), or from -> checker -> to. The checker is created in the current module
    // (call this from a constructor) and named after both ends: "cp_mem__fabric_in".
    template <class Initiator, class Target>
    void operator()(Initiator& from, Target& to) {
        if (!log_) {
            from.bind(to);
            return;
        }
        const std::string name = label(from) + "__" + label(to);
        auto checker = std::make_unique<ProtocolChecker>(sc_core::sc_gen_unique_name(name.c_str()), *log_);
        from.bind(checker->in);
        checker->out.bind(to);
        checkers_.push_back(std::move(checker));
    }

    size_t checkers() const { return checkers_.size(); }

private:
    // "<module>_<socket>", brackets and dots (not allowed in a module's name) made '_'.
    static std::string label(const sc_core::sc_object& socket) {
        std::string s = socket.basename();
        if (const sc_core::sc_object* parent = socket.get_parent_object()) s = std::string(parent->basename()) + "_" + s;
        for (char& c : s)
            if (c == '.' || c == '[' || c == ']' || c == ' ') c = '_';
        return s;
    }

    ProtocolLog* log_;
    std::vector<std::unique_ptr<ProtocolChecker>> checkers_;
};

}  // namespace gpuvp

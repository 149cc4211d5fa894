// The five mechanisms' policies and the SM's issue order (a scenario's `policy.*`), one enum
// each, parsed once when the configuration is loaded. Each enum's names are written in one table, PolicyNameTable<E>: its
// index is the enum's value; the first name is the baseline (the default). The parameter
// table, the loader, the GPU's builder and the results all go through it. Other settings
// named by an enum (models/common/sm_config.h, firmware/workload.h) have their table beside
// the enum.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvp {

enum class DispatchPolicy : uint8_t { fifo, priority_block, priority_warp };        // M1
enum class LaunchPolicy : uint8_t { serial, prefetch };                             // M5
enum class LockPolicy : uint8_t { spin, priority };                                 // M2
enum class ScalarPolicy : uint8_t { per_warp, multilevel };                         // M3
enum class ShadingBalance : uint8_t { static_split, adaptive, adaptive_depth_first };  // M4
// Not a mechanism: the rule by which an SM picks among its ready warps (models/sm/issue_scheduler.h).
enum class IssuePolicy : uint8_t { gto, lrr };

template <class E>
struct PolicyNameTable;
template <>
struct PolicyNameTable<DispatchPolicy> {
    static constexpr std::array<const char*, 3> names{"fifo", "priority-block", "priority-warp"};
};
template <>
struct PolicyNameTable<LaunchPolicy> {
    static constexpr std::array<const char*, 2> names{"serial", "prefetch"};
};
template <>
struct PolicyNameTable<LockPolicy> {
    static constexpr std::array<const char*, 2> names{"spin", "priority"};
};
template <>
struct PolicyNameTable<ScalarPolicy> {
    static constexpr std::array<const char*, 2> names{"per-warp", "multilevel"};
};
template <>
struct PolicyNameTable<ShadingBalance> {
    static constexpr std::array<const char*, 3> names{"static", "adaptive", "adaptive-depth-first"};
};
template <>
struct PolicyNameTable<IssuePolicy> {
    static constexpr std::array<const char*, 2> names{"gto", "lrr"};
};

// enum -> name ("?" for a value outside the enum).
template <class E>
constexpr const char* policy_name(E e) {
    const auto& n = PolicyNameTable<E>::names;
    return size_t(e) < n.size() ? n[size_t(e)] : "?";
}

// name -> enum; nothing for a name not in the table.
template <class E>
std::optional<E> policy_from_name(std::string_view name) {
    const auto& n = PolicyNameTable<E>::names;
    for (size_t i = 0; i < n.size(); ++i)
        if (name == n[i]) return E(i);
    return std::nullopt;
}

// Every name, in the enum's order.
template <class E>
std::vector<std::string> policy_names() {
    const auto& n = PolicyNameTable<E>::names;
    return std::vector<std::string>(n.begin(), n.end());
}

}  // namespace gpuvp

// Helpers for tests that run whole scenarios (one run per process: one TEST_CASE each).
#pragma once
#include <gpuvp/firmware/host_driver.h>
#include <gpuvp/models/common/tlm_util.h>
#include "sc_main/run/run.h"
#include "sc_main/scenario/scenario.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_initiator_socket.h>

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

namespace gpuvp::test {

// The error loading `yaml` (as file t.yaml) gives; a test failure if it loads.
inline ScenarioError error_of(const std::string& yaml, const Overrides& overrides = {}) {
    try {
        parse_scenario(yaml, "t.yaml", overrides);
    } catch (const ScenarioError& e) {
        return e;
    }
    FAIL("no ScenarioError for:\n" << yaml);
    throw std::logic_error("unreachable");
}

struct Run {
    RunOutput out;
    nlohmann::json results;
    nlohmann::json trace;

    const nlohmann::json& kernel(const std::string& name) const {
        for (const auto& k : results["kernels"])
            if (k["name"] == name) return k;
        throw std::runtime_error("no kernel " + name);
    }
    double ms(const std::string& kernel_name, const std::string& milestone) const {
        return kernel(kernel_name)["milestones"][milestone].get<double>();
    }
};

inline Run run_yaml(const std::string& yaml, const Overrides& overrides = {}, bool trace = false) {
    Run r;
    r.out = run_scenario(parse_scenario(yaml, "test.yaml", overrides), RunOptions{trace});
    r.results = nlohmann::json::parse(r.out.results);
    if (trace) r.trace = nlohmann::json::parse(r.out.trace);
    return r;
}

// A platform with round numbers: 1 GHz (1 cycle = 1 ns) and latencies easy to add up.
inline const char* kRoundPlatform = R"(
platform:
  clock_mhz: 1000
  sms: 2
  bus_cycles: 2
  memory: {host_latency_ns: 200, link_latency_ns: 600, device_latency_ns: 300, l2_latency_ns: 100, l1_latency_ns: 20}
)";

// Runs `f` in a child process (SystemC elaborates once per process) and returns the bytes it
// returned; checks that the child exited 0.
inline std::string in_child(const std::function<std::string()>& f) {
    int fd[2];
    REQUIRE(pipe(fd) == 0);
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        const std::string r = f();
        _exit(write(fd[1], r.data(), r.size()) == ssize_t(r.size()) ? 0 : 1);
    }
    close(fd[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    return out;
}

// Reads the GPU's registers and tables with transport_dbg while a run goes on: bind `bus` to
// the System's bus before sc_start; offsets are from the GPU's mmio base.
struct DebugProbe : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<DebugProbe> bus{"bus"};
    explicit DebugProbe(sc_core::sc_module_name n) : sc_module(n) {}
    template <class T>
    T read(uint64_t mmio_offset) {
        T v{};
        REQUIRE(debug_transport(bus, tlm::TLM_READ_COMMAND, HostLayout{}.mmio_base + mmio_offset, &v, sizeof v) ==
                sizeof v);
        return v;
    }
};

}  // namespace gpuvp::test

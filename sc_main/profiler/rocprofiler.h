// What rocprofiler's outputs share, read alike by the CSV reader (rocprofv3.cpp), the JSON reader
// (rocprofv3_json.cpp) and the rocpd reader (rocpd.cpp): a kernel symbol's registers, an agent
// record's device properties and a memory copy's direction.
#pragma once
#include "sc_main/profiler/profiler_trace.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace gpuvp::rocprofiler {

// What a dispatch takes from its kernel's symbol.
struct KernelSymbol {
    std::string name;
    uint32_t vgprs = 0, sgprs = 0;
};

using KernelSymbols = std::unordered_map<int64_t, KernelSymbol>;  // by kernel_id

// A dispatch's name and registers from its kernel's symbol; one without a symbol is named
// "kernel ID".
void take_symbol(TraceGpuOp& op, const KernelSymbols& symbols, int64_t kernel_id);

// The VGPRs a work-item holds: architected and accumulation ones (one register file on CDNA2
// and CDNA3), at most 2^32 - 1.
uint32_t vgprs(uint32_t architected, uint32_t accumulation);

// A GPU agent record (rocprofiler_agent_v0_t as rocprofiler writes it in JSON: the JSON output's
// agents[], rocpd's extdata): cu_count, wave_front_size, lds_size_in_kb, max_waves_per_cu,
// workgroup_max_size into `d`. A key missing, 0, or not a count of at most 2^32 - 1 leaves its
// property unset.
void agent_properties(const nlohmann::json& agent, TraceDevice& d);

// A memory copy's operation name (MEMORY_COPY_HOST_TO_DEVICE, ...) as a copy's name says its
// direction ("Memcpy HtoD"; the importer reads it).
const char* copy_name(const std::string& operation);

}  // namespace gpuvp::rocprofiler

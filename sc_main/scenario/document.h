// The scenario loader's document level, shared by the two readers of the scenario folder (the
// YAML file, scenario.cpp; a profiler trace, trace_scenario.cpp): a YAML document into a
// Scenario.
#pragma once
#include "sc_main/scenario/scenario.h"
#include "sc_main/scenario/yaml.h"

#include <optional>

namespace gpuvp {

// The bound on a scenario's YAML documents (its file, the platform file, the --set values),
// aliases expanded: as many nodes as their texts have bytes, and at least yaml::Limits' default.
yaml::Limits scenario_limits(uint64_t text_bytes, const Overrides& overrides, const std::optional<PlatformSource>& platform);

// Reads and checks a scenario document: the platform file over its platform, then the --set
// overrides, then every key. The platform file and the --set values are parsed within `limits`.
Scenario read_document(yaml::Node root, const std::string& file, const Overrides& overrides,
                       const std::optional<PlatformSource>& platform, yaml::Limits& limits);

// The platform file laid over the document's platform (and host) maps as read_document lays it,
// for a document that is written out (`gpuvp import --platform`, `--preset`).
void lay_platform(yaml::Node& doc, const PlatformSource& platform, yaml::Limits& limits);

}  // namespace gpuvp

// The scenario loader's document level, shared by the two readers of the scenario folder (the
// YAML file, scenario.cpp; a profiler trace, trace_scenario.cpp): a YAML document into a
// Scenario. yaml-cpp appears in this folder only.
#pragma once
#include "sc_main/scenario/scenario.h"

#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>

namespace gpuvp {

// Reads and checks a scenario document: the platform file over its platform, then the --set
// overrides, then every key. `fresh` gives the document again for each variant of one with
// `variants:`. `text_bytes`: the size of the text it was read from (bounds what aliases may
// expand to).
Scenario read_document(YAML::Node root, const std::string& file, const Overrides& overrides,
                       const std::optional<PlatformSource>& platform, uint64_t text_bytes,
                       const std::function<YAML::Node()>& fresh);

}  // namespace gpuvp

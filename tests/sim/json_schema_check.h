#pragma once
// A small JSON Schema checker for the keywords traces/trace_schema.json uses (no validator library is
// packaged for C++ in Debian). It refuses schemas with any other keyword, so the schema cannot outgrow it
// silently.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace npusim::test {

// Checks doc against schema (draft 2020-12 subset: type, const, enum, required, properties,
// additionalProperties: false, items, oneOf, minimum, maximum, minLength, local $ref into $defs).
// Returns one "path: problem" line per violation; empty means valid. Throws std::invalid_argument for a
// keyword outside the subset.
std::vector<std::string> schema_violations(const nlohmann::json& schema, const nlohmann::json& doc);

}  // namespace npusim::test

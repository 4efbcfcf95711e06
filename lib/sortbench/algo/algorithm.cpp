#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sortbench/algo/algorithm.hpp"
#include "sortbench/core/errors.hpp"

namespace sb {

long SortProblem::param_int(const std::string& name, long fallback) const {
  auto it = params.find(name);
  if (it == params.end()) return fallback;
  try {
    std::size_t used = 0;
    const long v = std::stol(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--param {}={} is not an integer; give e.g. --param {}=8", name, it->second, name));
}

bool Algorithm::supports_key(KeyType k) const {
  return std::find(key_types.begin(), key_types.end(), k) != key_types.end();
}

bool Algorithm::supports_payload(Payload p) const {
  return std::find(payloads.begin(), payloads.end(), p) != payloads.end();
}

std::optional<std::string> Algorithm::why_unsupported(const SortProblem& p) const {
  if (!supports_key(p.shape.key)) return fmt::format("{} keys not supported", to_string(p.shape.key));
  if (!supports_payload(p.shape.payload)) {
    std::vector<std::string_view> names;
    for (Payload q : payloads) names.push_back(to_string(q));
    return fmt::format("--payload {} not supported (takes {})", to_string(p.shape.payload), fmt::join(names, ", "));
  }
  if (unsupported) return unsupported(p);
  return std::nullopt;
}

}  // namespace sb

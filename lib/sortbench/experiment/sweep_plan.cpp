// Sweep specs: parsing, row expansion and sharding (sweep.hpp).
#include "sortbench/experiment/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sortbench/core/errors.hpp"

namespace sb {

using nlohmann::json;

namespace {

const std::vector<std::string> kInputFields{"n",   "delta", "sigma",   "len",  "min_val", "max_val",
                                            "dist", "key",  "payload", "seed", "entropy"};
const std::vector<std::string> kTopFields{"name",   "regenerates", "description", "backend", "algorithms",
                                          "measure", "fixed",       "params",      "axes",    "parts",
                                          "plot",    "reference"};
const std::vector<std::string> kMeasureFields{"warmup", "reps", "max_reps", "max_noise_pct", "budget_s", "flush_l2"};
constexpr std::string_view kParamPrefix = "param:";

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Errors name the file and the field: "datasets/x.json: axes[1].values: ...".
[[noreturn]] void fail(const std::string& path, const std::string& field, const std::string& what) {
  throw UsageError(fmt::format("spec {}: {}: {}", path, field, what));
}

// A value as the canonical text used in row keys: integers without a decimal point,
// other numbers in their shortest exact form, strings as they are.
std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::floor(d) == d && std::fabs(d) < 9e15) return fmt::format("{}", static_cast<long long>(d));
    return fmt::format("{}", d);
  }
  return v.dump();
}

std::uint64_t as_count(const json& v, const std::string& path, const std::string& field) {
  try {
    if (v.is_string()) return parse_count(v.get<std::string>(), field);
    if (v.is_number_unsigned() || v.is_number_integer()) {
      if (v.get<std::int64_t>() < 0) fail(path, field, fmt::format("{} is negative", v.dump()));
      return v.get<std::uint64_t>();
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (d >= 0 && std::floor(d) == d && d < 1.8e19) return static_cast<std::uint64_t>(d);
    }
  } catch (const UsageError& e) {
    fail(path, field, e.what());
  }
  fail(path, field, fmt::format("{} is not a count; give e.g. 1048576, \"1M\" or \"2^20\"", v.dump()));
}

wide_t as_value(const json& v, const std::string& path, const std::string& field) {
  try {
    if (v.is_string()) return parse_value(v.get<std::string>(), field);
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())
      return static_cast<wide_t>(v.get<double>());
  } catch (const UsageError& e) {
    fail(path, field, e.what());
  }
  fail(path, field, fmt::format("{} is not an integer key value", v.dump()));
}

double as_number(const json& v, const std::string& path, const std::string& field) {
  if (!v.is_number()) fail(path, field, fmt::format("{} is not a number", v.dump()));
  return v.get<double>();
}

template <typename E, typename Parse>
E as_enum(const json& v, const std::string& path, const std::string& field, Parse parse, const std::string& choices) {
  if (v.is_string())
    if (auto e = parse(v.get<std::string>())) return *e;
  fail(path, field, fmt::format("{} is not one of {}", v.dump(), choices));
}

// Sets one input field (or algorithm parameter) of a row from a spec value.
void apply_field(SweepRow& row, const std::string& name, const json& v, const std::string& path,
                 const std::string& field) {
  if (name.rfind(kParamPrefix, 0) == 0) {
    const std::string param = name.substr(kParamPrefix.size());
    if (param.empty()) fail(path, field, "'param:' needs a parameter name, e.g. \"param:radix-bits\"");
    if (!v.is_string() && !v.is_number()) fail(path, field, fmt::format("{} is not a string or number", v.dump()));
    row.params[param] = value_text(v);
    return;
  }
  InputRequest& r = row.request;
  if (name == "n") r.n = as_count(v, path, field);
  else if (name == "len") r.len = as_count(v, path, field);
  else if (name == "delta") r.delta = as_number(v, path, field);
  else if (name == "sigma") r.sigma = as_number(v, path, field);
  else if (name == "min_val") r.min_val = as_value(v, path, field);
  else if (name == "max_val") r.max_val = as_value(v, path, field);
  else if (name == "seed") r.seed = as_count(v, path, field);
  else if (name == "dist")
    r.dist = as_enum<Distribution>(v, path, field, parse_distribution, distribution_choices());
  else if (name == "key") r.key = as_enum<KeyType>(v, path, field, parse_key_type, key_type_choices());
  else if (name == "payload") r.payload = as_enum<Payload>(v, path, field, parse_payload, payload_choices());
  else if (name == "entropy") r.entropy = as_number(v, path, field);
  else
    fail(path, field,
         fmt::format("unknown input parameter '{}'; use one of {} or \"param:NAME\" for an algorithm parameter", name,
                     fmt::join(kInputFields, ", ")));
}

void check_fields(const json& obj, const std::vector<std::string>& allowed, const std::string& path,
                  const std::string& where) {
  for (const auto& [k, v] : obj.items())
    if (!contains(allowed, k))
      fail(path, where.empty() ? k : where + "." + k,
           fmt::format("unknown field; expected one of {}", fmt::join(allowed, ", ")));
}

struct Axis {
  std::string name;
  std::string field;  // where in the spec, for messages
  std::vector<json> values;
};

Axis parse_axis(const json& a, const std::string& path, const std::string& field) {
  if (!a.is_object()) fail(path, field, "an axis is an object: {\"name\": \"n\", \"values\": [...]}");
  check_fields(a, {"name", "values", "linear", "pow2"}, path, field);
  if (!a.contains("name") || !a.at("name").is_string()) fail(path, field + ".name", "missing axis name");
  Axis axis;
  axis.name = a.at("name").get<std::string>();
  axis.field = fmt::format("{} ({})", field, axis.name);
  const int forms = int(a.contains("values")) + int(a.contains("linear")) + int(a.contains("pow2"));
  if (forms != 1) fail(path, axis.field, "give exactly one of \"values\", \"linear\" or \"pow2\"");
  if (a.contains("values")) {
    const json& v = a.at("values");
    if (!v.is_array()) fail(path, axis.field + ".values", "must be a list");
    for (const auto& x : v) axis.values.push_back(x);
  } else if (a.contains("linear")) {
    const json& l = a.at("linear");
    const std::string lf = axis.field + ".linear";
    if (!l.is_object()) fail(path, lf, "must be {\"from\": A, \"to\": B, \"step\": S}");
    check_fields(l, {"from", "to", "step"}, path, lf);
    for (const char* k : {"from", "to", "step"})
      if (!l.contains(k) || !l.at(k).is_number()) fail(path, lf + "." + k, "missing or not a number");
    const double from = l.at("from").get<double>(), to = l.at("to").get<double>(), step = l.at("step").get<double>();
    if (step <= 0) fail(path, lf + ".step", "must be > 0");
    const bool integral = l.at("from").is_number_integer() && l.at("step").is_number_integer();
    for (std::size_t i = 0;; ++i) {
      const double x = from + static_cast<double>(i) * step;
      if (x > to * (1 + 1e-12)) break;
      axis.values.push_back(integral ? json(static_cast<std::int64_t>(std::llround(x))) : json(x));
      if (axis.values.size() > 1000000) fail(path, lf, "more than a million values");
    }
  } else {
    const json& p = a.at("pow2");
    const std::string pf = axis.field + ".pow2";
    if (!p.is_object()) fail(path, pf, "must be {\"from\": EXP, \"to\": EXP} (exponents of 2, inclusive)");
    check_fields(p, {"from", "to", "step"}, path, pf);
    for (const char* k : {"from", "to"})
      if (!p.contains(k) || !p.at(k).is_number_integer()) fail(path, pf + "." + k, "missing or not an integer");
    const int from = p.at("from").get<int>(), to = p.at("to").get<int>(), step = p.value("step", 1);
    if (step <= 0) fail(path, pf + ".step", "must be > 0");
    if (from < 0 || to > 62) fail(path, pf, "exponents must lie in [0, 62]");
    for (int e = from; e <= to; e += step) axis.values.push_back(json(std::uint64_t{1} << e));
  }
  if (axis.values.empty()) fail(path, axis.field, "the axis has no values");
  return axis;
}

// The canonical row key: the set input fields in a fixed order, then the parameters.
std::string row_key(const SweepRow& row) {
  const InputRequest& r = row.request;
  std::vector<std::string> parts;
  if (r.n) parts.push_back(fmt::format("n={}", *r.n));
  if (r.delta) parts.push_back(fmt::format("delta={}", value_text(json(*r.delta))));
  if (r.sigma) parts.push_back(fmt::format("sigma={}", value_text(json(*r.sigma))));
  if (r.len) parts.push_back(fmt::format("len={}", *r.len));
  if (r.min_val) parts.push_back("min_val=" + wide_text(*r.min_val));
  if (r.max_val) parts.push_back("max_val=" + wide_text(*r.max_val));
  if (r.entropy) parts.push_back(fmt::format("entropy={}", value_text(json(*r.entropy))));
  parts.push_back(fmt::format("dist={}", to_string(r.dist)));
  parts.push_back(fmt::format("key={}", to_string(r.key)));
  parts.push_back(fmt::format("payload={}", to_string(r.payload)));
  parts.push_back(fmt::format("seed={}", r.seed));
  for (const auto& [k, v] : row.params) parts.push_back(fmt::format("param:{}={}", k, v));
  return fmt::format("{}", fmt::join(parts, " "));
}

struct Part {
  json fixed = json::object();
  std::vector<Axis> axes;
  std::string where;  // "" or "parts[i]"
};

void expand_part(const Part& part, const json& top_fixed, const json& top_params, const std::string& path,
                 std::vector<SweepRow>& rows, std::vector<std::string>& sources) {
  SweepRow base;
  std::string base_source;
  auto set_fixed = [&](const json& fixed, const std::string& where) {
    for (const auto& [k, v] : fixed.items()) {
      apply_field(base, k, v, path, where + "." + k);
      base_source += (base_source.empty() ? "" : ", ") + where + "." + k;
    }
  };
  for (const auto& [k, v] : top_params.items()) {
    if (!v.is_string() && !v.is_number()) fail(path, "params." + k, "must be a string or number");
    base.params[k] = value_text(v);
  }
  set_fixed(top_fixed, "fixed");
  if (!part.where.empty()) set_fixed(part.fixed, part.where + ".fixed");
  std::vector<std::size_t> pos(part.axes.size(), 0);
  while (true) {
    SweepRow row = base;
    std::string source = base_source;
    for (std::size_t a = 0; a < part.axes.size(); ++a) {
      const Axis& axis = part.axes[a];
      apply_field(row, axis.name, axis.values[pos[a]], path, fmt::format("{}.values[{}]", axis.field, pos[a]));
      source += (source.empty() ? "" : ", ") + axis.field;
    }
    rows.push_back(std::move(row));
    sources.push_back(source);
    // Odometer over the axes, the last one fastest.
    std::size_t a = part.axes.size();
    while (a > 0) {
      --a;
      if (++pos[a] < part.axes[a].values.size()) break;
      pos[a] = 0;
      if (a == 0) return;
    }
    if (part.axes.empty()) return;
  }
}

std::vector<Axis> parse_axes(const json& j, const std::string& path, const std::string& field) {
  if (!j.is_array()) fail(path, field, "must be a list of axes");
  std::vector<Axis> axes;
  for (std::size_t i = 0; i < j.size(); ++i) {
    axes.push_back(parse_axis(j[i], path, fmt::format("{}[{}]", field, i)));
    for (std::size_t k = 0; k + 1 < axes.size(); ++k)
      if (axes[k].name == axes.back().name) fail(path, axes.back().field, "this parameter is already an axis");
  }
  return axes;
}

MeasureSettings parse_measure(const json& m, const std::string& path) {
  MeasureSettings s;
  if (!m.is_object()) fail(path, "measure", "must be an object");
  check_fields(m, kMeasureFields, path, "measure");
  auto integer = [&](const char* k, int lo, int hi, int fallback) {
    if (!m.contains(k)) return fallback;
    if (!m.at(k).is_number_integer() || m.at(k).get<long>() < lo || m.at(k).get<long>() > hi)
      fail(path, std::string("measure.") + k, fmt::format("must be an integer in [{}, {}]", lo, hi));
    return m.at(k).get<int>();
  };
  auto number = [&](const char* k, double lo, double hi, double fallback) {
    if (!m.contains(k)) return fallback;
    if (!m.at(k).is_number() || m.at(k).get<double>() < lo || m.at(k).get<double>() > hi)
      fail(path, std::string("measure.") + k, fmt::format("must be a number in [{}, {}]", lo, hi));
    return m.at(k).get<double>();
  };
  s.warmup = integer("warmup", 0, 1000, s.warmup);
  s.min_reps = integer("reps", 1, 1000000, s.min_reps);
  s.max_reps = integer("max_reps", s.min_reps, 100000000, std::max(s.max_reps, s.min_reps));
  s.max_noise = number("max_noise_pct", 0, 100, s.max_noise * 100) / 100.0;
  s.budget_s = number("budget_s", 0, 3600, s.budget_s);
  if (m.contains("flush_l2")) {
    if (!m.at("flush_l2").is_boolean()) fail(path, "measure.flush_l2", "must be true or false");
    s.flush_l2 = m.at("flush_l2").get<bool>();
  }
  return s;
}

void select_algorithms(const json& list, const Registry& registry, SweepSpec& spec) {
  const std::string& path = spec.path;
  if (!list.is_array() || list.empty())
    fail(path, "algorithms", "give a non-empty list of names and prefix globs, e.g. [\"hp*\", \"cub-radix-bits\"]");
  auto add = [&](const Algorithm* a) {
    if (std::find(spec.algorithms.begin(), spec.algorithms.end(), a) == spec.algorithms.end())
      spec.algorithms.push_back(a);
  };
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = fmt::format("algorithms[{}]", i);
    if (!list[i].is_string() || list[i].get<std::string>().empty()) fail(path, field, "must be a non-empty name");
    const std::string item = list[i].get<std::string>();
    if (item == "all") {
      for (const auto& a : registry.all())  // single-device algorithms, as `run --algo all`
        if (a.backend == spec.backend && !a.distributed() && a.role != AlgorithmRole::chooser) add(&a);
    } else if (item.back() == '*') {
      const std::string prefix = item.substr(0, item.size() - 1);
      bool any = false;
      for (const auto& a : registry.all())
        if (a.name.rfind(prefix, 0) == 0) add(&a), any = true;
      if (!any && !contains(spec.unregistered, item)) spec.unregistered.push_back(item);
    } else if (const Algorithm* a = registry.find(item)) {
      add(a);
    } else {
      fail(path, field,
           fmt::format("unknown algorithm '{}'; did you mean {}? (a pattern such as \"{}*\" that matches nothing in "
                       "this build is recorded as unsupported rows instead)",
                       item, fmt::join(registry.closest(item), ", "), item));
    }
  }
  for (const Algorithm* a : spec.algorithms)
    if (spec.backend == Backend::cpu && a->backend == Backend::gpu)
      fail(path, "algorithms",
           fmt::format("{} runs on the GPU but the spec's backend is cpu; drop it or set \"backend\": \"gpu\"",
                       a->name));
}

void check_params(const SweepSpec& spec) {
  if (!spec.unregistered.empty()) return;  // an algorithm not in this build may read them
  std::set<std::string> names;
  for (const auto& row : spec.rows)
    for (const auto& [k, v] : row.params) names.insert(k);
  for (const auto& name : names) {
    const bool read = std::any_of(spec.algorithms.begin(), spec.algorithms.end(), [&](const Algorithm* a) {
      return contains(a->params, name);
    });
    if (!read) fail(spec.path, "params", fmt::format("parameter '{}' is read by none of the algorithms; drop it", name));
  }
}

}  // namespace

SweepSpec parse_sweep_spec(const json& j, const std::string& path, const Registry& registry) {
  if (!j.is_object()) fail(path, "(top level)", "a spec is a JSON object");
  check_fields(j, kTopFields, path, "");
  SweepSpec spec;
  spec.path = path;
  spec.name = j.value("name", "");
  spec.regenerates = j.value("regenerates", "");
  if (j.contains("backend")) {
    auto b = j.at("backend").is_string() ? parse_backend(j.at("backend").get<std::string>()) : std::nullopt;
    if (!b) fail(path, "backend", "must be \"gpu\" or \"cpu\"");
    spec.backend = *b;
  }
  if (!j.contains("algorithms")) fail(path, "algorithms", "missing");
  select_algorithms(j.at("algorithms"), registry, spec);
  if (j.contains("measure")) spec.settings = parse_measure(j.at("measure"), path);

  const json top_fixed = j.value("fixed", json::object());
  const json top_params = j.value("params", json::object());
  if (!top_fixed.is_object()) fail(path, "fixed", "must be an object of input parameters");
  if (!top_params.is_object()) fail(path, "params", "must be an object of algorithm parameters");
  std::vector<Part> parts;
  if (j.contains("parts")) {
    if (j.contains("axes")) fail(path, "axes", "give the axes inside each of \"parts\", not beside them");
    const json& p = j.at("parts");
    if (!p.is_array() || p.empty()) fail(path, "parts", "must be a non-empty list of {\"fixed\", \"axes\"}");
    for (std::size_t i = 0; i < p.size(); ++i) {
      Part part;
      part.where = fmt::format("parts[{}]", i);
      if (!p[i].is_object()) fail(path, part.where, "must be an object");
      check_fields(p[i], {"fixed", "axes", "note"}, path, part.where);
      part.fixed = p[i].value("fixed", json::object());
      if (!part.fixed.is_object()) fail(path, part.where + ".fixed", "must be an object");
      part.axes = parse_axes(p[i].value("axes", json::array()), path, part.where + ".axes");
      parts.push_back(std::move(part));
    }
  } else {
    Part part;
    part.axes = parse_axes(j.value("axes", json::array()), path, "axes");
    parts.push_back(std::move(part));
  }

  std::vector<std::string> sources;
  for (const Part& part : parts) expand_part(part, top_fixed, top_params, path, spec.rows, sources);
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < spec.rows.size(); ++i) {
    SweepRow& row = spec.rows[i];
    row.index = i;
    row.key = row_key(row);
    if (auto [it, fresh] = seen.emplace(row.key, i); !fresh)
      fail(path, sources[i], fmt::format("row {} repeats row {} ({})", i, it->second, row.key));
    try {
      derive_input_spec(row.request);
    } catch (const UsageError& e) {
      fail(path, sources[i].empty() ? "fixed" : sources[i],
           fmt::format("row {} ({}) is inconsistent: {}", i, row.key, e.what()));
    }
  }
  check_params(spec);
  return spec;
}

SweepSpec load_sweep_spec(const std::string& path, const Registry& registry) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("spec {}: cannot be read ({}); give an existing file such as "
                                        "datasets/smoke.json",
                                        path, std::strerror(errno)));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw UsageError(fmt::format("spec {}: not valid JSON: {}", path, e.what()));
  }
  return parse_sweep_spec(j, path, registry);
}

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  auto bad = [&] {
    return UsageError(fmt::format("--shard '{}' is not i/N with 0 <= i < N; give e.g. --shard 0/4", text));
  };
  if (slash == std::string_view::npos) throw bad();
  Shard s;
  try {
    std::size_t used = 0;
    const std::string i(text.substr(0, slash)), n(text.substr(slash + 1));
    if (i.empty() || n.empty() || i[0] == '-' || n[0] == '-') throw bad();
    s.index = std::stoul(i, &used);
    if (used != i.size()) throw bad();
    s.count = std::stoul(n, &used);
    if (used != n.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (s.count == 0 || s.index >= s.count) throw bad();
  return s;
}

std::vector<const SweepRow*> shard_rows(const SweepSpec& spec, Shard shard) {
  std::vector<const SweepRow*> out;
  for (const auto& row : spec.rows)
    if (row.index % shard.count == shard.index) out.push_back(&row);
  return out;
}

}  // namespace sb

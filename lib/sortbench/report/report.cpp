// JSON form of the schema (docs/schema.md). Readers ignore fields they do not know.
#include "sortbench/report/report.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace sb {

using nlohmann::json;

namespace {

template <typename T>
std::optional<T> opt_from(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  if constexpr (std::is_same_v<T, wide_t>) return wide_from_json(j.at(key));
  else return j.at(key).get<T>();
}

template <typename E, typename Parse>
E enum_from(const json& j, const char* key, Parse parse) {
  const auto text = j.at(key).get<std::string>();
  if (auto v = parse(text)) return *v;
  throw std::runtime_error(std::string("unknown ") + key + " '" + text + "'");
}

// "time_ms.median" -> "/time_ms/median".
std::string summary_pointer(std::string_view tag) {
  std::string path = "/" + std::string(tag);
  std::replace(path.begin(), path.end(), '.', '/');
  return path;
}

double realized_range(const KeyFacts& s) { return static_cast<double>(s.max - s.min) + 1.0; }

}  // namespace

json to_json(const RunContext& c) {
  json j;
  j["sortbench_version"] = c.sortbench_version;
  j["git_commit"] = c.git_commit;
  j["date_utc"] = c.date_utc;
  j["host"] = {{"hostname", c.host.hostname}, {"cpu", c.host.cpu_model}, {"cpu_threads", c.host.cpu_threads}};
  if (c.gpu) {
    const DeviceInfo& d = *c.gpu;
    j["gpu"] = {{"ordinal", d.ordinal},
                {"name", d.name},
                {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                {"sm_count", d.sm_count},
                {"memory_bytes", d.memory_bytes},
                {"memory_free_bytes", d.memory_free_bytes},
                {"l2_bytes", d.l2_bytes},
                {"shared_mem_per_block_optin_bytes", d.shared_mem_per_block_optin},
                {"sm_clock_peak_mhz", d.sm_clock_mhz},
                {"mem_clock_peak_mhz", d.mem_clock_mhz},
                {"mem_bus_bits", d.mem_bus_bits},
                {"driver_version", format_cuda_version(d.driver_version)},
                {"runtime_version", format_cuda_version(d.runtime_version)},
                {"copy_bandwidth_gbs", d.copy_bandwidth_gbs}};
    if (!d.peers.empty()) {
      json topology = json::array();
      for (const PeerLink& l : d.peers)
        topology.push_back({{"from", l.from}, {"to", l.to}, {"peer_access", l.access},
                            {"native_atomics", l.native_atomics}, {"performance_rank", l.performance_rank},
                            {"link", describe(l)}});
      j["topology"] = topology;
    }
  } else {
    j["gpu"] = nullptr;
  }
  if (c.link) j.update(to_json(*c.link));
  if (c.conditions) {
    const GpuConditions& g = *c.conditions;
    json conditions = {{"nvml", g.nvml}};
    if (!g.nvml) {
      conditions["nvml_absent"] = g.nvml_absent;
    } else {
      conditions["sm_clock_mhz"] = g.sm_clock_mhz;
      conditions["sm_clock_max_mhz"] = g.sm_clock_max_mhz;
      conditions["mem_clock_mhz"] = g.mem_clock_mhz;
      conditions["mem_clock_max_mhz"] = g.mem_clock_max_mhz;
      conditions["app_clocks_locked"] = g.app_clocks_locked ? json(*g.app_clocks_locked) : json(nullptr);
      conditions["app_sm_clock_mhz"] = g.app_sm_clock_mhz;
      conditions["persistence_mode"] = g.persistence_mode ? json(*g.persistence_mode) : json(nullptr);
      conditions["temperature_c"] = g.temperature_c;
      conditions["power_w"] = g.power_w;
      conditions["power_limit_w"] = g.power_limit_w;
      conditions["energy_counter"] = g.energy_counter;
    }
    json busy = json::array();
    for (const GpuProcess& p : c.busy)
      busy.push_back({{"pid", p.pid}, {"name", p.name}, {"memory_bytes", p.memory_bytes}, {"sm_pct", p.sm_pct},
                      {"mem_pct", p.mem_pct}});
    conditions["busy_processes"] = busy;
    j["gpu_conditions"] = conditions;
  }
  j["command_line"] = c.command_line;
  j["measurement"] = {{"warmup", c.settings.warmup},
                      {"min_reps", c.settings.min_reps},
                      {"max_reps", c.settings.max_reps},
                      {"max_noise", c.settings.max_noise},
                      {"budget_s", c.settings.budget_s},
                      {"flush_l2", c.settings.flush_l2},
                      {"throttle_threshold", c.settings.throttle_threshold},
                      {"energy", c.settings.energy},
                      {"timer", "cuda events (gpu), steady_clock (cpu)"}};
  return j;
}

json details_json(const Details& details) {
  json object = json::object();
  for (const auto& [k, v] : details) object[k] = v;
  return object;
}

json to_json(const ResultRow& r) {
  const InputSpec& s = r.spec;
  // The source describes itself (InputSource::provenance): a generator's "parameters" are
  // the input's requested and derived fields, a file's description stays under "source".
  json source = r.source.empty() ? json{{"kind", "generator"}} : r.source;
  json input = source.contains("parameters") ? source.at("parameters") : json::object();
  source.erase("parameters");
  input["n"] = s.n;
  input["key"] = to_string(s.key);
  input["payload"] = to_string(s.payload);
  input["source"] = source;
  const KeyFacts& z = r.realized;
  json realized = {{"n", z.n}, {"min", wide_json(z.min)}, {"max", wide_json(z.max)}, {"len", z.len}};
  if (!z.integral) realized["integral"] = false;
  if (z.n) {
    realized["range"] = wide_json(z.max - z.min + 1);
    realized["delta"] = static_cast<double>(z.n) / realized_range(z);
    realized["sigma"] = z.len ? realized_range(z) / static_cast<double>(z.len) : 0.0;
    realized["duplicate_share"] = 1.0 - static_cast<double>(z.len) / static_cast<double>(z.n);
  }
  if (z.sortedness >= 0) realized["sortedness"] = z.sortedness;
  json j = {{"algorithm", r.algorithm},
            {"family", r.family},
            {"backend", to_string(r.backend)},
            {"stable", r.stable},
            {"input", input},
            {"realized", realized},
            {"range_mode", to_string(r.range)},
            {"params", r.params},
            {"status", to_string(r.status)},
            {"reason", r.reason},
            {"verification", r.verification},
            {"details", details_json(r.details)}};
  // Every summary at its path ("time_ms.median" is j["time_ms"]["median"]).
  for (const SummaryDef& d : summary_defs()) {
    const auto v = r.summaries.get(d.tag);
    if (!v) continue;
    j[json::json_pointer(summary_pointer(d.tag))] = d.integer ? json(static_cast<std::uint64_t>(*v)) : json(*v);
  }
  if (!j.contains("time_ms")) j["time_ms"] = nullptr;
  return j;
}

ResultRow row_from_json(const json& j) {
  ResultRow r;
  r.algorithm = j.at("algorithm").get<std::string>();
  r.family = j.value("family", "");
  r.backend = enum_from<Backend>(j, "backend", parse_backend);
  r.stable = j.value("stable", false);
  const json& in = j.at("input");
  if (in.contains("source")) r.source = in.at("source");
  r.spec.n = in.at("n").get<std::uint64_t>();
  r.spec.key = enum_from<KeyType>(in, "key", parse_key_type);
  r.spec.payload = enum_from<Payload>(in, "payload", parse_payload);
  if (in.contains("requested")) {  // generated inputs: the generator's parameters
    const json& q = in.at("requested");
    r.requested.n = opt_from<std::uint64_t>(q, "n");
    r.requested.delta = opt_from<double>(q, "delta");
    r.requested.sigma = opt_from<double>(q, "sigma");
    r.requested.len = opt_from<std::uint64_t>(q, "len");
    r.requested.min_val = opt_from<wide_t>(q, "min_val");
    r.requested.max_val = opt_from<wide_t>(q, "max_val");
    r.spec.min_val = wide_from_json(in.at("min_val"));
    r.spec.max_val = wide_from_json(in.at("max_val"));
    r.spec.range = wide_from_json(in.at("range"));
    if (in.contains("entropy")) r.spec.entropy = in.at("entropy").get<double>();
    r.spec.len = in.at("len").get<std::uint64_t>();
    r.spec.dist = enum_from<Distribution>(in, "dist", parse_distribution);
    r.spec.seed = in.at("seed").get<std::uint64_t>();
  }
  r.requested.dist = r.spec.dist;
  r.requested.key = r.spec.key;
  r.requested.payload = r.spec.payload;
  r.requested.seed = r.spec.seed;
  const json& z = j.at("realized");
  r.realized.n = z.at("n").get<std::uint64_t>();
  r.realized.min = wide_from_json(z.at("min"));
  r.realized.max = wide_from_json(z.at("max"));
  r.realized.integral = z.value("integral", true);
  r.realized.len = z.at("len").get<std::uint64_t>();
  r.realized.sortedness = z.value("sortedness", -1.0);
  if (j.contains("range_mode")) r.range = enum_from<RangeMode>(j, "range_mode", parse_range_mode);
  if (j.contains("params")) r.params = j.at("params").get<Params>();
  r.status = enum_from<RowStatus>(j, "status", parse_row_status);
  r.reason = j.value("reason", "");
  r.verification = j.value("verification", "");
  if (j.contains("details"))
    for (const auto& [k, v] : j.at("details").items()) r.details.emplace_back(k, v.get<std::string>());
  for (const SummaryDef& d : summary_defs()) {
    const json::json_pointer at(summary_pointer(d.tag));
    if (j.contains(at) && j.at(at).is_number()) r.summaries.set(d.tag, j.at(at).get<double>());
  }
  return r;
}

json make_document(const RunContext& c, const std::vector<ResultRow>& rows) {
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["context"] = to_json(c);
  doc["results"] = json::array();
  for (const auto& r : rows) doc["results"].push_back(to_json(r));
  return doc;
}

}  // namespace sb

// Profiles for the automatic choices (choice_profile.hpp).
#include "sortbench/core/choice_profile.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sortbench/core/errors.hpp"

namespace sb {
namespace {

constexpr const char* kSchema = "sortbench-profile/1";

const nlohmann::json& member(const nlohmann::json& j, const char* key, const char* where) {
  if (!j.is_object() || !j.contains(key)) throw std::runtime_error(fmt::format("{} has no \"{}\"", where, key));
  return j.at(key);
}

std::string text_of(const nlohmann::json& j, const char* key, const char* where) {
  const nlohmann::json& v = member(j, key, where);
  if (!v.is_string()) throw std::runtime_error(fmt::format("{}.{} is not a string", where, key));
  return v.get<std::string>();
}

double number_of(const nlohmann::json& j, const char* key, const char* where) {
  const nlohmann::json& v = member(j, key, where);
  if (!v.is_number()) throw std::runtime_error(fmt::format("{}.{} is not a number", where, key));
  return v.get<double>();
}

// thresholds.<name> as a list: empty where it is absent.
nlohmann::json list_of(const nlohmann::json& thresholds, const char* name) {
  if (!thresholds.contains(name)) return nlohmann::json::array();
  const nlohmann::json& list = thresholds.at(name);
  if (!list.is_array()) throw std::runtime_error(fmt::format("thresholds.{} is not a list", name));
  return list;
}

// thresholds.<name>: crossovers by sigma, in ascending sigma (none where it is absent).
std::vector<TiledCrossover> crossovers_of(const nlohmann::json& thresholds, const char* name) {
  std::vector<TiledCrossover> out;
  for (const nlohmann::json& c : list_of(thresholds, name)) {
    TiledCrossover x{number_of(c, "sigma", "a crossover"), number_of(c, "min_delta", "a crossover")};
    if (!(x.sigma >= 1) || !(x.min_delta > 0))
      throw std::runtime_error(fmt::format(
          "has a crossover ({}) at sigma {} with min_delta {} (sigma >= 1, min_delta > 0)", name, x.sigma, x.min_delta));
    out.push_back(x);
  }
  std::sort(out.begin(), out.end(), [](const TiledCrossover& a, const TiledCrossover& b) { return a.sigma < b.sigma; });
  return out;
}

nlohmann::json crossovers_json(const std::vector<TiledCrossover>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const TiledCrossover& c : list) out.push_back({{"sigma", c.sigma}, {"min_delta", c.min_delta}});
  return out;
}

// The crossover that governs `sigma`: the one measured at the sigma nearest it on a log scale
// (the crossovers move by octaves of sigma: between 16 and 64 the pairs' one halves on an H200),
// the lower one where two are as near.
std::optional<double> governing_min_delta(const std::vector<TiledCrossover>& list, double sigma) {
  if (list.empty()) return std::nullopt;
  const TiledCrossover* governing = &list.front();
  for (const TiledCrossover& c : list)
    if (std::abs(std::log(c.sigma / sigma)) < std::abs(std::log(governing->sigma / sigma))) governing = &c;
  return governing->min_delta;
}

std::shared_ptr<const ChoiceProfile> read_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot be opened");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return std::make_shared<const ChoiceProfile>(parse_choice_profile(text, path));
}

}  // namespace

ChoiceProfile parse_choice_profile(const std::string& text, const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error("is not JSON");
  }
  if (!doc.is_object()) throw std::runtime_error("is not a JSON object");
  if (text_of(doc, "schema", "the profile") != kSchema)
    throw std::runtime_error(fmt::format("has schema \"{}\", not {}", doc.at("schema").get<std::string>(), kSchema));
  ChoiceProfile p;
  p.path = path;
  const nlohmann::json& gpu = member(doc, "gpu", "the profile");
  p.gpu_name = text_of(gpu, "name", "gpu");
  p.sm_count = static_cast<int>(number_of(gpu, "sm_count", "gpu"));
  p.memory_bytes = static_cast<std::uint64_t>(number_of(gpu, "memory_bytes", "gpu"));
  p.driver = gpu.value("driver", "");
  const nlohmann::json& build = member(doc, "sortbench", "the profile");
  p.version = text_of(build, "version", "sortbench");
  p.commit = build.value("commit", "");
  const nlohmann::json& thresholds = member(doc, "thresholds", "the profile");
  p.hp_tiled_min_delta = crossovers_of(thresholds, "hp_tiled_min_delta");
  p.hp_pairs_min_delta = crossovers_of(thresholds, "hp_pairs_min_delta");
  for (const nlohmann::json& c : list_of(thresholds, "radix_whole_from_digits")) {
    const std::string name = text_of(c, "key", "a radix crossover");
    const std::optional<KeyType> key = parse_key_type(name);
    if (!key || (*key != KeyType::u32 && *key != KeyType::i32 && *key != KeyType::u64 && *key != KeyType::i64))
      throw std::runtime_error(fmt::format("has a radix crossover for key \"{}\" (u32, i32, u64 or i64)", name));
    const double digits = number_of(c, "whole_from_digits", "a radix crossover");
    const int key_digits = static_cast<int>(key_bytes(*key));
    if (!(digits >= 1 && digits <= key_digits) || digits != static_cast<int>(digits))
      throw std::runtime_error(
          fmt::format("has a radix crossover for {} from {} digits (a whole number from 1 to {})", name, digits,
                      key_digits));
    p.radix_whole_from_digits.push_back({*key, static_cast<int>(digits)});
  }
  for (const nlohmann::json& c : list_of(thresholds, "dist_scale")) {
    DistScale x;
    const double world = number_of(c, "world", "a dist scale");
    x.world = static_cast<int>(world);
    const nlohmann::json& values = member(c, "values", "a dist scale");
    if (!values.is_boolean()) throw std::runtime_error("a dist scale's values is not true or false");
    x.values = values.get<bool>();
    x.way = text_of(c, "way", "a dist scale");
    x.scale = number_of(c, "scale", "a dist scale");
    if (!(world >= 2) || world != x.world || !(x.scale > 0))
      throw std::runtime_error(fmt::format("has a dist scale for {} on {} GPUs of {} (2 GPUs or more, a scale > 0)",
                                           x.way, world, x.scale));
    p.dist_scales.push_back(x);
  }
  for (const nlohmann::json& c : list_of(thresholds, "stream_chunks")) {
    StreamChunkCost x;
    x.algorithm = text_of(c, "algorithm", "a stream chunk");
    const double chunk = number_of(c, "chunk_bytes", "a stream chunk");
    x.chunk_bytes = static_cast<std::uint64_t>(chunk);
    x.fill_ms = number_of(c, "fill_ms", "a stream chunk");
    x.ms_per_gib = number_of(c, "ms_per_gib", "a stream chunk");
    if (!(chunk >= 1) || chunk != static_cast<double>(x.chunk_bytes) || !(x.fill_ms >= 0) || !(x.ms_per_gib > 0))
      throw std::runtime_error(fmt::format("has a stream chunk for {} of {} bytes, fill {} ms, {} ms a GiB (a whole "
                                           "number of bytes >= 1, a fill >= 0, a rate > 0)",
                                           x.algorithm, chunk, x.fill_ms, x.ms_per_gib));
    p.stream_chunks.push_back(x);
  }
  if (doc.contains("measured")) p.measured = doc.at("measured").dump();
  if (doc.contains("tune") && doc.at("tune").is_object()) p.tune_wall_s = doc.at("tune").value("wall_s", 0.0);
  return p;
}

std::string choice_profile_text(const ChoiceProfile& p) {
  nlohmann::json doc;
  doc["schema"] = kSchema;
  doc["gpu"] = {{"name", p.gpu_name}, {"sm_count", p.sm_count}, {"memory_bytes", p.memory_bytes}, {"driver", p.driver}};
  doc["sortbench"] = {{"version", p.version}, {"commit", p.commit}};
  doc["thresholds"]["hp_tiled_min_delta"] = crossovers_json(p.hp_tiled_min_delta);
  if (!p.hp_pairs_min_delta.empty()) doc["thresholds"]["hp_pairs_min_delta"] = crossovers_json(p.hp_pairs_min_delta);
  nlohmann::json radix = nlohmann::json::array();
  for (const RadixCrossover& c : p.radix_whole_from_digits)
    radix.push_back({{"key", std::string(to_string(c.key))}, {"whole_from_digits", c.whole_from_digits}});
  if (!radix.empty()) doc["thresholds"]["radix_whole_from_digits"] = radix;
  nlohmann::json scales = nlohmann::json::array();
  for (const DistScale& c : p.dist_scales)
    scales.push_back({{"world", c.world}, {"values", c.values}, {"way", c.way}, {"scale", c.scale}});
  if (!scales.empty()) doc["thresholds"]["dist_scale"] = scales;
  nlohmann::json chunks = nlohmann::json::array();
  for (const StreamChunkCost& c : p.stream_chunks)
    chunks.push_back({{"algorithm", c.algorithm},
                      {"chunk_bytes", c.chunk_bytes},
                      {"fill_ms", c.fill_ms},
                      {"ms_per_gib", c.ms_per_gib}});
  if (!chunks.empty()) doc["thresholds"]["stream_chunks"] = chunks;
  doc["measured"] = nlohmann::json::parse(p.measured);
  if (p.tune_wall_s > 0) doc["tune"] = {{"wall_s", p.tune_wall_s}};
  return doc.dump(2) + "\n";
}

std::optional<double> tiled_min_delta(const ChoiceProfile& p, double sigma) {
  return governing_min_delta(p.hp_tiled_min_delta, sigma);
}

std::optional<double> pairs_min_delta(const ChoiceProfile& p, double sigma) {
  return governing_min_delta(p.hp_pairs_min_delta, sigma);
}

std::optional<int> radix_whole_from_digits(const ChoiceProfile& p, KeyType key) {
  for (const RadixCrossover& c : p.radix_whole_from_digits)
    if (c.key == key) return c.whole_from_digits;
  return std::nullopt;
}

std::optional<double> dist_scale(const ChoiceProfile& p, int world, bool values, const std::string& way) {
  for (const DistScale& c : p.dist_scales)
    if (c.world == world && c.values == values && c.way == way) return c.scale;
  return std::nullopt;
}

std::optional<std::uint64_t> stream_chunk_bytes(const ChoiceProfile& p, const std::string& algorithm,
                                                std::uint64_t input_bytes) {
  std::optional<std::uint64_t> best;
  double best_ms = 0;
  for (const StreamChunkCost& c : p.stream_chunks) {
    if (c.algorithm != algorithm) continue;
    const double ms = c.fill_ms + double(input_bytes) / double(std::uint64_t{1} << 30) * c.ms_per_gib;
    if (!best || ms < best_ms || (ms == best_ms && c.chunk_bytes < *best)) best = c.chunk_bytes, best_ms = ms;
  }
  return best;
}

std::string profile_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/sortbench";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.cache/sortbench";
}

std::string cached_profile_path(const std::string& gpu_name) {
  std::string slug;
  for (char c : gpu_name) {
    const auto u = static_cast<unsigned char>(c);
    slug += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  return profile_cache_dir() + "/" + (slug.empty() ? "gpu" : slug) + ".json";
}

std::shared_ptr<const ChoiceProfile> load_pinned_profile(const std::string& path) {
  try {
    return read_profile(path);
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("profile {} {}; give a file `sortbench tune -o FILE` wrote, or --profile none for "
                                 "the built-in rules",
                                 path, e.what()));
  }
}

ProfileBinding resolve_profile(const ProfilePolicy& policy, const std::string& gpu_name, std::string* why_ignored) {
  ProfileBinding b;
  if (policy.kind == ProfilePolicy::Kind::none) return b;
  if (policy.kind == ProfilePolicy::Kind::file) {
    // Pinned: used on whatever GPU it is asked to be (the caller chose it).
    b.profile = load_pinned_profile(policy.path);
    b.rule = "profile:" + policy.path;
    return b;
  }
  const std::string path = cached_profile_path(gpu_name);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return b;
  std::shared_ptr<const ChoiceProfile> cached;
  try {
    cached = read_profile(path);
  } catch (const std::runtime_error& e) {
    if (why_ignored) *why_ignored = fmt::format("cached profile {} {}; ignored (run sortbench tune again)", path, e.what());
    return b;
  }
  if (cached->gpu_name != gpu_name) {
    if (why_ignored)
      *why_ignored = fmt::format("cached profile {} was measured on {}, not {}; ignored (run sortbench tune here)", path,
                                 cached->gpu_name, gpu_name);
    return b;
  }
  if (!policy.version.empty() && cached->version != policy.version) {
    if (why_ignored)
      *why_ignored = fmt::format("cached profile {} was measured by sortbench {}, not {}; ignored (run sortbench tune "
                                 "again)",
                                 path, cached->version, policy.version);
    return b;
  }
  b.profile = std::move(cached);
  b.rule = "profile:" + path;
  return b;
}

namespace {

struct PolicyStore {
  std::mutex mutex;
  std::optional<ProfilePolicy> policy;
  std::map<std::string, ProfileBinding> bindings;
};

PolicyStore& store() {
  static PolicyStore s;
  return s;
}

ProfilePolicy policy_from_environment() {
  ProfilePolicy p;
  if (const char* pinned = std::getenv("SORTBENCH_PROFILE"); pinned && *pinned) p.pin(pinned);
  return p;
}

}  // namespace

void set_profile_policy(ProfilePolicy policy) {
  PolicyStore& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.policy = std::move(policy);
  s.bindings.clear();
}

ProfilePolicy profile_policy() {
  PolicyStore& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.policy.value_or(policy_from_environment());
}

ProfileBinding profile_for_gpu(const std::string& gpu_name) {
  PolicyStore& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (auto it = s.bindings.find(gpu_name); it != s.bindings.end()) return it->second;
  std::string why;
  ProfileBinding b = resolve_profile(s.policy.value_or(policy_from_environment()), gpu_name, &why);
  if (!why.empty()) std::cerr << "sortbench: " << why << "\n";
  s.bindings.emplace(gpu_name, b);
  return b;
}

}  // namespace sb

// GPU profiles for the automatic choices (core/choice_profile.hpp, issue 50 item 2): the file,
// where a GPU's cached one lives, which one a run reads (pinned, cached, none) and why a cached
// one is ignored, and hp-auto taking a profile's measured crossover over its built-in one.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "sortbench/core/choice_profile.hpp"
#include "sortbench/core/errors.hpp"
#include "support/command.hpp"

namespace sb {
namespace {

std::string profile_text(const std::string& gpu, const std::string& version, const std::string& crossovers) {
  return R"({"schema": "sortbench-profile/1", "gpu": {"name": ")" + gpu +
         R"(", "sm_count": 132, "memory_bytes": 150000000000, "driver": "13.0"},
             "sortbench": {"version": ")" + version + R"(", "commit": "abc1234"},
             "thresholds": {"hp_tiled_min_delta": [)" + crossovers + R"(]},
             "measured": [{"case": "u32 n=2^27 delta=1 sigma=1", "hp-tiled": 2.1, "cub-radix-bits": 2.7}]})";
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// The profile `text` with `from` replaced by each of `bad` is refused.
void expect_each_refused(const std::string& text, const std::string& from, std::initializer_list<const char*> bad) {
  for (const char* b : bad) {
    std::string t = text;
    t.replace(t.find(from), from.size(), b);
    EXPECT_THROW(parse_choice_profile(t, "bad.json"), std::runtime_error) << b;
  }
}

// XDG_CACHE_HOME pointed at a temporary folder for one test, and the process's policy reset.
class CacheHome {
 public:
  CacheHome() {
    if (const char* old = std::getenv("XDG_CACHE_HOME")) old_ = old;
    setenv("XDG_CACHE_HOME", dir_.path().c_str(), 1);
    std::filesystem::create_directories(dir_.path() + "/sortbench");
  }
  ~CacheHome() {
    if (old_) setenv("XDG_CACHE_HOME", old_->c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
    set_profile_policy(ProfilePolicy{});
  }
  std::string folder() const { return dir_.path() + "/sortbench"; }

 private:
  test::TempDir dir_;
  std::optional<std::string> old_;
};

TEST(ChoiceProfile, ReadsTheGpuTheBuildAndTheCrossoversInSigmaOrder) {
  const ChoiceProfile p = parse_choice_profile(
      profile_text("NVIDIA H200", "0.1.0", R"({"sigma": 60, "min_delta": 3}, {"sigma": 1, "min_delta": 0.75})"), "p.json");
  EXPECT_EQ(p.gpu_name, "NVIDIA H200");
  EXPECT_EQ(p.sm_count, 132);
  EXPECT_EQ(p.version, "0.1.0");
  ASSERT_EQ(p.hp_tiled_min_delta.size(), 2u);
  EXPECT_EQ(p.hp_tiled_min_delta[0].sigma, 1);
  // The crossover measured at the sigma nearest the input's on a log scale (sqrt(60) = 7.75 between
  // 1 and 60); beyond the ends, the end's.
  EXPECT_EQ(tiled_min_delta(p, 0.5), 0.75);
  EXPECT_EQ(tiled_min_delta(p, 1), 0.75);
  EXPECT_EQ(tiled_min_delta(p, 7.5), 0.75);
  EXPECT_EQ(tiled_min_delta(p, 8), 3);
  EXPECT_EQ(tiled_min_delta(p, 59), 3);
  EXPECT_EQ(tiled_min_delta(p, 900), 3);
  // Written and read back, the measured points too.
  const ChoiceProfile again = parse_choice_profile(choice_profile_text(p), "again.json");
  EXPECT_EQ(again.hp_tiled_min_delta.size(), 2u);
  EXPECT_NE(again.measured.find("hp-tiled"), std::string::npos);
  EXPECT_FALSE(tiled_min_delta(parse_choice_profile(profile_text("G", "1", ""), "none.json"), 4));
  EXPECT_FALSE(pairs_min_delta(p, 4));  // no pairs ladder: the built-in pairs rule
}

// The pairs crossovers (4-byte values): their own list, read in sigma order and written back.
TEST(ChoiceProfile, ReadsThePairsCrossoversBesideTheKeysOnes) {
  std::string text = profile_text("NVIDIA H200", "0.1.0", R"({"sigma": 1, "min_delta": 0.75})");
  text.insert(text.find("\"hp_tiled_min_delta\""),
              R"("hp_pairs_min_delta": [{"sigma": 64, "min_delta": 16}, {"sigma": 4, "min_delta": 1e30}], )");
  const ChoiceProfile p = parse_choice_profile(text, "p.json");
  ASSERT_EQ(p.hp_pairs_min_delta.size(), 2u);
  EXPECT_EQ(pairs_min_delta(p, 1), 1e30);  // below every sigma: the first
  EXPECT_EQ(pairs_min_delta(p, 50), 16);   // nearer 64 than 4 on a log scale
  EXPECT_EQ(pairs_min_delta(p, 100), 16);
  EXPECT_EQ(tiled_min_delta(p, 100), 0.75);
  const ChoiceProfile again = parse_choice_profile(choice_profile_text(p), "again.json");
  ASSERT_EQ(again.hp_pairs_min_delta.size(), 2u);
  EXPECT_EQ(again.hp_pairs_min_delta[1].min_delta, 16);
  std::string bad = text;
  const std::string sixteen = R"("min_delta": 16)";
  bad.replace(bad.find(sixteen), sixteen.size(), R"("min_delta": -1)");
  try {
    parse_choice_profile(bad, "bad.json");
    ADD_FAILURE() << "a negative pairs crossover was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("hp_pairs_min_delta"), std::string::npos) << e.what();
  }
}

// dist-auto's scales by world, values and way: read, written back, refused when not positive.
TEST(ChoiceProfile, ReadsTheDistributedScales) {
  std::string text = profile_text("NVIDIA H200", "0.1.0", R"({"sigma": 1, "min_delta": 1})");
  const std::string scales =
      R"("dist_scale": [{"world": 2, "values": true, "way": "dist-hp", "scale": 1.25}, )"
      R"({"world": 4, "values": false, "way": "dist-sample-sort", "scale": 0.8}], )";
  text.insert(text.find("\"hp_tiled_min_delta\""), scales);
  const ChoiceProfile p = parse_choice_profile(text, "p.json");
  EXPECT_EQ(dist_scale(p, 2, true, "dist-hp"), 1.25);
  EXPECT_EQ(dist_scale(p, 4, false, "dist-sample-sort"), 0.8);
  EXPECT_FALSE(dist_scale(p, 2, false, "dist-hp"));
  const ChoiceProfile again = parse_choice_profile(choice_profile_text(p), "again.json");
  ASSERT_EQ(again.dist_scales.size(), 2u);
  EXPECT_EQ(dist_scale(again, 2, true, "dist-hp"), 1.25);
  expect_each_refused(text, R"("scale": 0.8})", {R"("scale": 0})", R"("scale": "fast"})"});
  std::string one_gpu = text;
  one_gpu.replace(one_gpu.find(R"("world": 4)"), 10, R"("world": 1)");
  EXPECT_THROW(parse_choice_profile(one_gpu, "bad.json"), std::runtime_error);
}

// The streamed members' chunk costs: read, written back, and the measured chunk that predicts
// the shortest run of an input's bytes: a small chunk where the fill decides (a small input),
// a large one where the rate does.
TEST(ChoiceProfile, ReadsTheStreamChunksAndPicksTheShortestRunsChunk) {
  std::string text = profile_text("NVIDIA H200", "0.1.0", R"({"sigma": 1, "min_delta": 1})");
  const std::string chunks =
      R"("stream_chunks": [{"algorithm": "ooc-hp", "chunk_bytes": 33554432, "fill_ms": 1, "ms_per_gib": 24}, )"
      R"({"algorithm": "ooc-hp", "chunk_bytes": 268435456, "fill_ms": 9, "ms_per_gib": 20}], )";
  text.insert(text.find("\"hp_tiled_min_delta\""), chunks);
  const ChoiceProfile p = parse_choice_profile(text, "p.json");
  const std::uint64_t gib = std::uint64_t{1} << 30;
  EXPECT_EQ(stream_chunk_bytes(p, "ooc-hp", gib), 33554432u);       // 25 ms against 29
  EXPECT_EQ(stream_chunk_bytes(p, "ooc-hp", 4 * gib), 268435456u);  // 89 against 97
  EXPECT_EQ(stream_chunk_bytes(p, "ooc-hp", 2 * gib), 33554432u);   // 49 against 49: the smaller
  EXPECT_FALSE(stream_chunk_bytes(p, "ooc-sort", gib));
  const ChoiceProfile again = parse_choice_profile(choice_profile_text(p), "again.json");
  ASSERT_EQ(again.stream_chunks.size(), 2u);
  EXPECT_EQ(stream_chunk_bytes(again, "ooc-hp", 4 * gib), 268435456u);
  expect_each_refused(text, R"("ms_per_gib": 20})", {R"("ms_per_gib": 0})", R"("ms_per_gib": "fast"})"});
  expect_each_refused(text, R"("chunk_bytes": 33554432)", {R"("chunk_bytes": 0.5)"});
}

// The radix crossovers by key type: read, written back, and only for the integer keys that
// cub-radix-bits maps to offsets, from 1 to the key's own digit count.
TEST(ChoiceProfile, ReadsTheRadixCrossoversByKeyType) {
  std::string text = profile_text("NVIDIA H200", "0.1.0", "");
  const std::string radix = R"("radix_whole_from_digits": [{"key": "u64", "whole_from_digits": 6},
                                                           {"key": "i32", "whole_from_digits": 4}], )";
  text.insert(text.find("\"hp_tiled_min_delta\""), radix);
  const ChoiceProfile p = parse_choice_profile(text, "p.json");
  EXPECT_EQ(radix_whole_from_digits(p, KeyType::u64), 6);
  EXPECT_EQ(radix_whole_from_digits(p, KeyType::i32), 4);
  EXPECT_FALSE(radix_whole_from_digits(p, KeyType::u32));
  const ChoiceProfile again = parse_choice_profile(choice_profile_text(p), "again.json");
  EXPECT_EQ(radix_whole_from_digits(again, KeyType::u64), 6);
  auto reason = [&](const std::string& entry) {
    std::string bad = profile_text("G", "1", "");
    bad.insert(bad.find("\"hp_tiled_min_delta\""), R"("radix_whole_from_digits": [)" + entry + "], ");
    try {
      parse_choice_profile(bad, "x.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(reason(R"({"key": "f32", "whole_from_digits": 2})").find("u32, i32, u64 or i64"), std::string::npos);
  EXPECT_NE(reason(R"({"key": "u32", "whole_from_digits": 5})").find("from 1 to 4"), std::string::npos);
  EXPECT_NE(reason(R"({"key": "u64", "whole_from_digits": 2.5})").find("whole number"), std::string::npos);
  EXPECT_NE(reason(R"({"key": "u64"})").find("whole_from_digits"), std::string::npos);
}

TEST(ChoiceProfile, ACorruptProfileSaysWhatIsWrong) {
  auto reason = [](const std::string& text) {
    try {
      parse_choice_profile(text, "x.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(reason("{not json"), "is not JSON");
  EXPECT_NE(reason(R"({"schema": "other/2"})").find("schema"), std::string::npos);
  EXPECT_NE(reason(R"({"schema": "sortbench-profile/1", "gpu": {}})").find("name"), std::string::npos);
  EXPECT_NE(reason(profile_text("G", "1", R"({"sigma": 1, "min_delta": 0})")).find("min_delta"), std::string::npos);
  EXPECT_NE(reason(profile_text("G", "1", R"({"sigma": "one", "min_delta": 1})")).find("sigma"), std::string::npos);
}

TEST(ChoiceProfile, ACachedProfileIsTheGpuModelsUnderXdgCacheHome) {
  CacheHome home;
  EXPECT_EQ(cached_profile_path("NVIDIA H200"), home.folder() + "/nvidia-h200.json");
  std::string why;
  EXPECT_EQ(resolve_profile(ProfilePolicy{}, "NVIDIA H200", &why).rule, "default");  // none cached
  EXPECT_TRUE(why.empty());
  write(home.folder() + "/nvidia-h200.json", profile_text("NVIDIA H200", "0.1.0", R"({"sigma": 1, "min_delta": 1})"));
  ProfilePolicy automatic;
  automatic.version = "0.1.0";
  const ProfileBinding b = resolve_profile(automatic, "NVIDIA H200", &why);
  ASSERT_TRUE(b.profile);
  EXPECT_EQ(b.rule, "profile:" + home.folder() + "/nvidia-h200.json");
  EXPECT_TRUE(why.empty()) << why;
}

TEST(ChoiceProfile, ACachedProfileOfAnotherModelOrVersionOrCorruptIsIgnoredSayingWhy) {
  CacheHome home;
  ProfilePolicy automatic;
  automatic.version = "0.2.0";
  const std::string path = home.folder() + "/nvidia-h200.json";
  auto ignored = [&](const std::string& text) {
    write(path, text);
    std::string why;
    const ProfileBinding b = resolve_profile(automatic, "NVIDIA H200", &why);
    EXPECT_FALSE(b.profile);
    EXPECT_EQ(b.rule, "default");
    EXPECT_NE(why.find(path), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << "one line: " << why;
    return why;
  };
  // A model whose name makes the same file name (another spelling): measured elsewhere.
  EXPECT_NE(ignored(profile_text("NVIDIA-H200", "0.2.0", "")).find("measured on NVIDIA-H200"), std::string::npos);
  EXPECT_NE(ignored(profile_text("NVIDIA H200", "0.1.0", "")).find("sortbench 0.1.0"), std::string::npos);
  EXPECT_NE(ignored("{truncated").find("is not JSON"), std::string::npos);
}

TEST(ChoiceProfile, APinnedProfileIsReadOnAnyGpuAndAMissingOneIsAUsageError) {
  CacheHome home;
  const std::string pinned = home.folder() + "/mine.json";
  write(pinned, profile_text("NVIDIA H100", "0.0.1", R"({"sigma": 1, "min_delta": 2})"));
  ProfilePolicy file;
  file.kind = ProfilePolicy::Kind::file;
  file.path = pinned;
  file.version = "0.1.0";
  const ProfileBinding b = resolve_profile(file, "NVIDIA H200", nullptr);
  ASSERT_TRUE(b.profile);  // the caller chose it: no model or version check
  EXPECT_EQ(b.rule, "profile:" + pinned);
  file.path = home.folder() + "/missing.json";
  EXPECT_THROW(resolve_profile(file, "NVIDIA H200", nullptr), UsageError);
  ProfilePolicy none;
  none.kind = ProfilePolicy::Kind::none;
  write(home.folder() + "/nvidia-h200.json", profile_text("NVIDIA H200", "", ""));
  EXPECT_FALSE(resolve_profile(none, "NVIDIA H200", nullptr).profile);
}

TEST(ChoiceProfile, TheCliRefusesAMissingOrCorruptProfileWithExitTwo) {
  CacheHome home;
  const test::CommandResult missing = test::run_command(test::exe() + " --profile " + home.folder() + "/nope.json list", true);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.json cannot be opened"), std::string::npos) << missing.err;
  write(home.folder() + "/bad.json", "[1, 2");
  const test::CommandResult bad = test::run_command(test::exe() + " list --profile " + home.folder() + "/bad.json", true);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("is not JSON"), std::string::npos) << bad.err;
  EXPECT_EQ(test::run_command(test::exe() + " list --profile none", true).exit_code, 0);
}

}  // namespace
}  // namespace sb

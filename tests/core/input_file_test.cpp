// Reading a user's file: every format rule and every refusal, on the CPU (input_file.hpp);
// the pair fingerprint of data value columns (verify.hpp); host range discovery.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <vector>

#include "sortbench/sink/column_writer.hpp"
#include "sortbench/core/errors.hpp"
#include "sortbench/input/input_file.hpp"
#include "sortbench/input/input_source.hpp"
#include "sortbench/facts/key_discovery.hpp"
#include "sortbench/verify/verify.hpp"
#include "support/command.hpp"

namespace {

using namespace sb;
using sb::test::TempDir;

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

template <typename T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// A .npy file with any header dict, version 1.0 or 2.0.
std::string npy(const std::string& dict_text, const std::string& data, int major = 1) {
  std::string dict = dict_text;
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64) dict.push_back(' ');
  dict.push_back('\n');
  std::string h("\x93NUMPY", 6);
  h.push_back(static_cast<char>(major));
  h.push_back(0);
  const std::size_t len = dict.size();
  h.push_back(static_cast<char>(len & 0xff));
  h.push_back(static_cast<char>((len >> 8) & 0xff));
  if (major != 1) h.push_back(0), h.push_back(0);
  return h + dict + data;
}

FileRequest req(const std::string& path) {
  FileRequest r;
  r.path = path;
  return r;
}

void expect_refused(const FileRequest& r, const std::string& mention) {
  try {
    read_column(r);
    ADD_FAILURE() << r.path << ": expected a refusal mentioning '" << mention << "'";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
  }
}

template <typename T>
std::vector<T> values_of(const FileColumn& c) {
  std::vector<T> v(c.n);
  if (c.n) std::memcpy(v.data(), c.data.data(), c.n * sizeof(T));
  return v;
}

TEST(InputFile, NpyRoundTripsEveryKeyType) {
  TempDir dir;
  const std::vector<std::int64_t> i64{-5, 0, 7, std::numeric_limits<std::int64_t>::min()};
  write_column(dir.file("a.npy"), FileFormat::npy, KeyType::i64, i64.data(), i64.size());
  const FileColumn c = read_column(req(dir.file("a.npy")));
  EXPECT_EQ(c.key, KeyType::i64);
  EXPECT_EQ(c.format, FileFormat::npy);
  EXPECT_EQ(c.dtype, "<i8");
  EXPECT_EQ(values_of<std::int64_t>(c), i64);
  const std::vector<float> f32{-0.0f, 1.5f, -INFINITY, INFINITY};
  write_column(dir.file("f.npy"), FileFormat::npy, KeyType::f32, f32.data(), f32.size());
  const auto back = values_of<float>(read_column(req(dir.file("f.npy"))));
  ASSERT_EQ(back.size(), 4u);
  EXPECT_TRUE(std::signbit(back[0]));
  EXPECT_EQ(back[3], INFINITY);
  EXPECT_EQ(npy_header(KeyType::u32, 3).size() % 64, 0u);
}

TEST(InputFile, NpyBigEndianVersion2AndTwoDimensionalColumns) {
  TempDir dir;
  // >u4 of 1, 2 (big-endian bytes), format version 2.0.
  write_bytes(dir.file("be.npy"), npy("{'descr': '>u4', 'fortran_order': False, 'shape': (2,), }",
                                      std::string("\0\0\0\1\0\0\0\2", 8), 2));
  const FileColumn be = read_column(req(dir.file("be.npy")));
  EXPECT_EQ(values_of<std::uint32_t>(be), (std::vector<std::uint32_t>{1, 2}));
  // A 3 x 2 table of i4, column 1.
  const std::vector<std::int32_t> table{1, -10, 2, -20, 3, -30};
  write_bytes(dir.file("t.npy"), npy("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 2), }", bytes_of(table)));
  FileRequest r = req(dir.file("t.npy"));
  expect_refused(r, "--column");
  r.column = "1";
  EXPECT_EQ(values_of<std::int32_t>(read_column(r)), (std::vector<std::int32_t>{-10, -20, -30}));
  r.column = "2";
  expect_refused(r, "--column '2'");
}

TEST(InputFile, NpyRefusals) {
  TempDir dir;
  const std::string four(16, '\0');
  auto refused = [&](const std::string& dict, const std::string& data, const std::string& mention) {
    write_bytes(dir.file("x.npy"), npy(dict, data));
    expect_refused(req(dir.file("x.npy")), mention);
  };
  refused("{'descr': '<u4', 'fortran_order': False, 'shape': (8,), }", four, "truncated");
  refused("{'descr': '<u4', 'fortran_order': False, 'shape': (2,), }", four, "does not match");
  refused("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", four, "complex");
  refused("{'descr': '<f2', 'fortran_order': False, 'shape': (8,), }", four, "float16");
  refused("{'descr': '|b1', 'fortran_order': False, 'shape': (16,), }", four, "bool");
  refused("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", four, "object");
  refused("{'descr': '<U1', 'fortran_order': False, 'shape': (4,), }", four, "string");
  refused("{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (4,), }", four, "structured");
  refused("{'descr': '<u4', 'fortran_order': True, 'shape': (2, 2), }", four, "Fortran");
  refused("{'descr': '<u4', 'fortran_order': False, 'shape': (1, 2, 2), }", four, "3-D");
  write_bytes(dir.file("x.npy"), "not numpy at all");
  expect_refused(req(dir.file("x.npy")), "magic");
  FileRequest r = req(dir.file("missing.npy"));
  expect_refused(r, "No such file");
  // --key must agree with the dtype, naming both.
  write_bytes(dir.file("k.npy"), npy("{'descr': '<u4', 'fortran_order': False, 'shape': (4,), }", four));
  r = req(dir.file("k.npy"));
  r.key = KeyType::i64;
  expect_refused(r, "u32 keys (dtype '<u4') but --key i64");
}

TEST(InputFile, RawNeedsKeyWholeKeysAndTakesAnOffset) {
  TempDir dir;
  const std::vector<std::uint64_t> v{3, 1, 2};
  write_bytes(dir.file("k.bin"), "HDR!" + bytes_of(v));
  FileRequest r = req(dir.file("k.bin"));
  expect_refused(r, "--key");
  r.key = KeyType::u64;
  expect_refused(r, "not a whole number");
  r.offset = 4;
  const FileColumn c = read_column(r);
  EXPECT_EQ(values_of<std::uint64_t>(c), v);
  EXPECT_EQ(c.format, FileFormat::raw);
  write_bytes(dir.file("empty.bin"), "");
  FileRequest e = req(dir.file("empty.bin"));
  e.key = KeyType::u32;
  EXPECT_EQ(read_column(e).n, 0u);  // an empty file is a valid n = 0 input
}

TEST(InputFile, TextInfersAndParsesColumns) {
  TempDir dir;
  write_bytes(dir.file("ints.txt"), "3\n-1\n\n 7 \r\n1e3\n");
  const FileColumn ints = read_column(req(dir.file("ints.txt")));
  EXPECT_EQ(ints.key, KeyType::i64);
  EXPECT_EQ(values_of<std::int64_t>(ints), (std::vector<std::int64_t>{3, -1, 7, 1000}));
  write_bytes(dir.file("reals.txt"), "1.5\n-inf\n-0.0\n2\n");
  const FileColumn reals = read_column(req(dir.file("reals.txt")));
  EXPECT_EQ(reals.key, KeyType::f64);
  const auto rv = values_of<double>(reals);
  EXPECT_EQ(rv[1], -INFINITY);
  EXPECT_TRUE(std::signbit(rv[2]));
  write_bytes(dir.file("t.csv"), "year,delay,dest\n2013,-4,IAH\n2013,12,MIA\n");
  FileRequest r = req(dir.file("t.csv"));
  r.column = "delay";
  EXPECT_EQ(values_of<std::int64_t>(read_column(r)), (std::vector<std::int64_t>{-4, 12}));
  r.column = "0";
  EXPECT_EQ(values_of<std::int64_t>(read_column(r)), (std::vector<std::int64_t>{2013, 2013}));
  r.column = "dest";
  expect_refused(r, "line 2, column 'dest': 'IAH' is not a number");
  r.column = "nope";
  expect_refused(r, "no column 'nope'");
  write_bytes(dir.file("big.txt"), "1\n70000000000\n");
  FileRequest big = req(dir.file("big.txt"));
  big.key = KeyType::u32;
  expect_refused(big, "line 2: '70000000000' does not fit a u32 key");
  expect_refused(big, "give --key u64, i64 or f64");
  // Issue 47 item 7: past u64 the hint named u64 itself; only f64 is wider.
  write_bytes(dir.file("past.txt"), "1\n18446744073709551616\n");
  FileRequest past = req(dir.file("past.txt"));
  past.key = KeyType::u64;
  expect_refused(past, "no integer key is wider: give --key f64");
  write_bytes(dir.file("neg.txt"), "1\n-5\n");
  FileRequest neg = req(dir.file("neg.txt"));
  neg.key = KeyType::u32;
  expect_refused(neg, "'-5' does not fit a u32 key; give a signed --key (i32, i64) or f64");
  write_bytes(dir.file("empty.txt"), "");
  EXPECT_EQ(read_column(req(dir.file("empty.txt"))).n, 0u);
  // Issue 47 item 7: an empty .npy was "no \x93NUMPY magic"; it is n = 0 as in every format.
  write_bytes(dir.file("empty.npy"), "");
  EXPECT_EQ(read_column(req(dir.file("empty.npy"))).n, 0u);
  EXPECT_EQ(probe_column(req(dir.file("empty.npy"))).n, 0u);
  FileRequest empty_i64 = req(dir.file("empty.npy"));
  empty_i64.key = KeyType::i64;
  EXPECT_EQ(read_column(empty_i64).key, KeyType::i64);
}

// Issue 39 item 3: files as spreadsheets and exports write them.
TEST(InputFile, TextByteOrderMarkAndHeaderLine) {
  TempDir dir;
  // A byte-order mark before a one-column header: the header is recognized without --column.
  write_bytes(dir.file("bom.csv"), "\xEF\xBB\xBFid\n3\n1\n2\n");
  const FileColumn ids = read_column(req(dir.file("bom.csv")));
  EXPECT_EQ(ids.key, KeyType::i64);
  EXPECT_EQ(values_of<std::int64_t>(ids), (std::vector<std::int64_t>{3, 1, 2}));
  EXPECT_EQ(probe_column(req(dir.file("bom.csv"))).n, 3u);
  // With --column the mark is not part of the first name.
  write_bytes(dir.file("bom2.csv"), "\xEF\xBB\xBFid,delay\n1,-4\n2,12\n");
  FileRequest named = req(dir.file("bom2.csv"));
  named.column = "id";
  EXPECT_EQ(values_of<std::int64_t>(read_column(named)), (std::vector<std::int64_t>{1, 2}));
  named.column = "delay";
  EXPECT_EQ(values_of<std::int64_t>(read_column(named)), (std::vector<std::int64_t>{-4, 12}));
  // Several names and no --column: the column must be chosen.
  expect_refused(req(dir.file("bom2.csv")), "line 1 is a header naming 2 columns (id, delay)");
  // Numbers with commas are data, not a header: the column must be chosen by its index.
  write_bytes(dir.file("pairs.csv"), "1,2\n3,4\n");
  expect_refused(req(dir.file("pairs.csv")), "line 1 is data with 2 columns (no header line)");
  // A mark before numbers alone, and a header whose data is floats.
  write_bytes(dir.file("bom3.txt"), "\xEF\xBB\xBF" "5\n4\n");
  EXPECT_EQ(values_of<std::int64_t>(read_column(req(dir.file("bom3.txt")))), (std::vector<std::int64_t>{5, 4}));
  write_bytes(dir.file("h.csv"), "\"price\"\n1.5\n0.25\n");
  const FileColumn prices = read_column(req(dir.file("h.csv")));
  EXPECT_EQ(prices.key, KeyType::f64);
  EXPECT_EQ(values_of<double>(prices), (std::vector<double>{1.5, 0.25}));
  // A bad cell under an inferred header names the line and the column.
  write_bytes(dir.file("bad.csv"), "id\n1\nx\n");
  expect_refused(req(dir.file("bad.csv")), "line 3, column 'id': 'x' is not a number");
}

// Issue 47 item 1: a numeric first line was taken as a header and --column K matched by name
// before index, so `1,2\n3,4` with --column 1 read 3 (column 0, row 1 lost), exit 0.
TEST(InputFile, CsvWhoseFirstLineIsNumbersKeepsItAsData) {
  TempDir dir;
  write_bytes(dir.file("two.csv"), "1,2\n3,4\n");
  FileRequest r = req(dir.file("two.csv"));
  r.column = "1";
  EXPECT_EQ(values_of<std::int64_t>(read_column(r)), (std::vector<std::int64_t>{2, 4}));
  r.column = "0";
  EXPECT_EQ(values_of<std::int64_t>(read_column(r)), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(probe_column(r).n, 2u);
  write_bytes(dir.file("three.csv"), "10,20\n30,40\n50,60\n");
  FileRequest t = req(dir.file("three.csv"));
  t.column = "1";
  EXPECT_EQ(values_of<std::int64_t>(read_column(t)), (std::vector<std::int64_t>{20, 40, 60}));
  // A column index past line 1's cells, or a name where no header names anything: exit 2 with the count.
  t.column = "2";
  expect_refused(t, "no column '2': the file has no header line (line 1 is data) and 2 columns");
  t.column = "price";
  expect_refused(t, "give --column with an index from 0 to 1, or --header if line 1 names the columns");
  // --header takes line 1 as names even when they are numbers; --no-header takes names as data.
  t.header = true;
  t.column = "20";
  EXPECT_EQ(values_of<std::int64_t>(read_column(t)), (std::vector<std::int64_t>{40, 60}));
  write_bytes(dir.file("named.csv"), "a,b\n1,2\n");
  FileRequest n = req(dir.file("named.csv"));
  n.column = "b";
  n.header = false;
  expect_refused(n, "no column 'b': the file has no header line");
  n.column = "1";
  expect_refused(n, "line 1, column '1': 'b' is not a number");
  // A header by name, and by index when no name matches.
  n.header.reset();
  EXPECT_EQ(values_of<std::int64_t>(read_column(n)), (std::vector<std::int64_t>{2}));
  n.column = "nope";
  expect_refused(n, "no column 'nope' in the header line (a, b)");
}

TEST(InputFile, CsvFirstLineOfNumbersAndNamesIsRefusedNotGuessed) {
  TempDir dir;
  write_bytes(dir.file("mixed.csv"), "id,2019\n1,5\n2,7\n");
  FileRequest r = req(dir.file("mixed.csv"));
  r.column = "1";
  expect_refused(r, "line 1 (id, 2019) mixes numbers and names");
  expect_refused(r, "give --header if line 1 names the columns, or --no-header if it is data");
  r.header = true;
  EXPECT_EQ(values_of<std::int64_t>(read_column(r)), (std::vector<std::int64_t>{5, 7}));
  r.column = "2019";
  EXPECT_EQ(values_of<std::int64_t>(read_column(r)), (std::vector<std::int64_t>{5, 7}));
}

TEST(InputFile, TextIntegerPastEvery64BitTypeIsRefusedWithItsLine) {
  TempDir dir;
  write_bytes(dir.file("big.txt"), "1\n18446744073709551616\n2\n");
  expect_refused(req(dir.file("big.txt")), "line 2: '18446744073709551616' does not fit a 64-bit integer key");
  try {
    probe_column(req(dir.file("big.txt")));
    ADD_FAILURE() << "the probe inferred a type for an integer past u64";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--key f64"), std::string::npos) << e.what();
  }
  write_bytes(dir.file("low.csv"), "a\n-9223372036854775809\n");
  expect_refused(req(dir.file("low.csv")), "line 2, column 'a': '-9223372036854775809' does not fit a 64-bit");
  // Negative integers and integers past i64's maximum: each fits a type, none fits both.
  write_bytes(dir.file("mixed.txt"), "-1\n18446744073709551615\n");
  expect_refused(req(dir.file("mixed.txt")), "line 1: '-1' needs a signed key and line 2: '18446744073709551615'");
  // A column that holds a non-integer is f64's, a large integer in it included.
  write_bytes(dir.file("reals.txt"), "18446744073709551616\n1.5\n");
  EXPECT_EQ(read_column(req(dir.file("reals.txt"))).key, KeyType::f64);
  // Asked for, f64 reads it.
  FileRequest as_f64 = req(dir.file("big.txt"));
  as_f64.key = KeyType::f64;
  EXPECT_EQ(values_of<double>(read_column(as_f64))[1], 18446744073709551616.0);
  // u64's own maximum is still inferred as u64.
  write_bytes(dir.file("max.txt"), "18446744073709551615\n0\n");
  EXPECT_EQ(read_column(req(dir.file("max.txt"))).key, KeyType::u64);
}

TEST(InputFile, NanKeysAreCountedAndSourcesRefuseThem) {
  TempDir dir;
  const std::vector<double> v{1.0, NAN, 2.0, NAN};
  const NanReport nans = find_nans(KeyType::f64, v.data(), v.size());
  EXPECT_EQ(nans.count, 2u);
  EXPECT_EQ(nans.first, 1u);
  write_column(dir.file("n.npy"), FileFormat::npy, KeyType::f64, v.data(), v.size());
  FileInputRequest fr;
  fr.keys = req(dir.file("n.npy"));
  try {
    make_file_source(fr);
    ADD_FAILURE() << "NaN keys accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("2 NaN keys, the first at position 1"), std::string::npos) << e.what();
  }
}

TEST(InputFile, FileSourceDescribesItselfAndMeasuresSortedness) {
  TempDir dir;
  const std::vector<std::uint32_t> v{1, 2, 2, 0, 5};
  write_column(dir.file("s.npy"), FileFormat::npy, KeyType::u32, v.data(), v.size());
  FileInputRequest fr;
  fr.keys = req(dir.file("s.npy"));
  const auto src = make_file_source(fr);
  EXPECT_EQ(src->spec().n, 5u);
  EXPECT_EQ(src->default_range(), RangeMode::measured);
  EXPECT_DOUBLE_EQ(*src->sortedness(), 0.75);
  const auto j = src->provenance();
  EXPECT_EQ(j.at("kind"), "file");
  EXPECT_EQ(j.at("dtype"), "<u4");
  EXPECT_EQ(j.at("format"), "npy");
}

TEST(KeyDiscovery, HostDiscoveryMatchesTheOrderedBounds) {
  const std::vector<std::int32_t> v{5, -3, 9, 0};
  const OrderedBounds f = discover_key_facts_host(KeyType::i32, v.data(), v.size());
  EXPECT_EQ(f.min_ordered, KeyTraits<std::int32_t>::ordered(-3));
  EXPECT_EQ(f.max_ordered, KeyTraits<std::int32_t>::ordered(9));
  KeyFacts s;
  s.n = v.size();
  apply_key_facts(s, KeyType::i32, f);
  EXPECT_EQ(static_cast<long long>(s.min), -3);
  EXPECT_EQ(static_cast<long long>(s.max), 9);
}

TEST(KeyDiscovery, PromisedFactsAreTheSpecsBoundsInOrderedForm) {
  // What a run of distributed rows hands the ranks before they measure: the ordered bounds a
  // histogram's range comes from, not zeros.
  const KeyFacts i = promised_key_facts(KeyType::i32, 100, -7, 40, 12);
  EXPECT_EQ(i.n, 100u);
  EXPECT_EQ(i.len, 12u);
  EXPECT_EQ(static_cast<long long>(i.min), -7);
  EXPECT_EQ(static_cast<long long>(i.max), 40);
  EXPECT_EQ(i.min_ordered, KeyTraits<std::int32_t>::ordered(-7));
  EXPECT_EQ(i.max_ordered - i.min_ordered, 47u);
  const KeyFacts u = promised_key_facts(KeyType::u64, 5, 0, wide_t{1} << 40, 5);
  EXPECT_EQ(u.max_ordered, std::uint64_t{1} << 40);
  EXPECT_EQ(promised_key_facts(KeyType::u32, 0, 3, 9, 0).max_ordered, 0u);  // no keys: nothing promised
}

TEST(VerifyPairs, ValuesThatAreDataAreCheckedAsPairs) {
  const std::vector<std::uint32_t> keys_in{3, 1, 2}, vals_in{30, 10, 20};
  const std::vector<std::uint32_t> keys_out{1, 2, 3}, good{10, 20, 30}, swapped{20, 10, 30};
  VerifyInput v;
  v.key = KeyType::u32;
  v.payload = Payload::u32;
  v.n = 3;
  v.keys_in = keys_in.data();
  v.keys_out = keys_out.data();
  v.vals_in = vals_in.data();
  v.vals_out = good.data();
  EXPECT_TRUE(verify_host(v).ok) << verify_host(v).message;
  v.vals_out = swapped.data();
  const VerifyReport bad = verify_host(v);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.message.find("(key, value) multiset"), std::string::npos) << bad.message;
}

}  // namespace

// A sink that records every chunk the reader hands over, as the GPU upload receives them.
class RecordingSink : public ColumnSink {
 public:
  void sized(KeyType key, std::uint64_t n) override {
    sized_calls++;
    bytes.assign(n * key_bytes(key), 0);
  }
  unsigned char* room(std::uint64_t first, std::uint64_t size) override {
    EXPECT_LE(size, ColumnSink::kMaxChunk);
    EXPECT_EQ(first, next_first) << "chunks arrive in order, without gaps";
    staging.assign(size, 0xAB);  // the reader must fill all of it
    return staging.data();
  }
  void filled(std::uint64_t first, std::uint64_t size) override {
    ASSERT_EQ(size, staging.size());
    std::memcpy(bytes.data() + first, staging.data(), size);
    next_first = first + size;
    chunks++;
  }
  int sized_calls = 0, chunks = 0;
  std::uint64_t next_first = 0;
  std::vector<unsigned char> bytes, staging;
};

TEST(InputFile, SinkGetsEveryChunkInOrderAndTheSameBytesAsAHostRead) {
  TempDir dir;
  // Three chunks and a tail of big-endian doubles, NaNs first in the third chunk.
  const std::uint64_t per_chunk = ColumnSink::kMaxChunk / sizeof(double);
  std::vector<double> v(3 * per_chunk + 5);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 1000) - 500.0;
  v[2 * per_chunk + 7] = NAN;
  v[3 * per_chunk + 1] = NAN;
  std::string be = bytes_of(v);
  for (std::size_t i = 0; i < v.size(); ++i) std::reverse(be.begin() + i * 8, be.begin() + i * 8 + 8);
  write_bytes(dir.file("be.npy"), npy("{'descr': '>f8', 'fortran_order': False, 'shape': (" +
                                          std::to_string(v.size()) + ",), }",
                                      be));
  RecordingSink sink;
  const FileColumn streamed = read_column(req(dir.file("be.npy")), sink);
  EXPECT_EQ(sink.sized_calls, 1);
  EXPECT_EQ(sink.chunks, 4);
  EXPECT_EQ(streamed.data.bytes(), 0u) << "a sink read holds no host copy";
  EXPECT_EQ(streamed.nans.count, 2u);
  EXPECT_EQ(streamed.nans.first, 2 * per_chunk + 7);
  const FileColumn held = read_column(req(dir.file("be.npy")));
  ASSERT_EQ(held.data.bytes(), sink.bytes.size());
  EXPECT_EQ(std::memcmp(held.data.data(), sink.bytes.data(), sink.bytes.size()), 0);
  EXPECT_EQ(held.nans.count, 2u);
  EXPECT_EQ(held.nans.first, 2 * per_chunk + 7);

  // A 2-D table's column and a text file reach a sink the same way.
  const std::vector<std::int32_t> table{1, -1, 2, -2, 3, -3};
  write_bytes(dir.file("t.npy"), npy("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 2), }", bytes_of(table)));
  FileRequest col = req(dir.file("t.npy"));
  col.column = "1";
  RecordingSink table_sink;
  EXPECT_EQ(read_column(col, table_sink).n, 3u);
  std::vector<std::int32_t> second(3);
  std::memcpy(second.data(), table_sink.bytes.data(), 12);
  EXPECT_EQ(second, (std::vector<std::int32_t>{-1, -2, -3}));
  write_bytes(dir.file("x.txt"), "5\n-7\n");
  RecordingSink text_sink;
  EXPECT_EQ(read_column(req(dir.file("x.txt")), text_sink).key, KeyType::i64);
  std::vector<std::int64_t> parsed(2);
  std::memcpy(parsed.data(), text_sink.bytes.data(), 16);
  EXPECT_EQ(parsed, (std::vector<std::int64_t>{5, -7}));
}

namespace {

struct ElementRange {
  std::uint64_t first = 0, count = 0;
};

// The ranges a shard or a streamed read may ask for: empty ones, the first and the last element,
// halves, and ranges that start, end and straddle the file's chunk boundaries (elements_per_chunk
// apart) or hold one chunk and one more element (so the sink sees a boundary inside the range).
std::vector<ElementRange> ranges_of(std::uint64_t n, std::uint64_t elements_per_chunk) {
  std::vector<ElementRange> out{{0, 0}, {n / 3, 0}, {n, 0}, {0, n}, {0, 1}, {n - 1, 1}, {n / 2, n - n / 2}};
  for (std::uint64_t edge = elements_per_chunk; edge < n; edge += elements_per_chunk) {
    out.push_back({edge, std::min(elements_per_chunk, n - edge)});
    out.push_back({0, edge});
    out.push_back({edge - 1, 2});
    out.push_back({edge - 1, n - edge + 1});
  }
  if (n > elements_per_chunk + 3) out.push_back({3, elements_per_chunk + 1});
  return out;
}

void expect_range_refused(const FileRequest& r, std::uint64_t first, std::uint64_t count, std::uint64_t n,
                          const std::string& range_text) {
  try {
    read_column_range(r, first, count);
    ADD_FAILURE() << "a range [" << first << ", +" << count << ") past the end of " << n << " was read";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(r.path), std::string::npos) << what;
    EXPECT_NE(what.find("holds " + std::to_string(n)), std::string::npos) << what;
    EXPECT_NE(what.find(range_text), std::string::npos) << what;
  }
}

// Every range of the column, read into host memory and through a sink, equals the same elements
// of a whole read: the same bytes, type and NaN count, NaN positions counted from the range's
// start, file_bytes as slice_bytes(first, count) says; ranges past the end are refused. The probe
// agrees with the whole read without reading the data.
template <typename SliceBytes>
void expect_ranges_match_whole_read(const FileRequest& r, SliceBytes slice_bytes) {
  const FileColumn whole = read_column(r);
  const std::uint64_t n = whole.n;
  const std::size_t width = key_bytes(whole.key);
  const ColumnInfo info = probe_column(r);
  EXPECT_EQ(info.n, n);
  EXPECT_EQ(info.key, whole.key);
  EXPECT_EQ(info.dtype, whole.dtype);
  EXPECT_EQ(info.format, whole.format);
  EXPECT_EQ(info.file_bytes, whole.file_bytes);
  ASSERT_GT(n, 2u);
  for (const ElementRange range : ranges_of(n, ColumnSink::kMaxChunk / width)) {
    SCOPED_TRACE("range [" + std::to_string(range.first) + ", +" + std::to_string(range.count) + ")");
    const unsigned char* expected = whole.data.data() + range.first * width;
    const NanReport expected_nans = find_nans(whole.key, expected, range.count);
    const FileColumn held = read_column_range(r, range.first, range.count);
    ASSERT_EQ(held.n, range.count);
    EXPECT_EQ(held.key, whole.key);
    EXPECT_EQ(held.dtype, whole.dtype);
    EXPECT_EQ(held.file_bytes, slice_bytes(range.first, range.count));
    ASSERT_EQ(held.data.bytes(), range.count * width);
    EXPECT_EQ(std::memcmp(held.data.data(), expected, range.count * width), 0);
    EXPECT_EQ(held.nans.count, expected_nans.count);
    EXPECT_EQ(held.nans.first, expected_nans.first);
    RecordingSink sink;
    const FileColumn streamed = read_column_range(r, range.first, range.count, sink);
    EXPECT_EQ(sink.sized_calls, 1);
    EXPECT_EQ(streamed.n, range.count);
    EXPECT_EQ(streamed.data.bytes(), 0u);
    ASSERT_EQ(sink.bytes.size(), range.count * width);
    EXPECT_EQ(sink.next_first, range.count * width) << "every chunk handed over";
    EXPECT_EQ(std::memcmp(sink.bytes.data(), expected, range.count * width), 0);
    EXPECT_EQ(streamed.nans.count, expected_nans.count);
  }
  const std::string end = std::to_string(n + 1);
  expect_range_refused(r, n, 1, n, "[" + std::to_string(n) + ", " + end + ")");
  expect_range_refused(r, n + 1, 0, n, "[" + end + ", " + end + ")");
  expect_range_refused(r, 0, n + 1, n, "[0, " + end + ")");
  expect_range_refused(r, n - 1, 2, n, "[" + std::to_string(n - 1) + ", " + end + ")");
  expect_range_refused(r, 1, ~std::uint64_t{0}, n, "[1, 1 + 18446744073709551615)");
}

// Text with blank lines here and there; each value line's byte span, for the slices' file_bytes.
struct TextColumn {
  std::string text;
  std::vector<std::size_t> line_begin, line_end;
  std::uint64_t slice_bytes(std::uint64_t first, std::uint64_t count) const {
    return count ? line_end[first + count - 1] - line_begin[first] : 0;
  }
  void add_line(const std::string& line) {
    if (line_begin.size() % 1000 == 999) text += line_begin.size() % 2 ? "\n" : " \t\r\n";
    line_begin.push_back(text.size());
    text += line + "\n";
    line_end.push_back(text.size());
  }
};

}  // namespace

TEST(InputFileRange, NpyRangesMatchTheWholeRead) {
  TempDir dir;
  // Little-endian u32, version 1.0: one chunk boundary inside.
  const std::uint64_t per_chunk = ColumnSink::kMaxChunk / 4;
  std::vector<std::uint32_t> v(per_chunk + 3);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i * 2654435761u);
  write_column(dir.file("u.npy"), FileFormat::npy, KeyType::u32, v.data(), v.size());
  expect_ranges_match_whole_read(req(dir.file("u.npy")), [](std::uint64_t, std::uint64_t count) { return count * 4; });

  // Big-endian f64, version 2.0: two chunk boundaries, NaNs on and after the second.
  const std::uint64_t per_chunk8 = ColumnSink::kMaxChunk / 8;
  std::vector<double> d(2 * per_chunk8 + 5);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<double>(i % 977) - 400.5;
  d[2 * per_chunk8] = NAN;
  d[2 * per_chunk8 + 3] = NAN;
  std::string be = bytes_of(d);
  for (std::size_t i = 0; i < d.size(); ++i) std::reverse(be.begin() + i * 8, be.begin() + i * 8 + 8);
  write_bytes(dir.file("be.npy"), npy("{'descr': '>f8', 'fortran_order': False, 'shape': (" +
                                          std::to_string(d.size()) + ",), }",
                                      be, 2));
  const FileRequest big = req(dir.file("be.npy"));
  expect_ranges_match_whole_read(big, [](std::uint64_t, std::uint64_t count) { return count * 8; });
  const FileColumn tail = read_column_range(big, 2 * per_chunk8 - 2, 7);
  EXPECT_EQ(tail.nans.count, 2u);
  EXPECT_EQ(tail.nans.first, 2u) << "NaN positions count from the range's start";
  EXPECT_EQ(values_of<double>(read_column_range(big, 1, 2)), (std::vector<double>{d[1], d[2]}));

  // A 2-D table's column: the slice's rows are read whole (12 bytes a row).
  std::vector<std::int32_t> table(3 * 1000);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<std::int32_t>(i) - 1500;
  write_bytes(dir.file("t.npy"), npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1000, 3), }",
                                     bytes_of(table)));
  FileRequest col = req(dir.file("t.npy"));
  col.column = "2";
  expect_ranges_match_whole_read(col, [](std::uint64_t, std::uint64_t count) { return count * 12; });
  EXPECT_EQ(values_of<std::int32_t>(read_column_range(col, 998, 2)), (std::vector<std::int32_t>{1496, 1499}));
  // A table of f64 with a NaN in the column read at row 500, one in the other column at row 499.
  std::vector<double> reals(2 * 1000, 1.5);
  reals[2 * 500 + 1] = NAN;
  reals[2 * 499] = NAN;
  write_bytes(dir.file("r.npy"), npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 2), }",
                                     bytes_of(reals)));
  FileRequest real_col = req(dir.file("r.npy"));
  real_col.column = "1";
  const FileColumn rows = read_column_range(real_col, 497, 6);
  EXPECT_EQ(rows.nans.count, 1u);
  EXPECT_EQ(rows.nans.first, 3u) << "NaN positions count from the range's start";
}

TEST(InputFileRange, RawRangesWithAnOffsetMatchTheWholeRead) {
  TempDir dir;
  const std::uint64_t per_chunk = ColumnSink::kMaxChunk / 4;
  std::vector<std::int32_t> v(per_chunk + 9);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * 7919) - 5;
  write_bytes(dir.file("k.bin"), "HDR!" + bytes_of(v));
  FileRequest r = req(dir.file("k.bin"));
  r.key = KeyType::i32;
  r.offset = 4;
  expect_ranges_match_whole_read(r, [](std::uint64_t, std::uint64_t count) { return count * 4; });
  EXPECT_EQ(values_of<std::int32_t>(read_column_range(r, 0, 2)), (std::vector<std::int32_t>{-5, 7914}));
  const ColumnInfo info = probe_column(r);
  EXPECT_EQ(info.dtype, "raw i32");
  EXPECT_EQ(info.file_bytes, 4 + v.size() * 4);
}

TEST(InputFileRange, TextRangesMatchTheWholeRead) {
  TempDir dir;
  // One value a line, the key type inferred (i64), and given: one i64 chunk and a few lines more.
  const std::uint64_t per_chunk = ColumnSink::kMaxChunk / 8;
  TextColumn plain;
  for (std::uint64_t i = 0; i < per_chunk + 4; ++i)
    plain.add_line(std::to_string(static_cast<std::int64_t>(i % 100003) - 50000));
  write_bytes(dir.file("v.txt"), plain.text);
  const auto plain_bytes = [&](std::uint64_t first, std::uint64_t count) { return plain.slice_bytes(first, count); };
  FileRequest inferred = req(dir.file("v.txt"));
  expect_ranges_match_whole_read(inferred, plain_bytes);
  EXPECT_EQ(read_column_range(inferred, 5, 1).key, KeyType::i64);
  FileRequest given = inferred;
  given.key = KeyType::i64;
  expect_ranges_match_whole_read(given, plain_bytes);

  // A CSV column by name under a header line, f64 with NaN cells.
  TextColumn csv;
  csv.text = "id,\"value\",tag\n";
  for (std::uint64_t i = 0; i < per_chunk + 2; ++i)
    csv.add_line(std::to_string(i) + "," + (i % 250000 == 7 ? std::string("nan") : std::to_string(i % 1009) + ".25") +
                 ",x");
  write_bytes(dir.file("t.csv"), csv.text);
  FileRequest column = req(dir.file("t.csv"));
  column.column = "value";
  column.key = KeyType::f64;
  expect_ranges_match_whole_read(column, [&](std::uint64_t first, std::uint64_t count) {
    return csv.slice_bytes(first, count);
  });
  const FileColumn nans = read_column_range(column, 250000, 250010);
  EXPECT_EQ(nans.nans.count, 2u);
  EXPECT_EQ(nans.nans.first, 7u);

  // A CSV column by index, its type inferred (u64: one cell past 2^63).
  write_bytes(dir.file("u.csv"), "a,b\n1,5\n2,18446744073709551615\n3,7\n");
  FileRequest wide = req(dir.file("u.csv"));
  wide.column = "1";
  EXPECT_EQ(probe_column(wide).key, KeyType::u64);
  EXPECT_EQ(values_of<std::uint64_t>(read_column_range(wide, 0, 1)), (std::vector<std::uint64_t>{5}));
  EXPECT_EQ(values_of<std::uint64_t>(read_column_range(wide, 2, 1)), (std::vector<std::uint64_t>{7}));
}

TEST(InputFileRange, TextProbeCountsLinesAndABadCellIsItsRangesError) {
  TempDir dir;
  write_bytes(dir.file("x.txt"), "1\n\n2\nx\n4");
  FileRequest r = req(dir.file("x.txt"));
  r.key = KeyType::i64;
  // With the key given, the probe and the other ranges never parse the bad cell.
  const ColumnInfo info = probe_column(r);
  EXPECT_EQ(info.n, 4u);
  EXPECT_EQ(info.dtype, "text i64");
  EXPECT_EQ(values_of<std::int64_t>(read_column_range(r, 0, 2)), (std::vector<std::int64_t>{1, 2}));
  const FileColumn last = read_column_range(r, 3, 1);
  EXPECT_EQ(values_of<std::int64_t>(last), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(last.file_bytes, 1u) << "the last line has no newline";
  try {
    read_column_range(r, 2, 1);
    ADD_FAILURE() << "the bad cell's own range was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("line 4: 'x' is not a number"), std::string::npos) << e.what();
  }
  // Inferred, the type is the whole column's, so the bad cell is every range's error.
  r.key.reset();
  EXPECT_EQ(probe_column(r).key, KeyType::f64);
  expect_refused(r, "line 4: 'x' is not a number");
  try {
    read_column_range(r, 0, 1);
    ADD_FAILURE() << "a range of a column no key type takes was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'x' is not a number"), std::string::npos) << e.what();
  }
  // The probe still refuses what no read takes.
  r.key = KeyType::u32x4;
  EXPECT_THROW(probe_column(r), UsageError);
  write_bytes(dir.file("e.txt"), "");
  EXPECT_EQ(probe_column(req(dir.file("e.txt"))).n, 0u);
  EXPECT_EQ(read_column_range(req(dir.file("e.txt")), 0, 0).n, 0u);
}

// Writing a key column chunk by chunk (chunked_write.hpp), issue 37 item 5.
#include "sortbench/sink/chunked_write.hpp"

#include <algorithm>
#include <future>
#include <optional>
#include <vector>

#include "sortbench/core/element.hpp"
#include "sortbench/core/keys.hpp"
#include "sortbench/core/progress.hpp"
#include "sortbench/core/temp_files.hpp"

namespace sb {
namespace {

// The bounds of the chunks seen so far, in ordered form so every key type compares as integers.
struct Bounds {
  bool any = false;
  std::uint64_t lo = 0, hi = 0;
  bool integral = true;
};

template <typename K>
void add_chunk(Bounds& b, const K* keys, std::uint64_t count) {
  if (count == 0) return;
  std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
  bool integral = true;
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) reduction(&& : integral)
  for (std::int64_t i = 0; i < n; ++i) {
    lo = std::min<std::uint64_t>(lo, lowest_ordered(keys[i]));
    hi = std::max<std::uint64_t>(hi, highest_ordered(keys[i]));
    integral = integral && integral_key(keys[i]);
  }
  b.lo = b.any ? std::min(b.lo, lo) : lo;
  b.hi = b.any ? std::max(b.hi, hi) : hi;
  b.integral = b.integral && integral;
  b.any = true;
}

template <typename K>
void fill_facts(const Bounds& b, KeyFacts& f) {
  using U = decltype(KeyTraits<K>::ordered(K{}));
  f.min_ordered = b.lo;
  f.max_ordered = b.hi;
  f.min = stat_value(KeyTraits<K>::from_ordered(static_cast<U>(b.lo)));
  f.max = stat_value(KeyTraits<K>::from_ordered(static_cast<U>(b.hi)));
  f.integral = b.integral;
}

// u32x4 rows count as their words, as the generator's statistics do.
template <typename F>
void dispatch_words(KeyType key, F&& f) {
  if (key == KeyType::u32x4) f(std::uint32_t{});
  else dispatch_key<ScalarKeys>(key, std::forward<F>(f));
}

}  // namespace

ChunkedWriteResult write_keys_chunked(const std::string& path, KeyType key, std::uint64_t n, const FillKeys& fill,
                                      const ChunkedWriteOptions& options) {
  const std::size_t width = key_bytes(key);
  const std::uint64_t per_chunk = std::max<std::uint64_t>(options.chunk_bytes / width, 1);
  const std::size_t words_per_key = key == KeyType::u32x4 ? 4 : 1;
  // Declared in this order so that, unwinding, the write in flight ends before its buffer goes and
  // the file is closed before its temporary name is removed.
  TempOutput temp(path);
  ColumnWriter writer(temp.path(), options.format, key, n, path);
  std::optional<ProgressMeter> progress;
  if (!options.progress_label.empty()) progress.emplace(options.progress_label, n * width);
  std::vector<unsigned char> buffers[2];
  for (auto& b : buffers) b.resize(std::max<std::uint64_t>(std::min(per_chunk, n), 1) * width);
  std::future<void> writing;

  Bounds bounds;
  std::uint64_t chunk = 0;
  for (std::uint64_t first = 0; first < n; first += per_chunk, ++chunk) {
    const std::uint64_t count = std::min(per_chunk, n - first);
    unsigned char* buffer = buffers[chunk % 2].data();
    // The other buffer's write may still run: this fill overlaps it.
    fill(first, count, buffer);
    dispatch_words(key, [&](auto k) {
      using K = decltype(k);
      add_chunk(bounds, reinterpret_cast<const K*>(buffer), count * words_per_key);
    });
    if (writing.valid()) writing.get();
    writing = std::async(std::launch::async, [&writer, &progress, buffer, count, width] {
      writer.append(buffer, count);
      if (progress) progress->advance(count * width);
    });
  }
  if (writing.valid()) writing.get();

  ChunkedWriteResult result;
  result.file_bytes = writer.close();
  temp.commit();
  if (progress) progress->finish();
  result.bounds.n = n;
  if (bounds.any)
    dispatch_words(key, [&](auto k) { fill_facts<decltype(k)>(bounds, result.bounds); });
  return result;
}

ChunkedWriteResult write_source_keys(const InputSource& source, const std::string& path,
                                     const ChunkedWriteOptions& options) {
  const InputSpec& spec = source.spec();
  return write_keys_chunked(
      path, spec.key, spec.n,
      [&](std::uint64_t first, std::uint64_t count, void* keys) { source.read_range(first, count, keys, nullptr); },
      options);
}

}  // namespace sb

#include <vector>

#include <fmt/format.h>

#include "sortbench/verify.hpp"

namespace sb {

VerifyReport summarize(const VerifyCounts& c, std::uint64_t n) {
  VerifyReport r;
  r.ok = false;
  if (c.fp_in_a != c.fp_out_a || c.fp_in_b != c.fp_out_b)
    r.message = "not a permutation of the input: the key multiset differs (elements lost, duplicated or changed)";
  else if (c.unsorted)
    r.message = fmt::format("not sorted: {} adjacent pairs out of order, first at index {}", c.unsorted,
                            c.first_unsorted);
  else if (c.bad_index)
    r.message = fmt::format("payload: {} indices outside [0, {}), first at index {}", c.bad_index, n, c.first_bad_index);
  else if (c.wrong_key)
    r.message = fmt::format("payload: {} indices name an element with another key, first at index {}", c.wrong_key,
                            c.first_wrong_key);
  else if (c.repeated_index)
    r.message = fmt::format("payload: {} indices occur more than once, first at index {}", c.repeated_index,
                            c.first_repeated_index);
  else if (c.unstable)
    r.message = fmt::format("not stable: {} equal-key pairs out of input order, first at index {}", c.unstable,
                            c.first_unstable);
  else {
    r.ok = true;
    r.message = "passed";
  }
  return r;
}

namespace {

template <typename K>
VerifyCounts count_typed(const VerifyInput& in) {
  const K* kin = static_cast<const K*>(in.keys_in);
  const K* kout = static_cast<const K*>(in.keys_out);
  VerifyCounts c;
  c.first_unsorted = c.first_bad_index = c.first_wrong_key = c.first_repeated_index = c.first_unstable = in.n;
  auto note = [](std::uint64_t& count, std::uint64_t& first, std::uint64_t j) {
    if (count++ == 0) first = j;
  };
  for (std::uint64_t i = 0; i < in.n; ++i) {
    const Fingerprint a = fingerprint_of(kin[i]);
    const Fingerprint b = fingerprint_of(kout[i]);
    c.fp_in_a += a.a, c.fp_in_b += a.b, c.fp_out_a += b.a, c.fp_out_b += b.b;
    if (i + 1 < in.n && out_of_order(kout, i)) note(c.unsorted, c.first_unsorted, i);
  }
  if (in.vals_out) {
    std::vector<bool> seen(in.n, false);
    for (std::uint64_t j = 0; j < in.n; ++j) {
      const index_t idx = in.vals_out[j];
      if (idx >= in.n) {
        note(c.bad_index, c.first_bad_index, j);
        continue;
      }
      if (!bits_equal(kin[idx], kout[j])) note(c.wrong_key, c.first_wrong_key, j);
      if (seen[idx]) note(c.repeated_index, c.first_repeated_index, j);
      seen[idx] = true;
      if (in.check_stable && j + 1 < in.n && breaks_stability(kout, in.vals_out, j))
        note(c.unstable, c.first_unstable, j);
    }
  }
  return c;
}

}  // namespace

VerifyReport verify_host(const VerifyInput& in) {
  const VerifyCounts c = dispatch_key(in.key, [&](auto k) { return count_typed<decltype(k)>(in); });
  return summarize(c, in.n);
}

}  // namespace sb

#include <vector>

#include <fmt/format.h>

#include "sortbench/core/element.hpp"
#include "sortbench/verify/verify.hpp"

namespace sb {

VerifyReport summarize(const VerifyCounts& c, std::uint64_t n, bool pairs) {
  VerifyReport r;
  r.ok = false;
  if (c.fp_in_a != c.fp_out_a || c.fp_in_b != c.fp_out_b)
    r.message = pairs ? "not a permutation of the input: the (key, value) multiset differs (elements lost, "
                        "duplicated or changed, or values moved apart from their keys)"
                      : "not a permutation of the input: the key multiset differs (elements lost, duplicated or "
                        "changed)";
  else if (c.unsorted)
    r.message = fmt::format("not sorted: {} adjacent pairs out of order, first at index {}", c.unsorted,
                            c.first_unsorted);
  else if (c.bad_index)
    r.message = fmt::format("payload: {} values name no input element of [0, {}), first at index {}", c.bad_index, n,
                            c.first_bad_index);
  else if (c.wrong_key)
    r.message = fmt::format("payload: {} values name an element with another key, first at index {}", c.wrong_key,
                            c.first_wrong_key);
  else if (c.repeated_index)
    r.message = fmt::format("payload: {} values occur more than once, first at index {}", c.repeated_index,
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

template <typename K, typename V>
VerifyCounts count_typed(const VerifyInput& in) {
  const K* kin = static_cast<const K*>(in.keys_in);
  const K* kout = static_cast<const K*>(in.keys_out);
  VerifyCounts c;
  c.first_unsorted = c.first_bad_index = c.first_wrong_key = c.first_repeated_index = c.first_unstable = in.n;
  auto note = [](std::uint64_t& count, std::uint64_t& first, std::uint64_t j) {
    if (count++ == 0) first = j;
  };
  for (std::uint64_t i = 0; i < in.n; ++i) {
    add_fingerprints<K, V>(in, i, c.fp_in_a, c.fp_in_b, c.fp_out_a, c.fp_out_b);
    if (i + 1 < in.n && out_of_order(kout, i)) note(c.unsorted, c.first_unsorted, i);
  }
  if constexpr (!std::is_same_v<V, NoValue>) {
    const V* vals = static_cast<const V*>(in.vals_out);
    if (!vals || in.vals_in) return c;  // data values: the pair sums above are the check
    std::vector<bool> seen(in.n, false);
    auto position_of = [&](std::uint64_t j, std::uint64_t& pos) {
      return decode_value<V>(in.payload, vals[j], pos) && pos < in.n;
    };
    for (std::uint64_t j = 0; j < in.n; ++j) {
      std::uint64_t pos = 0;
      if (!position_of(j, pos)) {
        note(c.bad_index, c.first_bad_index, j);
        continue;
      }
      if (!bits_equal(kin[pos], kout[j])) note(c.wrong_key, c.first_wrong_key, j);
      if (seen[pos]) note(c.repeated_index, c.first_repeated_index, j);
      seen[pos] = true;
      std::uint64_t next = 0;
      if (in.check_stable && j + 1 < in.n && position_of(j + 1, next) && breaks_stability(kout, pos, next, j))
        note(c.unstable, c.first_unstable, j);
    }
  }
  return c;
}

}  // namespace

VerifyReport verify_host(const VerifyInput& in) {
  const VerifyCounts c = dispatch_element<AllKeys, AllValues>(
      in.key, in.vals_out ? in.payload : Payload::none,
      [&](auto k, auto v) { return count_typed<decltype(k), decltype(v)>(in); });
  return summarize(c, in.n, in.vals_in && in.vals_out);
}

}  // namespace sb

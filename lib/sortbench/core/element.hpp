// The element type of a sort, key type x value type, and the one dispatch from the run-time
// enums to C++ types. A family declares the key and value type lists it takes and writes one
// template over (K, V); registration derives the `list` columns from the same lists, so a new
// key type is added here, in KeyTraits and in types.cpp, and nowhere per family.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "sortbench/core/keys.hpp"
#include "sortbench/core/types.hpp"

namespace sb {

template <typename... Ts>
struct TypeList {};

// The value type of a keys-only sort.
struct NoValue {};

using ScalarKeys = TypeList<std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t, double>;
using AllKeys = TypeList<std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t, double, Row4>;
using Keys32 = TypeList<std::uint32_t, std::int32_t, float>;
using IntegerKeys = TypeList<std::uint32_t, std::int32_t, std::uint64_t, std::int64_t>;
// index and u32 payloads are both 32-bit value columns; u64 is the 64-bit one.
using AllValues = TypeList<NoValue, std::uint32_t, std::uint64_t>;
using KeysOnly = TypeList<NoValue>;

// Expands X(K, V) for every element of ScalarKeys x AllValues (keep the three in step): the
// explicit instantiations a family's .cu file makes of its templates.
#define SB_FOR_EACH_VALUE_OF_KEY(X, K) X(K, ::sb::NoValue) X(K, std::uint32_t) X(K, std::uint64_t)
#define SB_FOR_EACH_SCALAR_ELEMENT(X)                                                      \
  SB_FOR_EACH_VALUE_OF_KEY(X, std::uint32_t) SB_FOR_EACH_VALUE_OF_KEY(X, std::int32_t)     \
  SB_FOR_EACH_VALUE_OF_KEY(X, float) SB_FOR_EACH_VALUE_OF_KEY(X, std::uint64_t)            \
  SB_FOR_EACH_VALUE_OF_KEY(X, std::int64_t) SB_FOR_EACH_VALUE_OF_KEY(X, double)
static_assert(std::is_same_v<ScalarKeys, TypeList<std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t,
                                                  double>> &&
                  std::is_same_v<AllValues, TypeList<NoValue, std::uint32_t, std::uint64_t>>,
              "SB_FOR_EACH_SCALAR_ELEMENT lists ScalarKeys x AllValues");

// Whether a type list holds T (for static checks of what a family instantiates).
template <typename T, typename List>
struct Contains;
template <typename T, typename... Ts>
struct Contains<T, TypeList<Ts...>> : std::bool_constant<(std::is_same_v<T, Ts> || ...)> {};

template <typename V>
constexpr bool takes_payload(Payload p) {
  if constexpr (std::is_same_v<V, NoValue>) return p == Payload::none;
  else if constexpr (std::is_same_v<V, std::uint32_t>) return p == Payload::index || p == Payload::u32;
  else return p == Payload::u64;
}

namespace detail {
template <typename F, typename K, typename... Ks>
decltype(auto) key_switch(KeyType k, F&& f, TypeList<K, Ks...>) {
  if constexpr (sizeof...(Ks) == 0) {
    if (k != KeyTraits<K>::type)
      throw std::logic_error("key type " + std::string(to_string(k)) + " is not in the dispatch list");
    return std::forward<F>(f)(K{});
  } else {
    if (k == KeyTraits<K>::type) return std::forward<F>(f)(K{});
    return key_switch(k, std::forward<F>(f), TypeList<Ks...>{});
  }
}
template <typename F, typename V, typename... Vs>
decltype(auto) value_switch(Payload p, F&& f, TypeList<V, Vs...>) {
  if constexpr (sizeof...(Vs) == 0) {
    if (!takes_payload<V>(p))
      throw std::logic_error("payload " + std::string(to_string(p)) + " is not in the dispatch list");
    return std::forward<F>(f)(V{});
  } else {
    if (takes_payload<V>(p)) return std::forward<F>(f)(V{});
    return value_switch(p, std::forward<F>(f), TypeList<Vs...>{});
  }
}
}  // namespace detail

// Calls f(K{}) with the C++ type of a key type in Keys (default: every key type).
template <typename Keys = AllKeys, typename F>
decltype(auto) dispatch_key(KeyType k, F&& f) {
  return detail::key_switch(k, std::forward<F>(f), Keys{});
}

// Calls f(V{}) with the value type of a payload in Values.
template <typename Values = AllValues, typename F>
decltype(auto) dispatch_value(Payload p, F&& f) {
  return detail::value_switch(p, std::forward<F>(f), Values{});
}

// Calls f(K{}, V{}) for the element type (key, payload).
template <typename Keys, typename Values, typename F>
decltype(auto) dispatch_element(KeyType k, Payload p, F&& f) {
  return dispatch_key<Keys>(k, [&](auto key) -> decltype(auto) {
    return dispatch_value<Values>(p, [&](auto value) -> decltype(auto) { return f(key, value); });
  });
}

template <typename... Ks>
std::vector<KeyType> key_types_of(TypeList<Ks...>) {
  return {KeyTraits<Ks>::type...};
}

template <typename... Vs>
std::vector<Payload> payloads_of(TypeList<Vs...>) {
  std::vector<Payload> out;
  for (Payload p : all_payloads())
    if ((takes_payload<Vs>(p) || ...)) out.push_back(p);
  return out;
}

}  // namespace sb

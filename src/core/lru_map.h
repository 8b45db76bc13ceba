#pragma once
// A map that keeps at most `capacity` entries and drops the one used least recently: for
// what a process remembers per key when an application may vary the key without end
// (dynamic shapes, the workspace size Find*Ex is given, warnings about them).
#include <cstddef>
#include <functional>
#include <list>
#include <unordered_map>
#include <utility>

namespace ucudnn {

template <typename Key, typename Value, typename Hash = std::hash<Key>>
class LruMap {
 public:
  explicit LruMap(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The entry, marked as used; nullptr when absent.
  Value* find(const Key& key) {
    const auto found = index_.find(key);
    if (found == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, found->second);
    return &found->second->second;
  }
  // The entry (default-constructed when new), marked as used. Inserting may drop the least
  // recently used other entry: references to other entries do not survive it.
  Value& operator[](const Key& key) {
    if (Value* value = find(key)) return *value;
    order_.emplace_front(key, Value{});
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }
  // True when the key was new (and is now the most recently used).
  bool insert(const Key& key) {
    if (find(key)) return false;
    (*this)[key];
    return true;
  }
  void clear() {
    index_.clear();
    order_.clear();
  }
  std::size_t size() const { return order_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::list<std::pair<Key, Value>> order_;  // most recently used first
  std::unordered_map<Key, typename std::list<std::pair<Key, Value>>::iterator, Hash> index_;
};

}  // namespace ucudnn

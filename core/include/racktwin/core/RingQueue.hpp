#pragma once
// A FIFO queue of trivially copyable items in a ring buffer sized up front: push and pop allocate
// nothing until the queue outgrows every length before (then the ring doubles, amortised), so the
// inference servers' request queues stay allocation-free in steady state.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "racktwin/core/StateArchive.hpp"

namespace racktwin::core {

template <class T>
class RingQueue {
 public:
  /// Room for `n` items (at least one).
  void reserve(std::size_t n) { items_.resize(std::max<std::size_t>(n, 1)); }
  void clear() noexcept { head_ = size_ = 0; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const T& front() const noexcept { return items_[head_]; }
  void pop() noexcept {
    head_ = (head_ + 1) % items_.size();
    --size_;
  }
  void push(const T& item) {
    if (size_ == items_.size()) {
      // Longer than any queue so far: double the ring.
      std::vector<T> bigger(items_.size() * 2);
      for (std::size_t k = 0; k < size_; ++k)
        bigger[k] = items_[(head_ + k) % items_.size()];
      items_.swap(bigger);
      head_ = 0;
    }
    items_[(head_ + size_) % items_.size()] = item;
    ++size_;
  }
  /// Saves or restores the queue (StateArchive.hpp).
  void visitState(StateArchive& a) {
    a.trivialResizable(items_);
    a(head_, size_);
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace racktwin::core

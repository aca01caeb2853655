#pragma once
// StateArchive: a model's mutable state as bytes, for checkpoints a run resumes from.
//
// One function per class lists its state, and the same function saves and restores it, so the
// two directions cannot drift apart:
//
//   void visitState(StateArchive& a) { a(time_, steps_, queue_sizes_); a.section("engine"); }
//
// A saving archive appends each value's bytes; a restoring archive overwrites the value with the
// bytes it reads. Vectors keep their storage on restore: one whose size differs from the saved
// size is a mismatch (RuntimeError), because recorder channels hold pointers into model vectors
// sized once at construction. Vectors that grow and shrink during a run (queues) use resizable().
// Sections are named markers checked on restore, so a class that lists its state differently
// from the build that saved it fails at that class instead of reading garbage.
//
// Bytes are those of this build on this machine (a checkpoint is resumed by the same program).
// Never archive a pointer, or a struct holding one: addresses differ between processes.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace racktwin::core {

class StateArchive {
 public:
  /// An archive that appends what it is given. `buffer` (emptied) lends its storage: a caller
  /// that saves repeatedly passes back the bytes of the last save, so no save pays for pages
  /// again.
  static StateArchive saving(std::string buffer = {}) {
    StateArchive archive(true, {});
    buffer.clear();
    archive.out_ = std::move(buffer);
    return archive;
  }
  /// An archive that restores from `bytes` (which must outlive it).
  static StateArchive restoring(std::string_view bytes) { return StateArchive(false, bytes); }

  bool isSaving() const noexcept { return saving_; }
  /// The bytes saved so far.
  const std::string& bytes() const noexcept { return out_; }
  /// The bytes saved, moved out of the archive (a large state is not copied).
  std::string take() && { return std::move(out_); }
  /// Restoring: throws RuntimeError unless every byte was read.
  void finish() const;

  template <class... T>
  void operator()(T&... values) {
    (io(values), ...);
  }

  /// A named marker: saved as text, compared on restore.
  void section(std::string_view name);

  /// A vector that may change size during a run (elements restored with io()).
  template <class T>
  void resizable(std::vector<T>& values) {
    std::uint64_t n = values.size();
    io(n);
    if (!saving_) values.resize(checkedCount(n));
    ioElements(values);
  }
  template <class T>
  void resizable(std::deque<T>& values) {
    std::uint64_t n = values.size();
    io(n);
    if (!saving_) values.resize(checkedCount(n));
    for (T& value : values)
      io(value);
  }

  /// A vector of structs archived field by field with `f(archive, element)`; its size must match.
  template <class T, class F>
  void each(std::vector<T>& values, F&& f) {
    std::uint64_t n = values.size();
    io(n);
    requireSize(n, values.size());
    for (T& value : values)
      f(*this, value);
  }

  /// A struct of plain values archived as its bytes. Only for structs of numbers, enums and
  /// bools: no pointer, string or container may ever be added to such a struct.
  template <class T>
  void trivial(T& value) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>);
    raw(&value, sizeof value);
  }
  /// A vector of such structs; its size must match.
  template <class T>
  void trivial(std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>);
    std::uint64_t n = values.size();
    io(n);
    requireSize(n, values.size());
    if (!values.empty()) raw(values.data(), values.size() * sizeof(T));
  }
  /// A vector of such structs that may change size during a run.
  template <class T>
  void trivialResizable(std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>);
    std::uint64_t n = values.size();
    io(n);
    if (!isSaving()) values.resize(checkedCount(n));
    if (!values.empty()) raw(values.data(), values.size() * sizeof(T));
  }

  template <class T>
  void io(T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      raw(&value, sizeof value);
    } else if constexpr (std::is_same_v<T, std::complex<double>>) {
      raw(&value, sizeof value);
    } else {
      static_assert(sizeof(T) == 0, "StateArchive: list this type's fields, or add an overload");
    }
  }
  template <class T>
  void io(std::vector<T>& values) {
    std::uint64_t n = values.size();
    io(n);
    requireSize(n, values.size());
    ioElements(values);
  }
  template <class T>
  void io(std::optional<T>& value) {
    bool has = value.has_value();
    io(has);
    if (!saving_ && has != value.has_value()) {
      if (!has) {
        value.reset();
        return;
      }
      value.emplace();
    }
    if (has) io(*value);
  }
  void io(std::string& text);
  void io(std::mt19937_64& engine);

 private:
  StateArchive(bool saving, std::string_view in) : saving_(saving), in_(in) {}

  void raw(void* data, std::size_t size);
  void requireSize(std::uint64_t saved, std::size_t now) const;
  std::size_t checkedCount(std::uint64_t n) const;
  template <class T>
  void ioElements(std::vector<T>& values) {
    if constexpr (std::is_arithmetic_v<
                      T> || std::is_enum_v<T> || std::is_same_v<T, std::complex<double>>) {
      if (!values.empty()) raw(values.data(), values.size() * sizeof(T));
    } else {
      for (T& value : values)
        io(value);
    }
  }

  bool saving_;
  std::string out_;
  std::string_view in_;
  std::size_t read_ = 0;
};

}  // namespace racktwin::core

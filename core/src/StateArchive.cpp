#include "racktwin/core/StateArchive.hpp"

#include <sstream>

#include "racktwin/core/Error.hpp"

namespace racktwin::core {

void StateArchive::raw(void* data, std::size_t size) {
  if (saving_) {
    out_.append(static_cast<const char*>(data), size);
    return;
  }
  if (size > in_.size() - read_) {
    throw RuntimeError("saved state ends early (" + std::to_string(in_.size())
                       + " bytes; it is damaged or from another build)");
  }
  std::memcpy(data, in_.data() + read_, size);
  read_ += size;
}

void StateArchive::requireSize(std::uint64_t saved, std::size_t now) const {
  if (saved != now) {
    throw RuntimeError("saved state does not fit this run: an array of " + std::to_string(saved)
                       + " values where this run has " + std::to_string(now)
                       + " (the scenario or the program changed since the state was saved)");
  }
}

std::size_t StateArchive::checkedCount(std::uint64_t n) const {
  // Every element takes at least a byte: a damaged count must not allocate terabytes.
  if (n > in_.size() - read_) {
    throw RuntimeError("saved state holds an impossible array length (" + std::to_string(n)
                       + "); it is damaged or from another build");
  }
  return static_cast<std::size_t>(n);
}

void StateArchive::finish() const {
  if (!saving_ && read_ != in_.size()) {
    throw RuntimeError("saved state has " + std::to_string(in_.size() - read_)
                       + " bytes this program does not read (it is from another build)");
  }
}

void StateArchive::section(std::string_view name) {
  std::string text(name);
  std::string saved = text;
  io(saved);
  if (!saving_ && saved != text) {
    throw RuntimeError("saved state does not fit this run: expected the state of '" + text
                       + "' (the program or the scenario changed since the state was saved)");
  }
}

void StateArchive::io(std::string& text) {
  std::uint64_t n = text.size();
  io(n);
  if (!saving_) text.resize(checkedCount(n));
  if (n != 0) raw(text.data(), text.size());
}

void StateArchive::io(std::mt19937_64& engine) {
  // The standard text form is the engine's full state, portable between builds.
  std::string text;
  if (saving_) {
    std::ostringstream stream;
    stream << engine;
    text = stream.str();
  }
  io(text);
  if (!saving_) {
    std::istringstream stream(text);
    stream >> engine;
    if (!stream) throw RuntimeError("saved state holds a damaged random number generator");
  }
}

}  // namespace racktwin::core

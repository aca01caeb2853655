#pragma once
// Owning wrappers for HDF5 identifiers and helpers shared by the result writer and reader. Only
// core/src/Hdf5*.cpp include this file, so the HDF5 headers stay out of the public interface.
#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace racktwin::core::hdf5 {

/// Owns one hid_t and closes it with `Close` when destroyed. A negative id means "none".
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() noexcept = default;
  explicit Handle(hid_t id) noexcept : id_(id) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  ~Handle() { reset(); }

  hid_t get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }

  /// Closes the identifier now; returns false when HDF5 reported a failure.
  bool close() noexcept {
    if (id_ < 0) return true;
    const herr_t status = Close(std::exchange(id_, H5I_INVALID_HID));
    return status >= 0;
  }
  void reset() noexcept { (void)close(); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;
using PropertyList = Handle<H5Pclose>;
using Object = Handle<H5Oclose>;

/// Turns HDF5's automatic printing of its error stack off for good: our messages (one line each)
/// are the only report, also from HDF5 calls outside an ErrorSilencer (closing handles in
/// destructors, the library's own close at exit), which printed pages of diagnostics on a full
/// disk. Cheap and idempotent; called by every entry point of the writer and reader.
/// Also asks HDF5 not to close itself at exit: after a damaged file, whose close fails, its exit
/// handler printed "infinite loop closing library" and a page of object codes. Our writers and
/// readers close every file they open themselves.
inline void silenceErrorPrinting() noexcept {
  static const bool no_atexit = [] {
    (void)H5dont_atexit();  // effective only before the library's first use, harmless after
    return true;
  }();
  (void)no_atexit;
  (void)H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

/// Turns off HDF5's printing of its error stack for the lifetime of this object (restoring the
/// previous handler afterwards), so our own exceptions are the only report a user sees.
class ErrorSilencer {
 public:
  ErrorSilencer() noexcept {
    silenceErrorPrinting();
    if (H5Eget_auto2(H5E_DEFAULT, &func_, &data_) < 0) {
      func_ = nullptr;
      data_ = nullptr;
    }
    (void)H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ErrorSilencer(const ErrorSilencer&) = delete;
  ErrorSilencer& operator=(const ErrorSilencer&) = delete;
  ~ErrorSilencer() { (void)H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// The most specific message on HDF5's current error stack (e.g. "unable to open file: ...,
/// errno = 2, ..."), then clears the stack. Empty when the stack is empty.
inline std::string lastErrorDetail() {
  struct Innermost {
    char text[512] = {};
    bool found = false;
  } innermost;
  // The walk runs inside HDF5 (C frames): the callback must not throw, so it copies into a
  // fixed buffer.
  auto callback = [](unsigned /*n*/, const H5E_error2_t* error, void* data) noexcept -> herr_t {
    auto* out = static_cast<Innermost*>(data);
    if (!out->found && error != nullptr && error->desc != nullptr) {
      std::snprintf(out->text, sizeof out->text, "%s", error->desc);
      out->found = true;
    }
    return 0;
  };
  (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, callback, &innermost);
  (void)H5Eclear2(H5E_DEFAULT);
  std::string text = innermost.text;
  // A failed system call: HDF5's message holds a time stamp (with a newline), descriptors and
  // buffer addresses; its 'error message' (strerror) is what a user needs, on one line.
  const std::string marker = "error message = '";
  if (const std::size_t at = text.find(marker); at != std::string::npos) {
    const std::size_t start = at + marker.size();
    const std::size_t end = text.find('\'', start);
    text = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return text;
}

/// A variable-length UTF-8 string type, the one used for every string this program writes.
inline Datatype makeUtf8StringType() {
  Datatype type(H5Tcopy(H5T_C_S1));
  if (!type.valid() || H5Tset_size(type.get(), H5T_VARIABLE) < 0
      || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
    return Datatype();
  }
  return type;
}

/// The checksum of every string the writer stores (string attributes, /<group>/ids,
/// /scenario/text), kept in the root attribute `text_checksum` (uint64). HDF5 checksums object
/// headers (file format 1.8 and later) and, with Fletcher32, float chunks, but not the global
/// heap that holds variable-length strings: without this a flipped byte in a summary number, an
/// id or a description reads back as a different value unnoticed. FNV-1a 64 of each entry
/// (key "<object>@<attribute>" or "<dataset>", then its text), combined in key order.
class TextChecksum {
 public:
  void set(const std::string& key, std::string_view text) { entries_[key] = hash(text); }
  void setStrings(const std::string& key, const std::vector<std::string>& strings) {
    std::uint64_t h = kOffset;
    for (const std::string& text : strings) {
      h = mix(h, text);
      h = mix(h, std::string_view("\0", 1));
    }
    entries_[key] = h;
  }
  std::uint64_t value() const {
    std::uint64_t h = kOffset;
    for (const auto& [key, entry] : entries_) {
      h = mix(h, key);
      for (int byte = 0; byte < 8; ++byte) {
        h = (h ^ ((entry >> (8 * byte)) & 0xffU)) * kPrime;
      }
    }
    return h;
  }

 private:
  static constexpr std::uint64_t kOffset = 14695981039346656037ULL;
  static constexpr std::uint64_t kPrime = 1099511628211ULL;
  static std::uint64_t mix(std::uint64_t h, std::string_view text) {
    for (const char c : text)
      h = (h ^ static_cast<unsigned char>(c)) * kPrime;
    return h;
  }
  static std::uint64_t hash(std::string_view text) { return mix(kOffset, text); }
  std::map<std::string, std::uint64_t> entries_;
};

}  // namespace racktwin::core::hdf5

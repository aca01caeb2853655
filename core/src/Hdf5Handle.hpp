#pragma once
// Owning wrappers for HDF5 identifiers and helpers shared by the result writer and reader. Only
// core/src/Hdf5*.cpp include this file, so the HDF5 headers stay out of the public interface.
#include <hdf5.h>

#include <cstdio>
#include <string>
#include <utility>

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

/// Turns off HDF5's printing of its error stack for the lifetime of this object (restoring the
/// previous handler afterwards), so our own exceptions are the only report a user sees.
class ErrorSilencer {
 public:
  ErrorSilencer() noexcept {
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
  return innermost.text;
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

}  // namespace racktwin::core::hdf5

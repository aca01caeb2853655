#pragma once
// The journal of a sweep: one line per finished case, appended and flushed to disk as each case
// finishes, so an interrupted sweep goes on where it stopped (docs/capacity.md).
#include <cstdio>
#include <map>
#include <string>

#include "racktwin/study/Sweep.hpp"

namespace racktwin::study {

class Journal {
 public:
  /// Opens `path` (none when empty): reads the cases a run with the same fingerprint finished
  /// (a last line cut short by a kill is left out) and appends after them. Throws
  /// core::InputError when the file is the journal of another sweep.
  Journal(std::string path, const std::string& fingerprint);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::map<std::size_t, CaseResult>& finished() const noexcept { return finished_; }
  /// Appends one finished case (flushed and synced). Throws core::RuntimeError when it cannot.
  void append(const CaseResult& result);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::map<std::size_t, CaseResult> finished_;
};

}  // namespace racktwin::study

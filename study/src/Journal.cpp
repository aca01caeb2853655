#include "Journal.hpp"

#include <unistd.h>

#include <exception>
#include <fstream>
#include <string>

#include "racktwin/core/Error.hpp"

namespace racktwin::study {
namespace {
const std::string kHeader = "racktwin sweep journal 1 ";
}

Journal::Journal(std::string path, const std::string& fingerprint) : path_(std::move(path)) {
  if (path_.empty()) return;
  const std::string header = kHeader + fingerprint;
  bool fresh = true;
  {
    std::ifstream in(path_);
    std::string line;
    if (in && std::getline(in, line)) {
      if (line != header) {
        throw core::InputError({path_, 1, 1}, "journal",
                               "the journal of another sweep (its sweep file, base scenario, "
                               "cases or program differ); remove it to start again, or give "
                               "another output");
      }
      fresh = false;
      while (std::getline(in, line)) {
        try {
          CaseResult r = CaseResult::fromJson(line);
          const std::size_t index = r.index;
          finished_.insert_or_assign(index, std::move(r));
        } catch (const std::exception&) {
          // A line cut short by a kill: that case runs again.
        }
      }
    }
  }
  file_ = std::fopen(path_.c_str(), fresh ? "w" : "a");
  if (file_ == nullptr) throw core::RuntimeError("cannot write the sweep journal " + path_);
  if (fresh) {
    std::fprintf(file_, "%s\n", header.c_str());
  } else {
    // A cut-short last line gets its end, so the next record starts on a line of its own.
    std::fprintf(file_, "\n");
  }
  std::fflush(file_);
}

Journal::~Journal() {
  if (file_ != nullptr) std::fclose(file_);
}

void Journal::append(const CaseResult& result) {
  if (file_ == nullptr) return;
  const std::string line = result.toJson();
  if (std::fprintf(file_, "%s\n", line.c_str()) < 0 || std::fflush(file_) != 0
      || fsync(fileno(file_)) != 0) {
    throw core::RuntimeError("cannot write the sweep journal " + path_ + " (disk full?)");
  }
}

}  // namespace racktwin::study

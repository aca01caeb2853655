#pragma once
// What a validation test compared, for docs/validation.md: the component, the case, the
// independent reference (with the docs/references/ page that gives its numbers and source), the
// tolerance the test holds and the worst error it reached. Appended as one JSON line to the file
// the environment variable RACKTWIN_VALIDATION_RECORD names (the validation-report target sets
// it; tests/validation/make_validation_md.py writes the page); nothing happens otherwise.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace racktwin::test {

struct ValidationRecord {
  std::string component;  // "Hydraulic network solver (global gradient algorithm)"
  std::string case_name;  // "EPANET Net1 at t = 1 h, tank 2 held: 13 link flows"
  std::string reference;  // "EPANET 2.2 stored results"
  std::string page;       // "epanet-net1.md" under docs/references/
  std::string test;       // the test's name, so a reader can find and run it
  std::string unit;       // unit of tolerance and error ("GPM", "1" for relative)
  bool relative = false;  // tolerance and error relative to the reference value
  double tolerance = 0.0;
  double error = 0.0;  // the worst error reached
};

/// Worst absolute or relative error over a set of comparisons.
class WorstError {
 public:
  void add(double value, double reference, bool relative = false) {
    const double e = relative ? std::abs(value / reference - 1.0) : std::abs(value - reference);
    worst_ = std::isnan(e) ? e : std::max(worst_, e);
  }
  double value() const noexcept { return worst_; }

 private:
  double worst_ = 0.0;
};

namespace detail {
inline std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}
}  // namespace detail

inline void recordValidation(const ValidationRecord& r) {
  const char* path = std::getenv("RACKTWIN_VALIDATION_RECORD");
  if (path == nullptr || *path == '\0') return;
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, "\"tolerance\": %.17g, \"error\": %.17g", r.tolerance,
                r.error);
  const std::string line =
      "{\"component\": " + detail::jsonString(r.component) + ", \"case\": "
      + detail::jsonString(r.case_name) + ", \"reference\": " + detail::jsonString(r.reference)
      + ", \"page\": " + detail::jsonString(r.page) + ", \"test\": " + detail::jsonString(r.test)
      + ", \"unit\": " + detail::jsonString(r.unit)
      + ", \"relative\": " + (r.relative ? "true" : "false") + ", " + numbers + "}\n";
  if (std::FILE* f = std::fopen(path, "a")) {
    std::fputs(line.c_str(), f);  // one write per line: records of parallel tests do not mix
    std::fclose(f);
  }
}

}  // namespace racktwin::test

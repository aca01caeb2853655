#pragma once
// The page script and style sheet of a report (report/assets/), compiled in by CMake.
namespace racktwin::report {
extern const char* const kReportScript;
extern const char* const kReportStyle;
}  // namespace racktwin::report

#pragma once
// A report as PDF: headless Chromium prints the HTML page (Debian package chromium).
#include <filesystem>

namespace racktwin::report {

/// Prints the report page `html` to `pdf` with headless Chromium (the program named by the
/// environment variable RACKTWIN_CHROMIUM, else `chromium` on the PATH), in a fresh profile
/// folder that is removed afterwards, without network, within `timeout_s`. Chromium writes
/// <pdf>.partial, renamed to `pdf` once it is complete. Throws core::RuntimeError saying why when
/// Chromium is missing, fails or does not finish.
void printToPdf(const std::filesystem::path& html, const std::filesystem::path& pdf,
                double timeout_s = 180.0);

}  // namespace racktwin::report

#pragma once
// The charting library every report inlines: plotly.js as Debian's python3-plotly ships it
// (/usr/share/python3-plotly/plotly.js), so a report opens offline and needs nothing else.
#include <string>

namespace racktwin::report {

/// The library's text, read once. The file is the one found when the program was built, unless
/// the environment variable RACKTWIN_PLOTLY_JS names another. Throws core::RuntimeError when it
/// is missing, is not plotly.js 2.x, or holds text that would end an inline script.
const std::string& chartLibrary();

/// "plotly.js v2.6.3": the first line of the library's banner, for the report's provenance.
std::string chartLibraryVersion();

}  // namespace racktwin::report

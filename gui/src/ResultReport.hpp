#pragma once
// "Open report": the HTML report of a result file (racktwin report), written where the user's
// cached files go and opened in the desktop's browser.
#include <QString>

#include "racktwin/core/Units.hpp"

namespace racktwin::gui {

/// Writes the report of `result` as <cache>/reports/<name>.html (QSaveFile: complete or not at
/// all) and returns its path; an empty string with `error` set when the result cannot be read or
/// the file cannot be written.
QString writeResultReport(const QString& result, core::UnitSystem units, QString* error);

}  // namespace racktwin::gui

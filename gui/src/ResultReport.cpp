#include "ResultReport.hpp"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include <exception>

#include "racktwin/report/Report.hpp"

namespace racktwin::gui {

QString writeResultReport(const QString& result, core::UnitSystem units, QString* error) {
  std::string page;
  try {
    report::ReportOptions options;
    options.units = units;
    page = report::report({result.toStdString()}, options);
  } catch (const std::exception& failure) {
    if (error) *error = QString::fromStdString(failure.what());
    return {};
  }
  QString folder = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
  if (folder.isEmpty()) folder = QDir::tempPath() + "/racktwin";
  folder += "/reports";
  if (!QDir().mkpath(folder)) {
    if (error) *error = "Cannot create the folder " + folder;
    return {};
  }
  const QString path = folder + "/" + QFileInfo(result).completeBaseName() + ".html";
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)
      || file.write(page.data(), static_cast<qint64>(page.size()))
             != static_cast<qint64>(page.size())
      || !file.commit()) {
    if (error) *error = "Cannot write " + path + ": " + file.errorString();
    return {};
  }
  return path;
}

}  // namespace racktwin::gui

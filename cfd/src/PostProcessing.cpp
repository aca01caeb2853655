#include "racktwin/cfd/PostProcessing.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/CfdError.hpp"

namespace racktwin::cfd {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> splitTabs(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    out.push_back(
        trim(line.substr(start, tab == std::string_view::npos ? line.npos : tab - start)));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool parseNumber(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// Numeric time-directory names under `dir`, newest (largest) last.
std::vector<fs::path> timeDirectories(const fs::path& dir) {
  std::vector<std::pair<double, fs::path>> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    double t = 0.0;
    if (e.is_directory() && parseNumber(e.path().filename().string(), t))
      found.emplace_back(t, e.path());
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<fs::path> out;
  for (auto& f : found)
    out.push_back(f.second);
  return out;
}

fs::path functionDirectory(const fs::path& case_dir, std::string_view region,
                           std::string_view function_object) {
  fs::path dir = case_dir / "postProcessing";
  if (!region.empty()) dir /= std::string(region);
  return dir / std::string(function_object);
}

}  // namespace

DatTable::DatTable(std::string source, std::vector<std::string> columns,
                   std::vector<std::vector<std::string>> rows)
    : source_(std::move(source)), columns_(std::move(columns)), rows_(std::move(rows)) {}

bool DatTable::hasColumn(std::string_view name) const {
  for (const std::string& c : columns_) {
    if (c == name) return true;
  }
  return false;
}

std::size_t DatTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == name) return i;
  }
  throw CfdError(source_ + ": no column '" + std::string(name) + "' (columns: " + joined(columns_)
                 + ")");
}

double DatTable::value(std::size_t row, std::string_view name) const {
  const std::size_t c = column(name);
  if (row >= rows_.size()) throw CfdError(source_ + ": no row " + std::to_string(row));
  const std::vector<std::string>& cells = rows_[row];
  double v = 0.0;
  if (c >= cells.size() || !parseNumber(cells[c], v) || !std::isfinite(v)) {
    throw CfdError(source_ + ": row " + std::to_string(row + 1) + " column '" + std::string(name)
                   + "' is not a finite number (" + (c < cells.size() ? cells[c] : "missing")
                   + ")");
  }
  return v;
}

double DatTable::last(std::string_view name) const {
  if (rows_.empty()) throw CfdError(source_ + ": no data rows");
  return value(rows_.size() - 1, name);
}

DatTable parseDatTable(std::string_view text, std::string source) {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty()) continue;
    if (line.front() == '#') {
      line.remove_prefix(1);
      columns = splitTabs(line);
      // A header written with spaces only (one name per run of blanks) is split on blanks.
      if (columns.size() == 1) {
        std::istringstream words{std::string(line)};
        columns.clear();
        for (std::string w; words >> w;)
          columns.push_back(w);
      }
      continue;
    }
    rows.push_back(splitTabs(line));
  }
  if (columns.empty()) throw CfdError(source + ": no header line naming the columns");
  return DatTable(std::move(source), std::move(columns), std::move(rows));
}

DatTable readDatTable(const fs::path& file) {
  return parseDatTable(readTextFile(file), file.string());
}

fs::path findDatFile(const fs::path& case_dir, std::string_view region,
                     std::string_view function_object, std::string_view stem) {
  const fs::path dir = functionDirectory(case_dir, region, function_object);
  const std::vector<fs::path> times = timeDirectories(dir);
  for (auto t = times.rbegin(); t != times.rend(); ++t) {
    fs::path best;
    fs::file_time_type best_time{};
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(*t, ec)) {
      const std::string name = e.path().filename().string();
      const std::string s(stem);
      if (!name.ends_with(".dat")) continue;
      const std::string base = name.substr(0, name.size() - 4);
      bool match = base == s;
      if (!match && base.starts_with(s + "_")) {
        double n = 0.0;
        match = parseNumber(base.substr(s.size() + 1), n);
      }
      if (!match) continue;
      const auto written = e.last_write_time(ec);
      if (best.empty() || written > best_time) {
        best = e.path();
        best_time = written;
      }
    }
    if (!best.empty()) return best;
  }
  throw CfdError("no " + std::string(stem) + ".dat under " + dir.string()
                 + " (the function object did not run or wrote nothing)");
}

std::size_t RawTable::column(std::string_view name, const std::string& source) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  throw CfdError(source + ": no column '" + std::string(name) + "' (columns: " + joined(columns)
                 + ")");
}

RawTable readRawTable(const fs::path& file) {
  const std::string text = readTextFile(file);
  RawTable table;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (trim(line).empty()) continue;
    if (line.front() == '#') {
      std::istringstream words(line.substr(1));
      table.columns.clear();
      for (std::string w; words >> w;)
        table.columns.push_back(w);
      continue;
    }
    std::istringstream words(line);
    std::vector<double> row;
    for (std::string w; words >> w;) {
      double v = 0.0;
      if (!parseNumber(w, v)) throw CfdError(file.string() + ": not a number: " + w);
      row.push_back(v);
    }
    table.rows.push_back(std::move(row));
  }
  if (table.rows.empty()) throw CfdError(file.string() + ": no data rows");
  return table;
}

fs::path findSampleFile(const fs::path& case_dir, std::string_view region,
                        std::string_view function_object, std::string_view file_name) {
  const fs::path dir = functionDirectory(case_dir, region, function_object);
  const std::vector<fs::path> times = timeDirectories(dir);
  for (auto t = times.rbegin(); t != times.rend(); ++t) {
    const fs::path candidate = *t / std::string(file_name);
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  throw CfdError("no " + std::string(file_name) + " under " + dir.string()
                 + " (the sampling function object wrote nothing)");
}

}  // namespace racktwin::cfd

#pragma once
// Helpers shared by the scenario tests.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"

namespace racktwin::test {

/// Keeps every record.
class RowTap final : public racktwin::core::RecorderSink {
 public:
  void open(const racktwin::core::RunMetadata&,
            const std::vector<racktwin::core::ChannelInfo>&) override {}
  void append(double time, std::span<const double> row) override {
    times.push_back(time);
    rows.emplace_back(row.begin(), row.end());
  }
  void close(bool, std::string_view) override {}
  std::vector<double> times;
  std::vector<std::vector<double>> rows;
};

inline std::string sourcePath(const std::string& relative) {
  return std::string(RACKTWIN_SOURCE_DIR) + "/" + relative;
}

inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// 1-based number of the first line of `text` that contains `needle`, 0 when none does.
inline int lineOf(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return 0;
  int line = 1;
  for (std::size_t i = 0; i < at; ++i)
    line += text[i] == '\n' ? 1 : 0;
  return line;
}

/// `text` with the first occurrence of `from` replaced by `to`; `from` must occur.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) return "<test error: '" + from + "' not in the base text>";
  text.replace(at, from.size(), to);
  return text;
}

/// What a located input error must say: file, 1-based line (and column), key, message parts.
struct ExpectedError {
  std::string file;
  int line;
  std::string key;
  std::vector<std::string> message_parts;
  int column = 0;  // 0: not checked
};

/// Runs `load` and checks that it throws an InputError located and worded as `x` says.
template <class Load>
void requireInputError(Load load, const ExpectedError& x) {
  try {
    load();
  } catch (const core::InputError& e) {
    INFO("what(): " << e.what());
    CHECK(e.where().file == x.file);
    CHECK(e.where().line == x.line);
    if (x.column != 0) CHECK(e.where().column == x.column);
    CHECK(e.key() == x.key);
    for (const std::string& part : x.message_parts)
      CHECK_THAT(e.message(), Catch::Contains(part));
    return;
  }
  FAIL("no InputError was thrown");
}

/// Keeps every sample of a few channels, named group/name.
class ChannelTap : public racktwin::core::RecorderSink {
 public:
  explicit ChannelTap(std::vector<std::string> names) : names_(std::move(names)) {}
  void open(const racktwin::core::RunMetadata&,
            const std::vector<racktwin::core::ChannelInfo>& channels) override {
    std::size_t offset = 0;
    for (const auto& c : channels) {
      offsets_[c.group + "/" + c.name] = offset;
      offset += c.width();
    }
  }
  void append(double time, std::span<const double> row) override {
    for (const std::string& n : names_) {
      const auto it = offsets_.find(n);
      if (it != offsets_.end()) series_[n].emplace_back(time, row[it->second]);
    }
  }
  void close(bool, std::string_view) override {}
  /// The value of a channel at a sample time; NaN when there is none.
  double at(const std::string& name, double time) const {
    const auto it = series_.find(name);
    if (it == series_.end()) return std::nan("");
    for (const auto& [t, v] : it->second) {
      if (std::abs(t - time) < 1e-6) return v;
    }
    return std::nan("");
  }
  bool has(const std::string& name) const { return offsets_.count(name) == 1; }
  /// Every (time, value) sample of a channel, in time order.
  const std::vector<std::pair<double, double>>& samples(const std::string& name) const {
    static const std::vector<std::pair<double, double>> none;
    const auto it = series_.find(name);
    return it == series_.end() ? none : it->second;
  }

 private:
  std::vector<std::string> names_;
  std::map<std::string, std::size_t> offsets_;
  std::map<std::string, std::vector<std::pair<double, double>>> series_;
};

}  // namespace racktwin::test

// Names of a table's datasets: percent-encoding of the characters an HDF5 name cannot hold.
#include "racktwin/core/ResultTable.hpp"

namespace racktwin::core {

std::string tableLinkName(std::string_view column_name) {
  std::string out;
  out.reserve(column_name.size());
  for (const char c : column_name) {
    if (c == '%')
      out += "%25";
    else if (c == '/')
      out += "%2F";
    else
      out += c;
  }
  return out;
}

std::string tableColumnName(std::string_view link_name) {
  std::string out;
  out.reserve(link_name.size());
  for (std::size_t i = 0; i < link_name.size(); ++i) {
    const std::string_view rest = link_name.substr(i, 3);
    if (rest == "%25") {
      out += '%';
      i += 2;
    } else if (rest == "%2F" || rest == "%2f") {
      out += '/';
      i += 2;
    } else {
      out += link_name[i];
    }
  }
  return out;
}

}  // namespace racktwin::core

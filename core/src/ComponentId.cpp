#include "racktwin/core/ComponentId.hpp"

#include <stdexcept>

namespace racktwin::core {

bool ComponentId::isValidSegment(std::string_view segment) noexcept {
  if (segment.empty()) return false;
  for (char c : segment) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

ComponentId::ComponentId(std::string_view path) : path_(path) {
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = path.find('/', begin);
    const std::string_view segment =
        path.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    if (!isValidSegment(segment)) {
      throw std::invalid_argument("'" + std::string(path) +
                                  "' is not a component id: expected segments of lower-case "
                                  "letters, digits, '_' or '-' separated by '/'");
    }
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
}

ComponentId ComponentId::child(std::string_view segment) const {
  if (!isValidSegment(segment)) {
    throw std::invalid_argument("'" + std::string(segment) + "' is not a component id segment");
  }
  ComponentId id;
  id.path_ = path_.empty() ? std::string(segment) : path_ + '/' + std::string(segment);
  return id;
}

ComponentId ComponentId::parent() const {
  ComponentId id;
  const std::size_t slash = path_.rfind('/');
  if (slash != std::string::npos) id.path_ = path_.substr(0, slash);
  return id;
}

std::string_view ComponentId::leaf() const noexcept {
  const std::size_t slash = path_.rfind('/');
  return slash == std::string::npos ? std::string_view(path_)
                                    : std::string_view(path_).substr(slash + 1);
}

}  // namespace racktwin::core

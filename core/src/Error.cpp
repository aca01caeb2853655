#include "racktwin/core/Error.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace racktwin::core {
namespace {

std::string formatInputError(const SourceLocation& where, const std::string& key,
                             const std::string& message) {
  std::string text = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) {
    text += ':' + std::to_string(where.line);
    if (where.column > 0) text += ':' + std::to_string(where.column);
  }
  text += ": ";
  if (!key.empty()) text += "key '" + key + "': ";
  text += message;
  return text;
}

}  // namespace

InputError::InputError(SourceLocation where, std::string key, std::string message)
    : Error(formatInputError(where, key, message)),
      where_(std::move(where)),
      key_(std::move(key)),
      message_(std::move(message)) {}

void assertionFailed(const char* expression, const char* file, int line, const char* message) {
  std::fprintf(stderr, "racktwin: internal error: assertion '%s' failed at %s:%d: %s\n", expression,
               file, line, message);
  std::abort();
}

}  // namespace racktwin::core

#include "racktwin/core/Error.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace racktwin::core {
namespace {

/// The length of the longest prefix of `text` of at most `max_bytes` bytes that does not cut a
/// UTF-8 sequence.
std::size_t utf8Prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text.size();
  std::size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0U) == 0x80U)
    --n;
  return n;
}

std::string formatInputError(const SourceLocation& where, const std::string& key,
                             const std::string& message) {
  std::string text = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) {
    text += ':' + std::to_string(where.line);
    if (where.column > 0) text += ':' + std::to_string(where.column);
  }
  text += ": ";
  if (!key.empty()) {
    // Keys are names from the schema or a path of them; a longer one came from the file.
    text += "key " + (key.size() <= 80 ? "'" + key + "'" : quoteForMessage(key)) + ": ";
  }
  if (message.size() <= InputError::kMaxMessageChars) {
    text += message;
  } else {
    text.append(message, 0, utf8Prefix(message, InputError::kMaxMessageChars));
    text += " ... (message cut)";
  }
  return text;
}

}  // namespace

std::string quoteForMessage(std::string_view text, std::size_t max_chars) {
  std::string out = "'";
  std::size_t chars = 0, i = 0;
  for (; i < text.size() && chars < max_chars; ++chars) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = c < 0x80U           ? 1
                         : (c >> 5) == 0x6U  ? 2
                         : (c >> 4) == 0xEU  ? 3
                         : (c >> 3) == 0x1EU ? 4
                                             : 1;
    if (i + length > text.size()) length = 1;
    if (c < 0x20U || c == 0x7FU || (length == 1 && c >= 0x80U)) {
      out += '?';  // a control character or a stray byte of a broken UTF-8 sequence
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  out += "'";
  if (i < text.size()) {
    std::size_t total = chars;
    for (std::size_t j = i; j < text.size(); ++j)
      total += (static_cast<unsigned char>(text[j]) & 0xC0U) != 0x80U ? 1 : 0;
    out += "... (" + std::to_string(total) + " characters)";
  }
  return out;
}

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

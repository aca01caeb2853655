#pragma once
// The three error channels of RackTwin:
//  - bad input (scenario, data or result files): InputError, which names file, line and key;
//  - programmer error: RACKTWIN_ASSERT (compiled in unless RACKTWIN_NO_ASSERT is defined);
//  - solver trouble: a returned SolveStatus (see Solve.hpp), never an exception.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace racktwin::core {

/// Where a value came from in an input file. line and column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// Base of every error RackTwin reports to a user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input: what() reads "FILE:LINE:COLUMN: key 'KEY': MESSAGE" so editors can jump to it.
/// The key is cut to 80 characters and the message to kMaxMessageChars in what() (a key or a
/// value from a hostile file must not make a megabyte-long line); key() and message() keep them.
class InputError : public Error {
 public:
  static constexpr std::size_t kMaxMessageChars = 2000;
  InputError(SourceLocation where, std::string key, std::string message);

  const SourceLocation& where() const noexcept { return where_; }
  const std::string& key() const noexcept { return key_; }
  /// The message without the location prefix.
  const std::string& message() const noexcept { return message_; }

 private:
  SourceLocation where_;
  std::string key_;
  std::string message_;
};

/// A run that cannot go on (a solver failed beyond recovery, a file could not be written).
class RuntimeError : public Error {
 public:
  using Error::Error;
};

/// `text` quoted for an error message: at most `max_chars` characters of it (cut at a UTF-8
/// character boundary, control characters shown as '?'), then "... (N characters)" when it was
/// longer. Messages quote the offending value, never more: a 5 MB value must not become a 10 MB
/// error line, nor a file's contents reach a terminal or a log.
std::string quoteForMessage(std::string_view text, std::size_t max_chars = 80);

[[noreturn]] void assertionFailed(const char* expression, const char* file, int line,
                                  const char* message);

}  // namespace racktwin::core

#ifndef RACKTWIN_NO_ASSERT
#define RACKTWIN_ASSERT(expr, message)                                                  \
  do {                                                                                  \
    if (!(expr)) ::racktwin::core::assertionFailed(#expr, __FILE__, __LINE__, message); \
  } while (false)
#else
#define RACKTWIN_ASSERT(expr, message) ((void)0)
#endif

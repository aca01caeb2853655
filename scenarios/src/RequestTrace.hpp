#pragma once
// Inference request traces in the Azure LLM inference format (Azure Public Dataset, e.g.
// AzureLLMInferenceTrace_code.csv): comma-separated text with the header row
//
//   TIMESTAMP,ContextTokens,GeneratedTokens
//   2023-11-16 18:17:03.9799600,4808,10
//
// Columns may come in any order. TIMESTAMP is a date and time 'YYYY-MM-DD hh:mm:ss[.fraction]'
// (UTC) or a plain number of seconds; times never decrease from row to row. Token counts are
// whole numbers >= 0. Blank lines and text after '#' are ignored. Times are returned relative to
// the first request. Every problem is a core::InputError naming the file, the 1-based line and
// column, and the column name as the key.
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

std::vector<core::InferenceRequest> parseRequestTrace(std::string_view text,
                                                      const std::string& file);

/// Reads and parses a trace file; a file that cannot be read is an InputError without a line.
std::vector<core::InferenceRequest> readRequestTrace(const std::string& path);

}  // namespace racktwin::scenarios::detail

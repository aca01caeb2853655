#include "RunCheckpoint.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "OutputFiles.hpp"
#include "racktwin/core/Error.hpp"

namespace racktwin::cli {
namespace {

constexpr const char* kMagic = "RACKTWIN-STATE 4";
constexpr std::size_t kLargestHeader = std::size_t{64} << 20;  // bytes of the JSON line

[[noreturn]] void damaged(const std::string& path, const std::string& what) {
  throw core::InputError(
      {path, 0, 0}, "--resume",
      "checkpoint cannot be used: " + what + " (run the scenario again without --resume)");
}

std::string hex(std::uint64_t value) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::uint64_t unhex(const std::string& path, const nlohmann::json& header, const char* key) {
  const std::string text = header.at(key).get<std::string>();
  if (text.size() != 16 || text.find_first_not_of("0123456789abcdef") != std::string::npos) {
    damaged(path, std::string("'") + key + "' is not a 64-bit hexadecimal checksum");
  }
  return std::stoull(text, nullptr, 16);
}

nlohmann::json optionalNumber(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}
std::optional<double> readOptional(const nlohmann::json& value) {
  if (value.is_null()) return std::nullopt;
  return value.get<double>();
}
nlohmann::json optionalText(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}
std::optional<std::string> readOptionalText(const nlohmann::json& value) {
  if (value.is_null()) return std::nullopt;
  return value.get<std::string>();
}

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::uint64_t stateChecksum(std::string_view bytes) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  const auto mix = [](std::uint64_t h, std::uint64_t word) {
    h = (h ^ word) * kPrime;
    return h ^ (h >> 29);
  };
  std::uint64_t lane[4] = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL, 0x9e3779b97f4a7c15ULL,
                           0xc2b2ae3d27d4eb4fULL};
  const char* p = bytes.data();
  const std::size_t words = bytes.size() / 8;
  std::size_t w = 0;
  for (; w + 4 <= words; w += 4) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t word;
      std::memcpy(&word, p + 8 * (w + static_cast<std::size_t>(k)), 8);
      lane[k] = mix(lane[k], word);
    }
  }
  for (; w < words; ++w) {
    std::uint64_t word;
    std::memcpy(&word, p + 8 * w, 8);
    lane[0] = mix(lane[0], word);
  }
  std::uint64_t tail = 0;
  if (bytes.size() > 8 * words) std::memcpy(&tail, p + 8 * words, bytes.size() - 8 * words);
  std::uint64_t h = mix(mix(lane[0], tail), bytes.size());
  for (int k = 1; k < 4; ++k)
    h = mix(h, lane[k]);
  return h;
}

std::optional<std::uint64_t> fileHash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return fnv1a64(bytes);
}

std::string checkpointPath(const std::string& output) {
  return output + ".resume";
}

void writeRunCheckpoint(const std::string& path, const RunCheckpoint& c) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const RunCheckpoint::Input& input : c.inputs)
    inputs.push_back({{"path", input.path}, {"fnv1a64", hex(input.hash)}});
  const nlohmann::json header = {
      {"program_version", c.program_version},
      {"scenario", c.scenario_argument},
      {"scenario_absolute", c.scenario_absolute},
      {"scenario_fnv1a64", hex(c.scenario_hash)},
      {"inputs", inputs},
      {"step_s", optionalNumber(c.step_s)},
      {"duration_s", optionalNumber(c.duration_s)},
      {"record_interval_s", optionalNumber(c.record_interval_s)},
      {"allow_outside_paths", c.allow_outside_paths},
      {"per_gpu", optionalText(c.per_gpu)},
      {"hottest_gpus", optionalText(c.hottest_gpus)},
      {"aggregates", optionalText(c.aggregates)},
      {"compression", optionalText(c.compression)},
      {"save_state_interval_s", c.save_state_interval_s},
      {"save_state_wall_interval_s", c.save_state_wall_interval_s},
      {"output", c.output},
      {"summary_json", c.summary_json},
      {"rows", c.rows},
      {"time_s", c.time_s},
      {"state_bytes", c.state.size()},
      {"state_checksum", hex(stateChecksum(c.state))},
  };
  // dump() escapes control characters, so the header is one line whatever the paths hold. The
  // state (some 100 MB for a site) is written after the header as it is, not copied behind it.
  const std::string head = std::string(kMagic) + "\n" + header.dump() + "\n";
  writeFileRotating(path, {head, c.state});
}

RunCheckpoint readRunCheckpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw core::InputError({path, 0, 0}, "--resume",
                           "no checkpoint: the run saved none (it stopped before its first "
                           "checkpoint, or completed), or the file cannot be read");
  }
  std::string magic;
  if (!std::getline(in, magic) || magic != kMagic) {
    damaged(path, "it does not start with '" + std::string(kMagic) + "'");
  }
  std::string line;
  std::getline(in, line);
  if (!in || line.size() > kLargestHeader) damaged(path, "its header line is cut short");
  RunCheckpoint c;
  std::uint64_t state_bytes = 0, state_hash = 0;
  try {
    const nlohmann::json header = nlohmann::json::parse(line);
    c.program_version = header.at("program_version").get<std::string>();
    c.scenario_argument = header.at("scenario").get<std::string>();
    c.scenario_absolute = header.at("scenario_absolute").get<std::string>();
    c.scenario_hash = unhex(path, header, "scenario_fnv1a64");
    for (const nlohmann::json& input : header.at("inputs")) {
      c.inputs.push_back({input.at("path").get<std::string>(), unhex(path, input, "fnv1a64")});
    }
    c.step_s = readOptional(header.at("step_s"));
    c.duration_s = readOptional(header.at("duration_s"));
    c.record_interval_s = readOptional(header.at("record_interval_s"));
    c.allow_outside_paths = header.at("allow_outside_paths").get<bool>();
    c.per_gpu = readOptionalText(header.at("per_gpu"));
    c.hottest_gpus = readOptionalText(header.at("hottest_gpus"));
    c.aggregates = readOptionalText(header.at("aggregates"));
    c.compression = readOptionalText(header.at("compression"));
    c.save_state_interval_s = header.at("save_state_interval_s").get<double>();
    c.save_state_wall_interval_s = header.at("save_state_wall_interval_s").get<double>();
    c.output = header.at("output").get<std::string>();
    c.summary_json = header.at("summary_json").get<std::string>();
    c.rows = header.at("rows").get<std::uint64_t>();
    c.time_s = header.at("time_s").get<double>();
    state_bytes = header.at("state_bytes").get<std::uint64_t>();
    state_hash = unhex(path, header, "state_checksum");
  } catch (const nlohmann::json::exception& error) {
    // The library's message may quote the file: give its error number only.
    damaged(path, "its header is not what this program writes (JSON error "
                      + std::to_string(error.id) + ")");
  }
  // The state is read in one piece, of the size the header gives, and must end the file.
  const std::streamoff at = in.tellg();
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  in.seekg(at);
  const std::uint64_t held = at >= 0 && end >= at ? static_cast<std::uint64_t>(end - at) : 0;
  if (!in || held != state_bytes) {
    damaged(path, "it holds " + std::to_string(held) + " bytes of state where its header says "
                      + std::to_string(state_bytes));
  }
  c.state.resize(static_cast<std::size_t>(state_bytes));
  if (!in.read(c.state.data(), static_cast<std::streamsize>(state_bytes))) {
    damaged(path, "its state cannot be read in full");
  }
  if (stateChecksum(c.state) != state_hash) damaged(path, "its state fails its checksum");
  return c;
}

}  // namespace racktwin::cli

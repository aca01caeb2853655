// `racktwin hydraulics`: a steady solve of an EPANET network, printed in the file's units.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

#include "Commands.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/HugePageHeap.hpp"
#include "racktwin/scenarios/EpanetInput.hpp"

namespace racktwin::cli {
namespace {

// A large network costs more in first-touch page faults (4 KiB each, some 10-25 us on a virtual
// machine) than in its factorisations. The heap is therefore grown once to about what reading and
// solving the file will need, on transparent huge pages (2 MiB per fault; core/HugePageHeap.hpp).
// Worth it only for big files.
void prepareHeap(const std::string& path) {
  std::error_code error;
  const auto file_size = std::filesystem::file_size(path, error);
  constexpr std::uintmax_t kSmallFile = 1u << 18;
  if (error || file_size < kSmallFile) return;
  // About 35-45 bytes of model, solver and output per byte of input (grids of 10^4 to 10^5 nodes).
  constexpr std::uintmax_t kLargestReserve = std::uintmax_t{1} << 30;
  core::reserveHugePageHeap(
      static_cast<std::size_t>(std::min<std::uintmax_t>(48 * file_size, kLargestReserve)));
}

void printTable(const scenarios::EpanetModel& model, const scenarios::EpanetSolution& solution,
                double time_s, bool extended_period) {
  const scenarios::EpanetUnits& u = model.units;
  std::printf("%s: %s at t = %g s\n", model.path.c_str(),
              extended_period ? "extended-period simulation" : "steady state", time_s);
  if (!model.title.empty()) std::printf("  %s\n", model.title.c_str());
  std::printf("\n  %-24s %14s %14s\n", "node", ("head " + std::string(u.headName())).c_str(),
              ("pressure " + u.pressure).c_str());
  for (std::size_t n = 0; n < model.nodes.size(); ++n) {
    std::printf("  %-24s %14.4f %14.4f\n", model.nodes[n].id.c_str(), solution.head[n],
                solution.pressure[n]);
  }
  std::printf("\n  %-24s %14s  %s\n", "link", ("flow " + u.flow).c_str(), "status");
  for (std::size_t l = 0; l < model.links.size(); ++l) {
    std::printf("  %-24s %14.4f  %s\n", model.links[l].id.c_str(), solution.flow[l],
                thermal::linkStateName(solution.state[l]));
  }
  std::printf("\n  iterations %d, relative flow change %.3g, %s\n", solution.status.iterations,
              solution.status.relative_flow_change,
              solution.status.converged ? "converged" : "NOT converged");
}

// Written as a stream: a network of 10^5 links would spend longer building a JSON tree than
// solving.
void appendNumber(std::string& out, double value) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, error == std::errc() ? end : buffer);
}

// An id as a JSON string: ids are plain text almost always, so only those that need escapes go
// through nlohmann-json.
void appendId(std::string& out, const std::string& id) {
  const bool plain = std::none_of(id.begin(), id.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\'
           || static_cast<unsigned char>(c) >= 0x80;
  });
  if (plain) {
    out += '"';
    out += id;
    out += '"';
  } else {
    out += nlohmann::json(id).dump();
  }
}

void printJson(const scenarios::EpanetModel& model, const scenarios::EpanetSolution& solution) {
  std::string out = "{\"nodes\": [";
  out.reserve(96 * (model.nodes.size() + model.links.size()));
  for (std::size_t n = 0; n < model.nodes.size(); ++n) {
    out += n > 0 ? ",\n  {\"id\": " : "\n  {\"id\": ";
    appendId(out, model.nodes[n].id);
    out += ", \"head\": ";
    appendNumber(out, solution.head[n]);
    out += ", \"pressure\": ";
    appendNumber(out, solution.pressure[n]);
    out += '}';
  }
  out += "],\n \"links\": [";
  for (std::size_t l = 0; l < model.links.size(); ++l) {
    out += l > 0 ? ",\n  {\"id\": " : "\n  {\"id\": ";
    appendId(out, model.links[l].id);
    out += ", \"flow\": ";
    appendNumber(out, solution.flow[l]);
    out += '}';
  }
  out += "],\n \"iterations\": " + std::to_string(solution.status.iterations);
  out += ",\n \"relative_flow_change\": ";
  appendNumber(out, solution.status.relative_flow_change);
  out += "}\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

int hydraulicsCommand(const HydraulicsArguments& arguments) {
  scenarios::EpanetModel model;
  try {
    if (!std::isfinite(arguments.time_s) || arguments.time_s < 0.0) {
      throw core::InputError({"<command line>", 0, 0}, "--time",
                             "must be a non-negative number of seconds");
    }
    prepareHeap(arguments.input);
    model = scenarios::readEpanetInput(arguments.input);
  } catch (const core::Error& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  for (const std::string& warning : model.warnings)
    std::fprintf(stderr, "racktwin: warning: %s: %s\n", model.path.c_str(), warning.c_str());
  scenarios::EpanetSolveOptions options;
  options.time = arguments.time_s;
  scenarios::EpanetSolution solution;
  if (arguments.extended_period) {
    const int status = exitCodeOf([&] {
      solution = scenarios::simulateEpanet(model, options);
      return kSuccess;
    });
    if (status != kSuccess) return status;
  } else {
    solution = scenarios::solveEpanetOnce(model, options);
  }
  if (arguments.json)
    printJson(model, solution);
  else
    printTable(model, solution, arguments.time_s, arguments.extended_period);
  if (!solution.status.message.empty()) {
    std::fprintf(stderr, "racktwin: %s%s\n", solution.status.converged ? "warning: " : "",
                 solution.status.message.c_str());
  }
  return solution.status.converged ? kSuccess : kRunFailed;
}

}  // namespace racktwin::cli

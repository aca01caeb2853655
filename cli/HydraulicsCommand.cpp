// `racktwin hydraulics`: a steady solve of an EPANET network, printed in the file's units.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "Commands.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/EpanetInput.hpp"

namespace racktwin::cli {
namespace {

void printTable(const scenarios::EpanetModel& model, const scenarios::EpanetSolution& solution,
                double time_s) {
  const scenarios::EpanetUnits& u = model.units;
  std::printf("%s: steady state at t = %g s\n", model.path.c_str(), time_s);
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
// solving. nlohmann-json escapes the ids.
void appendNumber(std::string& out, double value) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, error == std::errc() ? end : buffer);
}

void printJson(const scenarios::EpanetModel& model, const scenarios::EpanetSolution& solution) {
  std::string out = "{\"nodes\": [";
  out.reserve(96 * (model.nodes.size() + model.links.size()));
  for (std::size_t n = 0; n < model.nodes.size(); ++n) {
    out += n > 0 ? ",\n  {\"id\": " : "\n  {\"id\": ";
    out += nlohmann::json(model.nodes[n].id).dump();
    out += ", \"head\": ";
    appendNumber(out, solution.head[n]);
    out += ", \"pressure\": ";
    appendNumber(out, solution.pressure[n]);
    out += '}';
  }
  out += "],\n \"links\": [";
  for (std::size_t l = 0; l < model.links.size(); ++l) {
    out += l > 0 ? ",\n  {\"id\": " : "\n  {\"id\": ";
    out += nlohmann::json(model.links[l].id).dump();
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
    model = scenarios::readEpanetInput(arguments.input);
  } catch (const core::Error& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  for (const std::string& warning : model.warnings)
    std::fprintf(stderr, "racktwin: warning: %s: %s\n", model.path.c_str(), warning.c_str());
  scenarios::EpanetSolveOptions options;
  options.time = arguments.time_s;
  const scenarios::EpanetSolution solution = scenarios::solveEpanet(model, options);
  if (arguments.json)
    printJson(model, solution);
  else
    printTable(model, solution, arguments.time_s);
  if (!solution.status.message.empty()) {
    std::fprintf(stderr, "racktwin: %s%s\n", solution.status.converged ? "warning: " : "",
                 solution.status.message.c_str());
  }
  return solution.status.converged ? kSuccess : kRunFailed;
}

}  // namespace racktwin::cli

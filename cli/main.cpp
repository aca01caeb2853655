// racktwin: batch runs of RackTwin scenarios and inspection of result files.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <utility>
#include <vector>

#include "Commands.hpp"
#include "racktwin/core/Version.hpp"

int main(int argc, char** argv) {
  using namespace racktwin::cli;
  CLI::App app{"RackTwin: a digital twin of liquid-cooled AI racks, their cooling and power."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(racktwin::core::programVersion()));

  RunArguments run;
  CLI::App* run_command = app.add_subcommand("run", "Run a scenario and write an HDF5 result");
  run_command->add_option("scenario", run.scenario,
                          "Scenario file (YAML); with --resume, optional (it must be the run's)");
  run_command->add_option("-o,--output", run.output,
                          "Result file (HDF5); default out/<scenario name>.h5");
  run_command->add_option("--duration", run.duration_s,
                          "Simulated time in seconds (overrides the scenario)");
  run_command->add_option("--step", run.step_s,
                          "Macro (thermal) step in seconds (overrides the scenario)");
  run_command->add_option("--record-interval", run.record_interval_s,
                          "Seconds between records, a whole number of steps (overrides the "
                          "scenario)");
  run_command->add_option("--summary-json", run.summary_json,
                          "Also write the run summary as JSON to this file");
  run_command->add_flag("-q,--quiet", run.quiet, "Print nothing but errors");
  run_command
      ->add_option_function<std::string>(
          "--units", [&run](const std::string& system) { run.us_units = system == "us"; },
          "Units of the printed summary: si (default) or us (degF, gpm, psi, gal, ton-h for "
          "heat); the result file and --summary-json stay SI")
      ->check(CLI::IsMember({"si", "us"}));
  run_command->add_flag("--allow-outside-paths", run.allow_outside_paths,
                        "Let the scenario read files outside its folder and the data library "
                        "(absolute paths, '..')");
  run_command->add_option("--save-state-interval", run.save_state_interval_s,
                          "Simulated seconds between checkpoints saved beside the result as "
                          "<output>.resume (default: none by simulated time)");
  run_command->add_option("--save-state-wall-interval", run.save_state_wall_interval_s,
                          "Wall-clock seconds of the run after which a checkpoint is saved again "
                          "(default 300; 0: none by the clock)");
  run_command->add_option("--resume", run.resume,
                          "Continue an interrupted run from its last checkpoint: the result "
                          "(complete = 0) or its <result>.partial");
  run_command->add_flag("--no-space-check", run.no_space_check,
                        "Run even when the estimated size of the result exceeds the free space");
  run_command->add_option("--per-gpu", run.per_gpu,
                          "Which racks record every GPU, CPU, NVSwitch and tray in its own "
                          "columns: auto (all up to 10,000 GPUs, none above), all, none, or rack, "
                          "row and hall ids separated by commas (overrides output.per_gpu)");
  run_command->add_option("--hottest-gpus", run.hottest_gpus,
                          "Record every channel of the N hottest GPUs at each record: N, or auto "
                          "(16 when not every GPU is recorded, else 0)");
  run_command->add_option("--aggregates", run.aggregates,
                          "Mean, max and argmax of the GPU, CPU, NVSwitch and tray channels per "
                          "rack, row and hall: auto (rack and row, and hall with several halls, "
                          "when not every GPU is recorded), none, or levels separated by commas");
  run_command->add_option("--compression", run.compression,
                          "Deflate level of the result's datasets, 0 (none) to 9 (default 1)");
  run_command
      ->add_option("--threads", run.threads,
                   "Threads for the models' parallel passes (default: the processors this process "
                   "may run on); the results are the same bits for any number")
      ->check(CLI::Range(0u, 1024u));

  std::string result;
  CLI::App* info_command = app.add_subcommand("info", "List what a result file holds");
  info_command->add_option("result", result, "Result file (HDF5)")->required();

  HydraulicsArguments hydraulics;
  CLI::App* hydraulics_command = app.add_subcommand(
      "hydraulics", "Steady hydraulic solve of an EPANET network (.inp) at one time");
  hydraulics_command->add_option("input", hydraulics.input, "EPANET input file (.inp)")->required();
  hydraulics_command->add_option("--time", hydraulics.time_s,
                                 "Seconds since the start: patterns and controls as they stand");
  hydraulics_command->add_flag("--json", hydraulics.json, "Print the result as JSON");
  hydraulics_command->add_flag(
      "--extended-period", hydraulics.extended_period,
      "Simulate from 0 to --time with tank levels following their inflow (EPANET's extended "
      "period); without it the tanks stay at their file levels");

  std::vector<Subcommand> more = addCfdCommands(app);
  for (Subcommand& command : addCsvCommand(app))
    more.push_back(std::move(command));
  for (Subcommand& command : addReportCommand(app))
    more.push_back(std::move(command));
  for (Subcommand& command : addSweepCommands(app))
    more.push_back(std::move(command));
#ifdef RACKTWIN_WITH_VIZ
  for (Subcommand& command : addVtkCommands(app))
    more.push_back(std::move(command));
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kSuccess : kBadInput;
  }
  if (*run_command) return runCommand(run);
  if (*info_command) return infoCommand(result);
  if (*hydraulics_command) return hydraulicsCommand(hydraulics);
  for (const Subcommand& command : more) {
    if (command.command->parsed()) return command.run();
  }
  return kBadInput;
}

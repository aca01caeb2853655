#pragma once
// The checkpoint of a `racktwin run`: `<output>.resume`, beside the result, written atomically at
// the end of a step every --save-state-interval simulated seconds, once --save-state-wall-interval
// seconds of wall time have passed since the last (5 minutes by default), and when the run is
// interrupted, removed when the run completes. It holds what `racktwin run --resume` needs to
// rebuild the same run: the command line that shaped it, fingerprints of the scenario and of
// every file it read (a changed input refuses the resume instead of continuing another run), the
// number of records the result file held at the checkpoint, and the twin's state
// (scenarios::Twin::saveState).
//
// Layout: a first line "RACKTWIN-STATE 4", a second line of JSON (the header below, with the
// state's size and its word-wise checksum, `state_checksum`), then the state's bytes. The number
// rises whenever the state's layout changes (3: the chips' unused per-die junctions left it; 4:
// the single-CDU sweep's per-die scratch left it, and the header took the wall-clock interval), so
// a checkpoint of an older layout is refused instead of read into the wrong arrays. A file cut
// short, with flipped bytes or from another program version is refused with the file's name and
// what is wrong.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace racktwin::cli {

struct RunCheckpoint {
  std::string program_version;
  std::string scenario_argument;    // as given on the command line (the result's scenario_path)
  std::string scenario_absolute;    // the same file, absolute at the time of the run
  std::uint64_t scenario_hash = 0;  // FNV-1a 64 of the scenario's text
  struct Input {
    std::string path;
    std::uint64_t hash = 0;
  };
  std::vector<Input> inputs;  // every file the scenario read, with the FNV-1a 64 of its bytes
  std::optional<double> step_s, duration_s, record_interval_s;  // command-line overrides
  std::optional<std::string> per_gpu, hottest_gpus, aggregates, compression;
  bool allow_outside_paths = false;
  double save_state_interval_s = 0.0;       // simulated s between checkpoints; 0: none
  double save_state_wall_interval_s = 0.0;  // wall-clock s between checkpoints; 0: none
  std::string output;                       // absolute
  std::string summary_json;                 // absolute, or empty
  std::uint64_t rows = 0;                   // records in the result file at the checkpoint
  double time_s = 0.0;                      // simulated time of the checkpoint
  std::string state;                        // scenarios::Twin::saveState()
};

std::uint64_t fnv1a64(std::string_view bytes);
/// The checksum of a checkpoint's state: FNV-1a's step on 8-byte words in four interleaved lanes,
/// each step followed by a shift-xor, so that the high bits reach the low ones; then the tail
/// bytes and the length, and the lanes folded. Every step is invertible, so any change confined
/// to one word always changes the sum. Some 20 times faster than byte-wise FNV-1a on a state of
/// 100 MB and more.
std::uint64_t stateChecksum(std::string_view bytes);
/// FNV-1a 64 of a file's bytes; nullopt when it cannot be read.
std::optional<std::uint64_t> fileHash(const std::string& path);

/// The checkpoint file of a result path: "<output>.resume".
std::string checkpointPath(const std::string& output);
/// Writes atomically over the previous checkpoint's pages (see writeFileRotating): remove a
/// run's checkpoints with removeRotated(path). Throws core::RuntimeError.
void writeRunCheckpoint(const std::string& path, const RunCheckpoint& checkpoint);
/// Reads and verifies a checkpoint. Throws core::InputError naming the file and what is wrong.
RunCheckpoint readRunCheckpoint(const std::string& path);

}  // namespace racktwin::cli

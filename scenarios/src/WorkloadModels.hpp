#pragma once
// The workload keys that name models (docs/workloads.md): an inference job's `model:` (a model
// from data/models served on an accelerator from data/accelerators), its `load:` shaping of a
// request trace, and a training job's `model:` from which its iteration and checkpoint durations
// are derived. Data files and keys are checked as the rest of the loader checks them: errors with
// file, line and key; values outside their physical range refused, outside their engineering
// range accepted with a warning.
#include <filesystem>
#include <vector>

#include "YamlReader.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

/// An accelerator data file (kind: accelerator).
core::AcceleratorSpec readAcceleratorFile(const std::filesystem::path& file,
                                          const std::string& type);
/// A model data file (kind: language_model); `efficiency` receives its calibrated serving
/// efficiency on `accelerator` (0 when the file gives none for it).
core::LanguageModelSpec readModelFile(const std::filesystem::path& file, const std::string& type,
                                      const std::string& accelerator, double* efficiency);

/// An inference job's `model:` map into `job.deployment`; `gpus`: the job's GPUs (for the
/// replicas of a disaggregated deployment).
void readInferenceModel(const MapReader& job, const std::filesystem::path& data_root,
                        std::uint32_t gpus, core::InferenceJobSpec& spec);
/// An inference job's `load:` map (rate_scale, repeat) applied to its trace.
void readLoadShaping(const MapReader& job, core::InferenceJobSpec& spec);
/// A training job with a `model:` map on `gpus` GPUs: its optional `iteration` (phase powers
/// only) and `checkpoint` (interval and power; the duration is derived), and the model, from
/// which the compute, communication and checkpoint durations are derived.
void readDerivedTraining(const MapReader& job, const std::filesystem::path& data_root,
                         std::uint32_t gpus, core::TrainingJobSpec& spec);

/// The iteration of a training job derived from its model (docs/workloads.md, "Training").
struct TrainingIteration {
  double flops = 0.0;          // model FLOPs of one iteration (6 N_active per token)
  double compute = 0.0;        // s
  double communication = 0.0;  // s, exposed collectives
  double tensor_bytes = 0.0;   // bytes per GPU over NVLink
  double data_bytes = 0.0;     // bytes per GPU over the scale-out network
  double checkpoint = 0.0;     // s
  double checkpoint_bytes = 0.0;
};
TrainingIteration trainingIteration(const core::TrainingModelSpec& m, std::uint32_t gpus);

}  // namespace racktwin::scenarios::detail

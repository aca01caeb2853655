#include "WorkloadModels.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <system_error>
#include <vector>

#include "Plausibility.hpp"
#include "racktwin/core/InferenceRoofline.hpp"

namespace racktwin::scenarios::detail {

namespace fs = std::filesystem;
using core::Dimension;

namespace {

constexpr int kDataFormatVersion = 1;

/// A plain number (unit in the key) in its physical range [lo, hi] (outside: an error) and its
/// engineering range [elo, ehi] (outside: a warning saying `why`).
double ranged(const MapReader& m, std::string_view key, double lo, double hi, double elo,
              double ehi, const std::string& why) {
  const double v = m.number(key, Check::Any);
  if (!(v >= lo && v <= hi)) {
    m.fail(key, "must lie in [" + formatNumber(lo) + ", " + formatNumber(hi) + "], got "
                    + formatNumber(v));
  }
  if (v < elo || v > ehi) {
    const core::SourceLocation at = m.whereValue(key);
    addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": key '"
                   + m.keyPath(key) + "'",
               formatNumber(v) + " is outside [" + formatNumber(elo) + ", " + formatNumber(ehi)
                   + "]: " + why);
  }
  return v;
}

double rangedOr(const MapReader& m, std::string_view key, double fallback, double lo, double hi,
                double elo, double ehi, const std::string& why) {
  return m.has(key) ? ranged(m, key, lo, hi, elo, ehi, why) : fallback;
}

int integerOr(const MapReader& m, std::string_view key, int fallback, int lo, int hi) {
  return m.has(key) ? m.integer(key, lo, hi) : fallback;
}

core::NumberFormat formatOr(const MapReader& m, std::string_view key, core::NumberFormat fallback) {
  if (!m.has(key)) return fallback;
  const std::string f = m.string(key, "a number format (nvfp4, fp8 or bf16)");
  if (f == "nvfp4") return core::NumberFormat::Nvfp4;
  if (f == "fp8") return core::NumberFormat::Fp8;
  if (f == "bf16") return core::NumberFormat::Bf16;
  m.fail(key, "unknown number format '" + f + "'; supported: nvfp4, fp8, bf16");
}

void readHeader(const MapReader& r, const std::string& kind) {
  if (!r.has("racktwin_data")) {
    r.fail("racktwin_data", "required key is missing; a data file starts with 'racktwin_data: "
                                + std::to_string(kDataFormatVersion) + "'");
  }
  (void)r.integer("racktwin_data", kDataFormatVersion, kDataFormatVersion);
  const std::string k = r.string("kind", "the kind of data file");
  if (k != kind) r.fail("kind", "expected kind '" + kind + "', got '" + k + "'");
  (void)r.optionalString("description", "a description");
}

fs::path dataFile(const MapReader& ref, std::string_view key, const fs::path& root,
                  const std::string& folder, const std::string& type, const std::string& noun) {
  const fs::path file = (root / folder / (type + ".yaml")).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    std::vector<std::string> names;
    for (fs::directory_iterator it(root / folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
    }
    std::sort(names.begin(), names.end());
    ref.fail(key, "unknown " + noun + " '" + type + "': no data file " + file.string()
                      + "; available: " + (names.empty() ? std::string("none") : joined(names)));
  }
  return file;
}

}  // namespace

core::AcceleratorSpec readAcceleratorFile(const fs::path& file, const std::string& type) {
  const YamlDocument doc = parseYaml(readFileBytes(file.string()), file.string());
  const MapReader r = MapReader::root(
      doc, {"racktwin_data", "kind", "description", "fp4_dense_PFLOP_per_s",
            "fp8_dense_PFLOP_per_s", "bf16_dense_PFLOP_per_s", "hbm_bandwidth_TB_per_s",
            "hbm_capacity_GB", "nvlink_bandwidth_GB_per_s", "scale_out_bandwidth_Gb_per_s",
            "compute_efficiency", "memory_efficiency", "network_efficiency", "compute_power",
            "memory_power", "communication_power"});
  readHeader(r, "accelerator");
  core::AcceleratorSpec a;
  a.type = type;
  const std::string gpu = "beyond any GPU of 2025 (check the data sheet)";
  // Units in the key names, converted to SI (FLOP/s, bytes/s, bytes).
  a.fp4_flops = 1e15 * ranged(r, "fp4_dense_PFLOP_per_s", 1e-3, 1e3, 0.1, 50.0, gpu);
  a.fp8_flops = 1e15 * ranged(r, "fp8_dense_PFLOP_per_s", 1e-3, 1e3, 0.1, 25.0, gpu);
  a.bf16_flops = 1e15 * ranged(r, "bf16_dense_PFLOP_per_s", 1e-3, 1e3, 0.05, 12.5, gpu);
  a.hbm_bandwidth = 1e12 * ranged(r, "hbm_bandwidth_TB_per_s", 1e-2, 1e3, 1.0, 25.0, gpu);
  a.hbm_capacity = 1e9 * ranged(r, "hbm_capacity_GB", 1.0, 1e4, 16.0, 1200.0, gpu);
  a.nvlink_bandwidth = 1e9 * ranged(r, "nvlink_bandwidth_GB_per_s", 1.0, 1e5, 100.0, 3600.0, gpu);
  a.scale_out_bandwidth =
      1e9 / 8.0 * ranged(r, "scale_out_bandwidth_Gb_per_s", 1.0, 1e5, 100.0, 1600.0, gpu);
  const std::string tuned = "tuned kernels reach 0.5-0.95 of a peak";
  a.compute_efficiency = ranged(r, "compute_efficiency", 1e-3, 1.0, 0.3, 0.95, tuned);
  a.memory_efficiency = ranged(r, "memory_efficiency", 1e-3, 1.0, 0.5, 0.98, tuned);
  a.network_efficiency = ranged(r, "network_efficiency", 1e-3, 1.0, 0.5, 0.98, tuned);
  const std::string power = "phase powers are fractions of the GPU power limit, idle to limit";
  a.compute_power_fraction = ranged(r, "compute_power", 0.0, 1.0, 0.5, 1.0, power);
  a.memory_power_fraction = ranged(r, "memory_power", 0.0, 1.0, 0.3, 1.0, power);
  a.communication_power_fraction = ranged(r, "communication_power", 0.0, 1.0, 0.1, 0.8, power);
  r.finish();
  return a;
}

core::LanguageModelSpec readModelFile(const fs::path& file, const std::string& type,
                                      const std::string& accelerator, double* efficiency) {
  const YamlDocument doc = parseYaml(readFileBytes(file.string()), file.string());
  const MapReader r = MapReader::root(
      doc,
      {"racktwin_data", "kind", "description", "parameters_billions", "active_parameters_billions",
       "layers", "hidden_size", "attention_heads", "qk_head_dim", "v_head_dim",
       "kv_cache_elements_per_token", "experts", "experts_per_token", "calibration"});
  readHeader(r, "language_model");
  core::LanguageModelSpec m;
  m.type = type;
  const std::string size = "outside the models this data describes (0.1B to 10T parameters)";
  m.parameters = 1e9 * ranged(r, "parameters_billions", 1e-3, 1e5, 0.1, 1e4, size);
  m.active_parameters = 1e9
                        * rangedOr(r, "active_parameters_billions", m.parameters / 1e9, 1e-3,
                                   m.parameters / 1e9, 0.1, m.parameters / 1e9, size);
  m.layers = r.integer("layers", 1, 10'000);
  m.hidden_size = r.integer("hidden_size", 1, 1'000'000);
  m.attention_heads = r.integer("attention_heads", 1, 10'000);
  m.qk_head_dim = r.integer("qk_head_dim", 1, 100'000);
  m.v_head_dim = r.integer("v_head_dim", 1, 100'000);
  m.kv_elements_per_token = ranged(r, "kv_cache_elements_per_token", 1.0, 1e9, 1e3, 1e7,
                                   "a transformer caches 1e3-1e7 elements per token");
  m.experts = integerOr(r, "experts", 0, 0, 100'000);
  m.experts_per_token = integerOr(r, "experts_per_token", 0, 0, 100'000);
  if ((m.experts > 0) != (m.experts_per_token > 0)
      || m.experts_per_token >= std::max(m.experts, 1)) {
    if (m.experts > 0 || m.experts_per_token > 0) {
      r.fail("experts_per_token", "a mixture of experts needs experts > experts_per_token > 0");
    }
  }
  // `calibration`: per accelerator, the achieved share of the roofline (docs/workloads.md).
  *efficiency = 0.0;
  if (const auto list = r.optionalList("calibration", "calibrations per accelerator")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const MapReader c = list->map(i, {"accelerator", "serving_efficiency", "reference"});
      const std::string on = c.string("accelerator", "an accelerator type");
      const double e = ranged(c, "serving_efficiency", 1e-3, 1.0, 0.05, 1.0,
                              "a serving stack below 5 % of its roofline is suspect");
      (void)c.optionalString("reference", "where the calibration comes from");
      c.finish();
      if (on == accelerator) *efficiency = e;
    }
  }
  r.finish();
  return m;
}

namespace {

/// A `model` map's `type` and `accelerator`: both data files, and the model's calibration on
/// the accelerator (0 when it has none).
void readModelOnAccelerator(const MapReader& m, const fs::path& root,
                            core::LanguageModelSpec& model, core::AcceleratorSpec& accelerator,
                            double& calibrated) {
  const std::string a = m.string("accelerator", "an accelerator type (data/accelerators)");
  accelerator = readAcceleratorFile(
      dataFile(m, "accelerator", root, "accelerators", a, "accelerator type"), a);
  const std::string type = m.string("type", "a model type (data/models)");
  model =
      readModelFile(dataFile(m, "type", root, "models", type, "model type"), type, a, &calibrated);
}

/// `disaggregated`: the prefill and decode pools, which must add up to the job's replicas.
void readDisaggregated(const MapReader& m, std::uint32_t gpus, core::InferenceDeploymentSpec& d) {
  const MapReader p = m.map("disaggregated", {"prefill_replicas", "decode_replicas"});
  d.prefill_replicas = p.integer("prefill_replicas", 1, 1'000'000);
  d.decode_replicas = p.integer("decode_replicas", 1, 1'000'000);
  const auto group = static_cast<std::uint32_t>(d.tensor_parallel * d.pipeline_parallel);
  const std::uint32_t replicas = gpus / group;
  if (gpus % group == 0 && d.prefill_replicas + d.decode_replicas != static_cast<int>(replicas)) {
    p.fail("decode_replicas", "prefill_replicas + decode_replicas = "
                                  + std::to_string(d.prefill_replicas + d.decode_replicas)
                                  + " must equal the job's replicas: its " + std::to_string(gpus)
                                  + " GPUs over tensor x pipeline parallel " + std::to_string(group)
                                  + " = " + std::to_string(replicas));
  }
  const double share =
      static_cast<double>(d.prefill_replicas) / (d.prefill_replicas + d.decode_replicas);
  if (share < 0.05 || share > 0.8) {
    const core::SourceLocation at = p.whereValue("prefill_replicas");
    addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": key '"
                   + p.keyPath("prefill_replicas") + "'",
               "a prefill pool of " + formatNumber(100.0 * share)
                   + " % of the replicas is outside 5-80 %: one pool idles while the other "
                     "queues for usual prompt and output lengths");
  }
  p.finish();
}

}  // namespace

void readInferenceModel(const MapReader& job, const fs::path& root, std::uint32_t gpus,
                        core::InferenceJobSpec& spec) {
  const MapReader m =
      job.map("model", {"type", "accelerator", "weights", "kv_cache", "attention",
                        "tensor_parallel", "expert_parallel", "pipeline_parallel", "max_batch",
                        "max_batch_tokens", "memory_for_kv_cache", "serving_efficiency",
                        "ttft_target", "tpot_target", "disaggregated"});
  core::InferenceDeploymentSpec d;
  double calibrated = 0.0;
  readModelOnAccelerator(m, root, d.model, d.accelerator, calibrated);
  const std::string& type = d.model.type;
  const std::string& accelerator = d.accelerator.type;
  d.weights = formatOr(m, "weights", core::NumberFormat::Nvfp4);
  d.kv_cache = formatOr(m, "kv_cache", core::NumberFormat::Fp8);
  d.attention = formatOr(m, "attention", core::NumberFormat::Fp8);
  d.tensor_parallel = integerOr(m, "tensor_parallel", 1, 1, 72);
  d.expert_parallel = integerOr(m, "expert_parallel", 1, 1, 72);
  d.pipeline_parallel = integerOr(m, "pipeline_parallel", 1, 1, 72);
  if (d.tensor_parallel * d.pipeline_parallel > 72) {
    m.fail("pipeline_parallel",
           "a replica (tensor x pipeline parallel GPUs) must fit one NVL72 "
           "domain of 72 GPUs");
  }
  d.max_batch = integerOr(m, "max_batch", 256, 1, 1'000'000);
  d.max_batch_tokens = integerOr(m, "max_batch_tokens", 8192, 1, 100'000'000);
  d.memory_for_kv_cache =
      rangedOr(m, "memory_for_kv_cache", 0.9, 0.01, 1.0, 0.5, 0.95,
               "serving stacks leave 5-50 % of the free HBM for activations and buffers");
  if (m.has("serving_efficiency")) {
    d.serving_efficiency = ranged(m, "serving_efficiency", 1e-3, 1.0, 0.05, 1.0,
                                  "a serving stack below 5 % of its roofline is suspect");
  } else if (calibrated > 0.0) {
    d.serving_efficiency = calibrated;
  } else {
    m.fail("serving_efficiency",
           "model '" + type + "' has no calibration on accelerator '" + accelerator
               + "'; give serving_efficiency (the achieved share of the roofline, 0-1)");
  }
  d.ttft_target = m.quantityOr("ttft_target", Dimension::Time, 0.0, Check::NonNegative);
  d.tpot_target = m.quantityOr("tpot_target", Dimension::Time, 0.0, Check::NonNegative);
  if (m.has("disaggregated")) readDisaggregated(m, gpus, d);
  m.finish();
  // The roofline's own checks (weights that do not fit, parallelism), at the model key.
  try {
    const core::InferenceRoofline roofline(d, "model '" + type + "'");
    (void)roofline;
  } catch (const std::invalid_argument& e) {
    job.fail("model", e.what());
  }
  spec.deployment = std::move(d);
}

void readLoadShaping(const MapReader& job, core::InferenceJobSpec& spec) {
  const MapReader l = job.map("load", {"rate_scale", "repeat"});
  const double k = ranged(l, "rate_scale", 1e-6, 1e6, 0.01, 1000.0,
                          "a trace scaled beyond 1000x stands for a different service");
  const int repeat = integerOr(l, "repeat", 1, 1, 100'000);
  l.finish();
  if (spec.trace.empty()) {
    job.fail("load",
             "load shaping scales and repeats a request trace; give trace, or scale "
             "arrivals.rate_per_s directly");
  }
  // Times divided by k (k times the rate); the trace repeated end to end, each copy starting one
  // mean inter-arrival time after the last request of the one before.
  const std::size_t n = spec.trace.size();
  const double span = spec.trace.back().time / k;
  const double gap = n > 1 ? span / static_cast<double>(n - 1) : 1.0 / k;
  if (static_cast<double>(n) * repeat > 5e7) {
    l.fail("repeat", "would make " + formatNumber(static_cast<double>(n) * repeat)
                         + " requests; at most 5e7");
  }
  std::vector<core::InferenceRequest> out;
  out.reserve(n * static_cast<std::size_t>(repeat));
  for (int c = 0; c < repeat; ++c) {
    const double offset = c * (span + gap);
    for (const core::InferenceRequest& q : spec.trace)
      out.push_back(
          core::InferenceRequest{offset + q.time / k, q.context_tokens, q.generated_tokens});
  }
  spec.trace = std::move(out);
}

TrainingIteration trainingIteration(const core::TrainingModelSpec& t, std::uint32_t gpus) {
  TrainingIteration it;
  const core::LanguageModelSpec& m = t.model;
  const core::AcceleratorSpec& a = t.accelerator;
  const double G = gpus;
  const double tp = t.tensor_parallel;
  const double pp = t.pipeline_parallel;
  const double dp = t.data_parallel;
  const double tokens = t.tokens_per_iteration;
  // 6 N per token: forward 2 N, backward 4 N (Kaplan et al. 2020; Narayanan et al. 2021).
  it.flops = 6.0 * m.active_parameters * tokens;
  it.compute = it.flops / (G * core::formatPeakFlops(a, t.format) * t.model_flops_utilisation);
  // Tensor parallel: four all-reduces of the activations per layer (two forward, two backward),
  // each moving 2 (tp - 1) / tp of the BF16 tensor per GPU, over NVLink.
  const double tokens_per_replica = tokens / dp;
  it.tensor_bytes = tp > 1.0 ? 4.0 * (m.layers / pp) * tokens_per_replica * m.hidden_size * 2.0
                                   * 2.0 * (tp - 1.0) / tp
                             : 0.0;
  // Pipeline: each stage boundary sends the activations forward and their gradients back.
  const double pipeline_bytes =
      pp > 1.0 ? 2.0 * tokens_per_replica * m.hidden_size * 2.0 / tp : 0.0;
  // Data parallel: reduce-scatter and all-gather of the BF16 gradients of the GPU's shard,
  // 2 (dp - 1) / dp of it, over the scale-out network.
  it.data_bytes = dp > 1.0 ? 2.0 * (dp - 1.0) / dp * m.parameters / (tp * pp) * 2.0 : 0.0;
  const double nvlink = a.nvlink_bandwidth * a.network_efficiency;
  const double scale_out = a.scale_out_bandwidth * a.network_efficiency;
  const double collectives =
      (it.tensor_bytes + pipeline_bytes) / nvlink + it.data_bytes / scale_out;
  // Pipeline bubble: (pp - 1) of the (microbatches + pp - 1) slots idle (GPipe / 1F1B).
  const double microbatches = std::max(tokens_per_replica / t.sequence_length, 1.0);
  const double bubble = it.compute * (pp - 1.0) / microbatches;
  it.communication = (1.0 - t.communication_overlap) * collectives + bubble;
  // Checkpoint: BF16 weights, FP32 master weights and two Adam moments, 14 bytes per parameter
  // (Rajbhandari et al. 2020), written at the storage bandwidth.
  it.checkpoint_bytes = 14.0 * m.parameters;
  it.checkpoint = t.storage_bandwidth > 0.0 ? it.checkpoint_bytes / t.storage_bandwidth : 0.0;
  return it;
}

void readDerivedTraining(const MapReader& job, const fs::path& root, std::uint32_t gpus,
                         core::TrainingJobSpec& spec) {
  // Phase powers: given, or the accelerator's (read below).
  double compute_power = -1.0, communication_power = -1.0;
  if (const auto it = job.optionalMap("iteration", {"compute_power", "communication_power"})) {
    if (it->has("compute") || it->has("communication")) it->fail("compute", "derived");
    compute_power = it->quantity("compute_power", Dimension::Dimensionless, Check::Fraction);
    communication_power =
        it->quantity("communication_power", Dimension::Dimensionless, Check::Fraction);
    it->finish();
  }
  if (const auto cp = job.optionalMap("checkpoint", {"interval", "power"})) {
    spec.checkpoint_interval = cp->quantity("interval", Dimension::Time, Check::Positive);
    spec.checkpoint_power_fraction =
        cp->quantity("power", Dimension::Dimensionless, Check::Fraction);
    cp->finish();
  }
  const MapReader m =
      job.map("model", {"type", "accelerator", "format", "tokens_per_iteration", "sequence_length",
                        "mfu", "tensor_parallel", "pipeline_parallel", "communication_overlap",
                        "storage_bandwidth_GB_per_s"});
  core::TrainingModelSpec t;
  double unused = 0.0;
  readModelOnAccelerator(m, root, t.model, t.accelerator, unused);
  const std::string& type = t.model.type;
  t.format = formatOr(m, "format", core::NumberFormat::Fp8);
  t.tokens_per_iteration = ranged(m, "tokens_per_iteration", 1.0, 1e12, 1e4, 1e9,
                                  "pre-training batches hold 1e5-1e8 tokens");
  t.sequence_length = ranged(m, "sequence_length", 1.0, 1e8, 256.0, 1.3e5,
                             "pre-training sequences are 256-131,072 tokens");
  t.model_flops_utilisation =
      ranged(m, "mfu", 1e-3, 1.0, 0.2, 0.7, "large-scale pre-training reaches 20-70 % MFU");
  t.tensor_parallel = integerOr(m, "tensor_parallel", 1, 1, 72);
  t.pipeline_parallel = integerOr(m, "pipeline_parallel", 1, 1, 100'000);
  t.communication_overlap = rangedOr(m, "communication_overlap", 0.0, 0.0, 1.0, 0.0, 0.95,
                                     "collectives are never fully hidden");
  t.storage_bandwidth = m.has("storage_bandwidth_GB_per_s")
                            ? 1e9
                                  * ranged(m, "storage_bandwidth_GB_per_s", 1e-3, 1e6, 1.0, 1e4,
                                           "parallel file systems write 1 GB/s to 10 TB/s")
                            : 0.0;
  const auto group = static_cast<std::uint32_t>(t.tensor_parallel * t.pipeline_parallel);
  if (gpus % group != 0) {
    m.fail("pipeline_parallel", "tensor x pipeline parallel (" + std::to_string(group)
                                    + " GPUs) must divide the job's " + std::to_string(gpus)
                                    + " GPUs (the rest is data parallel)");
  }
  t.data_parallel = static_cast<int>(gpus / group);
  m.finish();
  const TrainingIteration it = trainingIteration(t, gpus);
  spec.compute_duration = it.compute;
  spec.communication_duration = it.communication;
  spec.tokens_per_iteration = t.tokens_per_iteration;
  spec.flops_per_iteration = it.flops;
  spec.model = type;
  spec.compute_power_fraction =
      compute_power >= 0.0 ? compute_power : t.accelerator.compute_power_fraction;
  spec.communication_power_fraction =
      communication_power >= 0.0 ? communication_power : t.accelerator.communication_power_fraction;
  if (spec.checkpoint_interval > 0.0) {
    if (!(t.storage_bandwidth > 0.0)) {
      m.fail("storage_bandwidth_GB_per_s",
             "a checkpointing job derived from its model needs the storage bandwidth");
    }
    spec.checkpoint_duration = it.checkpoint;
    if (spec.checkpoint_duration >= spec.checkpoint_interval) {
      job.fail("checkpoint", "the derived checkpoint (" + formatNumber(it.checkpoint)
                                 + " s) is not shorter than its interval");
    }
  }
}

}  // namespace racktwin::scenarios::detail

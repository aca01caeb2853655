#include "racktwin/core/ModelServer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "racktwin/core/StateArchive.hpp"

namespace racktwin::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr auto kLaterFinish = [](const auto& a, const auto& b) { return a.finish > b.finish; };
constexpr double kBinsPerDecade = 24.0;
constexpr double kFirstEdge = 1e-3;  // s

std::string jobName(const InferenceJobSpec& spec) {
  return "inference job '" + spec.id + "'";
}

const InferenceDeploymentSpec& deploymentOf(const InferenceJobSpec& spec) {
  if (!spec.deployment) throw std::invalid_argument(jobName(spec) + ": has no model deployment");
  return *spec.deployment;
}

}  // namespace

void LatencyHistogram::add(double seconds) noexcept {
  double i = std::floor(kBinsPerDecade * std::log10(std::max(seconds, 1e-12) / kFirstEdge));
  i = std::clamp(i, 0.0, static_cast<double>(bins_.size() - 1));
  ++bins_[static_cast<std::size_t>(i)];
  ++count_;
}

void LatencyHistogram::clear() noexcept {
  bins_.fill(0);
  count_ = 0;
}

double LatencyHistogram::quantile(double q) const noexcept {
  if (count_ == 0) return 0.0;
  const double target = q * static_cast<double>(count_);
  double seen = 0.0;
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    seen += static_cast<double>(bins_[i]);
    if (seen >= target) {
      return kFirstEdge * std::pow(10.0, static_cast<double>(i + 1) / kBinsPerDecade);
    }
  }
  return kFirstEdge * std::pow(10.0, static_cast<double>(bins_.size()) / kBinsPerDecade);
}

void LatencyHistogram::visitState(StateArchive& a) {
  a.trivial(bins_);
  a(count_);
}

ModelServer::ModelServer(const InferenceJobSpec& spec, std::uint32_t gpus, std::uint64_t seed)
    : roofline_(deploymentOf(spec), jobName(spec)),
      arrivals_(spec, seed, jobName(spec)),
      gpus_(gpus),
      start_(spec.start),
      end_(spec.start + spec.duration),
      duration_(spec.duration) {
  const std::string what = jobName(spec);
  if (!(std::isfinite(spec.start) && std::isfinite(spec.duration) && spec.duration >= 0.0)) {
    throw std::invalid_argument(what + ": start must be a number and duration non-negative");
  }
  const auto per_replica = static_cast<std::uint32_t>(roofline_.gpusPerReplica());
  if (gpus == 0 || gpus % per_replica != 0) {
    throw std::invalid_argument(what + ": its " + std::to_string(gpus)
                                + " GPUs are not a whole number of replicas of "
                                + std::to_string(per_replica) + " GPUs");
  }
  replicas_ = static_cast<int>(gpus / per_replica);
  replica_kv_ = roofline_.kvCapacity();
  const InferenceDeploymentSpec& d = roofline_.deployment();
  const auto max_batch = static_cast<std::size_t>(d.max_batch);
  if (d.prefill_replicas != 0 || d.decode_replicas != 0) {
    if (d.prefill_replicas < 1 || d.decode_replicas < 1
        || d.prefill_replicas + d.decode_replicas != replicas_) {
      throw std::invalid_argument(
          what + ": prefill and decode replicas (" + std::to_string(d.prefill_replicas) + " + "
          + std::to_string(d.decode_replicas) + ") must be at least 1 each and add up to its "
          + std::to_string(replicas_) + " replicas");
    }
    prefill_replicas_ = d.prefill_replicas;
    decode_replicas_ = d.decode_replicas;
    // Decode slots for the requests in prefill, in transfer and decoding; the decode pool's
    // cache holds their whole sequences.
    prompt_slots_ = static_cast<std::size_t>(prefill_replicas_);
    slots_ = static_cast<std::size_t>(decode_replicas_) * max_batch;
    kv_capacity_ = replica_kv_ * decode_replicas_;
    // Attention data parallel (experts spread over the replica): a request's cache lies on one
    // GPU; else it is split over the replica's GPUs (heads, stages), each sending its share.
    kv_links_ = d.model.experts > 0 && d.expert_parallel > 1 ? 1.0 : roofline_.gpusPerReplica();
  } else {
    prompt_slots_ = static_cast<std::size_t>(replicas_);
    slots_ = static_cast<std::size_t>(replicas_) * max_batch;
    kv_capacity_ = replica_kv_ * replicas_;
  }
  queue_.reserve(arrivals_.traceSize() == 0 ? 4096 : arrivals_.traceSize());
  prefill_.reserve(static_cast<std::size_t>(replicas_));
  decode_.reserve(slots_);
  transfer_.reserve(disaggregated() ? slots_ : 0);
  reset();
}

void ModelServer::reset() {
  queue_.clear();
  prefill_.clear();
  decode_.clear();
  transfer_.clear();
  transfer_sum_ = 0.0;
  transfer_count_ = 0;
  prefill_clock_ = decode_clock_ = context_offset_ = prompt_context_sum_ = kv_reserved_ = 0.0;
  now_ = start_;
  arrived_ = dropped_ = started_ = served_ = on_target_ = 0;
  tokens_ = prompt_tokens_ = tokens_last_ = tpot_count_ = 0;
  flops_ = delay_sum_ = ttft_sum_ = tpot_sum_ = decoded_ = 0.0;
  ttft_hist_.clear();
  tpot_hist_.clear();
  arrivals_.reset(start_, end_);
}

void ModelServer::setStart(double start) noexcept {
  start_ = start;
  end_ = start + duration_;
  reset();
}

ModelServer::Rates ModelServer::rates() const noexcept {
  Rates r;
  const double R = replicas_;
  const double nd = static_cast<double>(decode_.size());
  const double np = static_cast<double>(prefill_.size());
  if (nd == 0.0 && np == 0.0) return r;
  const double b = nd / R;
  const double K = (context_offset_ + nd * decode_clock_) / R;
  const double f = np / R;
  if (np > 0.0) {
    const double p =
        std::max(static_cast<double>(roofline_.deployment().max_batch_tokens) - b, 1.0);
    const IterationTime t = roofline_.iteration(b, K, p, prompt_context_sum_ / np / 2.0);
    r.prompt = p / t.seconds;
    r.decode += nd > 0.0 ? f / t.seconds : 0.0;
    r.busy += f;
    r.compute += f * t.computeUtilisation();
    r.memory += f * t.memoryUtilisation();
    r.network += f * t.networkUtilisation();
    r.flops += R * f * t.flops / t.seconds;
  }
  if (nd > 0.0) {
    const IterationTime t = roofline_.iteration(b, K, 0.0, 0.0);
    const double g = 1.0 - f;
    r.decode += g / t.seconds;
    r.busy += g;
    r.compute += g * t.computeUtilisation();
    r.memory += g * t.memoryUtilisation();
    r.network += g * t.networkUtilisation();
    r.flops += R * g * t.flops / t.seconds;
  }
  return r;
}

ModelServer::Rates ModelServer::disaggregatedRates() const noexcept {
  Rates r;
  const double nd = static_cast<double>(decode_.size());
  const double np = static_cast<double>(prefill_.size());
  const double P = prefill_replicas_;
  const double D = decode_replicas_;
  const auto shares = [](double busy, const IterationTime& t) {
    return PoolShares{busy, busy * t.computeUtilisation(), busy * t.memoryUtilisation(),
                      busy * t.networkUtilisation()};
  };
  if (np > 0.0) {
    // Each prompt on its own prefill replica, in full chunks.
    const double p = roofline_.deployment().max_batch_tokens;
    const IterationTime t = roofline_.iteration(0.0, 0.0, p, prompt_context_sum_ / np / 2.0);
    r.prompt = p / t.seconds;
    r.prefill_pool = shares(np / P, t);
    r.flops += np * t.flops / t.seconds;
  }
  if (nd > 0.0) {
    // n requests on min(n, D) decode replicas.
    const double occupied = std::min(nd, D);
    const double b = nd / occupied;
    const double K = (context_offset_ + nd * decode_clock_) / occupied;
    const IterationTime t = roofline_.iteration(b, K, 0.0, 0.0);
    r.decode = 1.0 / t.seconds;
    r.decode_pool = shares(occupied / D, t);
    r.flops += occupied * t.flops / t.seconds;
  }
  // The job's shares: the pools weighted by their GPUs.
  const double R = replicas_;
  r.busy = (P * r.prefill_pool.busy + D * r.decode_pool.busy) / R;
  r.compute = (P * r.prefill_pool.compute + D * r.decode_pool.compute) / R;
  r.memory = (P * r.prefill_pool.memory + D * r.decode_pool.memory) / R;
  r.network = (P * r.prefill_pool.network + D * r.decode_pool.network) / R;
  return r;
}

double ModelServer::kvTransferTime(double context) const noexcept {
  const AcceleratorSpec& a = roofline_.deployment().accelerator;
  const double link = kv_within_domain_ ? a.nvlink_bandwidth : a.scale_out_bandwidth;
  return context * roofline_.kvBytesPerToken() / (kv_links_ * link * a.network_efficiency);
}

void ModelServer::arrive() noexcept {
  const InferenceRequest q = arrivals_.request();
  ++arrived_;
  const double need = static_cast<double>(q.context_tokens) + q.generated_tokens;
  if (need > replica_kv_) {
    ++dropped_;  // longer than a replica's whole KV cache: it could never run
  } else {
    queue_.push(Waiting{arrivals_.next(), q.context_tokens, q.generated_tokens});
  }
  arrivals_.pop();
}

void ModelServer::admit(double now) noexcept {
  while (!queue_.empty() && prefill_.size() < prompt_slots_
         && prefill_.size() + transfer_.size() + decode_.size() < slots_) {
    const Waiting w = queue_.front();
    const double need = static_cast<double>(w.context) + w.generated;
    if (kv_reserved_ + need > kv_capacity_) return;  // FIFO: the head waits for cache
    kv_reserved_ += need;
    prompt_context_sum_ += w.context;
    delay_sum_ += now - w.arrival;
    ++started_;
    prefill_.push_back(Prompt{prefill_clock_ + w.context, w.arrival, w.context, w.generated});
    std::push_heap(prefill_.begin(), prefill_.end(), kLaterFinish);
    queue_.pop();
  }
}

void ModelServer::finishPrompt(double now) noexcept {
  prefill_clock_ = std::max(prefill_clock_, prefill_.front().finish);
  std::pop_heap(prefill_.begin(), prefill_.end(), kLaterFinish);
  const Prompt p = prefill_.back();
  prefill_.pop_back();
  prompt_context_sum_ = prefill_.empty() ? 0.0 : prompt_context_sum_ - p.context;
  prompt_tokens_ += p.context;
  decoded_ += p.generated > 0 ? 1.0 : 0.0;  // the prompt's last chunk makes the first token
  const double ttft = now - p.arrival;
  ttft_sum_ += ttft;
  ttft_hist_.add(ttft);
  if (p.generated <= 1) {
    // The prompt's last chunk made the only token.
    ++served_;
    tokens_ += p.generated;
    tokens_last_ += p.generated;
    kv_reserved_ -= static_cast<double>(p.context) + p.generated;
    const double ttft_target = roofline_.deployment().ttft_target;
    if (ttft_target == 0.0 || ttft <= ttft_target) ++on_target_;
    return;
  }
  if (disaggregated()) {
    // The KV cache moves to a decode replica; it decodes from its arrival there.
    const double transfer = kvTransferTime(p.context);
    transfer_sum_ += transfer;
    ++transfer_count_;
    transfer_.push_back(Decoding{now + transfer, 0.0, p.arrival, now, p.context, p.generated});
    std::push_heap(transfer_.begin(), transfer_.end(), kLaterFinish);
    return;
  }
  decode_.push_back(Decoding{decode_clock_ + (p.generated - 1), decode_clock_, p.arrival, now,
                             p.context, p.generated});
  std::push_heap(decode_.begin(), decode_.end(), kLaterFinish);
  context_offset_ += p.context - decode_clock_;
}

void ModelServer::finishTransfer() noexcept {
  std::pop_heap(transfer_.begin(), transfer_.end(), kLaterFinish);
  Decoding d = transfer_.back();
  transfer_.pop_back();
  d.finish = decode_clock_ + (d.generated - 1);
  d.start = decode_clock_;
  decode_.push_back(d);
  std::push_heap(decode_.begin(), decode_.end(), kLaterFinish);
  context_offset_ += d.context - decode_clock_;
}

void ModelServer::finishDecode(double now) noexcept {
  decode_clock_ = std::max(decode_clock_, decode_.front().finish);
  std::pop_heap(decode_.begin(), decode_.end(), kLaterFinish);
  const Decoding d = decode_.back();
  decode_.pop_back();
  context_offset_ = decode_.empty() ? 0.0 : context_offset_ - (d.context - d.start);
  ++served_;
  tokens_ += d.generated;
  tokens_last_ += d.generated;
  kv_reserved_ -= static_cast<double>(d.context) + d.generated;
  const double ttft = d.first_token - d.arrival;
  const double tpot = (now - d.first_token) / (d.generated - 1);
  tpot_sum_ += tpot;
  ++tpot_count_;
  tpot_hist_.add(tpot);
  const InferenceDeploymentSpec& dep = roofline_.deployment();
  if ((dep.ttft_target == 0.0 || ttft <= dep.ttft_target)
      && (dep.tpot_target == 0.0 || tpot <= dep.tpot_target)) {
    ++on_target_;
  }
}

ServerInterval ModelServer::run(double t0, double t1, double speed) noexcept {
  ServerInterval out;
  tokens_last_ = 0;
  const double a = std::max({t0, start_, now_});
  const double b = std::min(t1, end_);
  if (!(b > a)) return out;
  const bool moving = speed > 0.0 && std::isfinite(speed);
  double pos = a;
  while (true) {
    const Rates r = disaggregated() ? disaggregatedRates() : rates();
    double t_prompt = kInf;
    double t_decode = kInf;
    if (moving && !prefill_.empty()) {
      t_prompt = pos + std::max(prefill_.front().finish - prefill_clock_, 0.0) / (r.prompt * speed);
    }
    if (moving && !decode_.empty()) {
      t_decode = pos + std::max(decode_.front().finish - decode_clock_, 0.0) / (r.decode * speed);
    }
    // KV transfers run on the network, in wall time.
    const double t_transfer = transfer_.empty() ? kInf : transfer_.front().finish;
    const double t_arrival = arrivals_.next();
    const double t_next = std::min({t_prompt, t_decode, t_transfer, t_arrival, b});
    const double span = t_next - pos;
    out.busy += r.busy * span;
    out.compute += r.compute * span;
    out.memory += r.memory * span;
    out.network += r.network * span;
    if (disaggregated()) {
      const auto integrate = [span](PoolInterval& pool, const PoolShares& s) {
        pool.busy += s.busy * span;
        pool.compute += s.compute * span;
        pool.memory += s.memory * span;
        pool.network += s.network * span;
      };
      integrate(out.prefill_pool, r.prefill_pool);
      integrate(out.decode_pool, r.decode_pool);
    }
    if (moving) {
      flops_ += r.flops * speed * span;
      prefill_clock_ += r.prompt * speed * span;
      decode_clock_ += r.decode * speed * span;
      decoded_ += static_cast<double>(decode_.size()) * r.decode * speed * span;
    }
    pos = t_next;
    if (t_decode <= t_prompt && t_decode <= t_transfer && t_decode <= t_arrival && t_decode <= b) {
      finishDecode(pos);
    } else if (t_prompt <= t_transfer && t_prompt <= t_arrival && t_prompt <= b) {
      finishPrompt(pos);
    } else if (t_transfer <= t_arrival && t_transfer <= b) {
      finishTransfer();
    } else if (t_arrival < b) {
      arrive();
    } else {
      break;
    }
    admit(pos);
  }
  now_ = b;
  return out;
}

void ModelServer::visitState(StateArchive& a) {
  a.section("model server");
  a(start_, end_);
  arrivals_.visitState(a);
  queue_.visitState(a);
  a.trivialResizable(prefill_);
  a.trivialResizable(decode_);
  a.trivialResizable(transfer_);
  a(transfer_sum_, transfer_count_);
  a(prefill_clock_, decode_clock_, context_offset_, prompt_context_sum_, kv_reserved_, now_,
    arrived_, dropped_, started_, served_, on_target_, tokens_, prompt_tokens_, tokens_last_,
    tpot_count_, flops_, delay_sum_, ttft_sum_, tpot_sum_, decoded_);
  ttft_hist_.visitState(a);
  tpot_hist_.visitState(a);
}

}  // namespace racktwin::core

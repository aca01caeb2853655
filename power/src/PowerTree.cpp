#include "racktwin/power/PowerTree.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/StateArchive.hpp"

namespace racktwin::power {

namespace {

constexpr double kSqrt3 = 1.7320508075688772;
// Relative bus-voltage change that ends the iterations; the error left is smaller by the
// contraction of one iteration (|Z S| / V^2, a few per cent on these networks).
constexpr double kTolerance = 1e-10;
constexpr int kMaxIterations = 60;
constexpr double kCollapse = 0.05;  // of nominal: the lowest bus voltage the iterations keep
constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

PowerTree::PowerTree(double V_source) : V_source_nominal_(V_source) {
  if (!(std::isfinite(V_source) && V_source > 0.0)) {
    throw std::invalid_argument("power tree: the source voltage must be > 0 V");
  }
  V_root_ = Complex(V_source / kSqrt3, 0.0);
}

int PowerTree::addBranch(Kind kind, int parent, double V_out, Complex Z, double P_no_load) {
  if (parent < kSourceBus || parent >= static_cast<int>(size())) {
    throw std::invalid_argument("power tree: a branch's parent must be added before it");
  }
  if (!(std::isfinite(V_out) && V_out > 0.0)) {
    throw std::invalid_argument("power tree: a bus voltage must be > 0 V");
  }
  if (!(std::isfinite(Z.real()) && std::isfinite(Z.imag()) && Z.real() >= 0.0)) {
    throw std::invalid_argument("power tree: a branch resistance must be >= 0 ohm");
  }
  const double V_in = parent == kSourceBus ? V_source_nominal_ : V_nominal_[parent];
  topology_dirty_ = true;
  kind_.push_back(kind);
  parent_.push_back(parent);
  converter_of_.push_back(-1);
  Z_.push_back(Z);
  ratio_.push_back(V_in / V_out);
  inverse_ratio_.push_back(V_out / V_in);
  V_nominal_.push_back(V_out);
  P_no_load_.push_back(P_no_load);
  closed_.push_back(1);
  live_.push_back(0);
  S_load_.emplace_back();
  S_out_.emplace_back();
  S_in_.emplace_back();
  loss_.emplace_back();
  V_.emplace_back(V_out / kSqrt3, 0.0);
  I_.push_back(0.0);
  inv_3V2_.push_back(0.0);
  inv_V_phase2_.push_back(3.0 / (V_out * V_out));
  return static_cast<int>(size()) - 1;
}

int PowerTree::addLine(int parent, Complex Z) {
  const double V = parent == kSourceBus                               ? V_source_nominal_
                   : parent >= 0 && parent < static_cast<int>(size()) ? V_nominal_[parent]
                                                                      : 1.0;
  return addBranch(Kind::Line, parent, V, Z, 0.0);
}

int PowerTree::addTransformer(int parent, double V_out, Complex Z, double P_no_load) {
  if (!(std::isfinite(P_no_load) && P_no_load >= 0.0)) {
    throw std::invalid_argument("power tree: a no-load loss must be >= 0 W");
  }
  return addBranch(Kind::Transformer, parent, V_out, Z, P_no_load);
}

int PowerTree::addConverter(int parent, double V_out, const PsuEfficiency& curve, int modules,
                            double pf_in, double charge_efficiency) {
  if (modules < 1) throw std::invalid_argument("power tree: a converter needs >= 1 module");
  if (!(pf_in > 0.0 && pf_in <= 1.0)) {
    throw std::invalid_argument("power tree: a converter's input power factor must lie in (0, 1]");
  }
  if (!(charge_efficiency > 0.0 && charge_efficiency <= 1.0)) {
    throw std::invalid_argument("power tree: a charge efficiency must lie in (0, 1]");
  }
  const int b = addBranch(Kind::Converter, parent, V_out, Complex(0.0, 0.0), 0.0);
  converter_of_[static_cast<std::size_t>(b)] = static_cast<int>(conv_.size());
  conv_branch_.push_back(b);
  ConverterState c{curve,
                   static_cast<double>(modules),
                   std::sqrt(1.0 - pf_in * pf_in) / pf_in,
                   charge_efficiency,
                   true,
                   false,
                   kInfinity,
                   0.0,
                   ConverterResult{}};
  conv_.push_back(c);
  return b;
}

double PowerTree::lossPower(std::size_t b) const noexcept {
  if (!live_[b]) {
    const int c = converter_of_[b];
    return c >= 0 ? conv_[static_cast<std::size_t>(c)].result.P_loss : 0.0;
  }
  switch (kind_[b]) {
    case Kind::Line:
      return loss_[b].real();
    case Kind::Transformer:
      return loss_[b].real() + P_no_load_[b];
    case Kind::Converter:
      return conv_[static_cast<std::size_t>(converter_of_[b])].result.P_loss;
  }
  return 0.0;
}

double PowerTree::lineVoltage(std::size_t b) const noexcept {
  return kSqrt3 * std::sqrt(std::norm(V_[b]));
}

void PowerTree::energise() noexcept {
  if (!topology_dirty_) return;  // no switch, source or converter output changed
  topology_dirty_ = false;
  dirty_ = true;
  for (std::size_t b = 0; b < size(); ++b) {
    const int p = parent_[b];
    const bool in_live = p == kSourceBus ? source_live_ : live_[static_cast<std::size_t>(p)] != 0;
    bool live = false;
    if (kind_[b] == Kind::Converter) {
      ConverterState& c = conv_[static_cast<std::size_t>(converter_of_[b])];
      c.input_live = in_live;
      live = closed_[b] && c.output_on;
    } else {
      live = in_live && closed_[b];
    }
    live_[b] = live ? 1 : 0;
    if (live && V_[b] == Complex(0.0, 0.0)) {
      // Re-energised: start from nominal voltage in phase with the parent.
      const Complex V_parent = p == kSourceBus ? V_root_ : V_[static_cast<std::size_t>(p)];
      const double scale = std::abs(V_parent) > 0.0 ? 1.0 / std::abs(V_parent) : 0.0;
      V_[b] = V_parent == Complex(0.0, 0.0) ? Complex(V_nominal_[b] / kSqrt3, 0.0)
                                            : V_parent * scale * (V_nominal_[b] / kSqrt3);
    }
    if (!live) V_[b] = Complex(0.0, 0.0);
  }
  if (!source_live_) V_root_ = Complex(0.0, 0.0);
  if (source_live_ && V_root_ == Complex(0.0, 0.0)) {
    V_root_ = Complex(V_source_nominal_ / kSqrt3, 0.0);
  }
}

void PowerTree::backward() noexcept {
  const std::size_t n = size();
  for (std::size_t b = 0; b < n; ++b)
    S_out_[b] = live_[b] ? S_load_[b] : Complex(0.0, 0.0);
  Complex S_root(0.0, 0.0);
  for (std::size_t k = n; k-- > 0;) {
    Complex S_in(0.0, 0.0);
    if (kind_[k] == Kind::Converter) {
      ConverterState& c = conv_[static_cast<std::size_t>(converter_of_[k])];
      ConverterResult& r = c.result;
      r = ConverterResult{};
      if (live_[k]) {
        const double P_out = std::max(S_out_[k].real(), 0.0);
        const double need = P_out + c.modules * c.curve.loss(P_out / c.modules);
        r.P_out = P_out;
        r.P_loss = need - P_out;
        if (c.input_live) {
          r.P_from_input = std::min(need, c.input_limit);
          r.P_battery = need - r.P_from_input;
          if (r.P_battery <= 0.0) {
            r.P_battery = 0.0;
            r.P_charge_in = std::max(0.0, std::min(c.charge_request, c.input_limit - need));
          }
        } else {
          r.P_battery = need;
        }
        r.P_charge = c.charge_efficiency * r.P_charge_in;
        r.P_loss += r.P_charge_in - r.P_charge;
        const double P_in = r.P_from_input + r.P_charge_in;
        S_in = Complex(P_in, P_in * c.tan_phi_in);
        inv_3V2_[k] = 1.0 / (3.0 * std::norm(V_[k]));
      }
      loss_[k] = Complex(0.0, 0.0);
    } else if (live_[k]) {
      // 1 / (3 |V|^2), kept for the forward sweep (the voltage does not change in between) and
      // for the currents after the last iteration: one division per branch and iteration.
      const double inv_3V2 = 1.0 / (3.0 * std::norm(V_[k]));
      inv_3V2_[k] = inv_3V2;
      loss_[k] = Z_[k] * (std::norm(S_out_[k]) * inv_3V2);
      S_in = S_out_[k] + loss_[k] + Complex(P_no_load_[k], 0.0);
    } else {
      loss_[k] = Complex(0.0, 0.0);
    }
    S_in_[k] = S_in;
    const int p = parent_[k];
    if (p == kSourceBus) {
      S_root += S_in;
    } else {
      S_out_[static_cast<std::size_t>(p)] += S_in;
    }
  }
  S_source_ = source_live_ ? S_root : Complex(0.0, 0.0);
}

double PowerTree::forward() noexcept {
  // Complex arithmetic by hand where the library would call out: no division (conj(S / 3V) =
  // conj(S) V / (3 |V|^2)) and no hypot (changes compared squared).
  double change2 = 0.0;
  if (source_live_) {
    const Complex V_source(V_source_nominal_ / kSqrt3, 0.0);
    Complex V_new = V_source;
    if (Z_source_ != Complex(0.0, 0.0)) {
      const Complex I = std::conj(S_source_) * V_root_ * (1.0 / (3.0 * std::norm(V_root_)));
      V_new = V_source - Z_source_ * I;
    }
    change2 = std::norm(V_new - V_root_) / std::norm(V_source);
    V_root_ = V_new;
  }
  // Real and imaginary parts in scalars: complex temporaries built from two halves and read back
  // whole stall on store forwarding.
  const std::size_t n = size();
  for (std::size_t b = 0; b < n; ++b) {
    if (!live_[b]) continue;
    const double V_nom = V_nominal_[b] / kSqrt3;
    const double Vr = V_[b].real(), Vi = V_[b].imag();
    double Vr_new = V_nom, Vi_new = 0.0;
    if (kind_[b] != Kind::Converter) {
      const int p = parent_[b];
      const Complex& V_in = p == kSourceBus ? V_root_ : V_[static_cast<std::size_t>(p)];
      const double Sr = S_out_[b].real(), Si = S_out_[b].imag();
      const double k = inv_3V2_[b];  // of V_[b], from the backward sweep just done
      const double Ir = (Sr * Vr + Si * Vi) * k, Ii = (Sr * Vi - Si * Vr) * k;
      const double Zr = Z_[b].real(), Zi = Z_[b].imag();
      const double inverse_ratio = inverse_ratio_[b];
      Vr_new = V_in.real() * inverse_ratio - (Zr * Ir - Zi * Ii);
      Vi_new = V_in.imag() * inverse_ratio - (Zr * Ii + Zi * Ir);
      // A collapsing bus (a constant-power load beyond what the branch can carry) is held at a
      // small voltage so everything stays finite; the solve then reports no convergence.
      if (!(Vr_new * Vr_new + Vi_new * Vi_new >= kCollapse * kCollapse * V_nom * V_nom)) {
        Vr_new = kCollapse * V_nom;
        Vi_new = 0.0;
      }
    }
    const double dr = Vr_new - Vr, di = Vi_new - Vi;
    change2 = std::max(change2, (dr * dr + di * di) * inv_V_phase2_[b]);
    V_[b] = Complex(Vr_new, Vi_new);
  }
  return std::sqrt(change2);
}

void PowerTree::currents() noexcept {
  // Phase current |S| / (3 |V|) of every live branch, once per solve (the sweeps do not need it),
  // at the voltages of the last backward sweep: those its losses were computed with.
  for (std::size_t b = 0; b < size(); ++b) {
    I_[b] = live_[b] ? std::sqrt(std::norm(S_out_[b]) * inv_3V2_[b] * (1.0 / 3.0)) : 0.0;
  }
}

bool PowerTree::solve() noexcept {
  energise();
  iterations_ = 0;
  if (!dirty_ && !topology_dirty_ && last_converged_) return true;  // the last results stand
  bool converged = false;
  while (iterations_ < kMaxIterations) {
    backward();
    ++iterations_;
    const double change = forward();
    if (change <= kTolerance) {
      converged = true;
      break;
    }
  }
  // Converged, the flows are those of voltages within the tolerance of the reported ones; otherwise
  // recompute them from the last iterate (the balance holds either way).
  if (!converged) backward();
  currents();
  dirty_ = false;
  last_converged_ = converged;
  return converged;
}

void PowerTree::visitState(core::StateArchive& a) {
  a.section("power tree");
  a(V_source_nominal_, source_live_, Z_source_, V_root_, S_source_, iterations_, dirty_,
    topology_dirty_, last_converged_);
  a(Z_, ratio_, inverse_ratio_, V_nominal_, P_no_load_, closed_, live_, S_load_, S_out_, S_in_,
    loss_, V_, I_, inv_3V2_, inv_V_phase2_);
  a.each(conv_, [](core::StateArchive& b, ConverterState& c) {
    b(c.modules, c.tan_phi_in, c.charge_efficiency, c.output_on, c.input_live, c.input_limit,
      c.charge_request);
    b.trivial(c.result);
  });
}

}  // namespace racktwin::power

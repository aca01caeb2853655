#pragma once
// Load flow on a radial AC distribution tree: balanced three-phase, per-phase equivalent with
// complex power, solved by the backward/forward sweep in its power-summation form.
//
// The tree: a source bus (the MV bus: an ideal voltage behind an optional source impedance) and
// branches, each with a parent (a branch, or the source bus) and an output bus. Loads are
// constant complex powers at output buses (the PSUs regulate their output, so they draw constant
// power whatever the voltage). Branch kinds:
//  - Line: series impedance Z per phase (cable, busway, RPP, switchboard);
//  - Transformer: ideal ratio V_in/V_out, then series Z referred to the output side, plus a
//    no-load loss drawn at its input while energised;
//  - Converter: a double-conversion UPS. Its output voltage is regulated to nominal, so the tree
//    below it does not see the voltage above; its input draws the output power plus the loss of
//    its efficiency curve, less what its battery supplies, plus recharge power, at a fixed input
//    power factor.
//
// One solve iterates
//   backward (leaves to root): S_out = S_load + sum of children's S_in;
//            S_in = S_out + |S_out|^2 Z / (3 |V_out|^2) (+ no-load loss, or the converter law);
//   forward  (root to leaves): V_out = V_in / ratio - Z conj(S_out / (3 V_out))
// until no bus voltage moves more than 1e-10 of its nominal. Because every branch's input is
// computed from its output and the loss of the same current, input = loads + losses holds to
// round-off in every iteration, converged or not; the iterations only settle the voltages.
// The solve allocates nothing and costs O(branches) per iteration (warm-started from the last
// solve, a steady load converges in one or two).
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "racktwin/power/PsuEfficiency.hpp"

namespace racktwin::core {
class StateArchive;
}

namespace racktwin::power {

class PowerTree {
 public:
  using Complex = std::complex<double>;
  enum class Kind : std::uint8_t { Line, Transformer, Converter };
  static constexpr int kSourceBus = -1;

  /// A tree whose source bus has nominal line-to-line voltage V_source (V).
  explicit PowerTree(double V_source);

  // Building (before the first solve). A parent must exist already, so parents come first.
  /// A line at its parent's voltage with series impedance Z (ohm per phase). Returns its index.
  int addLine(int parent, Complex Z);
  /// A transformer from its parent's voltage to V_out (line-to-line), series Z (ohm per phase
  /// referred to the output side) and no-load loss P_no_load (W).
  int addTransformer(int parent, double V_out, Complex Z, double P_no_load);
  /// A converter (UPS) of `modules` identical modules sharing the load, each with loss curve
  /// `curve`; output regulated at V_out (line-to-line), input at power factor pf_in; recharge
  /// power is stored with charge_efficiency.
  int addConverter(int parent, double V_out, const PsuEfficiency& curve, int modules, double pf_in,
                   double charge_efficiency);

  std::size_t size() const noexcept { return kind_.size(); }
  Kind kind(std::size_t b) const noexcept { return kind_[b]; }
  int parent(std::size_t b) const noexcept { return parent_[b]; }
  /// Nominal line-to-line voltage of a branch's output bus, V.
  double nominalVoltage(std::size_t b) const noexcept { return V_nominal_[b]; }
  double sourceNominalVoltage() const noexcept { return V_source_nominal_; }
  /// Converter number of a Converter branch (0, 1, ... in the order added), else -1.
  int converterIndex(std::size_t b) const noexcept { return converter_of_[b]; }
  std::size_t converterCount() const noexcept { return conv_branch_.size(); }
  int converterBranch(std::size_t c) const noexcept { return conv_branch_[c]; }

  // Inputs of a solve. Setting a value equal to the current one changes nothing: a solve with
  // every input unchanged since the last converged one returns at once (its results stand).
  /// Whether the source bus is energised (utility or generator).
  void setSourceLive(bool live) noexcept { update(source_live_, live, topology_dirty_); }
  /// Source impedance behind the source bus (ohm per phase); 0 for a stiff source.
  void setSourceImpedance(Complex Z) noexcept { update(Z_source_, Z, dirty_); }
  /// Whether a branch's switch (breaker, availability) is closed.
  void setClosed(std::size_t b, bool closed) noexcept {
    update(closed_[b], static_cast<std::uint8_t>(closed ? 1 : 0), topology_dirty_);
  }
  bool closed(std::size_t b) const noexcept { return closed_[b] != 0; }
  /// Three-phase complex power drawn at a branch's output bus, VA.
  void setLoad(std::size_t b, Complex S) noexcept { update(S_load_[b], S, dirty_); }
  /// setLoad for callers that set different branches side by side: writes only the branch's
  /// load and returns whether it changed; the caller then calls loadsChanged() once if any did.
  bool placeLoad(std::size_t b, Complex S) noexcept {
    if (S_load_[b] == S) return false;
    S_load_[b] = S;
    return true;
  }
  void loadsChanged() noexcept { dirty_ = true; }
  Complex load(std::size_t b) const noexcept { return S_load_[b]; }
  /// Converter controls: output on; the most its input may draw (W, from a limited source);
  /// recharge power wanted at its input (W).
  void setConverterOutputOn(std::size_t c, bool on) noexcept {
    update(conv_[c].output_on, on, topology_dirty_);
  }
  void setConverterInputLimit(std::size_t c, double P_max) noexcept {
    update(conv_[c].input_limit, P_max, dirty_);
  }
  void setConverterChargeRequest(std::size_t c, double P) noexcept {
    update(conv_[c].charge_request, P, dirty_);
  }

  /// Which branches are energised, from the source, switch and converter states (also done by
  /// solve(); nothing to do when none of them changed).
  void energise() noexcept;
  /// Solves the load flow; returns whether the voltages converged (false: a collapse, the last
  /// iterate is kept and the power balance still holds).
  bool solve() noexcept;
  /// Iterations of the last solve (0 when nothing had changed).
  int lastIterations() const noexcept { return iterations_; }

  // Results.
  bool live(std::size_t b) const noexcept { return live_[b] != 0; }
  /// Whether a converter's input side is energised.
  bool converterInputLive(std::size_t c) const noexcept { return conv_[c].input_live; }
  Complex inputPower(std::size_t b) const noexcept { return S_in_[b]; }
  Complex outputPower(std::size_t b) const noexcept { return S_out_[b]; }
  /// Series (I^2 Z) loss of a Line or Transformer, three-phase, VA.
  Complex seriesLoss(std::size_t b) const noexcept { return loss_[b]; }
  /// Real loss of a branch, W: I^2 R; plus the no-load loss of an energised transformer; the
  /// conversion and recharge loss of a converter.
  double lossPower(std::size_t b) const noexcept;
  /// Phase voltage at the output bus (complex, V) and its line-to-line magnitude.
  Complex phaseVoltage(std::size_t b) const noexcept { return V_[b]; }
  double lineVoltage(std::size_t b) const noexcept;
  /// Rms phase current on the branch's output side, A.
  double current(std::size_t b) const noexcept { return I_[b]; }
  /// Power into the tree at the source bus, VA.
  Complex sourcePower() const noexcept { return S_source_; }
  Complex sourcePhaseVoltage() const noexcept { return V_root_; }

  struct ConverterResult {
    double P_out = 0.0;         // W delivered at the output
    double P_loss = 0.0;        // W, conversion loss plus recharge loss
    double P_from_input = 0.0;  // W of the output and conversion loss drawn from the input
    double P_battery = 0.0;     // W discharged from the battery
    double P_charge_in = 0.0;   // W drawn at the input to recharge
    double P_charge = 0.0;      // W stored in the battery
  };
  const ConverterResult& converterResult(std::size_t c) const noexcept { return conv_[c].result; }

  /// Saves or restores the run state (core/StateArchive.hpp).
  void visitState(core::StateArchive& archive);

 private:
  struct ConverterState {
    PsuEfficiency curve;
    double modules = 1.0;
    double tan_phi_in = 0.0;
    double charge_efficiency = 1.0;
    bool output_on = true;
    bool input_live = false;
    double input_limit = 0.0;
    double charge_request = 0.0;
    ConverterResult result;
  };
  int addBranch(Kind kind, int parent, double V_out, Complex Z, double P_no_load);
  template <class T>
  static void update(T& value, const T& next, bool& dirty) noexcept {
    if (!(value == next)) {
      value = next;
      dirty = true;
    }
  }
  void backward() noexcept;
  /// Returns the largest voltage change relative to nominal.
  double forward() noexcept;
  /// The branch currents from the solved voltages and flows.
  void currents() noexcept;

  double V_source_nominal_;
  bool source_live_ = true;
  Complex Z_source_{0.0, 0.0};
  Complex V_root_;
  Complex S_source_{0.0, 0.0};
  int iterations_ = 0;
  bool dirty_ = true;           // an input changed since the last converged solve
  bool topology_dirty_ = true;  // a switch, the source or a converter output changed
  bool last_converged_ = false;

  std::vector<Kind> kind_;
  std::vector<int> parent_;
  std::vector<int> converter_of_;
  std::vector<Complex> Z_;
  std::vector<double> ratio_;  // V_in nominal / V_out nominal
  std::vector<double> inverse_ratio_;
  std::vector<double> V_nominal_;  // V line-to-line at the output
  std::vector<double> P_no_load_;
  std::vector<std::uint8_t> closed_;
  std::vector<std::uint8_t> live_;
  std::vector<Complex> S_load_, S_out_, S_in_, loss_, V_;
  std::vector<double> I_;
  std::vector<double> inv_3V2_;       // 1 / (3 |V|^2) of the last backward sweep
  std::vector<double> inv_V_phase2_;  // 1 / (V_nominal / sqrt 3)^2, for the convergence test
  std::vector<int> conv_branch_;
  std::vector<ConverterState> conv_;
};

}  // namespace racktwin::power

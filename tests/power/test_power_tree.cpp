// Load flow of the radial tree against hand calculations: a two-level feeder (explicit backward
// substitution from the far end, Kersting, "Distribution System Modeling and Analysis", ch. 10
// ladder iterative technique), the transformer loss P0 + Pk (I/I_rated)^2 (IEC 60076-1 load and
// no-load loss), and the UPS converter law with the gb300_nvl72.md §4 part-load curve.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <limits>

#include "racktwin/power/PowerTree.hpp"
#include "racktwin/power/PsuEfficiency.hpp"

using namespace racktwin;
using Complex = std::complex<double>;

namespace {

constexpr double kSqrt3 = 1.7320508075688772;

}  // namespace

TEST_CASE("Two-level radial feeder: voltages, currents, losses and power balance by hand",
          "[power]") {
  // Hand calculation, per phase, starting from a chosen far-end voltage (the constant-power
  // loads make it explicit in that direction):
  //   I2 = conj(S2 / 3 / V2);  V1 = V2 + Z2 I2;  I1 = I2 + conj(S1 / 3 / V1);  V0 = V1 + Z1 I1.
  const Complex Z1(0.010, 0.008), Z2(0.020, 0.010);  // ohm per phase
  const Complex S1(50e3, 10e3), S2(100e3, 30e3);     // VA, three-phase
  const Complex V2(400.0 / kSqrt3, 0.0);
  const Complex I2 = std::conj(S2 / 3.0 / V2);
  const Complex V1 = V2 + Z2 * I2;
  const Complex I1 = I2 + std::conj(S1 / 3.0 / V1);
  const Complex V0 = V1 + Z1 * I1;
  const double loss1 = 3.0 * std::norm(I1) * Z1.real();
  const double loss2 = 3.0 * std::norm(I2) * Z2.real();
  const Complex S0 = 3.0 * V0 * std::conj(I1);

  // The solver sees only the source magnitude (line-to-line) and the loads.
  power::PowerTree tree(kSqrt3 * std::abs(V0));
  const int b1 = tree.addLine(power::PowerTree::kSourceBus, Z1);
  const int b2 = tree.addLine(b1, Z2);
  tree.setLoad(static_cast<std::size_t>(b1), S1);
  tree.setLoad(static_cast<std::size_t>(b2), S2);
  REQUIRE(tree.solve());

  const auto u1 = static_cast<std::size_t>(b1), u2 = static_cast<std::size_t>(b2);
  CHECK(std::abs(tree.phaseVoltage(u1)) == Approx(std::abs(V1)).epsilon(1e-9));
  CHECK(std::abs(tree.phaseVoltage(u2)) == Approx(std::abs(V2)).epsilon(1e-9));
  CHECK(tree.lineVoltage(u2) == Approx(400.0).epsilon(1e-9));
  // Angles relative to the source (the solver puts the source at angle 0).
  CHECK(std::arg(tree.phaseVoltage(u2)) == Approx(std::arg(V2 / V0)).margin(1e-9));
  CHECK(tree.current(u1) == Approx(std::abs(I1)).epsilon(1e-9));
  CHECK(tree.current(u2) == Approx(std::abs(I2)).epsilon(1e-9));
  CHECK(tree.lossPower(u1) == Approx(loss1).epsilon(1e-9));
  CHECK(tree.lossPower(u2) == Approx(loss2).epsilon(1e-9));
  // Voltage drop of the whole feeder, |V0| - |V2|.
  CHECK(std::abs(V0) - std::abs(tree.phaseVoltage(u2))
        == Approx(std::abs(V0) - std::abs(V2)).epsilon(1e-8));
  // Source power, complex, against the hand value.
  CHECK(tree.sourcePower().real() == Approx(S0.real()).epsilon(1e-9));
  CHECK(tree.sourcePower().imag() == Approx(S0.imag()).epsilon(1e-9));
  // Complex power balance: input = loads + I^2 Z of both branches (to round-off).
  const Complex balance =
      tree.sourcePower() - (S1 + S2 + tree.seriesLoss(u1) + tree.seriesLoss(u2));
  CHECK(std::abs(balance) <= 1e-9 * std::abs(tree.sourcePower()));
  // The reactive loss is I^2 X.
  CHECK(tree.seriesLoss(u1).imag() == Approx(3.0 * std::norm(I1) * Z1.imag()).epsilon(1e-9));
}

TEST_CASE("Load flow is warm-started and a dead branch carries nothing", "[power]") {
  power::PowerTree tree(415.0);
  const int a = tree.addLine(power::PowerTree::kSourceBus, {0.001, 0.0005});
  const int b = tree.addLine(a, {0.002, 0.001});
  const int c = tree.addLine(a, {0.002, 0.001});
  tree.setLoad(static_cast<std::size_t>(b), {100e3, 10e3});
  tree.setLoad(static_cast<std::size_t>(c), {80e3, 8e3});
  REQUIRE(tree.solve());
  const int cold = tree.lastIterations();
  REQUIRE(tree.solve());
  CHECK(tree.lastIterations() < cold);  // same loads: the last voltages are already the answer
  CHECK(tree.lastIterations() <= 2);
  tree.setClosed(static_cast<std::size_t>(c), false);
  REQUIRE(tree.solve());
  CHECK_FALSE(tree.live(static_cast<std::size_t>(c)));
  CHECK(tree.current(static_cast<std::size_t>(c)) == 0.0);
  CHECK(tree.lossPower(static_cast<std::size_t>(c)) == 0.0);
  const Complex expected = Complex(100e3, 10e3) + tree.seriesLoss(static_cast<std::size_t>(a))
                           + tree.seriesLoss(static_cast<std::size_t>(b));
  CHECK(std::abs(tree.sourcePower() - expected) <= 1e-9 * std::abs(expected));
  tree.setSourceLive(false);
  tree.solve();
  CHECK(tree.sourcePower() == Complex(0.0, 0.0));
  CHECK_FALSE(tree.live(static_cast<std::size_t>(b)));
}

TEST_CASE("Transformer loss is P0 + Pk (I / I_rated)^2 with the rated load loss at rated current",
          "[power]") {
  // 3 MVA, 13.8 kV / 415 V, P0 = 3 kW, Pk = 24 kW at rated current, 6 % impedance (IEC 60076-1
  // defines the load loss at rated current, referred to 75 degC; the no-load loss at rated
  // voltage).
  const double S_rated = 3.0e6, V1 = 13.8e3, V2 = 415.0, P0 = 3.0e3, Pk = 24.0e3, z = 0.06;
  const double Z_base = V2 * V2 / S_rated;
  const double R = Pk / S_rated * Z_base;
  const double X = std::sqrt(z * Z_base * z * Z_base - R * R);
  const double I_rated = S_rated / (kSqrt3 * V2);
  for (const double load : {0.0, 0.35, 0.5, 1.0}) {
    power::PowerTree tree(V1);
    const int t = tree.addTransformer(power::PowerTree::kSourceBus, V2, {R, X}, P0);
    const auto b = static_cast<std::size_t>(t);
    tree.setLoad(b, Complex(0.99, std::sqrt(1.0 - 0.99 * 0.99)) * (load * S_rated));
    REQUIRE(tree.solve());
    const double M = tree.current(b) / I_rated;
    INFO("load " << load);
    CHECK(tree.lossPower(b) == Approx(P0 + Pk * M * M).epsilon(1e-12));
    // The current follows the load over the output voltage (to the solver's 1e-10 tolerance).
    CHECK(tree.current(b)
          == Approx(load * S_rated / (kSqrt3 * tree.lineVoltage(b))).epsilon(1e-9).margin(1e-12));
    // Input = output + losses.
    CHECK(tree.inputPower(b).real()
          == Approx(0.99 * load * S_rated + P0 + Pk * M * M).epsilon(1e-12));
    if (load == 0.0) CHECK(tree.lineVoltage(b) == Approx(V2).epsilon(1e-12));  // the ratio
    if (load == 1.0) {
      // Full load: the output voltage sags by about the impedance's projection on the load
      // (regulation ~ R cos + X sin = 0.8 % + 6 % * 0.141 ~ 1.65 %, IEC 60076-1 Annex).
      const double regulation = 1.0 - tree.lineVoltage(b) / V2;
      CHECK(regulation > 0.010);
      CHECK(regulation < 0.025);
    }
  }
}

TEST_CASE("UPS converter: part-load efficiency interpolation and the battery share", "[power]") {
  // gb300_nvl72.md §4 default UPS curve: 93 / 96 / 97 / 97.5 / 97.5 % at 10/25/50/75/100 %.
  const double P_rated = 1.5e6;
  const std::vector<double> load = {0.10, 0.25, 0.50, 0.75, 1.00};
  const std::vector<double> eta = {0.93, 0.96, 0.97, 0.975, 0.975};
  const power::PsuEfficiency curve({load, eta}, P_rated, "UPS efficiency curve");
  for (std::size_t i = 0; i < load.size(); ++i)
    CHECK(curve.efficiency(load[i] * P_rated) == Approx(eta[i]).epsilon(1e-12));
  // Between two points the loss (P_out (1/eta - 1) at the points) is linear in output.
  const double l10 = 0.10 * P_rated * (1.0 / 0.93 - 1.0);
  const double l25 = 0.25 * P_rated * (1.0 / 0.96 - 1.0);
  CHECK(curve.loss(0.175 * P_rated) == Approx(0.5 * (l10 + l25)).epsilon(1e-12));

  // Two modules sharing 1.5 MW run at 50 % each: input = output / 0.97.
  power::PowerTree tree(415.0);
  const int u = tree.addConverter(power::PowerTree::kSourceBus, 415.0, curve, 2, 0.99, 0.95);
  const int l = tree.addLine(u, {0.0, 0.0});
  tree.setLoad(static_cast<std::size_t>(l), {1.5e6, 0.0});
  REQUIRE(tree.solve());
  const auto& r = tree.converterResult(0);
  CHECK(r.P_out == Approx(1.5e6).epsilon(1e-12));
  CHECK(r.P_from_input == Approx(1.5e6 / 0.97).epsilon(1e-12));
  CHECK(r.P_battery == 0.0);
  CHECK(tree.inputPower(static_cast<std::size_t>(u)).real() == Approx(1.5e6 / 0.97).epsilon(1e-12));
  // Input power factor 0.99.
  const Complex S_in = tree.inputPower(static_cast<std::size_t>(u));
  CHECK(S_in.real() / std::abs(S_in) == Approx(0.99).epsilon(1e-12));

  // A limited input (a generator still ramping): the battery supplies the rest of output + loss.
  tree.setConverterInputLimit(0, 1.0e6);
  REQUIRE(tree.solve());
  CHECK(tree.converterResult(0).P_from_input == Approx(1.0e6).epsilon(1e-12));
  CHECK(tree.converterResult(0).P_battery == Approx(1.5e6 / 0.97 - 1.0e6).epsilon(1e-12));
  // Input dead: all of it from the battery; the output stays regulated.
  tree.setSourceLive(false);
  REQUIRE(tree.solve());
  CHECK(tree.live(static_cast<std::size_t>(l)));
  CHECK(tree.converterResult(0).P_battery == Approx(1.5e6 / 0.97).epsilon(1e-12));
  CHECK(tree.lineVoltage(static_cast<std::size_t>(l)) == Approx(415.0).epsilon(1e-12));
  // Recharging with headroom: charge_efficiency of the drawn power is stored; loss includes the
  // rest.
  tree.setSourceLive(true);
  tree.setConverterInputLimit(0, std::numeric_limits<double>::infinity());
  tree.setConverterChargeRequest(0, 50e3);
  REQUIRE(tree.solve());
  CHECK(tree.converterResult(0).P_charge_in == Approx(50e3).epsilon(1e-12));
  CHECK(tree.converterResult(0).P_charge == Approx(0.95 * 50e3).epsilon(1e-12));
  CHECK(tree.converterResult(0).P_loss
        == Approx(1.5e6 / 0.97 - 1.5e6 + 0.05 * 50e3).epsilon(1e-12));
}

TEST_CASE("Power tree rejects a branch before its parent and bad values", "[power]") {
  power::PowerTree tree(415.0);
  CHECK_THROWS_AS(tree.addLine(3, {0.1, 0.0}), std::invalid_argument);
  CHECK_THROWS_AS(tree.addLine(power::PowerTree::kSourceBus, {-0.1, 0.0}), std::invalid_argument);
  CHECK_THROWS_AS(tree.addTransformer(power::PowerTree::kSourceBus, 0.0, {0.1, 0.0}, 0.0),
                  std::invalid_argument);
  CHECK_THROWS_AS(power::PowerTree(0.0), std::invalid_argument);
}

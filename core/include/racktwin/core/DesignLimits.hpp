#pragma once
// Design limits: every rating a site's data gives (CDU heat, flow, approach and pressure, the
// racks' coolant temperatures, flows and pressures, the ASHRAE W-class of facility water, heat
// rejection, and the electrical tree's transformers, UPSs, generators, lines, breakers and rack
// feeds), each as a value computed from *recorded* channels and compared with its rating at every
// record (LimitMonitor.hpp). Reading the records, not the models, keeps the check independent of
// how a model computes what it records. docs/capacity.md lists the limits and their sources.
#include <cstdint>
#include <string>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

/// One recorded quantity a limit reads: the columns of a channel for some entities, reduced to
/// one number per record.
struct LimitInput {
  enum class Reduce : std::uint8_t { Max, Min, Sum };
  std::string channel;                // "<group>/<name>", e.g. "cdu/Q_flow"
  std::vector<std::string> entities;  // column ids; empty with an empty prefix: a scalar channel
  std::string prefix;                 // or every column whose id starts with it ("row1/rack01/")
  Reduce reduce = Reduce::Max;
  bool peak = false;  // read "<channel>_max" (the interval's maximum) when it is recorded
};

/// How a limit's value v comes from its inputs x0, x1, x2 and its constants c0, c1.
enum class LimitFormula : std::uint8_t {
  Value,       // v = x0
  Affine,      // v = x0 + c0 x1 + c1 (x1 = 0 without a second input)
  PerHeat,     // v = x0 / (x1 - c0); not evaluated while x1 - c0 <= 0 (no heat to carry)
  PumpRunout,  // per pump q = x0 / x2 (x2 pumps running; v = 0 without one) against the curve
               // dp = s^2 c0 (1 - (q / (s c1))^2) at the speed s the head x1 shows:
               // v = q / (s c1), s^2 = x1 / c0 + (q / c1)^2
};

/// One rated limit: value (unit) against rating, at most (`at_most`) or at least.
struct DesignLimit {
  std::string component;   // the rated component: "row1/cdu1", "row1/rack03", "busway-a"
  std::string name;        // "rated_heat"
  std::string group;       // headroom table row: CDU id, row, feeder (element id), "site"
  std::string group_kind;  // "cdu", "row", "feeder", "site"
  std::string label;       // "CDU rated heat"
  std::string unit;        // SI unit of value and rating
  std::string source;      // where the rating comes from (data file and key, with its tag)
  bool at_most = true;
  double rating = 0.0;
  double scale = 1.0;  // margin fraction = margin / scale: the rating, or 10 K for temperatures
  LimitFormula formula = LimitFormula::Value;
  std::vector<LimitInput> inputs;  // x0, x1, x2
  double c0 = 0.0, c1 = 0.0;

  std::string id() const { return component + ":" + name; }
  /// The datasets the value is read from ("/cdu/Q_flow, /cdu/pump_dp").
  std::string quantity() const;
};

/// The temperature span that turns a temperature margin into a fraction (docs/capacity.md).
inline constexpr double kTemperatureMarginScale_K = 10.0;

/// The highest facility water supply temperature of the ASHRAE liquid cooling class that holds
/// `T_supply` (W17, W27, W32, W40, W45: 17 to 45 degC), in K; 0 above 45 degC (W+, no limit).
double ashraeWClassLimit(double T_supply);
/// "W32" for a temperature of that class, "W+" above W45.
std::string ashraeWClassName(double T_supply);

/// Every limit the site's data rates, in a fixed order (CDUs, racks, facility, electrical).
std::vector<DesignLimit> designLimits(const SiteSpec& site);

}  // namespace racktwin::core

#include "racktwin/thermal/Hydraulics.hpp"

// The numeric LDL^T factorisation keeps its three work vectors (16 bytes per node) on the stack
// up to this size, so solve() iterations do not allocate for networks up to 65,536 nodes. Eigen
// is included by this file only (see thermal/CMakeLists.txt), so the setting is not an ODR hazard.
#define EIGEN_STACK_ALLOCATION_LIMIT (1 << 20)
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal {
namespace {

constexpr double kReLaminar = 2000.0;
constexpr double kReTurbulent = 4000.0;
constexpr double kFlowFloor = 1e-13;  // m3/s per link: flows below this count as converged zero
constexpr double kPi = std::numbers::pi;

// EPANET works in ft and cfs; its fixed coefficients (src/hydcoeffs.c) are converted to SI with
// the fluid's rho g: one ft/cfs of head-loss gradient is kHeadGradient * rho g Pa/(m3/s).
constexpr double kFoot = 0.3048;
constexpr double kCubicFoot = 0.028316846592;
constexpr double kHeadGradient = kFoot / kCubicFoot;
// Hazen-Williams h = 4.727 L Q^1.852 / (C^1.852 d^4.871) in ft and cfs (EPANET), in metres and
// m3/s: 4.727 ft^(4.871 - 3 x 1.852) = 4.727 * 0.3048^-0.685.
const double kHazenWilliamsSI = 4.727 * std::pow(kFoot, 4.871 - 3.0 * 1.852);
constexpr double kHazenWilliamsExponent = 1.852;

double area(double diameter) {
  return 0.25 * kPi * diameter * diameter;
}

double swameeJain(double Re, double relative_roughness) {
  const double x = std::log10(relative_roughness / 3.7 + 5.74 / std::pow(Re, 0.9));
  return 0.25 / (x * x);
}

// Friction factor of the legacy and Colebrook pipe models.
double frictionFactor(LinkLaw::Friction model, double Re, double relative_roughness) {
  if (model == LinkLaw::Friction::Colebrook) {
    if (Re <= kReLaminar) return 64.0 / std::max(Re, 1e-12);
    if (Re >= kReTurbulent) return colebrookFrictionFactor(Re, relative_roughness);
    const double w = (Re - kReLaminar) / (kReTurbulent - kReLaminar);
    return (1.0 - w) * (64.0 / kReLaminar)
           + w * colebrookFrictionFactor(kReTurbulent, relative_roughness);
  }
  return darcyFrictionFactor(Re, relative_roughness);
}

double pipeDp(const LinkLaw& law, double V_flow, const FluidState& fluid) {
  const core::PipeSpec& pipe = law.pipe;
  const double v = V_flow / area(pipe.diameter);
  const double Re = fluid.rho * std::abs(v) * pipe.diameter / fluid.mu;
  if (Re < 1e-12) return 0.0;
  const double f = frictionFactor(law.friction, Re, pipe.roughness / pipe.diameter);
  return f * pipe.length / pipe.diameter * 0.5 * fluid.rho * v * std::abs(v);
}

// EPANET's friction factor and its derivative in w = Re pi / 4 (src/hydcoeffs.c).
double epanetFriction(double w, double e, double* df_dw) {
  constexpr double A1 = 1000.0 * kPi;
  constexpr double A2 = 500.0 * kPi;
  constexpr double A9 = -2.0 / std::numbers::ln10;
  const double A8 = 5.74 * std::pow(kPi / 4.0, 0.9);
  const double AB = 5.74 / std::pow(4000.0, 0.9);
  const double AC = -2.0 * 0.9 * 2.0 / std::numbers::ln10 * AB;
  if (w >= A1) {
    const double y1 = A8 / std::pow(w, 0.9);
    const double y2 = e / 3.7 + y1;
    const double y3 = A9 * std::log(y2);
    const double f = 1.0 / (y3 * y3);
    *df_dw = 1.8 * f * y1 * A9 / y2 / y3 / w;
    return f;
  }
  const double y2 = e / 3.7 + AB;
  const double y3 = A9 * std::log(y2);
  const double fa = 1.0 / (y3 * y3);
  const double fb = (2.0 + AC / (y2 * y3)) * fa;
  const double r = w / A2;
  const double x1 = 7.0 * fa - fb;
  const double x2 = 0.128 - 17.0 * fa + 2.5 * fb;
  const double x3 = -0.128 + 13.0 * fa - (fb + fb);
  const double x4 = 0.032 - 3.0 * fa + 0.5 * fb;
  *df_dw = (x2 + r * (2.0 * x3 + r * 3.0 * x4)) / A2;
  return x1 + r * (x2 + r * (x3 + r * x4));
}

// Small gradients and flows of EPANET in SI for one fluid.
struct Limits {
  double rq_tol;    // RQtol: smallest friction gradient, Pa s/m3
  double c_small;   // CSMALL: gradient of an open valve without minor loss
  double c_big;     // CBIG: gradient of an active FCV (a tiny leak keeps it connected)
  double big_open;  // 1/CBIG: gradient of an active PBV (dp held at the setting)
  double h_tol;     // Htol, Pa
  double q_tol;     // Qtol, m3/s

  static Limits of(const FluidState& fluid, const SolverOptions& options) {
    const double unit = kHeadGradient * fluid.rho * fluid.g;
    return {1e-7 * unit,
            1e-6 * unit,
            1e8 * unit,
            1e-8 * unit,
            options.head_tolerance * fluid.rho * fluid.g,
            options.flow_tolerance};
  }
};

// Per-link coefficients that depend on the fluid but not on the flow (computed once per solve).
struct LinkCoeff {
  double r = 0.0;  // friction resistance (Hazen-Williams: Pa (s/m3)^1.852; D-W: rho L/(2 d A^2))
  double m = 0.0;  // minor loss: dp = m Q|Q|
  double s = 0.0;  // D-W: kinematic viscosity times diameter
  double e = 0.0;  // D-W: relative roughness
};

LinkCoeff coefficients(const LinkLaw& law, const FluidState& fluid) {
  LinkCoeff c;
  switch (law.kind) {
    case LinkLaw::Kind::Pipe: {
      const double A = area(law.pipe.diameter);
      c.r = fluid.rho * law.pipe.length / (2.0 * law.pipe.diameter * A * A);
      c.s = fluid.mu / fluid.rho * law.pipe.diameter;
      c.e = law.pipe.roughness / law.pipe.diameter;
      c.m = law.minor_loss * fluid.rho / (2.0 * A * A);
      break;
    }
    case LinkLaw::Kind::HazenWilliams: {
      const double A = area(law.pipe.diameter);
      c.r = fluid.rho * fluid.g * kHazenWilliamsSI * law.pipe.length
            / std::pow(law.hazen_williams_C, kHazenWilliamsExponent)
            / std::pow(law.pipe.diameter, 4.871);
      c.m = law.minor_loss * fluid.rho / (2.0 * A * A);
      break;
    }
    case LinkLaw::Kind::Valve: {
      const double A = area(law.valve.diameter);
      c.m = law.valve.minor_loss * fluid.rho / (2.0 * A * A);
      c.r = fluid.rho / (2.0 * A * A);  // TCV: m = setting * r
      break;
    }
    case LinkLaw::Kind::ControlValve: {
      const double A_v =
          law.control_valve.A_v * controlValveCharacteristic(law.control_valve, law.opening);
      c.m = law.dp_scale * fluid.rho / (A_v * A_v);
      break;
    }
    default:
      break;
  }
  return c;
}

// Adds the minor loss m Q|Q| (EPANET: added to the friction loss and its gradient).
void addMinorLoss(double m, double Q, double* dp, double* gradient) {
  if (m <= 0.0) return;
  const double q = std::abs(Q);
  *dp += m * q * Q;
  *gradient += 2.0 * m * q;
}

// A piecewise linear curve's segment around x (EPANET's curvecoeff): y = y0 + slope x.
void curveSegment(const std::vector<double>& x, const std::vector<double>& y, double at, double* y0,
                  double* slope) {
  std::size_t k2 = 0;
  const std::size_t n = x.size();
  while (k2 < n && x[k2] < at)
    ++k2;
  if (k2 == 0) ++k2;
  if (k2 == n) --k2;
  const std::size_t k1 = k2 - 1;
  *slope = (y[k2] - y[k1]) / (x[k2] - x[k1]);
  *y0 = y[k1] - *slope * x[k1];
}

// A tabulated drop at |Q| >= 0 (core::PressureDropTable): piecewise linear from the origin
// through the points, the last segment extended; the slope of the segment is returned in *slope.
double tableDp(const core::PressureDropTable& t, double q, double* slope) {
  const std::vector<double>& V = t.V_flow;
  const std::vector<double>& dp = t.dp;
  if (q <= V.front()) {
    *slope = dp.front() / V.front();
    return *slope * q;
  }
  std::size_t k = 1;  // segment from point k-1 to point k
  while (k + 1 < V.size() && V[k] < q)
    ++k;
  *slope = (dp[k] - dp[k - 1]) / (V[k] - V[k - 1]);
  return dp[k - 1] + *slope * (q - V[k - 1]);
}

// An open valve: its minor loss, or a near-zero linear loss without one (EPANET's valvecoeff).
double openValveDp(double m, double Q, const Limits& lim, double* gradient) {
  if (m > 0.0) {
    double g = 2.0 * m * std::abs(Q);
    if (g < lim.rq_tol) {
      g = lim.rq_tol / 2.0;
      *gradient = g;
      return g * Q;
    }
    *gradient = g;
    return g * Q / 2.0;
  }
  *gradient = lim.c_small;
  return lim.c_small * Q;
}

// dp and gradient of one pump of a pump link (the speed and curve of `law`).
double singlePumpDp(const LinkLaw& law, double Q, const Limits& lim, double* gradient) {
  const double s = law.pump.speed;
  const PumpCurve& curve = law.pump_curve;
  if (curve.form == PumpCurve::Form::Quadratic) {
    // dp_a_b = -(s^2 dp0 - dp0 (V/Vmax)|V/Vmax|): the pump raises pressure from a to b.
    const core::PumpSpec& p = law.pump;
    const double x = Q / p.V_flow_max;
    const double rise = s * s * p.dp_shutoff - p.dp_shutoff * x * std::abs(x);
    const double slope = 2.0 * p.dp_shutoff * std::abs(x) / p.V_flow_max;
    *gradient = std::max(slope, 1e-3 * p.dp_shutoff / p.V_flow_max);
    return -rise;
  }
  if (curve.form == PumpCurve::Form::Table) {
    // EPANET's custom curve: the segment at |Q|/s, scaled by the affinity laws.
    double y0 = 0.0, slope = 0.0;
    curveSegment(curve.V_flow, curve.dp_rise, std::abs(Q) / s, &y0, &slope);
    const double g = std::max(-slope * s, lim.rq_tol);
    *gradient = g;
    return -y0 * s * s + g * Q;
  }
  // Power curve: dp = -s^2 dp0 + r s^(2-n) |Q|^(n-1) Q (EPANET's pumpcoeff).
  const double r = curve.r * std::pow(s, 2.0 - curve.n);
  const double q = std::abs(Q);
  double g = curve.n * r * std::pow(q, curve.n - 1.0);
  if (g < lim.rq_tol) {
    g = lim.rq_tol;
    *gradient = g;
    return -s * s * curve.dp0 + g * Q;
  }
  *gradient = g;
  return -s * s * curve.dp0 + g * Q / curve.n;
}

// dp and gradient of a link in its open (or, for valves, the given) state.
double evaluate(const LinkLaw& law, const LinkCoeff& c, double Q, const FluidState& fluid,
                const Limits& lim, LinkState state, double* gradient) {
  switch (law.kind) {
    case LinkLaw::Kind::Pipe: {
      if (law.friction == LinkLaw::Friction::Epanet) {
        // EPANET's DWpipecoeff in SI: Hagen-Poiseuille up to Re 2000, then f(Re) r Q|Q|.
        const double q = std::abs(Q);
        double dp = 0.0, g = 0.0;
        if (q <= 500.0 * kPi * c.s) {
          const double r_laminar = 16.0 * kPi * c.s * c.r;
          dp = Q * (r_laminar + c.m * q);
          g = r_laminar + 2.0 * c.m * q;
        } else {
          double df_dw = 0.0;
          const double f = epanetFriction(q / c.s, c.e, &df_dw);
          const double r1 = f * c.r + c.m;
          dp = r1 * q * Q;
          g = 2.0 * r1 * q + df_dw / c.s * c.r * q * q;
        }
        *gradient = law.dp_scale * g;
        return law.dp_scale * dp;
      }
      // Central difference: the friction factor's own dependence on Re is included.
      const double A = area(law.pipe.diameter);
      const double laminar_slope = law.dp_scale * 32.0 * fluid.mu * law.pipe.length
                                   / (law.pipe.diameter * law.pipe.diameter * A);
      const double h = 1e-6 * std::max(std::abs(Q), 1e-6);
      double dp = law.dp_scale * pipeDp(law, Q, fluid);
      const double slope =
          law.dp_scale * (pipeDp(law, Q + h, fluid) - pipeDp(law, Q - h, fluid)) / (2.0 * h);
      double g = std::max(slope, laminar_slope);
      addMinorLoss(c.m * law.dp_scale, Q, &dp, &g);
      *gradient = g;
      return dp;
    }
    case LinkLaw::Kind::HazenWilliams: {
      // EPANET's pipecoeff: linear below the smallest gradient RQtol.
      const double q = std::abs(Q);
      double g = kHazenWilliamsExponent * c.r * std::pow(q, kHazenWilliamsExponent - 1.0);
      double dp = 0.0;
      if (g < lim.rq_tol) {
        g = lim.rq_tol / kHazenWilliamsExponent;
        dp = g * Q;
      } else {
        dp = g * Q / kHazenWilliamsExponent;
      }
      addMinorLoss(c.m, Q, &dp, &g);
      *gradient = law.dp_scale * g;
      return law.dp_scale * dp;
    }
    case LinkLaw::Kind::PowerLaw: {
      const core::PowerLawDrop& p = law.power_law;
      const double k = law.dp_scale * p.dp_nominal / std::pow(p.V_flow_nominal, p.exponent);
      // Linear below a small flow so the gradient never vanishes (EPANET does the same).
      const double V_small = 1e-4 * p.V_flow_nominal;
      const double a = std::abs(Q);
      if (a < V_small) {
        const double slope = k * std::pow(V_small, p.exponent - 1.0);
        *gradient = slope;
        return slope * Q;
      }
      const double dp = k * std::pow(a, p.exponent);
      *gradient = p.exponent * dp / a;
      return Q >= 0.0 ? dp : -dp;
    }
    case LinkLaw::Kind::Table: {
      // Odd, monotone, piecewise linear: every segment's slope is positive (core's contract).
      double slope = 0.0;
      const double dp = tableDp(law.table, std::abs(Q), &slope);
      *gradient = law.dp_scale * slope;
      return law.dp_scale * (Q >= 0.0 ? dp : -dp);
    }
    case LinkLaw::Kind::Pump: {
      // N identical pumps in parallel: each carries Q/N at the link's dp, so dp(Q) is the single
      // pump's dp at Q/N and the gradient is the single pump's gradient over N.
      RACKTWIN_ASSERT(law.pumps_parallel >= 1, "at least one pump in a pump link");
      const double n = law.pumps_parallel;
      double g = 0.0;
      const double dp = singlePumpDp(law, Q / n, lim, &g);
      *gradient = g / n;
      return dp;
    }
    case LinkLaw::Kind::Valve: {
      const ValveSpec& v = law.valve;
      if (state == LinkState::Active) {
        switch (v.type) {
          case ValveType::TCV:
            return openValveDp(v.setting * c.r, Q, lim, gradient);
          case ValveType::PBV:
            // Holds dp at the setting unless the open valve loses more (EPANET's pbvcoeff).
            if (c.m * Q * Q > v.setting) return openValveDp(c.m, Q, lim, gradient);
            *gradient = lim.big_open;
            return v.setting;
          case ValveType::FCV:
            // Flow held at the setting; a tiny conductance keeps the valve connected.
            *gradient = lim.c_big;
            return (Q - v.setting) * lim.c_big;
          case ValveType::GPV: {
            const double q = std::max(std::abs(Q), 1e-12);
            double y0 = 0.0, slope = 0.0;
            curveSegment(v.V_flow, v.dp, q, &y0, &slope);
            slope = std::max(slope, 1e-12 * lim.c_small);
            *gradient = slope;
            return (y0 + slope * q) * (Q >= 0.0 ? 1.0 : -1.0);
          }
          default:
            break;
        }
      }
      return openValveDp(c.m, Q, lim, gradient);
    }
    case LinkLaw::Kind::ControlValve:
      return openValveDp(c.m, Q, lim, gradient);
  }
  *gradient = 1.0;
  return 0.0;
}

bool closedState(LinkState s) {
  return s == LinkState::Closed || s == LinkState::CheckClosed || s == LinkState::PumpXHead;
}

bool pressureValve(const LinkLaw& law) {
  return law.kind == LinkLaw::Kind::Valve
         && (law.valve.type == ValveType::PRV || law.valve.type == ValveType::PSV);
}

// How a link enters one Newton iteration.
enum class Mode : std::uint8_t {
  Zero,      // closed, or touching a disconnected node: no flow
  Conduct,   // Q = q0 + w (p_a - p_b)
  BalanceB,  // active PRV: b is held; Q closes the balance of b
  BalanceA,  // active PSV: a is held; Q closes the balance of a
};

// SimplicialLDLT on a matrix already in fill-reducing order: the numeric factorisation is called
// directly on the assembled upper triangle, so it neither copies nor permutes the matrix.
class SchurLdlt : public Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Upper,
                                               Eigen::NaturalOrdering<int>> {
 public:
  void refactor(const Eigen::SparseMatrix<double>& upper) {
    this->template factorize_preordered<true>(upper);
  }
};

}  // namespace

const char* linkStateName(LinkState state) {
  switch (state) {
    case LinkState::Open:
      return "open";
    case LinkState::Closed:
      return "closed";
    case LinkState::CheckClosed:
      return "closed (check valve)";
    case LinkState::PumpXHead:
      return "closed (pump head exceeded)";
    case LinkState::Active:
      return "active";
    case LinkState::ValveOpen:
      return "open (setting not reached)";
  }
  return "?";
}

double darcyFrictionFactor(double Re, double relative_roughness) {
  if (Re <= kReLaminar) return 64.0 / std::max(Re, 1e-12);
  if (Re >= kReTurbulent) return swameeJain(Re, relative_roughness);
  const double f_laminar = 64.0 / kReLaminar;
  const double f_turbulent = swameeJain(kReTurbulent, relative_roughness);
  const double w = (Re - kReLaminar) / (kReTurbulent - kReLaminar);
  return (1.0 - w) * f_laminar + w * f_turbulent;
}

double colebrookFrictionFactor(double Re, double relative_roughness) {
  if (Re <= kReLaminar) return 64.0 / std::max(Re, 1e-12);
  // Fixed point on 1/sqrt(f) from the Swamee-Jain start; converges in a few iterations.
  double inv_sqrt_f = 1.0 / std::sqrt(swameeJain(Re, relative_roughness));
  for (int i = 0; i < 100; ++i) {
    const double next = -2.0 * std::log10(relative_roughness / 3.7 + 2.51 * inv_sqrt_f / Re);
    if (std::abs(next - inv_sqrt_f) < 1e-14 * std::abs(next)) {
      inv_sqrt_f = next;
      break;
    }
    inv_sqrt_f = next;
  }
  return 1.0 / (inv_sqrt_f * inv_sqrt_f);
}

double epanetFrictionFactor(double Re, double relative_roughness) {
  if (Re <= kReLaminar) return 64.0 / std::max(Re, 1e-12);
  double df_dw = 0.0;
  return epanetFriction(Re * kPi / 4.0, relative_roughness, &df_dw);
}

// ------------------------------------------------------------------------------------------------
// Pump curves (EPANET src/validate.c)

std::optional<PumpCurve> PumpCurve::fromOnePoint(double V1, double dp1) {
  return fromThreePoints(1.33334 * dp1, V1, dp1, 2.0 * V1, 0.0);
}

std::optional<PumpCurve> PumpCurve::fromThreePoints(double dp0, double V1, double dp1, double V2,
                                                    double dp2) {
  // EPANET's powerfuncpump, with its TINY = 1e-6 guard taken relative to the curve's own scale.
  const double tiny_dp = 1e-6 * std::abs(dp0);
  const double tiny_V = 1e-6 * std::abs(V2);
  if (!(dp0 > tiny_dp) || !(dp0 - dp1 > tiny_dp) || !(dp1 - dp2 > tiny_dp) || !(V1 > tiny_V)
      || !(V2 - V1 > tiny_V)) {
    return std::nullopt;
  }
  const double h4 = dp0 - dp1;
  const double h5 = dp0 - dp2;
  const double c = std::log(h5 / h4) / std::log(V2 / V1);
  if (!(c > 0.0) || c > 20.0) return std::nullopt;
  PumpCurve curve;
  curve.form = Form::Power;
  curve.dp0 = dp0;
  curve.r = h4 / std::pow(V1, c);
  curve.n = c;
  curve.V_flow = {V1};  // design flow: the first guess of a solve
  return curve;
}

std::optional<PumpCurve> PumpCurve::fromTable(std::vector<double> V_flow,
                                              std::vector<double> dp_rise) {
  if (V_flow.size() < 2 || V_flow.size() != dp_rise.size()) return std::nullopt;
  for (std::size_t i = 1; i < V_flow.size(); ++i) {
    if (!(V_flow[i] > V_flow[i - 1]) || !(dp_rise[i] < dp_rise[i - 1])) return std::nullopt;
  }
  PumpCurve curve;
  curve.form = Form::Table;
  curve.V_flow = std::move(V_flow);
  curve.dp_rise = std::move(dp_rise);
  return curve;
}

double PumpCurve::shutoffRise() const {
  switch (form) {
    case Form::Power:
      return dp0;
    case Form::Table:
      return dp_rise.front();
    case Form::Quadratic:
      return 0.0;
  }
  return 0.0;
}

// ------------------------------------------------------------------------------------------------
// Link laws

LinkLaw LinkLaw::makePipe(const core::PipeSpec& pipe) {
  LinkLaw law;
  law.kind = Kind::Pipe;
  law.pipe = pipe;
  return law;
}
LinkLaw LinkLaw::makePowerLaw(const core::PowerLawDrop& drop) {
  LinkLaw law;
  law.kind = Kind::PowerLaw;
  law.power_law = drop;
  return law;
}
LinkLaw LinkLaw::makeTable(const core::PressureDropTable& table) {
  const std::vector<double>& V = table.V_flow;
  const std::vector<double>& dp = table.dp;
  RACKTWIN_ASSERT(V.size() >= 2 && V.size() == dp.size(), "a table needs two points or more");
  RACKTWIN_ASSERT(V.front() > 0.0 && dp.front() > 0.0, "table values must be positive");
  for (std::size_t i = 1; i < V.size(); ++i) {
    RACKTWIN_ASSERT(V[i] > V[i - 1] && dp[i] > dp[i - 1], "table values must increase strictly");
  }
  LinkLaw law;
  law.kind = Kind::Table;
  law.table = table;
  return law;
}
LinkLaw LinkLaw::makeDrop(const core::PressureDropLaw& drop) {
  return drop.form == core::PressureDropLaw::Form::Table ? makeTable(drop.table)
                                                         : makePowerLaw(drop.power_law);
}
LinkLaw LinkLaw::makePump(const core::PumpSpec& pump) {
  LinkLaw law;
  law.kind = Kind::Pump;
  law.pump = pump;
  return law;
}
LinkLaw LinkLaw::makeHazenWilliams(const core::PipeSpec& pipe, double C) {
  LinkLaw law;
  law.kind = Kind::HazenWilliams;
  law.pipe = pipe;
  law.hazen_williams_C = C;
  return law;
}
LinkLaw LinkLaw::makePump(const PumpCurve& curve, double speed) {
  LinkLaw law;
  law.kind = Kind::Pump;
  law.pump_curve = curve;
  law.pump.speed = speed;
  return law;
}
LinkLaw LinkLaw::makeValve(const ValveSpec& valve) {
  LinkLaw law;
  law.kind = Kind::Valve;
  law.valve = valve;
  law.status = LinkStatus::Active;
  return law;
}

LinkLaw LinkLaw::makeControlValve(const core::ControlValveSpec& valve, double opening) {
  RACKTWIN_ASSERT(valve.A_v > 0.0, "a control valve needs a positive flow coefficient");
  LinkLaw law;
  law.kind = Kind::ControlValve;
  law.control_valve = valve;
  law.opening = opening;
  return law;
}

double controlValveCharacteristic(const core::ControlValveSpec& valve, double opening) {
  const double x = std::clamp(opening, 0.0, 1.0);
  const double l = valve.leakage;
  switch (valve.characteristic) {
    case core::ControlValveSpec::Characteristic::Linear:
      return l + (1.0 - l) * x;
    case core::ControlValveSpec::Characteristic::EqualPercentage: {
      // R^(x-1) down to 1 % opening, then linear to the leakage at shut-off.
      constexpr double kShutoffRange = 0.01;
      if (x >= kShutoffRange) return std::pow(valve.rangeability, x - 1.0);
      const double at_range = std::pow(valve.rangeability, kShutoffRange - 1.0);
      return l + (at_range - l) * x / kShutoffRange;
    }
  }
  return 1.0;
}

double strokeValve(const core::ControlValveSpec& valve, double opening, double command, double dt) {
  const double target = std::clamp(command, 0.0, 1.0);
  if (valve.stroke_time <= 0.0) return target;
  const double max_move = dt / valve.stroke_time;
  return std::clamp(opening + std::clamp(target - opening, -max_move, max_move), 0.0, 1.0);
}

core::PowerLawDrop powerLawFromCv(double Cv, double specific_gravity) {
  RACKTWIN_ASSERT(Cv > 0.0 && specific_gravity > 0.0, "Cv and specific gravity must be positive");
  constexpr double kGallonPerMinute = core::kUsGallon_m3 / 60.0;  // m3/s
  return core::PowerLawDrop{specific_gravity * core::kPsi_Pa, Cv * kGallonPerMinute, 2.0};
}

double linkDp(const LinkLaw& law, double V_flow, const FluidState& fluid, double* gradient) {
  double g = 0.0;
  const double dp = evaluate(law, coefficients(law, fluid), V_flow, fluid,
                             Limits::of(fluid, SolverOptions{}), LinkState::Open, &g);
  if (gradient != nullptr) *gradient = g;
  return dp;
}

// ------------------------------------------------------------------------------------------------
// Solver

struct HydraulicSolver::Factorisation {
  // Matrix over all nodes in fill-reducing order (upper triangle); nodes with a known potential
  // (fixed, held by a valve, disconnected) get an identity row, so one pattern serves every
  // combination of statuses.
  Eigen::SparseMatrix<double> A;
  SchurLdlt ldlt;
  Eigen::VectorXd rhs;
  Eigen::VectorXd x;
  std::vector<int> position;        // matrix row of each node
  std::vector<double*> diagonal;    // per node
  std::vector<double*> off;         // per link: the (a, b) entry
  std::vector<LinkCoeff> coeff;     // per link, per solve
  std::vector<Mode> mode;           // per link, per iteration
  std::vector<double> w, q0;        // per link: conductance and flow at zero potential difference
  std::vector<std::uint8_t> known;  // per node, per iteration
  std::vector<double> p_known;
  std::vector<std::uint32_t> incident_begin, incident;  // CSR: links at each node
  std::vector<Index> queue;
  bool analysed = false;
};

HydraulicSolver::HydraulicSolver(const core::FlowNetwork& network, std::vector<LinkLaw> laws,
                                 Index reference_node, double p_reference)
    : HydraulicSolver(network, std::move(laws), [&] {
        std::vector<NodeCondition> nodes(network.nodeCount());
        nodes.at(reference_node).fixed = true;
        nodes[reference_node].p = p_reference;
        return nodes;
      }()) {
  int component_count = 0;
  const std::vector<int> component = network.components(&component_count);
  for (Index n = 0; n < network.nodeCount(); ++n) {
    if (component[n] != component[reference_node]) {
      throw core::RuntimeError("coolant network: node '" + network.nodeId(n)
                               + "' is not connected to the pressure reference '"
                               + network.nodeId(reference_node) + "'");
    }
  }
  std::fill(p_.begin(), p_.end(), p_reference);
  // First guess: a small flow in the design direction everywhere.
  for (Index l = 0; l < network.linkCount(); ++l) {
    const LinkLaw& law = laws_[l];
    double scale = 1e-5;
    if (law.kind == LinkLaw::Kind::PowerLaw) scale = 0.1 * law.power_law.V_flow_nominal;
    if (law.kind == LinkLaw::Kind::Pump) scale = 0.1 * law.pump.V_flow_max * law.pumps_parallel;
    if (law.kind == LinkLaw::Kind::Table) scale = 0.1 * law.table.V_flow.back();
    V_flow_[l] = scale;
  }
}

HydraulicSolver::HydraulicSolver(const core::FlowNetwork& network, std::vector<LinkLaw> laws,
                                 std::vector<NodeCondition> nodes, SolverOptions options)
    : network_(&network),
      laws_(std::move(laws)),
      nodes_(std::move(nodes)),
      options_(options),
      V_flow_(network.linkCount(), 0.0),
      p_(network.nodeCount(), 0.0),
      state_(network.linkCount(), LinkState::Open),
      isolated_(network.nodeCount(), 0),
      factorisation_(std::make_unique<Factorisation>()) {
  RACKTWIN_ASSERT(laws_.size() == network.linkCount(), "one law per link");
  RACKTWIN_ASSERT(nodes_.size() == network.nodeCount(), "one condition per node");
  const std::size_t n_nodes = network.nodeCount();
  const std::size_t n_links = network.linkCount();
  Factorisation& f = *factorisation_;

  // Fill-reducing order of the full symmetric pattern, computed once.
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(n_nodes + 2 * n_links);
  for (Index n = 0; n < n_nodes; ++n)
    triplets.emplace_back(n, n, 1.0);
  for (Index l = 0; l < n_links; ++l) {
    const auto a = static_cast<int>(network.portA(l));
    const auto b = static_cast<int>(network.portB(l));
    triplets.emplace_back(a, b, 1.0);
    triplets.emplace_back(b, a, 1.0);
  }
  const auto size = static_cast<Eigen::Index>(n_nodes);
  Eigen::SparseMatrix<double> full(size, size);
  full.setFromTriplets(triplets.begin(), triplets.end());
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> inverse_permutation;
  Eigen::AMDOrdering<int> amd;
  amd(full, inverse_permutation);
  f.position.assign(n_nodes, 0);
  if (inverse_permutation.size() == size) {
    for (int k = 0; k < static_cast<int>(n_nodes); ++k)
      f.position[static_cast<std::size_t>(inverse_permutation.indices()[k])] = k;
  } else {
    for (Index n = 0; n < n_nodes; ++n)
      f.position[n] = static_cast<int>(n);
  }

  // The upper triangle in that order, and where each node's and link's entries live.
  triplets.clear();
  for (Index n = 0; n < n_nodes; ++n)
    triplets.emplace_back(f.position[n], f.position[n], 0.0);
  for (Index l = 0; l < n_links; ++l) {
    const int a = f.position[network.portA(l)];
    const int b = f.position[network.portB(l)];
    triplets.emplace_back(std::min(a, b), std::max(a, b), 0.0);
  }
  f.A.resize(size, size);
  f.A.setFromTriplets(triplets.begin(), triplets.end());
  f.A.makeCompressed();
  f.diagonal.assign(n_nodes, nullptr);
  f.off.assign(n_links, nullptr);
  for (Index n = 0; n < n_nodes; ++n)
    f.diagonal[n] = &f.A.coeffRef(f.position[n], f.position[n]);
  for (Index l = 0; l < n_links; ++l) {
    const int a = f.position[network.portA(l)];
    const int b = f.position[network.portB(l)];
    f.off[l] = &f.A.coeffRef(std::min(a, b), std::max(a, b));
  }
  f.rhs.setZero(size);
  f.x.setZero(size);
  f.coeff.assign(n_links, LinkCoeff{});
  f.mode.assign(n_links, Mode::Conduct);
  f.w.assign(n_links, 0.0);
  f.q0.assign(n_links, 0.0);
  f.known.assign(n_nodes, 0);
  f.p_known.assign(n_nodes, 0.0);
  f.queue.assign(n_nodes, 0);
  f.incident_begin.assign(n_nodes + 1, 0);
  for (Index l = 0; l < n_links; ++l) {
    ++f.incident_begin[network.portA(l) + 1];
    ++f.incident_begin[network.portB(l) + 1];
  }
  for (std::size_t n = 0; n < n_nodes; ++n)
    f.incident_begin[n + 1] += f.incident_begin[n];
  f.incident.assign(2 * n_links, 0);
  std::vector<std::uint32_t> fill(f.incident_begin.begin(), f.incident_begin.end() - 1);
  for (Index l = 0; l < n_links; ++l) {
    f.incident[fill[network.portA(l)]++] = l;
    f.incident[fill[network.portB(l)]++] = l;
  }
  for (Index n = 0; n < n_nodes; ++n)
    p_[n] = nodes_[n].fixed ? nodes_[n].p : nodes_[n].p_disconnected;
  initialiseFlows();
}

HydraulicSolver::~HydraulicSolver() = default;
HydraulicSolver::HydraulicSolver(HydraulicSolver&&) noexcept = default;
HydraulicSolver& HydraulicSolver::operator=(HydraulicSolver&&) noexcept = default;

// EPANET's first guess: 1 ft/s in pipes and valves, the design flow in pumps.
void HydraulicSolver::initialiseFlows() {
  for (Index l = 0; l < laws_.size(); ++l) {
    const LinkLaw& law = laws_[l];
    double V = 0.0;
    switch (law.kind) {
      case LinkLaw::Kind::Pipe:
      case LinkLaw::Kind::HazenWilliams:
        V = kFoot * area(law.pipe.diameter);
        break;
      case LinkLaw::Kind::Valve:
        V = kFoot * area(law.valve.diameter);
        break;
      case LinkLaw::Kind::ControlValve:
        // 1 m/s through the equivalent orifice of the open valve.
        V = law.control_valve.A_v;
        break;
      case LinkLaw::Kind::PowerLaw:
        V = 0.1 * law.power_law.V_flow_nominal;
        break;
      case LinkLaw::Kind::Table:
        V = 0.1 * law.table.V_flow.back();
        break;
      case LinkLaw::Kind::Pump:
        if (law.pump_curve.form == PumpCurve::Form::Quadratic) {
          V = 0.1 * law.pump.V_flow_max;
        } else if (law.pump_curve.form == PumpCurve::Form::Power) {
          V = law.pump_curve.V_flow.front() * law.pump.speed;
        } else {
          V = 0.5 * (law.pump_curve.V_flow.front() + law.pump_curve.V_flow.back()) * law.pump.speed;
        }
        break;
    }
    V_flow_[l] = law.status == LinkStatus::Closed ? 0.0 : V;
  }
}

void HydraulicSolver::resetStates() {
  for (Index l = 0; l < laws_.size(); ++l) {
    const LinkLaw& law = laws_[l];
    LinkState s = LinkState::Open;
    if (law.status == LinkStatus::Closed) {
      s = LinkState::Closed;
    } else if (law.kind == LinkLaw::Kind::Pump && law.pump_curve.form != PumpCurve::Form::Quadratic
               && !(law.pump.speed > 0.0)) {
      s = LinkState::Closed;  // EPANET: a pump at zero speed is closed
    } else if (law.kind == LinkLaw::Kind::Valve && law.status == LinkStatus::Active) {
      s = LinkState::Active;
    }
    state_[l] = s;
  }
}

// Marks the junctions that cannot reach a node of known potential through conducting links.
void HydraulicSolver::findIsolated() {
  Factorisation& f = *factorisation_;
  const core::FlowNetwork& net = *network_;
  const std::size_t n_nodes = net.nodeCount();
  std::size_t head = 0, tail = 0;
  for (Index n = 0; n < n_nodes; ++n) {
    isolated_[n] = 1;
    if (f.known[n] != 0) {
      isolated_[n] = 0;
      f.queue[tail++] = n;
    }
  }
  while (head < tail) {
    const Index n = f.queue[head++];
    for (std::uint32_t k = f.incident_begin[n]; k < f.incident_begin[n + 1]; ++k) {
      const Index l = f.incident[k];
      const LinkState s = state_[l];
      if (closedState(s)) continue;
      if (s == LinkState::Active && pressureValve(laws_[l])) continue;
      const Index other = net.portA(l) == n ? net.portB(l) : net.portA(l);
      if (isolated_[other] != 0) {
        isolated_[other] = 0;
        f.queue[tail++] = other;
      }
    }
  }
}

// PRV and PSV status (EPANET's valvestatus); returns true on a change.
bool HydraulicSolver::checkValves(const FluidState& fluid) {
  const Limits lim = Limits::of(fluid, options_);
  const core::FlowNetwork& net = *network_;
  const Factorisation& f = *factorisation_;
  bool change = false;
  for (Index l = 0; l < laws_.size(); ++l) {
    const LinkLaw& law = laws_[l];
    if (!pressureValve(law) || law.status != LinkStatus::Active) continue;
    const double h1 = p_[net.portA(l)], h2 = p_[net.portB(l)];
    const double hset = law.valve.setting;
    const double Q = V_flow_[l];
    const double hml = f.coeff[l].m * Q * Q;
    const double htol = lim.h_tol;
    const LinkState s = state_[l];
    LinkState next = s;
    if (law.valve.type == ValveType::PRV) {
      switch (s) {
        case LinkState::Active:
          if (Q < -lim.q_tol)
            next = LinkState::Closed;
          else if (h1 - hml < hset - htol)
            next = LinkState::Open;
          break;
        case LinkState::Open:
          if (Q < -lim.q_tol)
            next = LinkState::Closed;
          else if (h2 >= hset + htol)
            next = LinkState::Active;
          break;
        case LinkState::Closed:
          if (h1 >= hset + htol && h2 < hset - htol)
            next = LinkState::Active;
          else if (h1 < hset - htol && h1 > h2 + htol)
            next = LinkState::Open;
          break;
        case LinkState::ValveOpen:
          if (Q < -lim.q_tol) next = LinkState::Closed;
          break;
        default:
          break;
      }
    } else {
      switch (s) {
        case LinkState::Active:
          if (Q < -lim.q_tol)
            next = LinkState::Closed;
          else if (h2 + hml > hset + htol)
            next = LinkState::Open;
          break;
        case LinkState::Open:
          if (Q < -lim.q_tol)
            next = LinkState::Closed;
          else if (h1 < hset - htol)
            next = LinkState::Active;
          break;
        case LinkState::Closed:
          if (h2 > hset + htol && h1 > h2 + htol)
            next = LinkState::Open;
          else if (h1 >= hset + htol && h1 > h2 + htol)
            next = LinkState::Active;
          break;
        case LinkState::ValveOpen:
          if (Q < -lim.q_tol) next = LinkState::Closed;
          break;
        default:
          break;
      }
    }
    if (next != s) {
      state_[l] = next;
      change = true;
    }
  }
  return change;
}

// Check valves, pumps and FCVs (EPANET's linkstatus); returns true on a change.
bool HydraulicSolver::checkLinks(const FluidState& fluid) {
  const Limits lim = Limits::of(fluid, options_);
  const core::FlowNetwork& net = *network_;
  bool change = false;
  for (Index l = 0; l < laws_.size(); ++l) {
    const LinkLaw& law = laws_[l];
    const LinkState s = state_[l];
    LinkState next = s;
    const double dh = p_[net.portA(l)] - p_[net.portB(l)];
    const double Q = V_flow_[l];
    if (next == LinkState::PumpXHead) next = LinkState::Open;
    if (law.check_valve && law.status != LinkStatus::Closed) {
      if (std::abs(dh) > lim.h_tol) {
        next = (dh < -lim.h_tol || Q < -lim.q_tol) ? LinkState::CheckClosed : LinkState::Open;
      } else if (Q < -lim.q_tol) {
        next = LinkState::CheckClosed;
      }
    }
    if (law.kind == LinkLaw::Kind::Pump && law.pump_curve.form != PumpCurve::Form::Quadratic
        && next == LinkState::Open && law.pump.speed > 0.0) {
      const double s2 = law.pump.speed * law.pump.speed;
      if (-dh > s2 * law.pump_curve.shutoffRise() + lim.h_tol) next = LinkState::PumpXHead;
    }
    if (law.kind == LinkLaw::Kind::Valve && law.valve.type == ValveType::FCV
        && law.status == LinkStatus::Active) {
      if (dh < -lim.h_tol || Q < -lim.q_tol) {
        next = LinkState::ValveOpen;
      } else if (s == LinkState::ValveOpen && Q >= law.valve.setting) {
        next = LinkState::Active;
      }
    }
    if (next != s) {
      state_[l] = next;
      change = true;
    }
  }
  return change;
}

void HydraulicSolver::prepareLaws(const FluidState& fluid) {
  Factorisation& f = *factorisation_;
  for (Index l = 0; l < laws_.size(); ++l)
    f.coeff[l] = coefficients(laws_[l], fluid);
}

SolveStatus HydraulicSolver::solve(const FluidState& fluid, double tolerance, int max_iterations) {
  // Everything below the loop header works in arrays sized in the constructor: the iterations do
  // not allocate (Eigen's numeric factorisation keeps its work vectors on the stack, see top).
  Factorisation& f = *factorisation_;
  const core::FlowNetwork& net = *network_;
  const std::size_t n_nodes = net.nodeCount();
  const std::size_t n_links = net.linkCount();
  const Limits lim = Limits::of(fluid, options_);
  SolveStatus status;
  prepareLaws(fluid);
  resetStates();
  for (Index l = 0; l < n_links; ++l) {
    if (closedState(state_[l])) V_flow_[l] = 0.0;
  }
  int next_check = options_.check_frequency;
  double relax = 1.0;
  const int max_trials = max_iterations + std::max(options_.extra_iterations, 0);
  bool converged = false;
  int iteration = 1;
  for (; iteration <= max_trials; ++iteration) {
    // Known potentials: fixed nodes, and the nodes an active PRV (downstream) or PSV (upstream)
    // holds. A second valve on a held node cannot regulate and stands open (EPANET's badvalve).
    for (Index n = 0; n < n_nodes; ++n) {
      f.known[n] = nodes_[n].fixed ? 1 : 0;
      f.p_known[n] = nodes_[n].p;
    }
    for (Index l = 0; l < n_links; ++l) {
      if (state_[l] != LinkState::Active || !pressureValve(laws_[l])) continue;
      const Index held = laws_[l].valve.type == ValveType::PRV ? net.portB(l) : net.portA(l);
      if (f.known[held] != 0) {
        state_[l] = LinkState::ValveOpen;
        continue;
      }
      f.known[held] = 1;
      f.p_known[held] = laws_[l].valve.setting;
    }
    findIsolated();
    for (Index n = 0; n < n_nodes; ++n) {
      if (f.known[n] != 0) p_[n] = f.p_known[n];
    }

    // Link equations linearised: Q_new = Q + w (p_a - p_b - dp(Q)), w = 1/gradient. Substituted
    // into continuity they give the Schur system over the nodes of unknown potential.
    std::fill(f.A.valuePtr(), f.A.valuePtr() + f.A.nonZeros(), 0.0);
    for (Index n = 0; n < n_nodes; ++n) {
      const int row = f.position[n];
      if (f.known[n] != 0 || isolated_[n] != 0) {
        *f.diagonal[n] = 1.0;
        f.rhs[row] = f.known[n] != 0 ? f.p_known[n] : nodes_[n].p_disconnected;
      } else {
        f.rhs[row] = -nodes_[n].demand;
      }
    }
    for (Index l = 0; l < n_links; ++l) {
      const Index a = net.portA(l), b = net.portB(l);
      const bool free_a = f.known[a] == 0 && isolated_[a] == 0;
      const bool free_b = f.known[b] == 0 && isolated_[b] == 0;
      const LinkState s = state_[l];
      if (closedState(s) || isolated_[a] != 0 || isolated_[b] != 0) {
        f.mode[l] = Mode::Zero;
        continue;
      }
      if (s == LinkState::Active && pressureValve(laws_[l])) {
        const bool prv = laws_[l].valve.type == ValveType::PRV;
        f.mode[l] = prv ? Mode::BalanceB : Mode::BalanceA;
        // The free end sees the valve's last flow as a demand (PRV) or a supply (PSV).
        if (prv && free_a) f.rhs[f.position[a]] -= V_flow_[l];
        if (!prv && free_b) f.rhs[f.position[b]] += V_flow_[l];
        continue;
      }
      double g = 0.0;
      const double dp = evaluate(laws_[l], f.coeff[l], V_flow_[l], fluid, lim, s, &g);
      if (!(g > 0.0) || !std::isfinite(g)) g = lim.rq_tol;
      const double w = 1.0 / g;
      const double q0 = V_flow_[l] - w * dp;
      f.mode[l] = Mode::Conduct;
      f.w[l] = w;
      f.q0[l] = q0;
      if (free_a) {
        *f.diagonal[a] += w;
        f.rhs[f.position[a]] -= q0;
        if (!free_b) f.rhs[f.position[a]] += w * p_[b];
      }
      if (free_b) {
        *f.diagonal[b] += w;
        f.rhs[f.position[b]] += q0;
        if (!free_a) f.rhs[f.position[b]] += w * p_[a];
      }
      if (free_a && free_b) *f.off[l] -= w;
    }
    if (!f.analysed) {
      f.ldlt.analyzePattern(f.A);
      f.analysed = true;
    }
    f.ldlt.refactor(f.A);
    if (f.ldlt.info() != Eigen::Success) {
      status.message = "the pressure system is singular";
      status.iterations = iteration;
      return status;
    }
    f.x = f.ldlt.solve(f.rhs);
    if (!f.x.allFinite()) {
      status.message = "the linear solve produced a non-finite potential";
      status.iterations = iteration;
      return status;
    }
    for (Index n = 0; n < n_nodes; ++n)
      p_[n] = f.x[f.position[n]];

    double sum_change = 0.0;
    double sum_flow = 0.0;
    for (Index l = 0; l < n_links; ++l) {
      double V_new = 0.0;
      if (f.mode[l] == Mode::Conduct) {
        V_new = f.q0[l] + f.w[l] * (p_[net.portA(l)] - p_[net.portB(l)]);
        V_new = V_flow_[l] + relax * (V_new - V_flow_[l]);
      } else if (f.mode[l] != Mode::Zero) {
        continue;  // balance flows below, once the other flows are known
      }
      sum_change += std::abs(V_new - V_flow_[l]);
      sum_flow += std::abs(V_new);
      V_flow_[l] = V_new;
    }
    for (Index l = 0; l < n_links; ++l) {
      if (f.mode[l] != Mode::BalanceA && f.mode[l] != Mode::BalanceB) continue;
      const Index held = f.mode[l] == Mode::BalanceB ? net.portB(l) : net.portA(l);
      double inflow = -nodes_[held].demand;
      for (std::uint32_t k = f.incident_begin[held]; k < f.incident_begin[held + 1]; ++k) {
        const Index other = f.incident[k];
        if (other == l) continue;
        inflow += net.portB(other) == held ? V_flow_[other] : -V_flow_[other];
      }
      const double V_new = f.mode[l] == Mode::BalanceB ? -inflow : inflow;
      sum_change += std::abs(V_new - V_flow_[l]);
      sum_flow += std::abs(V_new);
      V_flow_[l] = V_new;
    }
    status.iterations = iteration;
    status.relative_flow_change = sum_flow > 0.0 ? sum_change / sum_flow : sum_change;
    if (!std::isfinite(status.relative_flow_change)) {
      status.message = "the flow iteration produced a non-finite value";
      return status;
    }

    const bool frozen = iteration > max_iterations;  // UNBALANCED CONTINUE: no status changes
    bool valve_change = false;
    relax = 1.0;
    if (!frozen) {
      if (options_.damp_limit > 0.0) {
        if (status.relative_flow_change <= options_.damp_limit) {
          relax = 0.6;
          valve_change = checkValves(fluid);
        }
      } else {
        valve_change = checkValves(fluid);
      }
    }
    // Relative test as in EPANET; the absolute floor ends solves whose flows all go to zero
    // (a stopped loop), where a relative change stays of order one.
    const double absolute_floor = kFlowFloor * static_cast<double>(n_links);
    if (status.relative_flow_change <= tolerance || sum_change <= absolute_floor) {
      if (frozen) {
        converged = true;
        break;
      }
      const bool link_change = checkLinks(fluid);
      if (!valve_change && !link_change) {
        converged = true;
        break;
      }
      next_check = iteration + options_.check_frequency;
    } else if (!frozen && iteration <= options_.max_check && iteration == next_check) {
      checkLinks(fluid);
      next_check += options_.check_frequency;
    }
  }
  status.iterations = std::min(iteration, max_trials);
  status.converged = converged;
  // Closed links carry exactly nothing; disconnected junctions are reported.
  for (Index n = 0; n < n_nodes; ++n) {
    if (isolated_[n] != 0) {
      p_[n] = nodes_[n].p_disconnected;
      status.disconnected_nodes.push_back(n);
    }
  }
  if (!converged) {
    status.message = "no convergence in " + std::to_string(max_trials) + " iterations";
  } else if (iteration > max_iterations) {
    status.message = "converged only after link statuses were frozen at trial "
                     + std::to_string(max_iterations) + " (system unbalanced)";
  }
  if (!status.disconnected_nodes.empty()) {
    std::string text = std::to_string(status.disconnected_nodes.size())
                       + " node(s) have no path to a fixed-head node (";
    const std::size_t shown = std::min<std::size_t>(status.disconnected_nodes.size(), 5);
    for (std::size_t i = 0; i < shown; ++i) {
      text += (i > 0 ? ", '" : "'") + net.nodeId(status.disconnected_nodes[i]) + "'";
    }
    if (shown < status.disconnected_nodes.size()) text += ", ...";
    text += "): they get zero pressure, no flow, and their demand is not supplied";
    status.message = status.message.empty() ? text : status.message + "; " + text;
  }
  return status;
}

double HydraulicSolver::dp(Index link) const {
  return p_[network_->portA(link)] - p_[network_->portB(link)];
}

double HydraulicSolver::largestImbalance() const {
  std::vector<double> net_inflow(network_->nodeCount(), 0.0);
  for (Index l = 0; l < network_->linkCount(); ++l) {
    net_inflow[network_->portA(l)] -= V_flow_[l];
    net_inflow[network_->portB(l)] += V_flow_[l];
  }
  double worst = 0.0;
  for (Index n = 0; n < network_->nodeCount(); ++n) {
    if (nodes_[n].fixed || isolated_[n] != 0) continue;
    worst = std::max(worst, std::abs(net_inflow[n] - nodes_[n].demand));
  }
  return worst;
}

}  // namespace racktwin::thermal

namespace racktwin::thermal {

void HydraulicSolver::visitState(core::StateArchive& a) {
  a(V_flow_, p_, state_, isolated_);
  a.trivial(nodes_);
  for (LinkLaw& law : laws_)
    a(law.pump.speed, law.pumps_parallel, law.opening, law.status, law.dp_scale);
}

}  // namespace racktwin::thermal

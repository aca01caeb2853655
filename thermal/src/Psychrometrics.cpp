#include "racktwin/thermal/Psychrometrics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "racktwin/core/Units.hpp"

namespace racktwin::thermal::psychrometrics {
namespace {

// Ratio of the molar masses of water and dry air (ASHRAE Fundamentals 2017 ch. 1).
constexpr double kMolarMassRatio = 0.621945;
constexpr double kStandardPressure_Pa = 101325.0;
constexpr double kBisectionTolerance_K = 1e-9;

void requireTemperature(double T, const char* what) {
  if (!(T >= kTemperatureMin_K && T <= kTemperatureMax_K)) {
    throw std::invalid_argument(std::string(what) + " " + std::to_string(T)
                                + " K is outside 173.15 to 473.15 K, the range of the "
                                  "saturation-pressure equations");
  }
}

void requirePressure(double p, double p_w, const char* what) {
  if (!(std::isfinite(p) && p > p_w)) {
    throw std::invalid_argument(std::string(what) + " " + std::to_string(p)
                                + " Pa must be finite and above the vapour pressure "
                                + std::to_string(p_w) + " Pa");
  }
}

/// A wet bulb or dew point `T_low` (`what`) never exceeds its dry bulb T.
void requireNotAboveDryBulb(double T_low, double T, const char* what) {
  requireTemperature(T, "dry bulb");
  requireTemperature(T_low, what);
  if (T_low > T) {
    throw std::invalid_argument(std::string(what) + " " + std::to_string(T_low)
                                + " K is above the dry bulb " + std::to_string(T) + " K");
  }
}

/// Bisection for the root of an increasing function on [lo, hi] with f(lo) <= 0 <= f(hi).
template <class F>
double bisect(F f, double lo, double hi) {
  while (hi - lo > kBisectionTolerance_K) {
    const double mid = 0.5 * (lo + hi);
    if (f(mid) < 0.0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

/// Saturation humidity ratio at T (K) and p (Pa).
double saturationHumidityRatio(double T, double p) {
  const double p_ws = saturationPressure(T);
  requirePressure(p, p_ws, "pressure");
  return kMolarMassRatio * p_ws / (p - p_ws);
}

}  // namespace

double saturationPressure(double T) {
  requireTemperature(T, "temperature");
  double ln_p = 0.0;
  if (T < core::kZeroCelsius_K) {
    // Over ice, -100 to 0 degC (Hyland and Wexler 1983; ASHRAE Fundamentals 2017 ch. 1 eq. 5).
    ln_p = -5.6745359e3 / T + 6.3925247
           + T * (-9.6778430e-3 + T * (6.2215701e-7 + T * (2.0747825e-9 + T * -9.4840240e-13)))
           + 4.1635019 * std::log(T);
  } else {
    // Over liquid water, 0 to 200 degC (eq. 6).
    ln_p = -5.8002206e3 / T + 1.3914993
           + T * (-4.8640239e-2 + T * (4.1764768e-5 + T * -1.4452093e-8)) + 6.5459673 * std::log(T);
  }
  return std::exp(ln_p);
}

double dewPointFromVapourPressure(double p_w) {
  const double p_min = saturationPressure(kTemperatureMin_K);
  const double p_max = saturationPressure(kTemperatureMax_K);
  if (!(p_w >= p_min && p_w <= p_max)) {
    throw std::invalid_argument("vapour pressure " + std::to_string(p_w)
                                + " Pa is outside the saturation pressures of 173.15 to "
                                  "473.15 K");
  }
  return bisect([p_w](double T) { return saturationPressure(T) - p_w; }, kTemperatureMin_K,
                kTemperatureMax_K);
}

double standardPressure(double elevation_m) {
  if (!(elevation_m >= -5000.0 && elevation_m <= 11000.0)) {
    throw std::invalid_argument("elevation " + std::to_string(elevation_m)
                                + " m is outside -5000 to 11000 m, the troposphere the "
                                  "standard-atmosphere equation describes");
  }
  return kStandardPressure_Pa * std::pow(1.0 - 2.25577e-5 * elevation_m, 5.2559);
}

double humidityRatioFromVapourPressure(double p_w, double p) {
  if (!(std::isfinite(p_w) && p_w >= 0.0)) {
    throw std::invalid_argument("vapour pressure " + std::to_string(p_w)
                                + " Pa must be finite and non-negative");
  }
  requirePressure(p, p_w, "pressure");
  return kMolarMassRatio * p_w / (p - p_w);
}

double humidityRatioFromWetBulb(double T, double T_wet, double p) {
  requireNotAboveDryBulb(T_wet, T, "wet bulb");
  const double t = core::toCelsius(T);
  const double t_wet = core::toCelsius(T_wet);
  const double W_s = saturationHumidityRatio(T_wet, p);
  if (T_wet >= core::kZeroCelsius_K) {
    return ((2501.0 - 2.326 * t_wet) * W_s - 1.006 * (t - t_wet))
           / (2501.0 + 1.86 * t - 4.186 * t_wet);
  }
  return ((2830.0 - 0.24 * t_wet) * W_s - 1.006 * (t - t_wet)) / (2830.0 + 1.86 * t - 2.1 * t_wet);
}

double wetBulbFromHumidityRatio(double T, double W, double p) {
  requireTemperature(T, "dry bulb");
  const double W_s = saturationHumidityRatio(T, p);
  if (!(W >= 0.0 && W <= W_s * (1.0 + 1e-12))) {
    throw std::invalid_argument("humidity ratio " + std::to_string(W)
                                + " kg/kg is outside 0 to the saturation humidity ratio "
                                + std::to_string(W_s) + " kg/kg at the dry bulb");
  }
  // The balance's humidity ratio rises with the wet bulb and equals W_s at T: the root lies
  // below T. Widen the lower end until it brackets (dry air at low temperatures).
  const auto excess = [&](double T_wet) { return humidityRatioFromWetBulb(T, T_wet, p) - W; };
  double lo = T - 10.0;
  while (lo > kTemperatureMin_K && excess(lo) > 0.0)
    lo = std::max(kTemperatureMin_K, lo - 10.0);
  if (excess(lo) > 0.0) {
    throw std::invalid_argument("the wet bulb of humidity ratio " + std::to_string(W)
                                + " kg/kg lies below 173.15 K, outside the equations' range");
  }
  return bisect(excess, lo, T);
}

double wetBulbFromDewPoint(double T, double T_dew, double p) {
  requireNotAboveDryBulb(T_dew, T, "dew point");
  if (T_dew == T) return T;  // saturated air: the wet bulb is the dry bulb
  const double W = humidityRatioFromVapourPressure(saturationPressure(T_dew), p);
  return wetBulbFromHumidityRatio(T, W, p);
}

double relativeHumidity(double T, double T_dew) {
  return saturationPressure(T_dew) / saturationPressure(T);
}

}  // namespace racktwin::thermal::psychrometrics

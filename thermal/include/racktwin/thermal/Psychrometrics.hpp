#pragma once
// Psychrometrics of moist air, SI (K, Pa, kg water per kg dry air), as pure functions: what a
// weather file's dry bulb, dew point and station pressure say about the wet bulb a cooling tower
// approaches.
//
// Equations of ASHRAE Handbook - Fundamentals (2017), chapter 1 (docs/references/weather.md):
//  - saturation pressure of water vapour, Hyland and Wexler (1983): over ice from -100 to 0 degC,
//    over liquid water from 0 to 200 degC (the handbook's equations 5 and 6); the handbook states
//    they agree with the measured values within 300 ppm;
//  - the standard atmosphere: p = 101.325 kPa (1 - 2.25577e-5 Z)^5.2559, Z in m;
//  - humidity ratio W = 0.621945 p_w / (p - p_w), with p_w the vapour pressure (at the dew point,
//    p_w = p_ws(T_dew));
//  - the thermodynamic wet bulb T* from the energy balance of adiabatic saturation,
//      above freezing: W = ((2501 - 2.326 t*) W*_s - 1.006 (t - t*)) / (2501 + 1.86 t - 4.186 t*)
//      below:          W = ((2830 - 0.24 t*) W*_s - 1.006 (t - t*)) / (2830 + 1.86 t - 2.1 t*)
//    (t, t* in degC, W*_s the saturation humidity ratio at t*), solved for t* by bisection.
// Every function throws std::invalid_argument for an argument outside the range its equation
// holds over (a temperature outside 173.15 to 473.15 K, a pressure that is not positive or does
// not exceed the vapour pressure, a dew point above the dry bulb): it refuses rather than
// extrapolates.

namespace racktwin::thermal::psychrometrics {

/// Range of the saturation-pressure equations, K.
inline constexpr double kTemperatureMin_K = 173.15;  // -100 degC
inline constexpr double kTemperatureMax_K = 473.15;  // 200 degC

/// Saturation pressure of water vapour at T (K), Pa: over ice below 273.15 K, over liquid water
/// from 273.15 K.
double saturationPressure(double T);

/// The temperature (K) at which the saturation pressure is p_w (Pa): the dew point (over ice
/// below 273.15 K, the frost point) of air whose vapour pressure is p_w. Bisection to 1e-9 K.
double dewPointFromVapourPressure(double p_w);

/// Standard-atmosphere pressure at elevation Z (m, from -5000 to 11000), Pa.
double standardPressure(double elevation_m);

/// Humidity ratio (kg/kg dry air) of air at total pressure p (Pa) whose vapour pressure is p_w.
double humidityRatioFromVapourPressure(double p_w, double p);

/// Humidity ratio (kg/kg) of air at dry bulb T, thermodynamic wet bulb T_wet (K) and pressure p.
double humidityRatioFromWetBulb(double T, double T_wet, double p);

/// Thermodynamic wet bulb (K) of air at dry bulb T (K), humidity ratio W (kg/kg) and pressure p
/// (Pa); W must not exceed the saturation humidity ratio at T. Bisection to 1e-9 K.
double wetBulbFromHumidityRatio(double T, double W, double p);

/// Thermodynamic wet bulb (K) of air at dry bulb T, dew point T_dew <= T (K) and station pressure
/// p (Pa). Equals T at saturation (T_dew = T).
double wetBulbFromDewPoint(double T, double T_dew, double p);

/// Relative humidity (fraction) of air at dry bulb T with dew point T_dew (K).
double relativeHumidity(double T, double T_dew);

}  // namespace racktwin::thermal::psychrometrics

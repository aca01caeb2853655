#pragma once
// The weather file of a scenario's `ambient.weather`: a weather CSV (WeatherCsv.hpp) or an
// EnergyPlus weather file (EpwWeather.hpp, by its .epw extension), placed on the simulation's
// clock by `weather_start` (the file's time at simulation time 0).
#include <string>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

class MapReader;

/// `ambient` with `weather` (and optional `weather_start`): the file found (relative to the
/// scenario's folder, InputPaths.hpp), read and started. A run of `duration` seconds that reaches
/// beyond a file without a period, where its first or last values hold, is a warning at the key.
core::AmbientSpec readWeatherEntry(const MapReader& m, double duration);

/// True for a path ending in .epw (any case).
bool isEpwPath(const std::string& path);

/// Reads the weather file at `path` and starts it at file time `start` (s).
core::AmbientSpec readWeatherFile(const std::string& path, double start);

/// Puts a weather series on the simulation's clock: simulation time 0 is file time `start`. A
/// series without a period is shifted (its ends hold beyond it); a periodic one (a whole year) is
/// rotated into [0, period], with the value at `start` (interpolated) at both ends, so that it
/// repeats seamlessly from there.
core::AmbientSpec startAt(core::AmbientSpec ambient, double start);

}  // namespace racktwin::scenarios::detail

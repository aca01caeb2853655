#!/usr/bin/env python3
"""Makes data/weather/new-york-synthetic.epw: a SYNTHETIC typical year (8760 hourly records) in the
EnergyPlus weather format, built from published monthly climate normals. It is demonstration data
for the weather-year runs, not measured weather: use a measured or typical-year EPW of the site for
design work (docs/scenario-format.md, "Weather files").

    python3 tools/make_sample_epw.py [OUTPUT]      (default: data/weather/new-york-synthetic.epw)

Deterministic: the same bytes on every run and machine (its own pseudo-random generator, no
third-party module). Sources and method: data/weather/README.md.

Method, per day d of a non-leap year and hour h = 1..24:
  1. Normals: monthly mean daily maximum and minimum dry bulb and mean relative humidity of New
     York, Central Park (NOAA normals). The monthly mean dew point is the dew point of vapour
     pressure RH_m * p_ws(T_mean,m) (T_mean = (max + min) / 2).
  2. Daily normals: a periodic piecewise-linear curve through anchors at mid-month, the anchors
     adjusted (fixed-point iteration) until each month's mean of the curve equals its normal.
  3. Day-to-day weather: an AR(1) anomaly a(d) (lag-1 correlation 0.7, standard deviation from
     4 K in January to 2.5 K in July, estimates for a mid-latitude coastal city), with each month's
     mean anomaly removed so that the monthly means of the daily maxima and minima stay the
     normals. The dew point takes 0.8 a(d) plus its own AR(1) noise (0.7, 1.5 K), also with zero
     monthly mean.
  4. Hours: T(h) = T_max(d) - f(h) (T_max(d) - T_min(d)) with f the ASHRAE fraction-of-daily-range
     profile (ASHRAE Handbook - Fundamentals 2009 ch. 14; the same profile as
     data/weather/hot-day-sample.csv), so each day's hottest hour is its maximum and its coolest
     hour its minimum. The dew point is the day's value, capped at the hour's dry bulb (saturated
     air, fog).
  5. Station pressure: the standard atmosphere at the station elevation (ASHRAE Fundamentals ch. 1)
     plus a synoptic AR(1) anomaly (lag-1 correlation 0.9 per day, 0.7 kPa), interpolated linearly
     between the days' noons.
  6. Relative humidity 100 p_ws(T_dew) / p_ws(T); p_ws by Hyland and Wexler (ASHRAE Fundamentals
     2017 ch. 1 eqs. 5 and 6).
Every other field (radiation, wind, sky, precipitation) carries the EPW missing-value code.
"""

import math
import os
import sys

# ---------------------------------------------------------------------------------------------
# Sources (data/weather/README.md)

STATION = {
    "city": "New York Central Park SYNTHETIC",
    "state": "NY",
    "country": "USA",
    "source": "RackTwin synthetic from NOAA monthly normals",
    "wmo": "999999",           # no station number: the file is not a station's record
    "latitude": 40.78,         # [E] Belvedere Castle, Central Park
    "longitude": -73.97,       # [E]
    "time_zone": -5.0,         # US Eastern Standard Time
    "elevation_m": 40.0,       # [E] Vista Rock, Central Park; 10 m changes p by 0.12 kPa
}

# NOAA normals for New York (Belvedere Castle, Central Park) as tabulated in the climate box at
# https://en.wikipedia.org/wiki/User:Synon0/usaweatherbox [S]: mean daily maximum and minimum (degF)
# and average relative humidity (%, 1961-1990).
T_MAX_DEGF = [38.3, 41.6, 49.7, 61.2, 70.8, 79.3, 84.1, 82.6, 75.2, 63.8, 53.8, 43.0]
T_MIN_DEGF = [26.9, 28.9, 35.2, 44.8, 54.0, 63.6, 68.8, 67.8, 60.8, 50.0, 41.6, 32.0]
RH_PERCENT = [61.5, 60.2, 58.5, 55.3, 62.7, 65.2, 64.2, 66.0, 67.8, 65.6, 64.6, 64.1]

# ASHRAE fraction of the daily range below the day's maximum, hours 1..24 (hot-day-sample.csv).
DAILY_RANGE_FRACTION = [0.88, 0.92, 0.95, 0.98, 1.00, 0.98, 0.91, 0.74, 0.55, 0.38, 0.23, 0.13,
                        0.05, 0.00, 0.00, 0.06, 0.14, 0.24, 0.39, 0.50, 0.59, 0.68, 0.75, 0.82]

DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
YEAR = 2001  # a non-leap year starting on a Monday; the file is a typical year, not 2001's weather
SEED = 20010101

# Estimates of the synthetic weather's variability [E] (see the module comment).
ANOMALY_CORRELATION = 0.7
ANOMALY_SD_WINTER_K = 4.0
ANOMALY_SD_SUMMER_K = 2.5
DEW_COUPLING = 0.8
DEW_NOISE_SD_K = 1.5
PRESSURE_CORRELATION = 0.9
PRESSURE_SD_PA = 700.0

# EPW missing-value codes of the fields after station pressure (fields 11..35).
MISSING_TAIL = ("9999,9999,9999,9999,9999,9999,999999,999999,999999,9999,999,999,99,99,9999,"
                "99999,9,999999999,999,0.999,999,99,999,999,99")


def f_to_c(f):
    return (f - 32.0) * 5.0 / 9.0


def saturation_pressure(t_c):
    """Pa over ice below 0 degC, over water from 0 degC (Hyland and Wexler)."""
    t = t_c + 273.15
    if t < 273.15:
        ln_p = (-5.6745359e3 / t + 6.3925247 - 9.6778430e-3 * t + 6.2215701e-7 * t ** 2
                + 2.0747825e-9 * t ** 3 - 9.4840240e-13 * t ** 4 + 4.1635019 * math.log(t))
    else:
        ln_p = (-5.8002206e3 / t + 1.3914993 - 4.8640239e-2 * t + 4.1764768e-5 * t ** 2
                - 1.4452093e-8 * t ** 3 + 6.5459673 * math.log(t))
    return math.exp(ln_p)


def dew_point(p_w):
    lo, hi = -100.0, 100.0
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        if saturation_pressure(mid) < p_w:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def standard_pressure(z_m):
    return 101325.0 * (1.0 - 2.25577e-5 * z_m) ** 5.2559


class Random:
    """splitmix64: the same sequence everywhere (no dependence on a library's generator)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def uniform(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        return ((z >> 11) + 0.5) / float(1 << 53)  # in (0, 1)

    def normal(self):
        u1, u2 = self.uniform(), self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def month_of_day():
    months = []
    for m, n in enumerate(DAYS_IN_MONTH):
        months += [m] * n
    return months


def daily_curve(monthly):
    """A periodic piecewise-linear daily curve whose monthly means are `monthly`."""
    starts = [sum(DAYS_IN_MONTH[:m]) for m in range(12)]
    mids = [starts[m] + DAYS_IN_MONTH[m] / 2.0 for m in range(12)]
    months = month_of_day()

    def curve(anchors):
        values = []
        for d in range(365):
            x = d + 0.5  # the day's middle
            # The anchors around x, periodic over the year (-1: December of the year before).
            a = max([i for i in range(12) if mids[i] <= x], default=-1)
            b = a + 1
            xa = mids[a] if a >= 0 else mids[11] - 365.0
            xb = mids[b] if b < 12 else mids[0] + 365.0
            ya, yb = anchors[a % 12], anchors[b % 12]
            values.append(ya + (x - xa) / (xb - xa) * (yb - ya))
        return values

    anchors = list(monthly)
    for _ in range(200):
        values = curve(anchors)
        means = [0.0] * 12
        for d, v in enumerate(values):
            means[months[d]] += v / DAYS_IN_MONTH[months[d]]
        anchors = [anchors[m] + (monthly[m] - means[m]) for m in range(12)]
    return curve(anchors)


def ar1(rng, n, correlation, sd_of_day):
    x, out = 0.0, []
    for d in range(n):
        innovation = math.sqrt(1.0 - correlation ** 2) * rng.normal()
        x = correlation * x + innovation
        out.append(x * sd_of_day(d))
    return out


def zero_monthly_mean(values):
    months = month_of_day()
    means = [0.0] * 12
    for d, v in enumerate(values):
        means[months[d]] += v / DAYS_IN_MONTH[months[d]]
    return [v - means[months[d]] for d, v in enumerate(values)]


def build_records():
    t_max = [f_to_c(f) for f in T_MAX_DEGF]
    t_min = [f_to_c(f) for f in T_MIN_DEGF]
    dew_normal = [dew_point(RH_PERCENT[m] / 100.0 * saturation_pressure(0.5 * (t_max[m] + t_min[m])))
                  for m in range(12)]
    max_day, min_day, dew_day = daily_curve(t_max), daily_curve(t_min), daily_curve(dew_normal)

    rng = Random(SEED)
    mid = 0.5 * (ANOMALY_SD_WINTER_K + ANOMALY_SD_SUMMER_K)
    half = 0.5 * (ANOMALY_SD_WINTER_K - ANOMALY_SD_SUMMER_K)
    anomaly = zero_monthly_mean(ar1(rng, 365, ANOMALY_CORRELATION,
                                    lambda d: mid + half * math.cos(2.0 * math.pi * (d - 15) / 365.0)))
    dew_noise = zero_monthly_mean(ar1(rng, 365, ANOMALY_CORRELATION, lambda d: DEW_NOISE_SD_K))
    pressure_anomaly = ar1(rng, 366, PRESSURE_CORRELATION, lambda d: PRESSURE_SD_PA)
    p0 = standard_pressure(STATION["elevation_m"])

    records = []
    months = month_of_day()
    for d in range(365):
        month = months[d] + 1
        day = d - sum(DAYS_IN_MONTH[:month - 1]) + 1
        hi, lo = max_day[d] + anomaly[d], min_day[d] + anomaly[d]
        dew = dew_day[d] + DEW_COUPLING * anomaly[d] + dew_noise[d]
        for hour in range(1, 25):
            t = hi - DAILY_RANGE_FRACTION[hour - 1] * (hi - lo)
            t = round(t, 1)
            td = min(round(dew, 1), t)
            # Pressure: linear between the noons (hour 12) of consecutive days; the anomaly of
            # the day before 1 January is the last one drawn.
            if hour >= 12:
                w, before, after = (hour - 12) / 24.0, pressure_anomaly[d], pressure_anomaly[d + 1]
            else:
                w, before, after = (hour + 12) / 24.0, pressure_anomaly[d - 1], pressure_anomaly[d]
            p = p0 + (1.0 - w) * before + w * after
            rh = 100.0 * saturation_pressure(td) / saturation_pressure(t)
            records.append((month, day, hour, t, td, round(rh), round(p)))
    return records


def header_lines():
    s = STATION
    return [
        "LOCATION,%s,%s,%s,%s,%s,%.2f,%.2f,%.1f,%.1f" % (
            s["city"], s["state"], s["country"], s["source"], s["wmo"], s["latitude"],
            s["longitude"], s["time_zone"], s["elevation_m"]),
        "DESIGN CONDITIONS,0",
        "TYPICAL/EXTREME PERIODS,0",
        "GROUND TEMPERATURES,0",
        "HOLIDAYS/DAYLIGHT SAVINGS,No,0,0,0",
        "COMMENTS 1,SYNTHETIC typical year for demonstration only - NOT measured weather. Made by "
        "tools/make_sample_epw.py from NOAA monthly normals of New York Central Park "
        "(data/weather/README.md)",
        "COMMENTS 2,Only dry bulb - dew point - relative humidity and station pressure are set; "
        "every other field holds its EPW missing-value code",
        "DATA PERIODS,1,1,Data,Monday,1/1,12/31",
    ]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "data", "weather",
                                                             "new-york-synthetic.epw")
    lines = header_lines()
    for month, day, hour, t, td, rh, p in build_records():
        lines.append("%d,%d,%d,%d,0,*,%.1f,%.1f,%d,%d,%s" % (
            YEAR, month, day, hour, t, td, rh, p, MISSING_TAIL))
    with open(out, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s (%d records)" % (out, len(lines) - 8))


if __name__ == "__main__":
    main()

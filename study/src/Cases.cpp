// The cases of a sweep file: parameter points from the design, then per point the unfaulted case
// and the fault cases (docs/capacity.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioPatch.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::study {
namespace {

using scenarios::ScenarioPatch;
using scenarios::SweepDesign;
using scenarios::SweepParameter;
using scenarios::SweepSpec;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A uniform number in [0, 1) from 53 bits of the stream (the same on every platform, unlike
/// std::uniform_real_distribution).
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

/// 0 .. n-1 shuffled by Fisher-Yates with the stream.
std::vector<std::size_t> permutation(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::size_t> p(n);
  for (std::size_t i = 0; i < n; ++i)
    p[i] = i;
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng() % i);
    std::swap(p[i - 1], p[j]);
  }
  return p;
}

std::string number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

double leadingNumber(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  return end == begin ? kNaN : v;
}

/// One parameter's choice at a point: a value index, or a number drawn from its range.
struct Choice {
  std::size_t value = 0;
  double drawn = 0.0;
};

void addParameter(const SweepParameter& p, const Choice& c, SweepCase& out) {
  if (p.is_range) {
    const std::string text = number(c.drawn) + (p.unit.empty() ? "" : " " + p.unit);
    out.patches.push_back({p.keys.front(), text});
    out.parameter_text.push_back(text);
    out.parameter_number.push_back(c.drawn);
    return;
  }
  const std::vector<std::string>& tuple = p.values[c.value];
  for (std::size_t k = 0; k < p.keys.size(); ++k)
    out.patches.push_back({p.keys[k], tuple[k]});
  std::string text;
  if (!p.labels.empty()) {
    text = p.labels[c.value];
  } else {
    for (const std::string& v : tuple)
      text += (text.empty() ? "" : ", ") + v;
  }
  out.parameter_text.push_back(text);
  out.parameter_number.push_back(leadingNumber(tuple.front()));
}

/// A value of a parameter for a stratum position t in [0, 1).
Choice choose(const SweepParameter& p, double t) {
  Choice c;
  if (p.is_range) {
    if (p.integer) {
      const double span = std::floor(p.to) - std::ceil(p.from) + 1.0;
      c.drawn = std::min(std::ceil(p.from) + std::floor(t * span), std::floor(p.to));
    } else {
      c.drawn = p.from + t * (p.to - p.from);
    }
  } else {
    c.value = std::min(static_cast<std::size_t>(t * static_cast<double>(p.values.size())),
                       p.values.size() - 1);
  }
  return c;
}

std::vector<std::vector<Choice>> parameterPoints(const SweepSpec& spec, std::mt19937_64& rng) {
  const std::vector<SweepParameter>& ps = spec.parameters;
  std::vector<std::vector<Choice>> points;
  switch (spec.design) {
    case SweepDesign::Grid: {
      std::vector<Choice> point(ps.size());
      // Odometer over the parameters, the last one fastest.
      for (;;) {
        points.push_back(point);
        std::size_t k = ps.size();
        while (k > 0) {
          --k;
          if (++point[k].value < ps[k].values.size()) break;
          point[k].value = 0;
          if (k == 0) return points;
        }
        if (ps.empty()) return points;
      }
    }
    case SweepDesign::List: {
      const std::size_t n = ps.empty() ? 1 : ps.front().values.size();
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<Choice> point(ps.size());
        for (Choice& c : point)
          c.value = i;
        points.push_back(point);
      }
      return points;
    }
    case SweepDesign::LatinHypercube: {
      // Each parameter's range cut into `samples` strata, each stratum drawn once, the strata
      // matched across parameters by independent permutations (McKay, Beckman, Conover 1979).
      const std::size_t n = spec.samples;
      points.assign(n, std::vector<Choice>(ps.size()));
      for (std::size_t k = 0; k < ps.size(); ++k) {
        const std::vector<std::size_t> strata = permutation(n, rng);
        for (std::size_t i = 0; i < n; ++i) {
          const double t = (static_cast<double>(strata[i]) + uniform(rng)) / static_cast<double>(n);
          points[i][k] = choose(ps[k], t);
        }
      }
      return points;
    }
    case SweepDesign::MonteCarlo: {
      points.assign(spec.samples, std::vector<Choice>(ps.size()));
      for (std::size_t i = 0; i < spec.samples; ++i)
        for (std::size_t k = 0; k < ps.size(); ++k)
          points[i][k] = choose(ps[k], uniform(rng));
      return points;
    }
  }
  return points;
}

struct Fault {
  std::string kind;
  std::string label;
  ScenarioPatch patch;
};

/// The single faults of a site of the given kinds: every CDU lost, one pump of every CDU
/// tripped, every rack's A and B feed lost.
std::vector<Fault> singleFaults(const core::SiteSpec& site, const std::vector<std::string>& kinds,
                                double at) {
  std::vector<Fault> out;
  const std::string when = number(at) + " s";
  const auto has = [&kinds](const char* k) {
    return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
  };
  if (has("cdu")) {
    for (const core::CduSpec& c : site.cdus) {
      out.push_back(
          {"cdu",
           "cdu_loss " + c.id.str() + " at " + when,
           {"events[+]", "{at: " + when + ", action: cdu_loss, target: " + c.id.str() + "}"}});
    }
  }
  if (has("pump")) {
    for (const core::CduSpec& c : site.cdus) {
      out.push_back(
          {"pump",
           "pump_trip " + c.id.str() + " at " + when,
           {"events[+]", "{at: " + when + ", action: pump_trip, target: " + c.id.str() + "}"}});
    }
  }
  if (has("feed")) {
    for (const core::RackSpec& r : site.racks) {
      for (const char* side : {"a", "b"}) {
        out.push_back({"feed",
                       "feed_loss " + r.id.str() + " " + side + " at " + when,
                       {"events[+]", "{at: " + when + ", action: feed_loss, target: " + r.id.str()
                                         + ", feed: " + side + "}"}});
      }
    }
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, ScenarioPatch>> singleFaultPatches(
    const SweepSpec& spec, const std::vector<ScenarioPatch>& patches,
    const std::vector<std::string>& kinds) {
  const core::SiteSpec site =
      scenarios::loadPatchedScenario(spec.base_text, spec.base_path, patches);
  std::vector<std::pair<std::string, ScenarioPatch>> out;
  for (Fault& f : singleFaults(site, kinds, spec.faults.at))
    out.emplace_back(std::move(f.label), std::move(f.patch));
  return out;
}

std::vector<SweepCase> sweepCases(const SweepSpec& spec) {
  std::mt19937_64 rng(spec.seed);
  const std::vector<std::vector<Choice>> points = parameterPoints(spec, rng);
  std::vector<SweepCase> cases;
  for (std::size_t point = 0; point < points.size(); ++point) {
    SweepCase base;
    base.point = point;
    base.patches = spec.set;
    for (std::size_t k = 0; k < spec.parameters.size(); ++k)
      addParameter(spec.parameters[k], points[point][k], base);
    const scenarios::SweepFaults& f = spec.faults;
    std::vector<SweepCase> made;
    if (!f.present || f.unfaulted) made.push_back(base);
    if (f.present && (!f.n_minus_1.empty() || f.random_k > 0)) {
      std::vector<Fault> singles, pool;
      try {
        const core::SiteSpec site =
            scenarios::loadPatchedScenario(spec.base_text, spec.base_path, base.patches);
        singles = singleFaults(site, f.n_minus_1, f.at);
        pool = singleFaults(site, f.random_of, f.at);
      } catch (const core::Error&) {
        // The point does not load: its unfaulted case reports why when it runs.
        if (made.empty()) made.push_back(base);
      }
      for (const Fault& fault : singles) {
        SweepCase c = base;
        c.patches.push_back(fault.patch);
        c.fault = fault.label;
        made.push_back(std::move(c));
      }
      if (f.random_k > 0 && pool.size() >= f.random_k) {
        for (std::size_t d = 0; d < f.random_draws; ++d) {
          std::vector<std::size_t> pick = permutation(pool.size(), rng);
          pick.resize(f.random_k);
          std::sort(pick.begin(), pick.end());
          SweepCase c = base;
          for (const std::size_t i : pick) {
            c.patches.push_back(pool[i].patch);
            c.fault += (c.fault.empty() ? "" : " + ") + pool[i].label;
          }
          made.push_back(std::move(c));
        }
      }
    }
    for (SweepCase& c : made) {
      c.index = cases.size();
      char id[32];
      std::snprintf(id, sizeof id, "case-%04zu", c.index);
      c.id = id;
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace racktwin::study

#pragma once
// Where each summary item is shown: the headline answers first, then one section per domain.
//
// The models add their summary items in the order they run (Model::summarise), which buries the
// answers a design is judged by. This table is the one place that orders them for people: the
// printed summary of `racktwin run`, `racktwin report` and the GUI read it, and the models'
// summarise() code stays as it is. A result file holds the summary's values only (the JSON
// attribute), so the table also carries each key's label and display unit for readers of files;
// a test checks them against what the models say for every shipped scenario, and that every key a
// shipped scenario produces has a row, so a new key cannot silently fall out of the report.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace racktwin::report {

enum class SummarySection {
  Headline,       // the answers: design limits, max GPU temperature, ride-through, PUE, WUE, peak
  DesignLimits,   // design limits and headroom (docs/capacity.md)
  Thermal,        // chips: throttling, shut-downs
  SecondaryLoop,  // the secondary coolant loops at design conditions
  Heat,           // heat in and where it went
  FacilityPlant,  // facility pumps, heat rejection, chiller, water
  FacilityPower,  // IT and facility energy and power, PUE
  Distribution,   // PSUs, the power tree, UPS, generators, smoothing
  Training,       // training jobs
  Inference,      // inference servers
  ScheduledJobs,  // the job queue and each scheduled job
  Checks,         // energy audit and balances, input warnings, solver trouble
  Run,            // what was simulated
  Other,          // a key the table does not know (shown last, never dropped)
};

struct SummaryKeyLayout {
  // The key, or a pattern with '*' standing for any text (job ids, rack ids, element kinds).
  std::string_view key;
  SummarySection section;
  int headline;  // the order among the headline answers (1 first); 0: not a headline
  // Label for people; "{1}", "{2}" are replaced by the text the '*'s matched. A model may append
  // a qualifier to its own label (" (after the first minute)").
  std::string_view label;
  std::string_view display_unit;  // "degC", "kWh", "" ...
  double display_scale;           // shown = value * scale + offset
  double display_offset;
  bool heat;  // heat rather than electrical energy (US units: ton-hours)
};

/// Every row of the table, in the order sections show their items.
std::span<const SummaryKeyLayout> summaryKeyLayouts() noexcept;

/// The row of a key (the first whose key or pattern matches); nullptr when none does.
const SummaryKeyLayout* findSummaryKeyLayout(std::string_view key) noexcept;

/// The row's label with its '*' matches put in.
std::string summaryLabel(const SummaryKeyLayout& layout, std::string_view key);

std::string_view sectionTitle(SummarySection section) noexcept;
/// Sections that describe something a scenario may not have (a facility plant, inference, a job
/// queue, a power tree) are left out when every value in them is 0 or null.
bool sectionOmittedWhenEmpty(SummarySection section) noexcept;

/// One section of an arranged summary: indices into the items given to arrangeSummary.
struct SummaryGroup {
  SummarySection section;
  std::vector<std::size_t> items;
};

/// A summary as people read it: the headline answers (in headline order), then each section in
/// declaration order with its items in table order (items of one pattern in the models' order);
/// unknown keys in Other; sections with nothing in them left out.
std::vector<SummaryGroup> arrangeSummary(std::span<const std::string> keys,
                                         std::span<const std::optional<double>> values);

}  // namespace racktwin::report

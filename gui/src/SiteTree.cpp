#include "SiteTree.hpp"

#include <map>

#include "racktwin/core/SiteState.hpp"
#include "racktwin/scenarios/FloorPlan.hpp"

namespace racktwin::gui {

namespace {

QString leafOf(const std::string& id) {
  const std::size_t slash = id.rfind('/');
  return QString::fromStdString(slash == std::string::npos ? id : id.substr(slash + 1));
}

std::string parentOf(const std::string& id) {
  const std::size_t slash = id.rfind('/');
  return slash == std::string::npos ? std::string() : id.substr(0, slash);
}

QString celsius(double T) {
  return QString::number(T - 273.15, 'f', 1) + " °C";
}

}  // namespace

SiteTreeModel::SiteTreeModel(QObject* parent) : QStandardItemModel(parent) {
  setHorizontalHeaderLabels({"Site"});
}

QStandardItem* SiteTreeModel::add(QStandardItem* parent, const QString& text, const QString& id,
                                  EntityKind kind) {
  auto* item = new QStandardItem(text);
  item->setEditable(false);
  item->setData(id, IdRole);
  item->setData(static_cast<int>(kind), KindRole);
  item->setData(text + " " + id, SearchRole);
  if (!id.isEmpty()) item->setToolTip(id);
  parent->appendRow(item);
  if (!id.isEmpty() && kind != EntityKind::Group && !items_.contains(id)) items_.insert(id, item);
  return item;
}

QModelIndex SiteTreeModel::indexOf(const QString& id) {
  auto it = items_.find(id);
  if (it == items_.end()) {
    // A tray or chip of a rack not opened yet: open the rack its id starts with.
    QString prefix = id;
    for (int slash = prefix.lastIndexOf('/'); slash > 0; slash = prefix.lastIndexOf('/')) {
      prefix.truncate(slash);
      const auto rack = items_.find(prefix);
      if (rack == items_.end()) continue;
      const int r = unopenedRack(indexFromItem(rack.value()));
      if (r >= 0) openRack(static_cast<std::size_t>(r));
      break;
    }
    it = items_.find(id);
  }
  return it == items_.end() ? QModelIndex() : indexFromItem(it.value());
}

int SiteTreeModel::unopenedRack(const QModelIndex& index) const {
  if (!index.isValid() || index.data(KindRole).toInt() != static_cast<int>(EntityKind::Rack)) {
    return -1;
  }
  const QVariant rack = index.data(RackIndexRole);
  if (!rack.isValid()) return -1;
  const int r = rack.toInt();
  return r >= 0 && static_cast<std::size_t>(r) < opened_.size() && !opened_[r] ? r : -1;
}

bool SiteTreeModel::hasChildren(const QModelIndex& parent) const {
  return unopenedRack(parent) >= 0 || QStandardItemModel::hasChildren(parent);
}

bool SiteTreeModel::canFetchMore(const QModelIndex& parent) const {
  return unopenedRack(parent) >= 0 || QStandardItemModel::canFetchMore(parent);
}

void SiteTreeModel::fetchMore(const QModelIndex& parent) {
  const int r = unopenedRack(parent);
  if (r >= 0) openRack(static_cast<std::size_t>(r));
}

void SiteTreeModel::openRack(std::size_t r) {
  opened_[r] = true;
  QStandardItem* rack = rack_items_[r];
  // A chip's parent is its tray, the tray's the rack: compute trays in GPU order (a tray's CPUs
  // join the tray its GPUs made), then the switch trays.
  std::map<std::string, QStandardItem*> trays;
  const auto chip = [&](const std::string& id, const char* what) {
    const std::string tray = parentOf(id);
    auto it = trays.find(tray);
    if (it == trays.end()) {
      it = trays
               .emplace(tray,
                        add(rack, leafOf(tray), QString::fromStdString(tray), EntityKind::Tray))
               .first;
    }
    add(it->second, leafOf(id) + "  ·  " + what, QString::fromStdString(id), EntityKind::Chip);
  };
  const auto range = [&](const std::vector<std::uint32_t>& begin,
                         const std::vector<std::string>& ids, const char* what) {
    for (std::uint32_t k = begin[r]; k < begin[r + 1]; ++k)
      chip(ids[k], what);
  };
  range(layout_.rack_gpu_begin, layout_.gpu_ids, "GPU");
  range(layout_.rack_cpu_begin, layout_.cpu_ids, "CPU");
  range(layout_.rack_switch_begin, layout_.switch_ids, "NVSwitch");
}

bool SiteTreeModel::unopenedRackMatches(const QModelIndex& index,
                                        const QRegularExpression& pattern) {
  const int r = unopenedRack(index);
  if (r < 0) return false;
  if (rack_search_.empty()) rack_search_.resize(rack_items_.size());
  QString& text = rack_search_[static_cast<std::size_t>(r)];
  if (text.isEmpty()) {
    // The SearchRole texts openRack would give the trays and chips, one a line.
    std::string lines;
    std::string last_tray;
    const auto chip = [&](const std::string& id, const char* what) {
      const std::string tray = parentOf(id);
      if (tray != last_tray) {
        lines += leafOf(tray).toStdString() + " " + tray + "\n";
        last_tray = tray;
      }
      lines += leafOf(id).toStdString() + "  ·  " + what + " " + id + "\n";
    };
    const auto range = [&](const std::vector<std::uint32_t>& begin,
                           const std::vector<std::string>& ids, const char* what) {
      const auto rack = static_cast<std::size_t>(r);
      for (std::uint32_t k = begin[rack]; k < begin[rack + 1]; ++k)
        chip(ids[k], what);
    };
    range(layout_.rack_gpu_begin, layout_.gpu_ids, "GPU");
    range(layout_.rack_cpu_begin, layout_.cpu_ids, "CPU");
    range(layout_.rack_switch_begin, layout_.switch_ids, "NVSwitch");
    text = QString::fromStdString(lines);
  }
  // One search over the rack's text rejects most racks at once; a hit is confirmed line by line,
  // as the filter matches one item's text.
  if (!pattern.match(text).hasMatch()) return false;
  for (const QStringView line : QStringView(text).split('\n', Qt::SkipEmptyParts)) {
    if (pattern.match(line).hasMatch()) return true;
  }
  return false;
}

void SiteTreeModel::build(const core::SiteSpec& site) {
  clear();
  items_.clear();
  rack_items_.clear();
  opened_.clear();
  rack_search_.clear();
  setHorizontalHeaderLabels({"Site"});
  QStandardItem* root = invisibleRootItem();
  QStandardItem* site_item =
      add(root, QString::fromStdString(site.name), QString(), EntityKind::Site);

  // Rows of the floor plan (racks sharing an id prefix), in their halls when there are several.
  const core::FloorPlanSpec floor = scenarios::floorPlanOf(site);
  layout_ = core::SiteLayout::build(site);
  rack_items_.assign(site.racks.size(), nullptr);
  opened_.assign(site.racks.size(), false);
  QStandardItem* rows =
      add(site_item, floor.halls.size() > 1 ? "Halls" : "Rows", QString(), EntityKind::Group);
  for (const core::FloorHallSpec& hall : floor.halls) {
    QStandardItem* parent = floor.halls.size() > 1
                                ? add(rows, QString::fromStdString(hall.id),
                                      QString::fromStdString(hall.id), EntityKind::Group)
                                : rows;
    for (const std::uint32_t k : hall.rows) {
      const core::FloorRowSpec& row = floor.rows[k];
      QStandardItem* row_item = add(parent, QString::fromStdString(row.id),
                                    QString::fromStdString(row.id), EntityKind::Row);
      for (const std::uint32_t r : row.racks) {
        const core::RackSpec& rack = site.racks[r];
        const QString text =
            leafOf(rack.id.str()) + "  ·  " + QString::fromStdString(rack.type.type);
        rack_items_[r] =
            add(row_item, text, QString::fromStdString(rack.id.str()), EntityKind::Rack);
        rack_items_[r]->setData(static_cast<int>(r), RackIndexRole);
      }
    }
  }

  QStandardItem* cdus = add(site_item, "CDUs", QString(), EntityKind::Group);
  for (const core::CduSpec& cdu : site.cdus) {
    const QString text = QString::fromStdString(cdu.id.str()) + "  ·  "
                         + QString::fromStdString(cdu.type) + ", set-point "
                         + celsius(cdu.T_supply_set);
    add(cdus, text, QString::fromStdString(cdu.id.str()), EntityKind::Cdu);
  }

  QStandardItem* loops = add(site_item, "Coolant loops", QString(), EntityKind::Group);
  std::map<std::string, std::vector<const core::RackSpec*>> racks_of_cdu;
  for (const core::RackSpec& rack : site.racks)
    racks_of_cdu[rack.cdu].push_back(&rack);
  for (const core::CduSpec& cdu : site.cdus) {
    bool on_ring = false;
    for (const core::SecondaryRingSpec& ring : site.rings) {
      for (const std::string& tap : ring.taps)
        on_ring = on_ring || tap == cdu.id.str();
    }
    if (on_ring) continue;
    QStandardItem* loop = add(loops, "Secondary loop of " + QString::fromStdString(cdu.id.str()),
                              QString::fromStdString(cdu.id.str()), EntityKind::Cdu);
    for (const core::RackSpec* rack : racks_of_cdu[cdu.id.str()]) {
      add(loop, QString::fromStdString(rack->id.str()), QString::fromStdString(rack->id.str()),
          EntityKind::Rack);
    }
  }
  for (const core::SecondaryRingSpec& ring : site.rings) {
    QStandardItem* loop = add(loops, "Ring " + QString::fromStdString(ring.id.str()),
                              QString::fromStdString(ring.id.str()), EntityKind::Ring);
    for (const std::string& tap : ring.taps)
      add(loop, QString::fromStdString(tap), QString::fromStdString(tap), EntityKind::Group);
  }
  const std::vector<core::FacilityLoopView> facility_loops = core::facilityLoopsOf(site);
  if (facility_loops.size() > 1) {
    QStandardItem* facility = add(loops, "Facility water loops", "facility", EntityKind::Facility);
    for (const core::FacilityLoopView& loop : facility_loops) {
      add(facility,
          QString::fromStdString(loop.id) + " (supply set-point " + celsius(loop.T_supply) + ", "
              + QString::number(loop.cdus.size()) + " CDUs)",
          "facility", EntityKind::Facility);
    }
  } else {
    const QString facility_text =
        facility_loops.size() == 1
            ? "Facility water loop (supply set-point " + celsius(facility_loops.front().T_supply)
                  + ")"
            : "Facility water at " + celsius(site.facility.T_supply) + " (boundary)";
    add(loops, facility_text, "facility", EntityKind::Facility);
  }

  QStandardItem* feeds = add(site_item, "Electrical feeds", QString(), EntityKind::Group);
  std::map<std::string, std::vector<const core::RackFeedSpec*>> feeds_of_rack;
  for (const core::RackFeedSpec& feed : site.electrical.rack_feeds)
    feeds_of_rack[feed.rack].push_back(&feed);
  for (const core::RackSpec& rack : site.racks) {
    QString text = QString::fromStdString(rack.id.str()) + "  ·  A + B";
    for (const core::RackFeedSpec* feed_of : feeds_of_rack[rack.id.str()]) {
      const core::RackFeedSpec& feed = *feed_of;
      const QString a = feed.parent_a.empty() ? "MV bus" : QString::fromStdString(feed.parent_a);
      const QString b = feed.parent_b.empty() ? "MV bus" : QString::fromStdString(feed.parent_b);
      text = QString::fromStdString(rack.id.str())
             + (feed.dual ? "  ·  A: " + a + ", B: " + b : "  ·  A: " + a + " (single-corded)");
    }
    add(feeds, text, QString::fromStdString(rack.id.str()), EntityKind::Feed);
  }
}

void SiteTreeModel::buildFromIds(const QString& site_name, const std::vector<std::string>& rack_ids,
                                 const std::vector<std::string>& cdu_ids) {
  clear();
  items_.clear();
  rack_items_.clear();
  opened_.clear();
  rack_search_.clear();
  layout_ = {};
  setHorizontalHeaderLabels({"Site"});
  QStandardItem* site_item = add(invisibleRootItem(), site_name, QString(), EntityKind::Site);
  QStandardItem* rows = add(site_item, "Rows", QString(), EntityKind::Group);
  std::map<std::string, QStandardItem*> row_items;
  for (const std::string& id : rack_ids) {
    const std::string row = parentOf(id);
    auto it = row_items.find(row);
    if (it == row_items.end())
      it = row_items
               .emplace(row, add(rows,
                                 row.empty() ? QString("(racks without a row)")
                                             : QString::fromStdString(row),
                                 QString::fromStdString(row), EntityKind::Row))
               .first;
    add(it->second, leafOf(id), QString::fromStdString(id), EntityKind::Rack);
  }
  QStandardItem* cdus = add(site_item, "CDUs", QString(), EntityKind::Group);
  for (const std::string& id : cdu_ids)
    add(cdus, QString::fromStdString(id), QString::fromStdString(id), EntityKind::Cdu);
}

SiteTreeFilter::SiteTreeFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setFilterRole(SiteTreeModel::SearchRole);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
  setRecursiveFilteringEnabled(true);
  setAutoAcceptChildRows(true);
}

bool SiteTreeFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
  if (QSortFilterProxyModel::filterAcceptsRow(row, parent)) return true;
  auto* model = qobject_cast<SiteTreeModel*>(sourceModel());
  if (model == nullptr || filterRegularExpression().pattern().isEmpty()) return false;
  return model->unopenedRackMatches(model->index(row, 0, parent), filterRegularExpression());
}

}  // namespace racktwin::gui

#include "SiteTree.hpp"

#include <map>

#include "racktwin/core/SiteState.hpp"

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

QModelIndex SiteTreeModel::indexOf(const QString& id) const {
  const auto it = items_.find(id);
  return it == items_.end() ? QModelIndex() : indexFromItem(it.value());
}

void SiteTreeModel::build(const core::SiteSpec& site) {
  clear();
  items_.clear();
  setHorizontalHeaderLabels({"Site"});
  QStandardItem* root = invisibleRootItem();
  QStandardItem* site_item =
      add(root, QString::fromStdString(site.name), QString(), EntityKind::Site);

  // Rows: racks grouped by the parent of their id ("row1" of "row1/rack01").
  QStandardItem* rows = add(site_item, "Rows", QString(), EntityKind::Group);
  std::map<std::string, QStandardItem*> row_items;
  std::map<std::string, QStandardItem*> rack_items;
  for (const core::RackSpec& rack : site.racks) {
    const std::string row = parentOf(rack.id.str());
    auto it = row_items.find(row);
    if (it == row_items.end()) {
      const QString name =
          row.empty() ? QString("(racks without a row)") : QString::fromStdString(row);
      it = row_items.emplace(row, add(rows, name, QString::fromStdString(row), EntityKind::Row))
               .first;
    }
    QString text = leafOf(rack.id.str()) + "  ·  " + QString::fromStdString(rack.type.type);
    rack_items[rack.id.str()] =
        add(it->second, text, QString::fromStdString(rack.id.str()), EntityKind::Rack);
  }

  // Trays and chips from the layout's ids: a chip's parent is its tray, the tray's its rack.
  const core::SiteLayout layout = core::SiteLayout::build(site);
  std::map<std::string, QStandardItem*> tray_items;
  auto chip = [&](const std::string& id, const char* what) {
    const std::string tray = parentOf(id);
    auto tray_it = tray_items.find(tray);
    if (tray_it == tray_items.end()) {
      const auto rack_it = rack_items.find(parentOf(tray));
      if (rack_it == rack_items.end()) return;
      tray_it = tray_items
                    .emplace(tray, add(rack_it->second, leafOf(tray), QString::fromStdString(tray),
                                       EntityKind::Tray))
                    .first;
    }
    add(tray_it->second, leafOf(id) + "  ·  " + what, QString::fromStdString(id), EntityKind::Chip);
  };
  // Compute trays in GPU order (a tray's CPUs join the tray its GPUs created), then switch trays.
  for (const std::string& id : layout.gpu_ids)
    chip(id, "GPU");
  for (const std::string& id : layout.cpu_ids)
    chip(id, "CPU");
  for (const std::string& id : layout.switch_ids)
    chip(id, "NVSwitch");

  QStandardItem* cdus = add(site_item, "CDUs", QString(), EntityKind::Group);
  for (const core::CduSpec& cdu : site.cdus) {
    const QString text = QString::fromStdString(cdu.id.str()) + "  ·  "
                         + QString::fromStdString(cdu.type) + ", set-point "
                         + celsius(cdu.T_supply_set);
    add(cdus, text, QString::fromStdString(cdu.id.str()), EntityKind::Cdu);
  }

  QStandardItem* loops = add(site_item, "Coolant loops", QString(), EntityKind::Group);
  for (const core::CduSpec& cdu : site.cdus) {
    bool on_ring = false;
    for (const core::SecondaryRingSpec& ring : site.rings) {
      for (const std::string& tap : ring.taps)
        on_ring = on_ring || tap == cdu.id.str();
    }
    if (on_ring) continue;
    QStandardItem* loop = add(loops, "Secondary loop of " + QString::fromStdString(cdu.id.str()),
                              QString::fromStdString(cdu.id.str()), EntityKind::Cdu);
    for (const core::RackSpec& rack : site.racks) {
      if (rack.cdu == cdu.id.str())
        add(loop, QString::fromStdString(rack.id.str()), QString::fromStdString(rack.id.str()),
            EntityKind::Rack);
    }
  }
  for (const core::SecondaryRingSpec& ring : site.rings) {
    QStandardItem* loop = add(loops, "Ring " + QString::fromStdString(ring.id.str()),
                              QString::fromStdString(ring.id.str()), EntityKind::Ring);
    for (const std::string& tap : ring.taps)
      add(loop, QString::fromStdString(tap), QString::fromStdString(tap), EntityKind::Group);
  }
  const QString facility_text =
      site.facility.loop.present
          ? "Facility water loop (supply set-point " + celsius(site.facility.T_supply) + ")"
          : "Facility water at " + celsius(site.facility.T_supply) + " (boundary)";
  add(loops, facility_text, "facility", EntityKind::Facility);

  QStandardItem* feeds = add(site_item, "Electrical feeds", QString(), EntityKind::Group);
  for (const core::RackSpec& rack : site.racks) {
    QString text = QString::fromStdString(rack.id.str()) + "  ·  A + B";
    for (const core::RackFeedSpec& feed : site.electrical.rack_feeds) {
      if (feed.rack != rack.id.str()) continue;
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

}  // namespace racktwin::gui

#pragma once
// The site tree: halls (with several), rows, racks, trays and chips, CDUs, coolant loops and
// electrical feeds, built from the SiteSpec (or, for a result whose scenario cannot be loaded,
// from its rack and CDU ids). Each item carries its component id and kind; the search field
// filters on name and id and keeps the parents of what matches.
// A rack's trays and chips are made when the rack is first opened, looked up (indexOf) or
// searched into, so a site of 300,000 GPUs builds its tree in the time of its 4,000 racks.
#include <QHash>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>

#include <string>
#include <vector>

#include "Quantities.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::gui {

class SiteTreeModel : public QStandardItemModel {
  Q_OBJECT
 public:
  enum Role { IdRole = Qt::UserRole + 1, KindRole, SearchRole, RackIndexRole };

  explicit SiteTreeModel(QObject* parent = nullptr);

  /// Rebuilds the tree from a site.
  void build(const core::SiteSpec& site);
  /// Rebuilds a flat tree from ids only.
  void buildFromIds(const QString& site_name, const std::vector<std::string>& rack_ids,
                    const std::vector<std::string>& cdu_ids);
  /// The item of a component id (the first one, for ids listed twice), or an invalid index. A
  /// tray or chip of a rack not yet opened is made first.
  QModelIndex indexOf(const QString& id);

  /// A rack whose trays and chips are not made yet: whether any of them matches `pattern`.
  bool unopenedRackMatches(const QModelIndex& index, const QRegularExpression& pattern);

  bool hasChildren(const QModelIndex& parent = QModelIndex()) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;

 private:
  QStandardItem* add(QStandardItem* parent, const QString& text, const QString& id,
                     EntityKind kind);
  /// The rack of an item not yet opened, or -1.
  int unopenedRack(const QModelIndex& index) const;
  void openRack(std::size_t rack);
  QHash<QString, QStandardItem*> items_;
  // Lazy trays and chips: the layout's ids, the rack items, which are made, and (on the first
  // search) each rack's search texts of its trays and chips, one a line.
  core::SiteLayout layout_;
  std::vector<QStandardItem*> rack_items_;
  std::vector<bool> opened_;
  std::vector<QString> rack_search_;
};

/// Filters on SearchRole (name and id), case-insensitively, keeping the parents of matches.
class SiteTreeFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit SiteTreeFilter(QObject* parent = nullptr);

 protected:
  /// Also keeps a rack whose trays and chips (not made yet) match.
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;
};

}  // namespace racktwin::gui

#pragma once
// The site tree: rows, racks, trays and chips, CDUs, coolant loops and electrical feeds, built
// from the SiteSpec (or, for a result whose scenario cannot be loaded, from its rack and CDU ids).
// Each item carries its component id and kind; the search field filters on name and id and keeps
// the parents of what matches.
#include <QHash>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>

#include <string>
#include <vector>

#include "Quantities.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::gui {

class SiteTreeModel : public QStandardItemModel {
  Q_OBJECT
 public:
  enum Role { IdRole = Qt::UserRole + 1, KindRole, SearchRole };

  explicit SiteTreeModel(QObject* parent = nullptr);

  /// Rebuilds the tree from a site.
  void build(const core::SiteSpec& site);
  /// Rebuilds a flat tree from ids only.
  void buildFromIds(const QString& site_name, const std::vector<std::string>& rack_ids,
                    const std::vector<std::string>& cdu_ids);
  /// The item of a component id (the first one, for ids listed twice), or an invalid index.
  QModelIndex indexOf(const QString& id) const;

 private:
  QStandardItem* add(QStandardItem* parent, const QString& text, const QString& id,
                     EntityKind kind);
  QHash<QString, QStandardItem*> items_;
};

/// Filters on SearchRole (name and id), case-insensitively, keeping the parents of matches.
class SiteTreeFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit SiteTreeFilter(QObject* parent = nullptr);
};

}  // namespace racktwin::gui

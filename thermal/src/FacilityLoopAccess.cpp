// CoolingModel::facilityLoops, kept apart from the cooling model's own files: the weather year's
// plant hours (FacilityLoop::summarise) are read through it by the Twin.
#include "CoolingModelImpl.hpp"
#include "racktwin/thermal/CoolingModel.hpp"
#include "racktwin/thermal/FacilityLoop.hpp"

namespace racktwin::thermal {

std::span<const std::unique_ptr<FacilityLoop>> CoolingModel::facilityLoops() const noexcept {
  return impl_->facilities;
}

}  // namespace racktwin::thermal

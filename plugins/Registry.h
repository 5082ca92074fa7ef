#pragma once

#include "capture/BackendFamily.h"

#include <memory>
#include <vector>

namespace fusescope {

// Every backend family this build knows, in the order their handles() is asked: specific families
// first, the torch.compile family last since it accepts any registered Dynamo backend name.
// An explicit list rather than static registration, which a static link can silently drop.
std::vector<std::unique_ptr<BackendFamily>> createBackendFamilies();

// Non-owning view, for CompareSession.
std::vector<BackendFamily*> familyPointers(const std::vector<std::unique_ptr<BackendFamily>>& families);

} // namespace fusescope

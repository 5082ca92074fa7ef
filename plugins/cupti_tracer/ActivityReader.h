#pragma once

#include "RecordConverter.h"

#include <cstdint>
#include <cupti.h>
#include <map>
#include <string>
#include <utility>

namespace fusescope::cupti {

// Copies the fields FuseScope uses out of one CUPTI activity record into the converter.
// This is the only code that knows CUPTI's record layouts.
class ActivityReader {
public:
    explicit ActivityReader(RecordConverter& converter)
        : m_converter(converter) {}

    // Returns false for record kinds FuseScope does not read (they are skipped).
    bool read(const CUpti_Activity* record);

private:
    const std::string& apiName(CUpti_CallbackDomain domain, uint32_t cbid);

    RecordConverter& m_converter;
    std::map<std::pair<int, uint32_t>, std::string> m_apiNames;
};

} // namespace fusescope::cupti

// The trace format's schema (docs/trace-format.md): a header line and an event line, read from
// one parsed JSON object. Internal to the reader (trace_reader.cpp); a failure throws
// json::LineError, which the reader turns into an InputError on that line.
#pragma once

#include "event.h"
#include "json_access.h"

namespace safetune::model::schema {

// Line 1, when it has a "format" field.
Header read_header(json::Object object);
// Any later line.
Event read_event(json::Object object, const Header& header);

}  // namespace safetune::model::schema

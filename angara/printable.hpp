// Text that came from a user (a job's --angara-routing value, a name in a
// request) as it may appear in a message or a log line: at most `limit`
// bytes of it, control characters and bytes outside printable ASCII
// escaped as \xNN, so a value cannot flood a log or drive a terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace angara {

// "abc", "a\x1b[31m..." or "aaaa... (10240 bytes)" past the limit.
std::string printable(std::string_view text, std::size_t limit = 64);

// Text for an XML document (SVG pictures, SimGrid platforms): & < > " '
// as entities, control characters other than tab and newline, which XML 1.0
// does not allow, as '?'.
std::string xml_escape(std::string_view text);

}  // namespace angara

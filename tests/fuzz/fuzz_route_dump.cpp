// libFuzzer harness: the route dump reader (doc/model.md, "Route dump
// format").  The first byte picks the configured torus, the rest is the
// dump.  Bad input must end in std::runtime_error "FILE:LINE: ..." (or
// std::invalid_argument); a dump that reads must write back and read again
// to the same dump.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "angara/route_dump.hpp"

namespace {

angara::Torus torus_for(std::uint8_t selector) {
  switch (selector % 4) {
    case 0: return angara::Torus::parse("4x4");
    case 1: return angara::Torus::parse("4x2x2x2").with_single_cable(angara::Torus::parse_dimension_letters("YZK"));
    case 2: return angara::Torus::parse("3x3x3");
    default: return angara::Torus::parse("4x4x4");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const angara::Torus torus = torus_for(data[0]);
  std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  angara::RouteTable table;
  try {
    table = angara::read_route_dump(in, torus, "fuzz.dump");
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).empty()) std::abort();
    return 0;
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) std::abort();
    return 0;
  }
  std::ostringstream out;
  angara::write_route_dump(out, torus, table);
  std::istringstream back(out.str());
  const angara::RouteTable again = angara::read_route_dump(back, torus, "fuzz-again.dump");
  std::ostringstream out_again;
  angara::write_route_dump(out_again, torus, again);
  if (out_again.str() != out.str()) std::abort();
  return 0;
}

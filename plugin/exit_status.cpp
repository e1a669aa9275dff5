#include "plugin/exit_status.hpp"

#include <iostream>
#include <stdexcept>

#include "angara/config.hpp"
#include "angara/table_file.hpp"
#include "plugin/live_switch.hpp"
#include "plugin/slurm_query.hpp"
#include "routing/generator.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"

namespace angara {

int exit_status_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const UnsafeSwitchError&) {
    return kExitUnsafeSwitch;
  } catch (const VerificationError&) {
    return kExitRejected;
  } catch (const RoutingError&) {
    return kExitNoRoute;
  } catch (const TableFileError&) {
    return kExitIo;
  } catch (const GeneralRulesError&) {
    return kExitGeneralRules;
  } catch (const slurm::SlurmQueryError&) {
    return kExitSlurmQuery;
  } catch (const ConfigError&) {
    return kExitInput;
  } catch (const std::invalid_argument&) {
    return kExitInput;
  } catch (...) {
    return kExitIo;
  }
}

std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const RoutingError& e) {
    return std::string("no valid routing: ") + e.what();
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unexpected error";
  }
}

namespace {
bool json_errors = false;
}

void set_json_errors(bool json) { json_errors = json; }

void print_error(const std::string& message, int exit_status) {
  if (json_errors)
    std::cout << "{\"error\":{\"exit_status\":" << exit_status << ",\"message\":" << json_quote(message) << "}}\n";
  else
    std::cerr << "angara-route: " << message << "\n";
}

}  // namespace angara

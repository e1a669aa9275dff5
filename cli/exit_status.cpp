#include "cli/exit_status.hpp"

#include <iostream>
#include <new>
#include <stdexcept>

#include "angara/config.hpp"
#include "angara/table_file.hpp"
#include "cli/live_switch.hpp"
#include "slurm/slurm_query.hpp"
#include "routing/generator.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"

namespace angara::cli {

int exit_status_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const UnsafeSwitchError&) {
    return kExitUnsafeSwitch;
  } catch (const MemoryLimitError&) {
    return kExitMemory;
  } catch (const std::bad_alloc&) {
    // Never an I/O error: the system refused memory.
    return kExitMemory;
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

int print_refusal(const Refusal& refusal, bool verbose) {
  if (json_errors) {
    std::cout << "{\"error\":{\"exit_status\":" << kExitNoRoute << ",\"message\":" << json_quote(refusal.summary)
              << ",\"refusal\":" << refusal_json(refusal) << "}}\n";
    return kExitNoRoute;
  }
  if (!verbose) {
    std::cerr << "angara-route: " << refusal.summary << "; --verbose or --json for all\n";
    return kExitNoRoute;
  }
  std::cerr << "angara-route: " << refusal.summary << "\n";
  for (const std::string& line : refusal_detail(refusal)) std::cerr << "  " << line << "\n";
  return kExitNoRoute;
}

}  // namespace angara::cli

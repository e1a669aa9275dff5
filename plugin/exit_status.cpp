#include "plugin/exit_status.hpp"

#include <stdexcept>

#include "angara/config.hpp"
#include "angara/table_file.hpp"
#include "plugin/slurm_query.hpp"
#include "routing/generator.hpp"
#include "routing/pipeline.hpp"

namespace angara {

int exit_status_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
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

}  // namespace angara

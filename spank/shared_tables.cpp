#include "spank/shared_tables.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace angara::spank {

namespace {

constexpr const char* kMagic = "angara-shared-tables 1";

void put_word(std::string& out, std::uint32_t word) {
  for (int byte = 0; byte < 4; ++byte) out.push_back(static_cast<char>((word >> (8 * byte)) & 0xFFu));
}

std::uint32_t get_word(const char* bytes) {
  std::uint32_t word = 0;
  for (int byte = 0; byte < 4; ++byte) word |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[byte])) << (8 * byte);
  return word;
}

std::string header_line(std::istream& in, const std::string& path, const std::string& key) {
  std::string line;
  if (!std::getline(in, line)) throw TableFileError(path + ": truncated before '" + key + "'");
  if (line.compare(0, key.size() + 1, key + " ") != 0 && line != key)
    throw TableFileError(path + ": expected '" + key + "', got '" + line + "'");
  return line.size() > key.size() ? line.substr(key.size() + 1) : std::string();
}

}  // namespace

std::optional<std::string> format_shared_tables(const JobResult& result) {
  const RouteTable& table = result.table;
  const std::size_t n = table.size();
  std::ostringstream header;
  header << kMagic << "\nfingerprint " << result.fingerprint << "\nalgorithm " << result.algorithm
         << "\nvirtual_channels " << table.virtual_channels() << "\nsummary "
         << format_report_summary(result) << "\nnodes " << n;
  for (NodeId node : table.nodes()) header << ' ' << node;
  header << "\nrows\n";
  std::string out = header.str();
  out.reserve(out.size() + n * (n + 1) * 4);
  for (std::size_t s = 0; s < n; ++s) {
    const std::size_t begin = out.size();
    for (std::size_t d = 0; d < n; ++d) {
      std::uint32_t word = 0;
      if (d != s) {
        const std::optional<PackedRoute> packed = table.packed_route(s, d);
        if (!packed) return std::nullopt;
        word = packed->code;
      }
      put_word(out, word);
    }
    put_word(out, crc32(std::string_view(out).substr(begin)));
  }
  return out;
}

std::optional<SharedRow> read_shared_row(const std::string& path, const PreparedJob& job, NodeId node) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string line;
  if (!std::getline(in, line) || line != kMagic) throw TableFileError(path + ": not a shared table file");
  if (header_line(in, path, "fingerprint") != job.fingerprint)
    throw TableFileError(path + ": the fingerprint is not " + job.fingerprint);
  SharedRow row;
  row.table.algorithm = header_line(in, path, "algorithm");
  const std::string layers = header_line(in, path, "virtual_channels");
  row.table.virtual_channels = std::atoi(layers.c_str());
  if (layers.empty() || layers.find_first_not_of("0123456789") != std::string::npos || row.table.virtual_channels > 8)
    throw TableFileError(path + ": bad virtual_channels '" + layers + "'");
  row.summary = header_line(in, path, "summary");
  std::istringstream ids(header_line(in, path, "nodes"));
  std::size_t n = 0;
  ids >> n;
  std::vector<NodeId> nodes(n);
  for (NodeId& id : nodes) ids >> id;
  if (!ids || nodes != job.allocation) throw TableFileError(path + ": the allocation differs from the job's");
  header_line(in, path, "rows");
  const auto at = std::lower_bound(nodes.begin(), nodes.end(), node);
  if (at == nodes.end() || *at != node) throw TableFileError(path + ": node id " + std::to_string(node) + " is not allocated");
  const std::size_t index = static_cast<std::size_t>(at - nodes.begin());
  const std::size_t row_bytes = (n + 1) * 4;
  in.seekg(static_cast<std::streamoff>(index * row_bytes), std::ios::cur);
  std::vector<char> bytes(row_bytes);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(row_bytes)))
    throw TableFileError(path + ": truncated in the row of node id " + std::to_string(node));
  if (crc32(std::string_view(bytes.data(), n * 4)) != get_word(bytes.data() + n * 4))
    throw TableFileError(path + ": checksum mismatch in the row of node id " + std::to_string(node));

  row.table.torus = job.network.torus();
  row.table.node = node;
  row.table.fingerprint = job.fingerprint;
  for (std::size_t d = 0; d < n; ++d) {
    if (d == index) continue;
    try {
      row.table.entries.push_back({nodes[d], RouteTable::unpack(PackedRoute{get_word(bytes.data() + d * 4)})});
    } catch (const std::invalid_argument&) {
      throw TableFileError(path + ": a route word of node id " + std::to_string(node) + " is not a compact route");
    }
  }
  return row;
}

FileLock::FileLock(const std::string& path, std::chrono::milliseconds timeout) {
  const std::string directory = path.substr(0, path.rfind('/'));
  if (!directory.empty()) ::mkdir(directory.c_str(), 0755);  // the parent is the admin's; one level is created
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw TableFileError("cannot open the lock " + path + ": " + std::strerror(errno));
  // Polled rather than blocking, so a prologue never waits past its limit.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!(locked_ = ::flock(fd_, LOCK_EX | LOCK_NB) == 0)) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const std::string reason = std::strerror(errno);
      ::close(fd_);  // the destructor does not run for a throwing constructor
      throw TableFileError("cannot lock " + path + ": " + reason);
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace angara::spank

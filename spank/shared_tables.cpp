#include "spank/shared_tables.hpp"

#include <sodium.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace angara::spank {

namespace {

constexpr const char* kMagic = "angara-shared-tables 2";
constexpr std::size_t kMacBytes = crypto_auth_hmacsha256_BYTES;  // 32
static_assert(crypto_auth_hmacsha256_KEYBYTES == 32, "the key file holds 32 bytes");

void sodium_ready() {
  if (sodium_init() < 0) throw TableFileError("libsodium could not be initialised");
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

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

SharedKey load_shared_key(const std::string& path, const TrustedOwners& owners) {
  check_trusted_path(path, PathKind::file, owners, /*private_file=*/true);
  const FileContents contents = read_regular_file(path, 1024);
  if (!contents.error.empty()) throw TableFileError("shared key: " + contents.error);
  std::string text = contents.text;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  SharedKey key;
  if (text.size() != 2 * key.bytes.size())
    throw TableFileError(path + ": a shared key is 64 hexadecimal digits (angara-route shared-key makes one)");
  for (std::size_t i = 0; i < key.bytes.size(); ++i) {
    const int high = hex_digit(text[2 * i]), low = hex_digit(text[2 * i + 1]);
    if (high < 0 || low < 0)
      throw TableFileError(path + ": a shared key is 64 hexadecimal digits (angara-route shared-key makes one)");
    key.bytes[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return key;
}

std::string new_shared_key_text() {
  sodium_ready();
  std::array<unsigned char, 32> bytes{};
  randombytes_buf(bytes.data(), bytes.size());
  static const char* const digits = "0123456789abcdef";
  std::string text;
  for (unsigned char byte : bytes) {
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  sodium_memzero(bytes.data(), bytes.size());
  return text + "\n";
}

std::optional<std::string> format_shared_tables(const JobResult& result, const SharedKey& key) {
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
  sodium_ready();
  unsigned char mac[kMacBytes];
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, key.bytes.data(), key.bytes.size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(out.data()), out.size());
  crypto_auth_hmacsha256_final(&state, mac);
  out.append(reinterpret_cast<const char*>(mac), kMacBytes);
  return out;
}

std::optional<SharedRow> read_shared_row(const std::string& directory, const std::string& name,
                                         const PreparedJob& job, NodeId node, const SharedKey& key,
                                         const TrustedOwners& owners) {
  const std::string path = directory + "/" + name;
  const FileDescriptor file = open_trusted_file(directory, name, O_RDONLY, owners);
  if (!file) return std::nullopt;
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw TableFileError("cannot stat " + path + ": " + std::strerror(errno));
  const std::uint64_t size = static_cast<std::uint64_t>(info.st_size);
  if (size < kMacBytes + 16) throw TableFileError(path + ": too short for a shared table file");
  const std::uint64_t data_bytes = size - kMacBytes;

  // The whole file streams through the HMAC; the header is kept to parse,
  // and of the rows only this node's.
  sodium_ready();
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, key.bytes.data(), key.bytes.size());
  std::string header, header_error;
  bool header_done = false;
  std::uint64_t row_begin = 0, row_end = 0;  // file offsets of this node's row, once known
  std::vector<char> row_bytes;
  std::size_t index = 0, n = 0;
  std::vector<NodeId> nodes;
  SharedRow row;
  const auto parse_header = [&](std::uint64_t rows_offset) {
    std::istringstream in(header);
    std::string line;
    if (!std::getline(in, line) || line != kMagic) throw TableFileError(path + ": not a shared table file");
    if (header_line(in, path, "fingerprint") != job.fingerprint)
      throw TableFileError(path + ": the fingerprint is not " + job.fingerprint);
    row.table.algorithm = header_line(in, path, "algorithm");
    const std::string layers = header_line(in, path, "virtual_channels");
    row.table.virtual_channels = std::atoi(layers.c_str());
    if (layers.empty() || layers.find_first_not_of("0123456789") != std::string::npos ||
        row.table.virtual_channels > 8)
      throw TableFileError(path + ": bad virtual_channels '" + layers + "'");
    row.summary = header_line(in, path, "summary");
    std::istringstream ids(header_line(in, path, "nodes"));
    ids >> n;
    if (!ids || n != job.allocation.size()) throw TableFileError(path + ": the allocation differs from the job's");
    nodes.resize(n);
    for (NodeId& id : nodes) ids >> id;
    if (!ids || nodes != job.allocation) throw TableFileError(path + ": the allocation differs from the job's");
    header_line(in, path, "rows");
    const auto at = std::lower_bound(nodes.begin(), nodes.end(), node);
    if (at == nodes.end() || *at != node)
      throw TableFileError(path + ": node id " + std::to_string(node) + " is not allocated");
    index = static_cast<std::size_t>(at - nodes.begin());
    const std::uint64_t row_size = (n + 1) * 4;
    if (rows_offset + n * row_size != data_bytes) throw TableFileError(path + ": truncated or padded rows");
    row_begin = rows_offset + index * row_size;
    row_end = row_begin + row_size;
    row_bytes.reserve(row_size);
  };

  std::vector<char> buffer(1 << 20);
  std::uint64_t offset = 0;
  while (offset < data_bytes) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), data_bytes - offset));
    const ssize_t got = ::read(file.get(), buffer.data(), want);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw TableFileError(path + ": truncated (read " + std::to_string(offset) + " bytes)");
    const char* chunk = buffer.data();
    const std::size_t length = static_cast<std::size_t>(got);
    crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(chunk), length);
    if (!header_done) {
      header.append(chunk, length);
      const std::size_t end = header.find("\nrows\n");
      if (end != std::string::npos) {
        header_done = true;
        header.resize(end + 6);
        // A header that does not fit the job is reported after the
        // authenticator: a forgery is named as one.
        try {
          parse_header(header.size());
        } catch (const TableFileError& e) {
          header_error = e.what();
        }
      } else if (header.size() > 4096 + 12 * job.allocation.size()) {
        header_done = true;  // no row is kept; the authenticator decides what to report
        header_error = path + ": no 'rows' line where the header should end";
      }
    }
    if (header_done && header_error.empty()) {
      const std::uint64_t from = std::max(offset, row_begin), to = std::min(offset + length, row_end);
      if (from < to) row_bytes.insert(row_bytes.end(), chunk + (from - offset), chunk + (to - offset));
    }
    offset += length;
  }
  unsigned char expected[kMacBytes], stored[kMacBytes];
  crypto_auth_hmacsha256_final(&state, expected);
  std::size_t have = 0;
  while (have < kMacBytes) {
    const ssize_t got = ::read(file.get(), stored + have, kMacBytes - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw TableFileError(path + ": truncated before its authenticator");
    have += static_cast<std::size_t>(got);
  }
  if (sodium_memcmp(expected, stored, kMacBytes) != 0)
    throw TableFileError(path + ": the authenticator does not match (not written by a node holding the shared "
                                "key, or changed since)");
  if (!header_done) throw TableFileError(path + ": no 'rows' line");
  if (!header_error.empty()) throw TableFileError(header_error);
  if (row_bytes.size() != (n + 1) * 4)
    throw TableFileError(path + ": truncated in the row of node id " + std::to_string(node));
  if (crc32(std::string_view(row_bytes.data(), n * 4)) != get_word(row_bytes.data() + n * 4))
    throw TableFileError(path + ": checksum mismatch in the row of node id " + std::to_string(node));

  row.table.torus = job.network.torus();
  row.table.node = node;
  row.table.fingerprint = job.fingerprint;
  for (std::size_t d = 0; d < n; ++d) {
    if (d == index) continue;
    try {
      row.table.entries.push_back({nodes[d], RouteTable::unpack(PackedRoute{get_word(row_bytes.data() + d * 4)})});
    } catch (const std::invalid_argument&) {
      throw TableFileError(path + ": a route word of node id " + std::to_string(node) + " is not a compact route");
    }
  }
  return row;
}

FileLock::FileLock(const std::string& directory, const std::string& name, std::chrono::milliseconds timeout,
                   const TrustedOwners& owners)
    : file_(open_trusted_file(directory, name, O_RDWR | O_CREAT, owners, 0600)) {
  const std::string path = directory + "/" + name;
  // Polled rather than blocking, so a prologue never waits past its limit.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!(locked_ = ::flock(file_.get(), LOCK_EX | LOCK_NB) == 0)) {
    if (errno != EWOULDBLOCK && errno != EINTR) throw TableFileError("cannot lock " + path + ": " + std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace angara::spank

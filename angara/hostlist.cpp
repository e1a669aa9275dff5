#include "angara/hostlist.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>

namespace angara {

namespace {

// Numbers of up to 18 digits fit an unsigned 64-bit value.
constexpr std::size_t kMaxDigits = 18;

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool all_digits(std::string_view text) { return std::all_of(text.begin(), text.end(), is_digit); }

[[noreturn]] void fail_at(const std::string& problem, std::size_t position, std::string_view expression) {
  throw std::invalid_argument(problem + " at position " + std::to_string(position) + " in '" +
                              std::string(expression) + "'");
}

[[noreturn]] void fail_too_many(std::string_view expression, std::size_t max_names) {
  throw HostlistTooLong("hostlist '" + std::string(expression) + "' expands to more than " +
                        std::to_string(max_names) + " names");
}

std::uint64_t to_number(std::string_view digits) {
  std::uint64_t value = 0;
  for (char c : digits) value = value * 10 + static_cast<std::uint64_t>(c - '0');
  return value;
}

// Zero-pads to `width` digits, as Slurm does with the lower bound's width.
std::string format_number(std::uint64_t value, std::size_t width) {
  std::string text = std::to_string(value);
  if (text.size() < width) text.insert(0, width - text.size(), '0');
  return text;
}

// The names of one bracket group: expression[open] is '[' and
// expression[close] the matching ']'.
std::vector<std::string> expand_ranges(std::string_view expression, std::size_t open, std::size_t close,
                                       std::size_t max_names) {
  if (close == open + 1) fail_at("empty brackets", open, expression);
  std::vector<std::string> numbers;
  std::size_t start = open + 1;
  while (start <= close) {
    std::size_t end = start;
    while (end < close && expression[end] != ',') ++end;
    const std::string_view piece = expression.substr(start, end - start);
    if (piece.empty()) fail_at("empty range", start, expression);
    const std::size_t dash = piece.find('-');
    const std::string_view low = piece.substr(0, dash);
    const std::string_view high = dash == std::string_view::npos ? low : piece.substr(dash + 1);
    if (low.empty() || high.empty() || !all_digits(low) || !all_digits(high) || low.size() > kMaxDigits ||
        high.size() > kMaxDigits)
      fail_at("bad range '" + std::string(piece) + "' (expected numbers like 07 or 00-03)", start, expression);
    const std::uint64_t first = to_number(low);
    const std::uint64_t last = to_number(high);
    if (first > last) fail_at("range " + std::string(piece) + " is descending", start, expression);
    if (last - first >= max_names - numbers.size()) fail_too_many(expression, max_names);
    for (std::uint64_t value = first; value <= last; ++value) numbers.push_back(format_number(value, low.size()));
    start = end + 1;
  }
  return numbers;
}

// Appends every combination of the item's segments, the last varying fastest.
void append_product(const std::vector<std::vector<std::string>>& segments, std::string_view expression,
                    std::size_t max_names, std::vector<std::string>& names) {
  std::size_t count = 1;
  for (const auto& choices : segments) {
    count *= choices.size();
    if (count > max_names) fail_too_many(expression, max_names);
  }
  if (names.size() + count > max_names) fail_too_many(expression, max_names);
  std::vector<std::size_t> index(segments.size(), 0);
  for (std::size_t n = 0; n < count; ++n) {
    std::string name;
    for (std::size_t k = 0; k < segments.size(); ++k) name += segments[k][index[k]];
    names.push_back(std::move(name));
    for (std::size_t k = segments.size(); k-- > 0;) {
      if (++index[k] < segments[k].size()) break;
      index[k] = 0;
    }
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t max_names) {
  std::vector<std::string> names;
  // The item being read: literal text and bracket groups, each a list of choices.
  std::vector<std::vector<std::string>> segments;
  std::string literal;
  auto flush_literal = [&] {
    if (!literal.empty()) segments.push_back({std::move(literal)});
    literal.clear();
  };
  auto finish_item = [&] {
    flush_literal();
    if (!segments.empty()) append_product(segments, expression, max_names, names);
    segments.clear();
  };

  std::size_t i = 0;
  while (i < expression.size()) {
    const char c = expression[i];
    if (is_separator(c)) {
      finish_item();
      ++i;
    } else if (c == ']') {
      fail_at("unbalanced ']'", i, expression);
    } else if (c == '[') {
      std::size_t close = i + 1;
      while (close < expression.size() && expression[close] != ']') {
        if (expression[close] == '[') fail_at("nested '[' (not supported)", close, expression);
        ++close;
      }
      if (close == expression.size()) fail_at("unbalanced '['", i, expression);
      flush_literal();
      segments.push_back(expand_ranges(expression, i, close, max_names));
      i = close + 1;
    } else {
      literal += c;
      ++i;
    }
  }
  finish_item();
  return names;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
  struct Split {
    std::string_view prefix;
    std::string_view digits;  // empty: a plain name
  };
  auto split = [](std::string_view name) {
    std::size_t start = name.size();
    while (start > 0 && is_digit(name[start - 1])) --start;
    const std::size_t length = name.size() - start;
    if (length == 0 || length > kMaxDigits) return Split{name, {}};
    return Split{name.substr(0, start), name.substr(start)};
  };
  auto zero_padded = [](std::string_view digits) { return digits.size() > 1 && digits[0] == '0'; };

  // Pass 1: the widths written with leading zeros, per prefix.  An unpadded
  // number ("10") also fits a narrower padded group ("08-10"), so it joins the
  // widest such group and compress(expand("n[08-10]")) gives back n[08-10].
  // Each width once: every name below looks through its prefix's widths.
  std::unordered_map<std::string_view, std::vector<std::size_t>> padded_widths;
  for (const std::string& name : names) {
    const Split s = split(name);
    if (s.digits.empty() || !zero_padded(s.digits)) continue;
    std::vector<std::size_t>& widths = padded_widths[s.prefix];
    if (std::find(widths.begin(), widths.end(), s.digits.size()) == widths.end()) widths.push_back(s.digits.size());
  }

  // Pass 2: groups keyed by prefix and width, in order of first appearance.
  struct Group {
    std::string_view prefix;
    std::size_t width = 0;  // 0: a plain name
    std::vector<std::uint64_t> numbers;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, std::size_t> group_of_key;
  for (const std::string& name : names) {
    const Split s = split(name);
    std::size_t width = 0;
    if (!s.digits.empty()) {
      width = 1;
      if (zero_padded(s.digits)) {
        width = s.digits.size();
      } else if (auto found = padded_widths.find(s.prefix); found != padded_widths.end()) {
        for (std::size_t w : found->second)
          if (w <= s.digits.size()) width = std::max(width, w);
      }
    }
    // '\n' cannot occur in a host name, so it separates the key's parts.
    const std::string key = width == 0 ? "\n" + name : std::string(s.prefix) + '\n' + std::to_string(width);
    auto [slot, inserted] = group_of_key.emplace(key, groups.size());
    if (inserted) groups.push_back(Group{s.prefix, width, {}});
    if (width != 0) groups[slot->second].numbers.push_back(to_number(s.digits));
  }

  std::string out;
  for (Group& group : groups) {
    if (!out.empty()) out += ',';
    out += group.prefix;
    if (group.width == 0) continue;
    std::sort(group.numbers.begin(), group.numbers.end());
    group.numbers.erase(std::unique(group.numbers.begin(), group.numbers.end()), group.numbers.end());
    if (group.numbers.size() == 1) {
      out += format_number(group.numbers.front(), group.width);
      continue;
    }
    out += '[';
    for (std::size_t i = 0; i < group.numbers.size();) {
      std::size_t run_end = i;
      while (run_end + 1 < group.numbers.size() && group.numbers[run_end + 1] == group.numbers[run_end] + 1) ++run_end;
      if (i) out += ',';
      out += format_number(group.numbers[i], group.width);
      if (run_end > i) out += '-' + format_number(group.numbers[run_end], group.width);
      i = run_end + 1;
    }
    out += ']';
  }
  return out;
}

}  // namespace angara

// HiRy's regions, partitions and their order (Sec. III) and Alg. 2.
#include "routing/common/regions.hpp"

#include <algorithm>
#include <stdexcept>

namespace angara {

namespace {

std::string axis_name(int axis) {
  static const char* const kNames[] = {"X", "Y", "Z", "K"};
  return axis < 4 ? kNames[axis] : "A" + std::to_string(axis);
}

char sign_char(int sign) { return sign < 0 ? '-' : sign > 0 ? '+' : '0'; }

}  // namespace

Region Region::opposite() const {
  Region result = *this;
  for (int& s : result.signs) s = -s;
  return result;
}

int Region::nonzero_axes() const {
  return static_cast<int>(std::count_if(signs.begin(), signs.end(), [](int s) { return s != 0; }));
}

std::string Region::to_string() const {
  std::string out = "{";
  for (std::size_t i = 0; i < signs.size(); ++i) {
    if (i) out += ", ";
    out += axis_name(static_cast<int>(i)) + sign_char(signs[i]);
  }
  return out + "}";
}

Region region_of(const std::vector<int>& displacement) {
  Region region;
  for (int d : displacement) region.signs.push_back(d < 0 ? -1 : d > 0 ? 1 : 0);
  if (region.nonzero_axes() == 0) throw std::invalid_argument("region_of: the zero vector has no direction");
  return region;
}

std::vector<Region> all_regions(int n) {
  std::size_t count = 1;
  for (int i = 0; i < n; ++i) count *= 3;
  std::vector<Region> result;
  for (std::size_t code = 0; code < count; ++code) {
    Region region;
    std::size_t rest = code;
    for (int i = 0; i < n; ++i, rest /= 3) region.signs.push_back(static_cast<int>(rest % 3) - 1);
    if (region.nonzero_axes() > 0) result.push_back(std::move(region));
  }
  return result;
}

std::size_t region_index(const Region& region) {
  // all_regions skips code (0,...,0) in sign terms, i.e. 3^n / 2 (the origin).
  std::size_t code = 0, weight = 1, origin = 0;
  for (int s : region.signs) {
    code += static_cast<std::size_t>(s + 1) * weight;
    origin += weight;
    weight *= 3;
  }
  return code < origin ? code : code - 1;
}

bool Partition::contains(const Region& region) const {
  return std::find(regions.begin(), regions.end(), region) != regions.end();
}

std::string Partition::to_string() const {
  std::string out = "VC" + std::to_string(virtual_channel);
  for (const Region& region : regions) out += " " + region.to_string();
  return out;
}

std::vector<int> axes_with_both_signs(const Partition& partition) {
  std::vector<int> result;
  if (partition.regions.empty()) return result;
  const std::size_t n = partition.regions.front().signs.size();
  for (std::size_t axis = 0; axis < n; ++axis) {
    bool negative = false, positive = false;
    for (const Region& region : partition.regions) {
      negative = negative || region.signs[axis] < 0;
      positive = positive || region.signs[axis] > 0;
    }
    if (negative && positive) result.push_back(static_cast<int>(axis));
  }
  return result;
}

std::string hiry_condition_violation(const std::vector<Partition>& ordered) {
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    const Partition& p = ordered[i];
    const std::vector<int> both = axes_with_both_signs(p);
    if (both.size() > 1)
      return "partition " + std::to_string(i + 1) + " (" + p.to_string() + ") has both signs on " +
             std::to_string(both.size()) + " axes (Lemma 1 allows one)";
    for (const Region& region : p.regions) {
      if (!p.contains(region.opposite())) continue;
      // Opposite regions in one partition differ on every nonzero axis, so
      // under Lemma 1 they lie on the complete axis alone.
      const bool on_axis = p.complete_axis >= 0 && region.nonzero_axes() == 1 &&
                           region.signs[static_cast<std::size_t>(p.complete_axis)] != 0;
      if (!on_axis || p.first_sign == 0)
        return "partition " + std::to_string(i + 1) + " (" + p.to_string() + ") has a 180-degree turn between " +
               region.to_string() + " and " + region.opposite().to_string() + " with no order (Lemma 2)";
    }
    for (std::size_t j = i + 1; j < ordered.size(); ++j) {
      if (ordered[j].virtual_channel != p.virtual_channel) continue;
      for (const Region& region : p.regions)
        if (ordered[j].contains(region))
          return "region " + region.to_string() + " is in partitions " + std::to_string(i + 1) + " and " +
                 std::to_string(j + 1) + " of virtual channel " + std::to_string(p.virtual_channel);
    }
  }
  return "";
}

PartitionOrder::PartitionOrder(std::vector<Partition> ordered) : ordered_(std::move(ordered)) {
  const std::string violation = hiry_condition_violation(ordered_);
  if (!violation.empty()) throw std::invalid_argument("HiRy partitions: " + violation);
}

int PartitionOrder::rank(const Region& region, int virtual_channel) const {
  for (std::size_t i = 0; i < ordered_.size(); ++i)
    if (ordered_[i].virtual_channel == virtual_channel && ordered_[i].contains(region)) return static_cast<int>(i);
  return -1;
}

bool PartitionOrder::turn_permitted(const Region& from, int from_vc, const Region& to, int to_vc) const {
  const int a = rank(from, from_vc), b = rank(to, to_vc);
  if (a < 0 || b < 0 || a > b) return false;
  if (a < b || to != from.opposite()) return true;
  // A 180-degree turn inside one partition: Lemma 2's order along the complete axis.
  const Partition& p = ordered_[static_cast<std::size_t>(a)];
  return p.complete_axis >= 0 && p.first_sign != 0 && from.signs[static_cast<std::size_t>(p.complete_axis)] == p.first_sign;
}

std::vector<Partition> vc_partitions(int n, int complete_axis, int vc,
                                     const std::function<std::size_t(std::size_t)>& choose) {
  if (n < 1 || complete_axis < 0 || complete_axis >= n) throw std::invalid_argument("vc_partitions: bad axes");
  const auto axis_region = [&](int sign) {
    Region region{std::vector<int>(static_cast<std::size_t>(n), 0)};
    region.signs[static_cast<std::size_t>(complete_axis)] = sign;
    return region;
  };
  if (n == 1) {
    Partition positive{{axis_region(+1)}, vc, complete_axis, 0};
    Partition negative{{axis_region(-1)}, vc, complete_axis, 0};
    return {positive, negative};
  }
  std::vector<int> incomplete;
  for (int axis = 0; axis < n; ++axis)
    if (axis != complete_axis) incomplete.push_back(axis);
  const std::size_t orthants = std::size_t{1} << incomplete.size();
  // Partition j's orthant: bit i of j set means negative on incomplete[i].
  const auto orthant_sign = [&](std::size_t j, std::size_t i) { return (j >> i) & 1u ? -1 : +1; };
  std::vector<Partition> result(orthants);
  for (std::size_t j = 0; j < orthants; ++j) {
    result[j].virtual_channel = vc;
    result[j].complete_axis = complete_axis;
  }
  // (1) orthant and (2) boundary regions: every sign pattern on the
  // incomplete axes but all-zero, with any sign on the complete axis; a
  // pattern with zeros goes to one of the partitions whose orthant agrees
  // with its nonzero signs.
  std::size_t patterns = 1;
  for (std::size_t i = 0; i < incomplete.size(); ++i) patterns *= 3;
  for (std::size_t code = 0; code < patterns; ++code) {
    std::vector<int> signs(incomplete.size());
    std::size_t rest = code;
    bool zero = false, nonzero = false;
    for (std::size_t i = 0; i < incomplete.size(); ++i, rest /= 3) {
      signs[i] = static_cast<int>(rest % 3) - 1;
      zero = zero || signs[i] == 0;
      nonzero = nonzero || signs[i] != 0;
    }
    if (!nonzero) continue;
    std::vector<std::size_t> candidates;
    for (std::size_t j = 0; j < orthants; ++j) {
      bool agrees = true;
      for (std::size_t i = 0; i < incomplete.size(); ++i)
        if (signs[i] != 0 && signs[i] != orthant_sign(j, i)) agrees = false;
      if (agrees) candidates.push_back(j);
    }
    const std::size_t target = zero ? candidates[choose(candidates.size()) % candidates.size()] : candidates.front();
    for (int c = -1; c <= 1; ++c) {
      Region region{std::vector<int>(static_cast<std::size_t>(n), 0)};
      for (std::size_t i = 0; i < incomplete.size(); ++i) region.signs[static_cast<std::size_t>(incomplete[i])] = signs[i];
      region.signs[static_cast<std::size_t>(complete_axis)] = c;
      result[target].regions.push_back(std::move(region));
    }
  }
  // (3) the two directions of the complete axis, in two different partitions.
  const std::size_t positive = choose(orthants) % orthants;
  std::size_t negative = choose(orthants - 1) % (orthants - 1);
  if (negative >= positive) ++negative;
  result[positive].regions.push_back(axis_region(+1));
  result[negative].regions.push_back(axis_region(-1));
  return result;
}

}  // namespace angara

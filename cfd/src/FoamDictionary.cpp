#include "racktwin/cfd/FoamDictionary.hpp"

#include <cmath>
#include <cstdio>

namespace racktwin::cfd {

std::string foamNumber(double value) {
  if (value == 0.0) return "0";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.12g", value);
  return buffer;
}

std::string foamVector(double x, double y, double z) {
  return "(" + foamNumber(x) + " " + foamNumber(y) + " " + foamNumber(z) + ")";
}

std::string foamList(const std::vector<std::string>& items) {
  std::string out = "(";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ' ';
    out += items[i];
  }
  return out + ")";
}

FoamDictionary::FoamDictionary(const FoamDictionary& other) {
  *this = other;
}

FoamDictionary& FoamDictionary::operator=(const FoamDictionary& other) {
  if (this == &other) return *this;
  entries_.clear();
  entries_.reserve(other.entries_.size());
  for (const Entry& e : other.entries_) {
    entries_.push_back(Entry{
        e.key, e.value, e.dictionary ? std::make_unique<FoamDictionary>(*e.dictionary) : nullptr});
  }
  return *this;
}

FoamDictionary::Entry* FoamDictionary::find(std::string_view key) {
  for (Entry& e : entries_) {
    if (!e.key.empty() && e.key == key) return &e;
  }
  return nullptr;
}

const FoamDictionary::Entry* FoamDictionary::find(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (!e.key.empty() && e.key == key) return &e;
  }
  return nullptr;
}

FoamDictionary& FoamDictionary::set(std::string_view key, std::string_view value) {
  if (Entry* e = find(key)) {
    e->value = std::string(value);
    e->dictionary.reset();
  } else {
    entries_.push_back(Entry{std::string(key), std::string(value), nullptr});
  }
  return *this;
}

FoamDictionary& FoamDictionary::set(std::string_view key, double value) {
  return set(key, std::string_view(foamNumber(value)));
}

FoamDictionary& FoamDictionary::set(std::string_view key, int value) {
  return set(key, std::string_view(std::to_string(value)));
}

FoamDictionary& FoamDictionary::sub(std::string_view key) {
  if (Entry* e = find(key)) {
    if (!e->dictionary) {
      e->value.clear();
      e->dictionary = std::make_unique<FoamDictionary>();
    }
    return *e->dictionary;
  }
  entries_.push_back(Entry{std::string(key), {}, std::make_unique<FoamDictionary>()});
  return *entries_.back().dictionary;
}

FoamDictionary& FoamDictionary::set(std::string_view key, const FoamDictionary& dictionary) {
  sub(key) = dictionary;
  return *this;
}

FoamDictionary& FoamDictionary::line(std::string_view text) {
  entries_.push_back(Entry{{}, std::string(text), nullptr});
  return *this;
}

bool FoamDictionary::has(std::string_view key) const {
  return find(key) != nullptr;
}

std::string FoamDictionary::value(std::string_view key) const {
  const Entry* e = find(key);
  return e && !e->dictionary ? e->value : std::string();
}

const FoamDictionary* FoamDictionary::findSub(std::string_view key) const {
  const Entry* e = find(key);
  return e ? e->dictionary.get() : nullptr;
}

std::string FoamDictionary::text(int indent) const {
  const std::string pad(static_cast<std::size_t>(indent) * 4, ' ');
  std::string out;
  for (const Entry& e : entries_) {
    if (e.key.empty()) {
      out += pad + e.value + "\n";
    } else if (e.dictionary) {
      out += pad + e.key + "\n" + pad + "{\n" + e.dictionary->text(indent + 1) + pad + "}\n";
    } else {
      out += pad + e.key + " " + e.value + ";\n";
    }
  }
  return out;
}

std::string foamFile(std::string_view class_name, std::string_view location,
                     std::string_view object, const FoamDictionary& body) {
  std::string out =
      "/* Written by RackTwin (racktwin cfd) for OpenFOAM v1912. */\n"
      "FoamFile\n{\n    version 2.0;\n    format ascii;\n    class ";
  out += class_name;
  out += ";\n";
  if (!location.empty()) {
    out += "    location \"";
    out += location;
    out += "\";\n";
  }
  out += "    object ";
  out += object;
  out += ";\n}\n\n";
  out += body.text();
  return out;
}

}  // namespace racktwin::cfd

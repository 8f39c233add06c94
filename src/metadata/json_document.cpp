// Metadata documents as text: the one place where the bytes of a zarr.json,
// .zarray, .zgroup, .zattrs or .zmetadata become a json value, and back.
//
// nlohmann's parser is iterative (no recursion however deep the input), but
// copying, destroying parts of and dumping a json value recurse, and so does
// Python's json module: the depth limit is checked first, on the text, before
// anything is built. The same pass checks UTF-8 and finds the NaN, Infinity
// and -Infinity tokens Python's json module writes, which nlohmann rejects:
// each is overwritten by a `0` of the same width (so nlohmann's line and
// column numbers still point into the original text) and turned back into a
// non-finite double as nlohmann hands the value over.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "metadata/metadata.hpp"

namespace zarrgpu {

namespace {

[[noreturn]] void refuse(const std::string& what, const ErrorContext& where) {
  throw Error(ErrorKind::invalid_metadata, "metadata document " + what, where);
}

std::string hex_byte(unsigned char c) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02X", c);
  return b;
}

// A message from nlohmann quotes the bytes it read last, which may be anything:
// keep printable ASCII, escape the rest, drop the "[json.exception…] " prefix.
std::string printable(std::string_view message) {
  if (message.starts_with("[json.exception.")) {
    if (auto end = message.find("] "); end != std::string_view::npos) message.remove_prefix(end + 2);
  }
  std::string out;
  for (unsigned char c : message) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02X", c);
      out += b;
    }
  }
  return out;
}

// The length of the well-formed UTF-8 sequence starting at text[i], or 0
// (RFC 3629 §4: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
  auto tail = [&](std::size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  const unsigned c = byte(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return tail(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return byte(1) >= lo && byte(1) <= hi && tail(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return byte(1) >= lo && byte(1) <= hi && tail(2) && tail(3) ? 4 : 0;
  }
  return 0;
}

// UTF-16 and UTF-32 announce themselves by a byte order mark or, for JSON,
// by NUL bytes among the first four (RFC 4627 §3, as Python's
// json.detect_encoding reads them).
const char* wide_encoding(std::string_view text) {
  auto starts = [&](std::string_view p) { return text.substr(0, p.size()) == p; };
  using namespace std::string_view_literals;
  if (starts("\x00\x00\xFE\xFF"sv) || starts("\xFF\xFE\x00\x00"sv)) return "UTF-32";
  if (starts("\xFE\xFF"sv) || starts("\xFF\xFE"sv)) return "UTF-16";
  if (text.size() >= 4 && text[0] == '\0' && text[1] == '\0') return "UTF-32";
  if (text.size() >= 4 && text[1] == '\0' && text[2] == '\0' && text[3] == '\0') return "UTF-32";
  if (text.size() >= 2 && (text[0] == '\0' || text[1] == '\0')) return "UTF-16";
  return nullptr;
}

bool ends_word(char c) {
  switch (c) {
    case ' ': case '\t': case '\n': case '\r': case ',': case ':':
    case '[': case ']': case '{': case '}': case '"':
      return true;
    default:
      return static_cast<unsigned char>(c) >= 0x80;
  }
}

// A bare non-finite number: which word (counting every number and literal
// outside strings, in document order) and its value.
struct NonFinite {
  std::size_t word;
  std::size_t offset, length;  // in the text
  double value;
};

// One pass over the text: UTF-8, depth, and the non-finite tokens.
std::vector<NonFinite> scan(std::string_view text, const ErrorContext& where) {
  std::vector<NonFinite> found;
  std::size_t depth = 0, words = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence_length(text, i);
      if (n == 0)
        refuse("is not UTF-8: byte " + hex_byte(c) + " at offset " + std::to_string(i) +
                   " (JSON metadata must be UTF-8, RFC 8259 section 8.1)",
               where);
      i += n;
      continue;
    }
    if (in_string) {
      if (c == '"') in_string = false;
      // An escape takes the next character with it (`\"` does not end the
      // string); a non-ASCII one is left to the UTF-8 check and to nlohmann.
      const bool escape = c == '\\' && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0x80;
      i += escape ? 2 : 1;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        ++i;
        break;
      case '[':
      case '{':
        if (++depth > max_metadata_document_depth)
          refuse("nests arrays and objects more than " + std::to_string(max_metadata_document_depth) +
                     " deep (at offset " + std::to_string(i) + ")",
                 where);
        ++i;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        ++i;
        break;
      default: {
        if (ends_word(static_cast<char>(c))) {  // whitespace, ',' and ':'
          ++i;
          break;
        }
        // A number or a literal; anything else is left for nlohmann to refuse.
        std::size_t end = i;
        while (end < text.size() && !ends_word(text[end])) ++end;
        const std::string_view word = text.substr(i, end - i);
        constexpr double inf = std::numeric_limits<double>::infinity();
        if (word == "NaN") found.push_back({words, i, word.size(), std::numeric_limits<double>::quiet_NaN()});
        else if (word == "Infinity") found.push_back({words, i, word.size(), inf});
        else if (word == "-Infinity") found.push_back({words, i, word.size(), -inf});
        ++words;
        i = end;
      }
    }
  }
  return found;
}

json parse_text(std::string_view text, const std::vector<NonFinite>& non_finite, const ErrorContext& where) {
  try {
    if (non_finite.empty()) return json::parse(text.begin(), text.end());
    // Each token becomes "0" and spaces: the same width, so that nlohmann's
    // positions in error messages still point into the original text.
    std::string zeroed(text);
    for (const auto& n : non_finite) {
      zeroed[n.offset] = '0';
      std::fill_n(zeroed.begin() + static_cast<std::ptrdiff_t>(n.offset) + 1, n.length - 1, ' ');
    }
    // nlohmann reports every number and literal as a `value` event, in order.
    std::size_t words = 0, next = 0;
    json::parser_callback_t restore = [&](int, json::parse_event_t event, json& value) {
      if (event != json::parse_event_t::value || value.is_string()) return true;
      if (next < non_finite.size() && non_finite[next].word == words) value = non_finite[next++].value;
      ++words;
      return true;
    };
    return json::parse(zeroed.begin(), zeroed.end(), restore);
  } catch (const json::exception& e) {
    refuse("is not valid JSON: " + printable(e.what()), where);
  }
}

}  // namespace

json parse_metadata_document(std::string_view text, const ErrorContext& where) {
  if (text.size() > max_metadata_document_bytes)
    refuse("is " + std::to_string(text.size()) + " bytes, more than the " +
               std::to_string(max_metadata_document_bytes) + " a metadata document may have",
           where);
  if (const char* wide = wide_encoding(text))
    refuse(std::string("is ") + wide + ", not UTF-8 (JSON metadata must be UTF-8, RFC 8259 section 8.1)", where);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // RFC 8259 §8.1: a parser may ignore it
  return parse_text(text, scan(text, where), where);
}

namespace {

// `level`: the containers around `v`. Refuses what parse_metadata_document would.
void write_value(std::string& out, const json& v, int indent, std::size_t level) {
  const bool pretty = indent >= 0;
  auto newline = [&](std::size_t at) {
    if (!pretty) return;
    out += '\n';
    out.append(at * static_cast<std::size_t>(indent), ' ');
  };
  switch (v.type()) {
    case json::value_t::object:
    case json::value_t::array: {
      const bool object = v.is_object();
      if (level + 1 > max_metadata_document_depth)
        throw Error(ErrorKind::invalid_metadata, "metadata document nests arrays and objects more than " +
                                                     std::to_string(max_metadata_document_depth) + " deep");
      if (v.empty()) {
        out += object ? "{}" : "[]";
        return;
      }
      out += object ? '{' : '[';
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out += ',';
        first = false;
        newline(level + 1);
        if (object) {
          out += json(it.key()).dump();
          out += pretty ? ": " : ":";
        }
        write_value(out, it.value(), indent, level + 1);
      }
      newline(level);
      out += object ? '}' : ']';
      return;
    }
    case json::value_t::number_float: {
      const double d = v.get<double>();
      if (std::isnan(d)) { out += "NaN"; return; }
      if (std::isinf(d)) { out += d > 0 ? "Infinity" : "-Infinity"; return; }
      out += v.dump();
      return;
    }
    default:
      out += v.dump();  // scalars: nlohmann's own number and string forms
  }
}

}  // namespace

std::string dump_metadata_document(const json& doc, int indent) {
  std::string out;
  try {
    write_value(out, doc, indent, 0);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::invalid_metadata, "metadata document cannot be written: " + printable(e.what()));
  }
  return out;
}

}  // namespace zarrgpu

#include "trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "json_access.h"
#include "printable.h"
#include "trace_schema.h"

namespace safetune::model {

struct TraceReader::Parser {
  simdjson::dom::parser json;
};

namespace {

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }

// nlohmann's parser words a syntax error far better than simdjson ("column 10: syntax error while
// parsing object key - ..."), so a line simdjson rejects is parsed again by it, with a SAX
// handler that builds nothing, only for the message. Its message reads "[json.exception...] parse
// error at line 1, column 4: ..."; the line is always 1 here, so the rest is kept. It may quote
// raw input bytes, which printable() escapes.
struct MessageOnly : nlohmann::json_sax<nlohmann::json> {
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override {
    message = error.what();
    return false;
  }
};

std::string describe_json_error(std::string_view line, simdjson::error_code code) {
  MessageOnly sax;
  nlohmann::json::sax_parse(line, &sax);
  std::string_view text = sax.message;
  if (text.empty()) return "invalid JSON: " + std::string(simdjson::error_message(code));
  for (std::string_view prefix : {std::string_view("] "), std::string_view("parse error at line 1, ")})
    if (auto at = text.find(prefix); at != std::string_view::npos) text.remove_prefix(at + prefix.size());
  return "invalid JSON: " + printable(text, 160);
}

std::string os_reason(int error) { return std::strerror(error); }

}  // namespace

TraceReader::TraceReader(std::unique_ptr<ByteSource> source)
    : lines_(std::move(source)), parser_(std::make_unique<Parser>()) {}

TraceReader::~TraceReader() = default;

std::variant<int, InputError> open_trace_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InputError{0, "cannot open the file: " + os_reason(errno)};
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return InputError{0, "cannot read the file: " + os_reason(EISDIR)};
  }
  return fd;
}

std::variant<std::unique_ptr<TraceReader>, InputError> TraceReader::open(const std::string& path) {
  if (path == "-") return std::make_unique<TraceReader>(fd_source(STDIN_FILENO, false));
  auto opened = open_trace_file(path);
  if (auto* error = std::get_if<InputError>(&opened)) return *error;
  return std::make_unique<TraceReader>(fd_source(std::get<int>(opened), true));
}

TraceReader::Next TraceReader::fail(std::int64_t line, std::string message) {
  failed_ = true;
  error_ = InputError{line, std::move(message)};
  return Next::Error;
}

std::optional<InputError> TraceReader::read_header() {
  Line line = lines_.next();
  if (line.status != Line::Status::Line || is_blank(line.text)) {
    first_line_ = line;  // an error or the end is reported by next(); a blank line is skipped
    return std::nullopt;
  }
  simdjson::dom::element root;
  simdjson::dom::object object;
  if (std::memchr(line.text.data(), '\0', line.text.size()) == nullptr &&
      !parser_->json.parse(line.text.data(), line.text.size(), false).get(root) &&
      !root.get_object().get(object) && object["format"].error() == simdjson::SUCCESS) {
    try {
      header_ = schema::read_header(object);
      return std::nullopt;
    } catch (const json::LineError& error) {
      fail(line.number, error.message);
      return error_;
    }
  }
  first_line_ = line;  // not a header: line 1 is read again as an event
  return std::nullopt;
}

TraceReader::Next TraceReader::next(Event& event) {
  if (failed_) return Next::Error;
  for (;;) {
    Line line = first_line_ ? *first_line_ : lines_.next();
    first_line_.reset();
    switch (line.status) {
      case Line::Status::End: return Next::End;
      case Line::Status::TooLong:
        return fail(line.number, "the line is longer than " + std::to_string(kMaxLineBytes) +
                                     " bytes (16 MiB), the longest this reader accepts");
      case Line::Status::ReadError:
        return fail(line.number, "reading the line failed: " + os_reason(line.error));
      case Line::Status::Line: break;
    }
    if (is_blank(line.text)) continue;
    return take(line, event);
  }
}

TraceReader::Next TraceReader::take(const Line& line, Event& event) {
  if (const void* nul = std::memchr(line.text.data(), '\0', line.text.size()))
    return fail(line.number, "a NUL byte at column " +
                                 std::to_string(static_cast<const char*>(nul) - line.text.data() + 1) +
                                 " (a trace line is JSON text, which has none)");
  simdjson::dom::element root;
  if (const auto code = parser_->json.parse(line.text.data(), line.text.size(), false).get(root))
    return fail(line.number, describe_json_error(line.text, code));
  try {
    json::Object object;
    if (root.get(object)) json::fail("expected a JSON object, found " + json::shown(root));
    event = schema::read_event(object, header_);
  } catch (const json::LineError& error) {
    return fail(line.number, error.message);
  }
  if (previous_line_ > 0 && event.seq <= previous_seq_)
    return fail(line.number, "field \"seq\": " + std::to_string(event.seq) + " is not greater than the previous seq " +
                                 std::to_string(previous_seq_) + " (line " + std::to_string(previous_line_) + ")");
  previous_seq_ = event.seq;
  previous_line_ = line.number;
  event.line = line.number;
  offset_ = line.offset;
  return Next::Event;
}

namespace {

ReadResult read_all(TraceReader& reader) {
  if (auto error = reader.read_header()) return *error;
  Trace trace;
  trace.header = reader.header();
  Event event;
  for (;;) {
    switch (reader.next(event)) {
      case TraceReader::Next::Event: trace.events.push_back(std::move(event)); break;
      case TraceReader::Next::End: return trace;
      case TraceReader::Next::Error: return reader.error();
    }
  }
}

}  // namespace

ReadResult read_trace(std::istream& in) {
  TraceReader reader(stream_source(in));
  return read_all(reader);
}

ReadResult read_trace_file(const std::string& path) {
  auto opened = TraceReader::open(path);
  if (auto* error = std::get_if<InputError>(&opened)) return *error;
  return read_all(*std::get<std::unique_ptr<TraceReader>>(opened));
}

}  // namespace safetune::model

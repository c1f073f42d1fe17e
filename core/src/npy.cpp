// The .npy reader (gelu/npy.hpp).
#include "gelu/npy.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "gelu/fileio.hpp"
#include "gelu/format.hpp"
#include "gelu/numio.hpp"

namespace gelu {
namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMaxHeader = 1 << 20;  // numpy writes < 100 bytes; a megabyte is not a header

/// A cursor over the header dict, a Python literal such as {'descr': '<f4', 'fortran_order': False,
/// 'shape': (3, 2), }.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    for (;;) {
      skip();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = string_literal("a key");
      expect(':');
      if (key == "descr") {
        if (have_descr) fail("the key 'descr' appears twice");
        h.descr = string_literal("the value of 'descr'");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) fail("the key 'fortran_order' appears twice");
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) fail("the key 'shape' appears twice");
        h.shape = tuple();
        have_shape = true;
      } else {
        fail("unknown key " + quote(key) + " (a .npy header has descr, fortran_order and shape)");
      }
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == '}') {
        ++i_;
        break;
      }
      fail("expected ',' or '}' after the value of " + quote(key));
    }
    skip();
    if (i_ != s_.size()) fail("text after the header's closing '}'");
    if (!have_descr) fail("no 'descr' (the dtype)");
    if (!have_order) fail("no 'fortran_order'");
    if (!have_shape) fail("no 'shape'");
    return h;
  }

 private:
  std::string_view s_;
  const std::string& name_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw NpyError(name_ + ": header: " + what + " (at byte " + std::to_string(i_) + " of the header)");
  }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    skip();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_literal(const char* what) {
    skip();
    const char q = peek();
    if (q != '\'' && q != '"') fail(std::string("expected ") + what + " in quotes");
    const std::size_t end = s_.find(q, i_ + 1);
    if (end == std::string_view::npos) fail(std::string(what) + " has no closing quote");
    std::string v(s_.substr(i_ + 1, end - i_ - 1));
    i_ = end + 1;
    return v;
  }
  bool boolean() {
    skip();
    if (s_.substr(i_, 4) == "True") {
      i_ += 4;
      return true;
    }
    if (s_.substr(i_, 5) == "False") {
      i_ += 5;
      return false;
    }
    fail("'fortran_order' must be True or False");
  }
  std::vector<std::uint64_t> tuple() {
    expect('(');
    std::vector<std::uint64_t> v;
    for (;;) {
      skip();
      if (peek() == ')') {
        ++i_;
        return v;
      }
      if (peek() < '0' || peek() > '9') fail("'shape' must be a tuple of non-negative integers");
      std::uint64_t n = 0;
      while (peek() >= '0' && peek() <= '9') {
        const auto d = static_cast<std::uint64_t>(peek() - '0');
        if (n > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
          fail("a dimension of 'shape' is too large");
        n = n * 10 + d;
        ++i_;
      }
      if (peek() == 'L') ++i_;  // Python 2's long suffix
      v.push_back(n);
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')' in 'shape'");
    }
  }
};

std::string sys_error() {
  return std::strerror(errno);
}

}  // namespace

/// The one reader's checks (gelu::open_for_reading: a FIFO, a socket or a device is refused, never waited
/// on), as a stdio stream.
std::FILE* open_stream(const std::string& path) {
  const int fd = open_for_reading(path);
  std::FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    const int err = errno;
    ::close(fd);
    throw FileError(path + ": cannot read: " + std::strerror(err));
  }
  return f;
}

bool is_npy_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;  // the caller's own open says why
  std::FILE* f = nullptr;
  try {
    f = open_stream(path);  // anything but a regular file: FileError, at once
  } catch (const FileError&) {
    // Unreadable, or a directory (which no read blocks on): the caller's own open says why.
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return false;
    throw;
  }
  unsigned char m[6] = {};
  const bool yes = std::fread(m, 1, 6, f) == 6 && std::memcmp(m, kMagic, 6) == 0;
  std::fclose(f);
  return yes;
}

NpyReader::NpyReader(const std::string& path, std::string name) : name_(std::move(name)) {
  try {
    file_ = open_stream(path);
  } catch (const FileError& e) {
    // "PATH: is a FIFO (named pipe), not a regular file" under the caller's name ("--x 'PATH'").
    const std::string what = e.what();
    const std::string reason =
        what.compare(0, path.size() + 2, path + ": ") == 0 ? what.substr(path.size() + 2) : what;
    throw NpyError(name_ + ": " + reason);
  }
  try {
    unsigned char pre[10] = {};
    const std::size_t got = std::fread(pre, 1, sizeof pre, file_);
    if (got < 6 || std::memcmp(pre, kMagic, 6) != 0)
      throw NpyError(name_ + ": not a NumPy .npy file (it does not start with \\x93NUMPY)");
    if (got < 8) throw NpyError(name_ + ": truncated: the file ends inside the .npy preamble");
    const int major = pre[6], minor = pre[7];
    if (major < 1 || major > 3 || minor != 0)
      throw NpyError(name_ + ": .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                     " is not supported (1.0, 2.0, 3.0 are)");
    std::uint64_t header_len = 0, offset = 0;
    if (major == 1) {
      if (got < 10) throw NpyError(name_ + ": truncated: the file ends inside the .npy preamble");
      header_len = pre[8] | (std::uint64_t{pre[9]} << 8);
      offset = 10;
    } else {
      unsigned char more[2] = {};
      if (got < 10 || std::fread(more, 1, 2, file_) != 2)
        throw NpyError(name_ + ": truncated: the file ends inside the .npy preamble");
      header_len = pre[8] | (std::uint64_t{pre[9]} << 8) | (std::uint64_t{more[0]} << 16) |
                   (std::uint64_t{more[1]} << 24);
      offset = 12;
    }
    if (header_len > kMaxHeader)
      throw NpyError(name_ + ": header: " + std::to_string(header_len) + " bytes long; not a .npy header");
    std::string text(static_cast<std::size_t>(header_len), '\0');  // at most kMaxHeader
    if (std::fread(text.data(), 1, static_cast<std::size_t>(header_len), file_) != header_len)
      throw NpyError(name_ + ": truncated: the file ends inside the header (" + std::to_string(header_len) +
                     " bytes announced)");
    h_ = HeaderParser(text, name_).parse();
    h_.data_offset = offset + header_len;

    // The dtype.
    const std::string& d = h_.descr;
    if (d == "<f2" || d == "<f4" || d == "<f8" || d == "<u2" || d == "<i2") {
      h_.item_size = d[2] - '0';
      h_.bf16_bits = h_.bits = d[1] != 'f';
    } else if (d == "|u1" || d == "|i1" || d == "<u1" || d == "<i1") {
      h_.item_size = 1;
      h_.bits = true;
    } else if (d.size() == 3 && d[0] == '>' && (d[1] == 'f' || d[1] == 'u')) {
      throw NpyError(name_ + ": dtype " + quote(d) + " is big-endian; save it little-endian (a.astype('<" +
                     d.substr(1) + "'))");
    } else {
      throw NpyError(name_ + ": dtype " + quote(d) +
                     " is not one of <f2 (float16), <f4 (float32), <f8 (float64), <u2 (bfloat16 or float16 "
                     "bits), |u1 (e4m3 or e5m2 bits)");
    }
    if (h_.fortran_order && h_.shape.size() > 1)
      throw NpyError(name_ + ": the array is in Fortran order; save it in C order (np.ascontiguousarray)");
    h_.count = 1;
    for (std::uint64_t n : h_.shape) {
      if (n != 0 && h_.count > std::numeric_limits<std::uint64_t>::max() / n / 8)
        throw NpyError(name_ + ": header: the shape's size overflows");
      h_.count *= n;
    }
    // The size must be exactly what the shape promises.
    const std::uint64_t data_bytes = h_.count * static_cast<std::uint64_t>(h_.item_size);
    struct stat st {};
    ::fstat(::fileno(file_), &st);
    const auto file_bytes = static_cast<std::uint64_t>(st.st_size);
    const std::uint64_t have = file_bytes > h_.data_offset ? file_bytes - h_.data_offset : 0;
    if (have < data_bytes) {
      const std::uint64_t row_bytes = h_.rows() ? data_bytes / h_.rows() : 0;
      const std::uint64_t row = row_bytes ? have / row_bytes : 0;
      throw NpyError(name_ + ": truncated: " + std::to_string(have) + " of the " +
                     std::to_string(data_bytes) + " data bytes that shape " + std::to_string(h_.rows()) +
                     (h_.shape.size() > 1 ? "x…" : "") + " needs; the data ends in row " +
                     std::to_string(row) + " (counting from 0) of " + std::to_string(h_.rows()));
    }
    if (have > data_bytes)
      throw NpyError(name_ + ": " + std::to_string(have - data_bytes) +
                     " bytes after the data that the shape describes");
    left_ = h_.count;
  } catch (...) {
    std::fclose(file_);
    file_ = nullptr;
    throw;
  }
}

void NpyReader::bits_as(const Format& f, const std::string& what) {
  if (!h_.bits) return;
  const int want = f.row().bits;
  const bool ok = (want == 16 && (f.id() == FormatId::BF16 || f.id() == FormatId::F16)) ||
                  (want == 8 && (f.id() == FormatId::E4M3 || f.id() == FormatId::E5M2));
  if (!ok || want != 8 * h_.item_size)
    throw NpyError(name_ + ": dtype " + quote(h_.descr) + " holds " + std::to_string(8 * h_.item_size) +
                   "-bit patterns, which " + what +
                   " cannot take (uint16 holds bf16 or f16 bits, uint8 e4m3 or e5m2 bits; f32 and f64 are "
                   "read from <f4 and <f8)");
  bits_format_ = f;
  h_.bf16_bits = f.id() == FormatId::BF16;
}

NpyReader::~NpyReader() {
  if (file_) std::fclose(file_);
}

std::size_t NpyReader::read(double* out, std::size_t max) {
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left_, max));
  if (n == 0) return 0;
  const auto item = static_cast<std::size_t>(h_.item_size);
  buf_.resize(n * item);
  if (std::fread(buf_.data(), 1, buf_.size(), file_) != buf_.size())
    throw NpyError(name_ + ": cannot read: " + (std::ferror(file_) ? sys_error() : "the file got shorter"));
  static const Format f16(FormatId::F16), bf16(FormatId::BF16);
  const unsigned char* b = buf_.data();
  for (std::size_t i = 0; i < n; ++i, b += item) {
    std::uint64_t bits = 0;
    for (std::size_t k = 0; k < item; ++k) bits |= std::uint64_t{b[k]} << (8 * k);  // little-endian
    if (h_.bits && bits_format_) {
      out[i] = bits_format_->decode(bits);
      continue;
    }
    switch (item) {
      case 1:  // 8-bit patterns need bits_as to say which format
        throw NpyError(name_ + ": dtype " + quote(h_.descr) +
                       ": 8-bit patterns of which format? (e4m3, e5m2)");
      case 2:
        out[i] = (h_.bf16_bits ? bf16 : f16).decode(bits);
        break;
      case 4: {
        float v;
        const auto u = static_cast<std::uint32_t>(bits);
        std::memcpy(&v, &u, 4);
        out[i] = v;
        break;
      }
      default: {
        double v;
        std::memcpy(&v, &bits, 8);
        out[i] = v;
      }
    }
  }
  left_ -= n;
  return n;
}

}  // namespace gelu

// The .npy reader: the dtypes and versions NumPy writes, read exactly and in chunks, and every malformed file
// refused with one line naming the file and what is wrong.
#include "gelu/npy.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gelu/fileio.hpp"
#include "gelu/format.hpp"
#include "support/scratch.hpp"

namespace {

std::string temp(const std::string& name) {
  return (gelu::test::scratch_dir("npy") / name).string();
}

/// A .npy file as NumPy writes it: magic, version, little-endian header length, the dict padded with spaces
/// to a multiple of 64 bytes and ended by a newline, then the data.
std::string npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string h = dict;
  const std::size_t pre = major == 1 ? 10 : 12;
  while ((pre + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t n = h.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major > 1) out += std::string(2, '\0');
  return out + h + data;
}

template <class T>
std::string bytes(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

std::string write(const std::string& name, const std::string& content) {
  const std::string p = temp(name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::vector<double> read_all(const std::string& path, std::size_t chunk = 3) {
  gelu::NpyReader r(path, "f.npy");
  std::vector<double> out, buf(chunk);
  for (std::size_t n; (n = r.read(buf.data(), buf.size())) > 0;)
    out.insert(out.end(), buf.begin(), buf.begin() + n);
  return out;
}

TEST(Npy, ReadsEveryAcceptedDtypeExactly) {
  const std::vector<float> f = {1.5f, -0.1f, 3e-39f, 65504.0f, -0.0f, 2.0f};
  const std::string p4 =
      write("f4.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", bytes(f)));
  EXPECT_TRUE(gelu::is_npy_file(p4));
  gelu::NpyReader r(p4, "f.npy");
  EXPECT_EQ(r.header().shape, (std::vector<std::uint64_t>{3, 2}));
  EXPECT_EQ(r.header().rows(), 3u);
  EXPECT_EQ(r.header().count, 6u);
  const std::vector<double> got = read_all(p4);
  ASSERT_EQ(got.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(got[i], static_cast<double>(f[i]));
  EXPECT_TRUE(std::signbit(got[4]));

  const std::vector<double> d = {0.1, -1e300, 5e-324};
  EXPECT_EQ(
      read_all(write("f8.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", bytes(d)))),
      d);
  // float16 and bfloat16 bit patterns, version 2.0 header, double quotes.
  const gelu::Format h(gelu::FormatId::F16), b(gelu::FormatId::BF16);
  const std::vector<std::uint16_t> bits = {0x3c00, 0xc000, 0x0001, 0x7bff};
  const std::vector<double> f2 = read_all(write(
      "f2.npy", npy("{\"descr\": \"<f2\", \"fortran_order\": False, \"shape\": (4,)}", bytes(bits), 2)));
  const std::vector<double> u2 =
      read_all(write("u2.npy", npy("{'descr': '<u2', 'fortran_order': True, 'shape': (4,), }", bytes(bits))));
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(f2[i], h.decode(bits[i]));
    EXPECT_EQ(u2[i], b.decode(bits[i]));
  }
  EXPECT_EQ(f2[3], 65504.0);
  EXPECT_EQ(u2[0], 0.0078125);  // 0x3c00 as bfloat16: 2^(120 - 127)
  // An empty array.
  EXPECT_TRUE(
      read_all(write("empty.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2), }", "")))
          .empty());
}

/// The NpyError's message for a file with these bytes.
std::string error_of(const std::string& content) {
  const std::string p = write("bad.npy", content);
  try {
    gelu::NpyReader r(p, "bad.npy");
    std::vector<double> buf(16);
    while (r.read(buf.data(), buf.size()) > 0) {
    }
  } catch (const gelu::NpyError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("bad.npy: ", 0), 0u) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  return "(no error)";
}

TEST(Npy, RefusesMalformedFilesWithOneLine) {
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  const std::string data(16, '\0');
  struct Case {
    std::string content, needle;
  };
  const std::vector<Case> cases = {
      {"x,y\n1,2\n", "not a NumPy .npy file"},
      {"", "not a NumPy .npy file"},
      {"\x93NUMPY", "truncated: the file ends inside the .npy preamble"},
      {npy(ok, data).substr(0, 40), "truncated: the file ends inside the header"},
      {"\x93NUMPY\x04" + std::string(1, '\0') + npy(ok, data).substr(8),
       "format version 4.0 is not supported"},
      {npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", data), "dtype '<i4' is not one of"},
      {npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", data), "is big-endian"},
      {npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", data), "Fortran order"},
      {npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'extra': 1}", data),
       "unknown key 'extra'"},
      {npy("{'descr': '<f4', 'shape': (2, 2), }", data), "no 'fortran_order'"},
      {npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 2), }", data), "must be True or False"},
      {npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -2), }", data), "non-negative integers"},
      {npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 2), }", data),
       "too large"},
      {npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data),
       "overflows"},
      {npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", data),
       "appears twice"},
      {npy("['descr']", data), "expected '{'"},
      {npy(ok, data.substr(0, 12)), "the data ends in row 1 (counting from 0) of 2"},
      {npy(ok, data + "xx"), "2 bytes after the data"},
  };
  for (const Case& c : cases) {
    const std::string m = error_of(c.content);
    EXPECT_NE(m.find(c.needle), std::string::npos) << "'" << c.needle << "' not in: " << m;
  }
  const std::string dir = temp("dir");
  std::filesystem::create_directories(dir);
  EXPECT_THROW(gelu::NpyReader(dir, "d"), gelu::NpyError);
  EXPECT_THROW(gelu::NpyReader(temp("missing"), "m"), gelu::NpyError);
  EXPECT_FALSE(gelu::is_npy_file(temp("missing")));
}

}  // namespace

namespace {

// Reads never block (docs/reliability.md, round three, class 2): the .npy reader goes through the one reader.
TEST(Npy, AFifoOrADeviceIsRefusedAtOnceNeverWaitedOn) {
  const std::string fifo = temp("fifo.npy");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_THROW(gelu::is_npy_file(fifo), gelu::FileError);
  try {
    gelu::NpyReader r(fifo, "--x 'fifo.npy'");
    ADD_FAILURE() << "a FIFO was opened";
  } catch (const gelu::NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("--x 'fifo.npy': is a FIFO (named pipe)"), std::string::npos)
        << e.what();
  }
  // With a writer that never writes (a stuck program at the other end): still refused, not read.
  const int w = ::open(fifo.c_str(), O_RDWR);
  ASSERT_GE(w, 0);
  EXPECT_THROW(gelu::NpyReader(fifo, "f"), gelu::NpyError);
  ::close(w);
  ::unlink(fifo.c_str());
  EXPECT_THROW(gelu::NpyReader("/dev/zero", "f"), gelu::NpyError);
  EXPECT_THROW(gelu::is_npy_file("/dev/zero"), gelu::FileError);
  EXPECT_FALSE(gelu::is_npy_file(temp("missing.npy")));
}

}  // namespace

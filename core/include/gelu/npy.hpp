// GELU Lab core: a small streaming reader of NumPy .npy files — the binary input of `gelulab check`.
//
// Accepted: format versions 1.0, 2.0 and 3.0; dtypes '<f2' (float16), '<f4', '<f8', '<u2'/'<i2' (16-bit
// patterns: bfloat16 by default — the usual way to save a bfloat16 tensor is t.view(torch.int16).numpy() —
// or float16 with bits_as(f16)) and '|u1'/'|i1' (8-bit patterns of e4m3 or e5m2, with bits_as),
// little-endian, C order (Fortran order only for 1-D arrays, where it is the same). Everything else is
// refused with one line that names the file and what is wrong, never a crash: not a .npy file, a bad header
// (its key, its value), an unsupported dtype, a shape whose size overflows, a file shorter than its shape
// (naming the first incomplete row) or longer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gelu/format.hpp"

namespace gelu {

/// A malformed or unreadable .npy file; what() is one line that starts with the file's name.
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyHeader {
  std::string descr;       // as written, e.g. "<f4"
  int item_size = 0;       // bytes per value
  bool bf16_bits = false;  // '<u2'/'<i2': 16-bit patterns (bfloat16 unless bits_as says otherwise)
  bool bits = false;       // an integer dtype: bit patterns of a number format
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t data_offset = 0;  // where the values start
  std::uint64_t count = 0;        // values (the product of the shape)
  std::uint64_t rows() const { return shape.empty() ? 1 : shape[0]; }
};

/// True when the file starts with the .npy magic string (\x93NUMPY); false when it does not or does not
/// exist or is a directory. Anything else at the path that is not a regular file (a FIFO, a socket, a
/// device) is a FileError from the one reader (gelu::open_for_reading), at once: nothing blocks.
bool is_npy_file(const std::string& path);

/// Reads the values of a .npy file as doubles, in file order, a chunk at a time (memory independent of the
/// file's size).
class NpyReader {
 public:
  /// Opens and checks the whole file (header, dtype, order, size against the shape). `name` is how messages
  /// name the file (e.g. "--x 'y.npy'"). Throws NpyError.
  NpyReader(const std::string& path, std::string name);
  ~NpyReader();
  NpyReader(const NpyReader&) = delete;
  NpyReader& operator=(const NpyReader&) = delete;

  const NpyHeader& header() const { return h_; }
  /// An integer dtype holds bit patterns of `f` (bf16 or f16 for 16 bits, e4m3 or e5m2 for 8); NpyError
  /// naming the file when the widths differ or `f` has no bit patterns to store (`what` names the format's
  /// option in the message, e.g. "--dtype f32"). Float dtypes are not affected.
  void bits_as(const Format& f, const std::string& what);
  const std::string& name() const { return name_; }
  /// Up to `max` next values converted exactly to double (bfloat16 and float16 decoded); fewer only at the
  /// end of the data; 0 when all were read. Throws NpyError when the file cannot be read.
  std::size_t read(double* out, std::size_t max);

 private:
  std::FILE* file_ = nullptr;
  std::string name_;
  NpyHeader h_;
  std::uint64_t left_ = 0;
  std::vector<unsigned char> buf_;
  std::optional<Format> bits_format_;
};

}  // namespace gelu

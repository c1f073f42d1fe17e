// gelulab check: bring your own implementation. (x, y) pairs of a number format — from a text file (two
// numbers per line, whitespace or comma between them) or NumPy .npy files — are compared with the correctly
// rounded value of a function in that format (gelu::precision::PairCheck): maximum and mean ULP error, where,
// mismatches, a histogram by ULP bucket and the ten worst inputs; exit 1 above --max-ulp (for CI).
//
// Streaming: text is read in 4 MiB chunks and .npy files a chunk of rows at a time, so memory stays that of
// the histogram however many pairs there are. Every malformed input is one line naming the file and the line
// or row, exit status 2.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cli/block_dtype.hpp"
#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "gelu/json.hpp"
#include "gelu/npy.hpp"
#include "gelu/numio.hpp"
#include "gelu/precision.hpp"

namespace gelu::cli {
namespace {

constexpr std::size_t kChunk = std::size_t{4} << 20;
constexpr std::size_t kMaxLine = 8192;
constexpr std::size_t kNpyBatch = std::size_t{1} << 16;

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};

/// Where a number was read, for messages: "--pairs 'p.txt', line 7". Built only when a message needs it.
struct Where {
  const std::string& name;
  const char* unit;  // "line" or "row"
  std::size_t n;
  std::string str() const { return name + ", " + unit + " " + std::to_string(n); }
};

/// Turns a number read from a file into a value of the format, or says why it is not one.
class Values {
 public:
  explicit Values(const Format& f) : f_(f) {}

  /// From text: the value the text reads to, accepted when the text pins it down — it is the value itself,
  /// within 1/16 of the format's spacing of it (an exact print, or one with the digits of a wider format),
  /// or the shortest decimal of that value in the format. `what` names the number in messages ("x", "y").
  double from_text(std::string_view tok, const Where& where, const char* what) const {
    const std::optional<double> d = parse_f64(tok);
    if (!d) throw UsageError(where.str() + ": " + what + " = " + quote(tok) + " is not a number");
    finite(*d, where, what, tok);
    if (f_.round(*d) == *d) return *d;  // the value itself (an exact print): the usual case
    const std::optional<double> v = parse_in_format(tok, f_);
    beyond(*v, where, what, tok);
    if (*v == *d || std::fabs(*d - *v) <= f_.spacing(*v) / 16) return *v;
    if (parse_f64(format_in(*v, f_)) == *d) return *v;
    throw UsageError(where.str() + ": " + what + " = " + printable(tok) + " is not a value of " +
                     std::string(f_.name()) + " (the nearest is " + format_in(*v, f_) + ")");
  }
  /// From a .npy file: exact, so it must be a value of the format as it is.
  double from_binary(double d, const Where& where, const char* what) const {
    if (!std::isfinite(d)) finite(d, where, what, format_f64(d));
    if (std::isinf(f_.round(d))) beyond(f_.round(d), where, what, format_f64(d));
    if (!f_.representable(d))
      throw UsageError(where.str() + ": " + what + " = " + format_f64(d) + " is not a value of " +
                       std::string(f_.name()) + " (the nearest is " + format_in(f_.round(d), f_) + ")");
    return d;
  }

 private:
  Format f_;
  void finite(double d, const Where& where, const char* what, std::string_view tok) const {
    if (!std::isfinite(d))
      throw UsageError(where.str() + ": " + what + " = " + printable(tok) +
                       " is not finite (pairs with NaN or infinity are not checked)");
  }
  void beyond(double v, const Where& where, const char* what, std::string_view tok) const {
    if (std::isinf(v))
      throw UsageError(where.str() + ": " + what + " = " + printable(tok) + " is beyond " +
                       std::string(f_.name()) + "'s largest finite value");
  }
};

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// Text pairs: "x y" or "x,y" per line; blank lines and lines starting with # are skipped, and so is a
/// first line of two words (a CSV header such as x,y).
void read_text(std::FILE* file, const std::string& name, const Values& values, precision::PairCheck& check) {
  std::vector<char> buf(kChunk);
  std::size_t have = 0, line = 0;
  bool eof = false, first = true;
  const auto handle = [&](std::string_view l) {
    ++line;
    const Where where{name, "line", line};
    if (l.size() > kMaxLine)
      throw UsageError(where.str() + ": a line of more than " + std::to_string(kMaxLine) + " bytes (" +
                       quote(l) + ")");
    std::string_view fields[2];
    std::size_t count = 0, i = 0;  // fields beyond the second are counted, not kept
    while (i < l.size()) {
      while (i < l.size() && is_space(l[i])) ++i;
      if (i == l.size()) break;
      if (l[i] == ',' && count > 0) {
        ++i;  // one comma between fields (CSV), with optional spaces around it
        while (i < l.size() && is_space(l[i])) ++i;
      }
      const std::size_t start = i;
      while (i < l.size() && !is_space(l[i]) && l[i] != ',') ++i;
      if (count < 2) fields[count] = l.substr(start, i - start);
      ++count;
      if (i < l.size() && l[i] == ',' && i + 1 == l.size())
        throw UsageError(where.str() + ": a line ends with a comma (" + quote(l) + ")");
    }
    if (count == 0 || fields[0].starts_with("#")) return;
    const bool header = first && count == 2 && !parse_f64(fields[0]) && !parse_f64(fields[1]) &&
                        !fields[0].empty() && std::isalpha(static_cast<unsigned char>(fields[0][0]));
    first = false;
    if (header) return;
    if (count != 2)
      throw UsageError(where.str() + ": expected two numbers x y, got " + std::to_string(count) + " field" +
                       (count == 1 ? "" : "s") + " (" + quote(l) + ")");
    const double x = values.from_text(fields[0], where, "x");
    const double y = values.from_text(fields[1], where, "y");
    check.add(line, x, y);
  };
  while (!eof) {
    const std::size_t got = std::fread(buf.data() + have, 1, buf.size() - have, file);
    if (got == 0) {
      if (std::ferror(file)) throw UsageError(name + ": cannot read: " + std::strerror(errno));
      eof = true;
    }
    const std::size_t end = have + got;
    std::size_t start = 0;
    for (std::size_t i = 0; i < end; ++i) {
      if (buf[i] == '\0')
        throw UsageError(name + ", line " + std::to_string(line + 1) +
                         ": a NUL byte (this is not a text file)");
      if (buf[i] != '\n') continue;
      handle(std::string_view(buf.data() + start, i - start));
      start = i + 1;
    }
    if (eof) {
      if (start < end) handle(std::string_view(buf.data() + start, end - start));
      break;
    }
    have = end - start;
    if (have > kMaxLine)
      throw UsageError(name + ", line " + std::to_string(line + 1) + ": a line of more than " +
                       std::to_string(kMaxLine) + " bytes (" +
                       quote(std::string_view(buf.data() + start, have)) + ")");
    std::memmove(buf.data(), buf.data() + start, have);
  }
}

std::string shape_text(const NpyHeader& h) {
  std::string s = "(";
  for (std::size_t i = 0; i < h.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(h.shape[i]);
  return s + (h.shape.size() == 1 ? ",)" : ")");
}

void read_npy_pairs(const std::string& path, const std::string& name, const Values& values,
                    precision::PairCheck& check) {
  NpyReader r(path, name);
  if (r.header().shape.size() != 2 || r.header().shape[1] != 2)
    throw UsageError(name + ": shape " + shape_text(r.header()) +
                     " is not (N, 2); for two 1-D arrays use --x X.npy --y Y.npy");
  std::vector<double> v(2 * kNpyBatch);
  std::size_t row = 0;
  for (std::size_t got; (got = r.read(v.data(), v.size())) > 0;) {
    for (std::size_t i = 0; i + 1 < got; i += 2, ++row) {
      const Where where{name, "row", row};
      check.add(row, values.from_binary(v[i], where, "x"), values.from_binary(v[i + 1], where, "y"));
    }
  }
}

void read_npy_columns(const std::string& xpath, const std::string& xname, const std::string& ypath,
                      const std::string& yname, const Values& values, precision::PairCheck& check) {
  NpyReader rx(xpath, xname), ry(ypath, yname);
  for (const NpyReader* r : {&rx, &ry})
    if (r->header().shape.size() != 1)
      throw UsageError(r->name() + ": shape " + shape_text(r->header()) +
                       " is not (N,); a single (N, 2) array goes with --pairs");
  if (rx.header().count != ry.header().count)
    throw UsageError(xname + " has " + std::to_string(rx.header().count) + " values but " + yname + " has " +
                     std::to_string(ry.header().count) + "; x and y must have the same length");
  std::vector<double> x(kNpyBatch), y(kNpyBatch);
  std::size_t row = 0;
  for (std::size_t got; (got = rx.read(x.data(), x.size())) > 0;) {
    if (ry.read(y.data(), got) != got) throw UsageError(yname + ": cannot read: the file got shorter");
    for (std::size_t i = 0; i < got; ++i, ++row) {
      check.add(row, values.from_binary(x[i], Where{xname, "row", row}, "x"),
                values.from_binary(y[i], Where{yname, "row", row}, "y"));
    }
  }
}

int run_check(Args& args) {
  if (is_block_dtype(args)) return run_check_blocks(args);  // cmd_blocks.cpp
  const auto id = args.option("fn");
  if (!id) throw UsageError("missing --fn ID (" + function_choices() + ")");
  const Subject s = subject(*id, "fn");
  const std::vector<std::string> param_text = args.options("param");
  const int order = parse_order(args);
  const std::optional<Format> fmt_opt = parse_dtype(args);
  const auto pairs = args.option("pairs"), xfile = args.option("x"), yfile = args.option("y");
  const auto max_ulp_text = args.option("max-ulp");
  const bool json = args.flag("json");
  args.finish();

  if (!fmt_opt) throw UsageError("missing --dtype FMT (one of " + number_format_names() + ")");
  const Format fmt = *fmt_opt;
  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  if (order == 2) throw UsageError("--order 2: check compares f (0) or f' (1)");
  if (order == 1 && !s.fn && !s.entry->has_d1())
    throw UsageError("--order 1: the zoo entry " + s.id() + " has no meaningful derivative");
  if (pairs && (xfile || yfile))
    throw UsageError("--pairs: give --pairs FILE or --x X.npy --y Y.npy, not both");
  if (!pairs && !xfile && !yfile) throw UsageError("missing --pairs FILE (or --x X.npy --y Y.npy)");
  if (!pairs && (!xfile || !yfile)) throw UsageError(xfile ? "--x: needs --y Y.npy" : "--y: needs --x X.npy");
  const bool have_max_ulp = max_ulp_text.has_value();
  const auto max_ulp = have_max_ulp
                           ? static_cast<std::uint64_t>(Args::to_int(
                                 "max-ulp", *max_ulp_text, 0, std::numeric_limits<std::int64_t>::max()))
                           : std::uint64_t{0};
  if (dry_run()) return 0;

  const zoo::Entry ref = s.fn ? zoo::from_registry(*s.fn, p) : *s.entry;
  precision::PairCheck check(ref, fmt, order);
  const Values values(fmt);
  std::string source;
  if (pairs) {
    const std::string name = "--pairs " + quote(*pairs, 200);
    source = *pairs;
    if (is_npy_file(*pairs)) {
      try {
        read_npy_pairs(*pairs, name, values, check);
      } catch (const NpyError& e) {
        throw UsageError(e.what());
      }
    } else {
      std::unique_ptr<std::FILE, FileCloser> file(std::fopen(pairs->c_str(), "rb"));
      if (!file) throw UsageError(name + ": cannot read: " + std::strerror(errno));
      read_text(file.get(), name, values, check);
    }
  } else {
    source = *xfile + ", " + *yfile;
    try {
      read_npy_columns(*xfile, "--x " + quote(*xfile, 200), *yfile, "--y " + quote(*yfile, 200), values,
                       check);
    } catch (const NpyError& e) {
      throw UsageError(e.what());
    }
  }
  const precision::PairCheckResult r = check.result();
  const std::string fn = s.id() + std::string(static_cast<std::size_t>(order), '\'');

  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("fn").value(fn);
    w.key("dtype").value(fmt.name());
    w.key("n").value(r.n);
    w.key("max_ulp").value(static_cast<double>(r.max_ulp));
    w.key("x_at_max").value(r.x_at_max);
    w.key("mean_ulp").value(r.mean_ulp);
    w.key("mismatch").value(r.mismatch);
    w.key("histogram").begin_array();
    for (const auto& b : r.histogram) {
      w.begin_object();
      w.key("min").value(static_cast<double>(b.lo)).key("max").value(static_cast<double>(b.hi));
      w.key("count").value(b.count);
      w.end_object();
    }
    w.end_array();
    w.key("worst").begin_array();
    for (const auto& b : r.worst) {
      w.begin_object();
      w.key("row").value(b.row).key("x").value(b.x).key("y").value(b.y).key("expected").value(b.expected);
      w.key("ulp").value(static_cast<double>(b.ulp));
      w.end_object();
    }
    w.end_array();
    w.end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("%s in %s against its correctly rounded value: %zu pairs from %s\n", fn.c_str(),
                std::string(fmt.name()).c_str(), r.n, printable(source, 200).c_str());
    std::printf("max ULP error %llu at x = %s; mean %.4g ULP; %zu of %zu differ (%.3g%%)\n",
                static_cast<unsigned long long>(r.max_ulp), format_in(r.x_at_max, fmt).c_str(), r.mean_ulp,
                r.mismatch, r.n,
                r.n ? 100.0 * static_cast<double>(r.mismatch) / static_cast<double>(r.n) : 0.0);
    if (!r.histogram.empty()) std::printf("histogram (ULP: pairs):\n");
    for (const auto& b : r.histogram) {
      const std::string range =
          b.lo == b.hi ? std::to_string(b.lo) : std::to_string(b.lo) + "-" + std::to_string(b.hi);
      std::printf("  %-14s %zu\n", range.c_str(), b.count);
    }
    if (!r.worst.empty()) std::printf("worst (row: x, y, expected, ULP):\n");
    for (const auto& b : r.worst)
      std::printf("  %zu: %s, %s, %s, %llu\n", b.row, format_in(b.x, fmt).c_str(),
                  format_in(b.y, fmt).c_str(), format_in(b.expected, fmt).c_str(),
                  static_cast<unsigned long long>(b.ulp));
  }
  if (std::fflush(stdout) != 0) return 1;
  if (have_max_ulp && r.max_ulp > max_ulp) {
    std::fprintf(stderr, "gelulab check: max ULP error %llu exceeds --max-ulp %llu (at x = %s)\n",
                 static_cast<unsigned long long>(r.max_ulp), static_cast<unsigned long long>(max_ulp),
                 format_in(r.x_at_max, fmt).c_str());
    return 1;
  }
  return 0;
}

}  // namespace

GELU_COMMAND(
    check, "check", "check (x, y) pairs of your implementation against the correctly rounded function",
    "usage: gelulab check --fn ID --dtype FMT (--pairs FILE | --x X.npy --y Y.npy) [--max-ulp N] [--json]\n"
    "                     [--order 0|1] [--param NAME=VALUE]... [--scale S [--zero-point Z] | --int8-range "
    "A:B]\n\n"
    "Compares every y with the correctly rounded value of --fn at x in the format FMT (the registry's\n"
    "double evaluation rounded once) and reports the maximum and mean error in ULPs of FMT (the number\n"
    "of values of FMT between y and the correctly rounded value), where the maximum is, how many pairs\n"
    "differ, a histogram by ULP bucket (0, 1, 2, 3-4, 5-8, …) and the ten worst inputs.\n\n"
    "  --fn ID            the function (a registry function, or a zoo entry evaluated in f64)\n"
    "  --dtype FMT        f64, f32, bf16, f16, e4m3, e5m2, int8: x and y must be values of it\n"
    "  --pairs FILE       text, one pair per line: 'x y' or 'x,y' (blank lines, # comments and a\n"
    "                     header line such as x,y are skipped); or a NumPy .npy array of shape (N, 2)\n"
    "  --x X.npy --y Y.npy   two 1-D .npy arrays of the same length\n"
    "                     .npy dtypes: <f2 (float16), <f4, <f8, <u2 (bfloat16 bit patterns), C order\n"
    "  --max-ulp N        exit status 1 when the maximum error exceeds N ULP (for CI)\n"
    "  --json             {\"n\", \"max_ulp\", \"x_at_max\", \"mean_ulp\", \"mismatch\", \"histogram\", "
    "\"worst\"}\n"
    "  --order N          0 = f (default), 1 = f'\n"
    "  --param NAME=VALUE, --scale S, --zero-point Z, --int8-range A:B   as for gelulab error\n\n"
    "A text x or y is accepted when it is the value itself, within 1/16 of the format's spacing of it\n"
    "(e.g. printed with float32 digits) or its shortest decimal in the format. An x or y that is not a\n"
    "value of the format, NaN or infinity, a line without exactly two numbers, unequal lengths, a .npy\n"
    "file of another dtype or shape, or a truncated file stops the check with one line naming the file\n"
    "and the line (text) or row (.npy, counted from 0): exit status 2. Rows in the output are lines of\n"
    "a text file and row indices of a .npy file. Memory does not grow with the number of pairs.\n\n"
    "Block formats (--dtype mxfp4 etc., --x X.npy --y Y.npy [--block-size N]): y are a kernel's stored\n"
    "outputs, blocks in array order; see docs/precision.md, \"Block formats\".\n\n"
    "Example: gelulab check --fn gelu --dtype bf16 --pairs torch_gelu_bf16.npy --max-ulp 1\n",
    run_check);

}  // namespace gelu::cli

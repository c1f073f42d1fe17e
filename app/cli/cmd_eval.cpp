// gelulab eval: f, f' or f'' of a registry function (or f, f' of a zoo entry) for every number read from
// stdin or a file, in any format of the format table.
//
// Built for volume (10^7 numbers in a few seconds): input is read in 4 MiB chunks and tokenized in place
// (no iostreams), parsed with from_chars, evaluated through the batched API, formatted with to_chars into
// a buffer written with fwrite. The whole input is parsed before anything is written, so a bad token
// produces its one-line error and no partial output.
#include <unistd.h>

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/backend.hpp"
#include "cli/block_dtype.hpp"
#include "cli/chain_options.hpp"
#include "cli/cli.hpp"
#include "cli/fn_options.hpp"
#include "gelu/activation.hpp"
#include "gelu/fileio.hpp"
#include "gelu/format.hpp"
#include "gelu/numio.hpp"
#include "gelu/precision.hpp"
#include "gelu/zoo.hpp"

namespace gelu::cli {
namespace {

constexpr std::size_t kChunk = std::size_t{4} << 20;
constexpr std::size_t kBatch = std::size_t{1} << 16;     // elements per CPU eval call
constexpr std::size_t kGpuBatch = std::size_t{1} << 22;  // elements per GPU dispatch
constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
// Limits of one run, so that hostile input fails fast with a message instead of exhausting memory: no
// number needs more than ~1100 characters (767 significant digits after 324 zeros), and 10^8 results
// are 0.8 GB of doubles plus the output.
constexpr std::size_t kMaxToken = 4096;
constexpr std::size_t kMaxNumbers = 100'000'000;

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f && f != stdin) std::fclose(f);
  }
};

constexpr bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// All whitespace-separated numbers of the stream, parsed directly into T by `parse` (no double rounding).
/// A token longer than kMaxToken or more than kMaxNumbers numbers is a UsageError naming the stream and line.
template <class T, class Parse>
std::vector<T> read_numbers(std::FILE* f, const std::string& name, Parse parse) {
  std::vector<T> out;
  std::vector<char> buf(kChunk);
  std::size_t have = 0;  // bytes in buf: a carried partial token followed by fresh input
  std::size_t line = 1;  // line of buf[0]
  bool eof = false, first = true;
  const auto too_long = [&](std::string_view tok) {
    return UsageError(name + ", line " + std::to_string(line) + ": a token of more than " +
                      std::to_string(kMaxToken) + " bytes (" + quote(tok) + ") is not a number");
  };
  while (!eof) {
    const std::size_t got = std::fread(buf.data() + have, 1, buf.size() - have, f);
    if (got == 0) {
      if (std::ferror(f)) throw UsageError(name + ": cannot read: " + std::strerror(errno));
      eof = true;
    }
    const std::size_t end = have + got;
    std::size_t i = 0, tail = end;  // tail: start of an unfinished token to carry to the next chunk
    // One byte order mark at the very start is what some editors (Notepad) put there: skipped. Anywhere
    // else it is part of a token, which the error message names (U+FEFF byte order mark).
    if (std::exchange(first, false) && end >= 3 && std::memcmp(buf.data(), "\xEF\xBB\xBF", 3) == 0) i = 3;
    while (i < end) {
      while (i < end && is_space(buf[i])) {
        if (buf[i] == '\n') ++line;
        ++i;
      }
      if (i == end) break;
      const std::size_t start = i;
      while (i < end && !is_space(buf[i])) ++i;
      const std::string_view tok(buf.data() + start, i - start);
      if (tok.size() > kMaxToken) throw too_long(tok);
      if (i == end && !eof) {
        tail = start;  // carried over: at most kMaxToken bytes, so the buffer never grows
        break;
      }
      const std::optional<T> v = parse(tok);
      if (!v)
        throw UsageError(name + ", line " + std::to_string(line) + ": " + quote(tok) + " is not a number");
      if (out.size() == kMaxNumbers)
        throw UsageError(name + ": more than " + std::to_string(kMaxNumbers) +
                         " numbers (the limit of one run; split the input)");
      out.push_back(*v);
    }
    have = end - tail;
    if (have) std::memmove(buf.data(), buf.data() + tail, have);
  }
  return out;
}

class Output {
 public:
  Output() { buf_.reserve(kFlushBytes + 4096); }
  ~Output() { flush(); }
  void add(float v) { append_f32(buf_, v), end_line(); }
  void add(double v) { append_f64(buf_, v), end_line(); }
  void add(double v, const Format& f) { buf_ += format_in(v, f), end_line(); }
  void flush() {
    if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), stdout);
    buf_.clear();
  }

 private:
  void end_line() {
    buf_ += '\n';
    if (buf_.size() >= kFlushBytes) flush();
  }
  std::string buf_;
};

template <class T>
void eval_cpu(const Activation& a, int order, const Params& p, const std::vector<T>& x) {
  Output out;
  std::vector<T> y(std::min(kBatch, x.size()));
  for (std::size_t i = 0; i < x.size(); i += kBatch) {
    const std::size_t n = std::min(kBatch, x.size() - i);
    a.eval(std::span<const T>(x.data() + i, n), std::span<T>(y.data(), n), order, &p);
    for (std::size_t j = 0; j < n; ++j) out.add(y[j]);
  }
}

void eval_gpu(const Activation& a, int order, const Params& p, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); i += kGpuBatch) {
    const std::size_t n = std::min(kGpuBatch, x.size() - i);
    if (auto err =
            gpu_eval(a, order, p, std::span<const float>(x.data() + i, n), std::span<float>(y.data() + i, n)))
      throw UsageError("--backend gpu: " + *err);
  }
  Output out;
  for (float v : y) out.add(v);
  // Say when the device's flushing of subnormals is why a value differs from the CPU's float32 result.
  const std::string flush = gpu_subnormal_note();
  if (flush.empty()) return;
  std::vector<float> cpu(x.size());
  a.eval(std::span<const float>(x), std::span<float>(cpu), order, &p);
  std::size_t n = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool tiny_in = x[i] != 0.0f && std::fabs(x[i]) < FLT_MIN;
    const bool tiny_out = cpu[i] != 0.0f && std::fabs(cpu[i]) < FLT_MIN;
    if ((tiny_in || tiny_out) && y[i] != cpu[i]) ++n;
  }
  if (n > 0)
    std::fprintf(
        stderr,
        "gelulab eval: note: %zu of %zu results differ from the CPU's float32 ones because this GPU has "
        "%s; the CPU keeps them\n",
        n, x.size(), flush.c_str());
}

/// Results of a storage format (bf16, f16, e4m3, e5m2, int8): the registry's double rounded once, or the zoo
/// entry as computed rounded once; each printed in the shortest decimal that reads back to the same value.
void eval_format(const Subject& s, int order, const Params& p, const Format& fmt, const Format& compute,
                 const std::vector<double>& x) {
  Output out;
  std::vector<double> y(std::min(kBatch, x.size()));
  for (std::size_t i = 0; i < x.size(); i += kBatch) {
    const std::size_t n = std::min(kBatch, x.size() - i);
    const std::span<const double> xs(x.data() + i, n);
    if (s.fn)
      s.fn->eval(xs, std::span<double>(y.data(), n), order, &p);
    else
      s.entry->eval(xs, std::span<double>(y.data(), n), order, compute);
    for (std::size_t j = 0; j < n; ++j) {
      // A registry function's double: its correctly rounded value (the tie rule included).
      const double v = s.fn ? correctly_rounded(*s.fn, fmt, xs[j], y[j], order) : y[j];
      if (fmt.id() == FormatId::F64)
        out.add(v);
      else if (fmt.id() == FormatId::F32)
        out.add(static_cast<float>(v));
      else
        out.add(v, fmt);
    }
  }
}

/// --input FILE (a regular file; absent or '-': stdin), and its name for messages.
std::unique_ptr<std::FILE, FileCloser> open_input(const std::optional<std::string>& input,
                                                  std::string* out_name) {
  std::unique_ptr<std::FILE, FileCloser> file(stdin);
  std::string& name = *out_name;
  name = "stdin";
  if (input && *input != "-") {
    name = "--input " + quote(*input, 200);
    // The one reader's checks: a regular file (a FIFO, a socket or a device is refused, never waited on).
    int fd = -1;
    try {
      fd = open_for_reading(*input);
    } catch (const FileError& e) {
      const std::string what = e.what();
      const std::string reason = what.rfind(*input + ": ", 0) == 0 ? what.substr(input->size() + 2) : what;
      const bool special = reason.find("not a regular file") != std::string::npos;
      throw UsageError(name + ": " + reason +
                       (special ? " (a stream goes on standard input: --input - or no --input)" : ""));
    }
    file.reset(::fdopen(fd, "rb"));
    if (!file) {
      ::close(fd);
      throw UsageError(name + ": cannot read: " + std::strerror(errno));
    }
  }

  return file;
}

/// One line on stderr naming the semantics the results were computed with (precision::semantics): the
/// registry's gelu_tanh (correctly rounded) and the zoo's tanh_form (as shipped) answer differently, so every
/// output says which one it is. Standard output keeps one result per line.
void say_semantics(const Subject& s, const Format& storage, const Format& compute, bool gpu = false) {
  const std::string how = precision::semantics(s.id(), storage, compute);
  if (!how.empty()) command::note_after_output("evaluated as " + how + (gpu ? ", on the GPU" : ""));
}

int run_eval(Args& args) {
  if (has_store(args)) return run_eval_chain(args);
  if (is_block_dtype(args)) return run_eval_blocks(args);  // cmd_blocks.cpp
  const auto id = args.option("fn");
  if (!id) throw UsageError("missing --fn ID (" + function_choices() + ")");
  const Subject s = subject(*id, "fn");
  const int order = parse_order(args);
  const std::optional<Format> dtype_opt = parse_dtype(args);
  const std::optional<Format> compute_opt = parse_compute(args);
  const std::vector<std::string> param_text = args.options("param");
  const std::optional<std::string> input = args.option("input");
  const Backend backend = parse_backend(args.option("backend"), false);
  args.finish();

  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  if (!s.fn && order == 2) throw UsageError("--order 2: zoo entries have f and f' only (" + s.id() + ")");
  if (!s.fn && order == 1 && !s.entry->has_d1())
    throw UsageError("--order 1: the zoo entry " + s.id() + " has no meaningful derivative");
  if (s.fn && compute_opt)
    throw UsageError("--compute: applies to zoo entries; the registry function " + s.id() +
                     " is evaluated as the registry does");
  const Format dtype = dtype_opt.value_or(Format(backend == Backend::Gpu ? FormatId::F32 : FormatId::F64));
  if (backend == Backend::Gpu && (dtype.id() != FormatId::F32 || !s.fn))
    throw UsageError("--backend gpu computes registry functions in float32 only (use --dtype f32)");
  const Format compute = compute_opt.value_or(precision::default_compute(dtype));
  if (dry_run()) return 0;

  std::string name;
  const std::unique_ptr<std::FILE, FileCloser> file = open_input(input, &name);
  if (dtype.id() == FormatId::F32 && s.fn) {
    const std::vector<float> x = read_numbers<float>(file.get(), name, parse_f32);
    if (backend == Backend::Gpu)
      eval_gpu(*s.fn, order, p, x);
    else
      eval_cpu(*s.fn, order, p, x);
  } else if (dtype.id() == FormatId::F64 && s.fn) {
    eval_cpu(*s.fn, order, p, read_numbers<double>(file.get(), name, parse_f64));
  } else {
    // Each input rounded once, directly from its text, to the format.
    const std::vector<double> x = read_numbers<double>(
        file.get(), name, [&dtype](std::string_view t) { return parse_in_format(t, dtype); });
    eval_format(s, order, p, dtype, compute, x);
  }
  say_semantics(s, dtype, compute, backend == Backend::Gpu);
  return 0;  // a failed write to stdout is reported by run_main (command/dispatch.cpp)
}

}  // namespace

/// gelulab eval --store FMT: each input (a GEMM's accumulator value) through the chain --accumulator,
/// --compute, --store (gelu::run_chain_values), printed as stored.
int run_eval_chain(Args& args) {
  const auto id = args.option("fn");
  if (!id) throw UsageError("missing --fn ID (" + function_choices() + ")");
  const Subject s = subject(*id, "fn");
  const Chain chain = parse_chain_options(args);
  const auto order_text = args.option("order");
  const std::vector<std::string> param_text = args.options("param");
  const auto block_max_text = args.option("block-max");
  const std::optional<std::string> input = args.option("input");
  if (const auto b = args.option("backend"); b && *b != "cpu")
    throw UsageError("--backend " + printable(*b) + ": a rounding-point chain is computed on the CPU");
  args.finish();
  const int order = order_text ? static_cast<int>(Args::to_int("order", *order_text, 0, 1)) : 0;
  const Params p = s.fn ? parse_params(*s.fn, param_text, "param") : Params{};
  if (!s.fn && !param_text.empty())
    throw UsageError("--param: the zoo entry " + s.id() + " has no parameters");
  if (!s.fn && order == 1 && !s.entry->has_d1())
    throw UsageError("--order 1: the zoo entry " + s.id() + " has no meaningful derivative");
  std::optional<double> block_max;
  if (block_max_text) {
    if (!chain.store.block)
      throw UsageError("--block-max: applies to a block format as --store, not " +
                       std::string(chain.store.name()));
    block_max = parse_f64(*block_max_text);
    if (!block_max || !std::isfinite(*block_max) || !(*block_max > 0))
      throw UsageError("--block-max: " + printable(*block_max_text) + " is not a finite number > 0");
  }
  if (dry_run()) return 0;

  std::string name;
  const std::unique_ptr<std::FILE, FileCloser> file = open_input(input, &name);
  const std::vector<double> x = read_numbers<double>(file.get(), name, parse_f64);
  const zoo::Entry e = s.fn ? zoo::from_registry(*s.fn, p) : *s.entry;
  const ChainValues v = run_chain_values(e, chain, x, order, block_max);
  command::note_after_output(
      "evaluated as " + precision::stored_semantics(s.id(), chain.compute.name(), chain.store.name(), true));
  Output out;
  for (double y : v.stored) {
    if (chain.store.plain)
      out.add(y, *chain.store.plain);
    else
      out.add(y);
  }
  return 0;
}

GELU_COMMAND(
    eval, "eval", "evaluate f, f' or f'' of a function for numbers from stdin or a file",
    "usage: gelulab eval --fn ID [--order 0|1|2] [--dtype FMT] [--compute FMT] [--param NAME=VALUE]...\n"
    "                    [--store FMT [--accumulator FMT]]\n"
    "                    [--scale S [--zero-point Z] | --int8-range A:B] [--input FILE]\n"
    "                    [--backend cpu|gpu]\n\n"
    "Reads numbers separated by whitespace (decimal, hex floats such as 0x1.8p-3, nan, inf, -inf)\n"
    "and writes one result per input, one per line, in the shortest text that reads back to the\n"
    "same value of the dtype; nan, inf and -inf are spelled so. Each input is first rounded once,\n"
    "directly from its text, to the dtype (to nearest, ties to even; e4m3 and int8 saturate).\n"
    "A registry function is evaluated in the dtype for f32 and f64 and in double rounded to the dtype\n"
    "otherwise, as its correctly rounded value (where the double is a tie of the dtype and the exact\n"
    "value is known to lie beside it, GELU at tiny x, it rounds to that side); a zoo entry as shipped,\n"
    "its intermediates in the compute format, its result rounded to the dtype. One line on stderr\n"
    "names which of these it was (\"evaluated as registry function gelu_tanh, correctly rounded to "
    "bf16\").\n\n"
    "  --fn ID             a registry function (gelulab list) or a zoo entry (gelulab list --zoo)\n"
    "  --order N           0 = f (default), 1 = f', 2 = f'' (registry functions)\n"
    "  --dtype FMT         f64 (default; f32 with --backend gpu), f32, bf16, f16, e4m3, e5m2, int8,\n"
    "                      e2m3, e3m2, e2m1, e8m0, ue4m3, or a block format (below)\n"
    "  --block-max A       block formats: the largest magnitude of the block each result is stored in\n"
    "  --compute FMT       what a zoo entry computes in (default: f64 for f64, else f32); with\n"
    "                      --store, the chain's compute format for any function (default f32)\n"
    "  --store FMT         a rounding-point chain: each input rounded to --accumulator FMT (default\n"
    "                      f32), the function computed in --compute, the result stored in FMT (any\n"
    "                      number or block format; --block-max as below); --order 0 or 1\n"
    "  --scale S, --zero-point Z, --int8-range A:B   int8's quantization (see gelulab error --help)\n"
    "  --param NAME=VALUE  override a parameter, within its range (repeatable)\n"
    "  --input FILE        read FILE instead of stdin ('-' is stdin)\n"
    "  --backend cpu|gpu   where to compute (default cpu; gpu needs --dtype f32)\n\n"
    "Block formats (--dtype mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4, nvfp4): f in double\n"
    "(a zoo entry in --compute, default f32), then stored with the OCP MX v1.0 / NVFP4 rules, printed as\n"
    "the stored value. --block-max A stores each result in a block whose largest magnitude is A (NVFP4:\n"
    "in a tensor whose largest magnitude is A too); without it the results form consecutive blocks in\n"
    "input order. --block-size N overrides the format's block size (32; NVFP4 16).\n"
    "A token that is not a number is reported with its line, and nothing is written. One UTF-8 byte\n"
    "order mark at the start of the input is skipped. --input must be a regular file (a pipe goes\n"
    "on standard input).\n"
    "Examples: seq -5 5 | gelulab eval --fn gelu_tanh --param c=0.035 --order 1\n"
    "          echo -3 2.7 | gelulab eval --fn tanh_form --dtype bf16\n"
    "          echo -0.75 | gelulab eval --fn gelu --dtype mxfp4 --block-max 3   # -0.25\n"
    "          echo -0.75 | gelulab eval --fn gelu --compute bf16 --store mxfp4 --block-max 3\n",
    run_eval);

}  // namespace gelu::cli

// gelulab train: train a tiny feed-forward network on a toy dataset (CPU, or GPU when built with it).
//
// Index of this file:
//   [SECTION] Options and limits
//   [SECTION] The run
//   [SECTION] Registration and help
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "gelu/ffn/dataset.hpp"
#include "gelu/ffn/model_file.hpp"
#include "gelu/ffn/network.hpp"
#include "gelu/ffn/train.hpp"
#include "gelu/json.hpp"
#include "gelu/numio.hpp"
#include "model/backends.hpp"

namespace gelu::cli {
namespace {

using namespace gelu::ffn;

// [SECTION] Options and limits

std::vector<int> parse_layers(const std::string& text) {
  std::vector<int> sizes;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string tok =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (tok.empty())
      throw UsageError("--layers: empty size in " + quote(text) + " (expected e.g. 2,32,32,1)");
    sizes.push_back(static_cast<int>(Args::to_int("layers", tok, 1, kMaxWidth)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (sizes.size() < 3 || sizes.size() > static_cast<std::size_t>(kMaxHiddenLayers) + 2)
    throw UsageError("--layers: give the input size, 1 to " + std::to_string(kMaxHiddenLayers) +
                     " hidden widths and the output size (e.g. 2,32,32,1), got " +
                     std::to_string(sizes.size()) + " number(s)");
  return sizes;
}

template <class E>
E parse_enum(Args& args, const char* name, E fallback, std::optional<E> (*parse)(std::string_view),
             const char* choices) {
  const auto v = args.option(name);
  if (!v) return fallback;
  const auto e = parse(*v);
  if (!e) throw UsageError(std::string("--") + name + ": " + quote(*v) + " is not one of " + choices);
  return *e;
}

/// A number option that must satisfy ok(v); the message says what is allowed ("a number in (0, 10]").
template <class Ok>
double number_option(const char* name, const std::string& text, Ok ok, const char* allowed) {
  const double v = Args::to_double(name, text);
  if (!ok(v)) throw UsageError(std::string("--") + name + ": " + printable(text) + " is not " + allowed);
  return v;
}

// What one run may ask for, checked before anything is allocated or trained: a valid but absurd request
// (10^7 steps, a batch of a million through eight layers of 512) fails at once with the limit named,
// instead of running for hours or being killed for memory. Measured on this 2-core machine, one unit of
// work (a parameter times a batch row, forward and backward) takes 0.1-0.2 ns, so the limit is at most
// about 10 minutes (the default run is 9e8). The memory estimate counts 4 floats per unit and batch row
// (values, activations and their gradients) and one per unit and dataset row (the evaluation pass).
constexpr double kMaxTrainWork = 3e12;                       // steps x batch x parameters
constexpr double kMaxTrainBytes = 4.0 * 1024 * 1024 * 1024;  // working memory

void check_budget(const TrainConfig& cfg, const Dataset& data, const Network<float>& net) {
  const NetworkSpec& spec = net.spec();
  const double rows = static_cast<double>(data.x_train.cols() + data.x_test.cols());
  const double batch = std::min<double>(cfg.batch, static_cast<double>(data.x_train.cols()));
  const double params = static_cast<double>(net.parameter_count());
  const double work = static_cast<double>(cfg.steps) * batch * params;
  char buf[320];
  if (work > kMaxTrainWork) {
    std::snprintf(buf, sizeof buf,
                  "--steps %d x batch %.0f x %.0f parameters = %.2g, more than the limit of %.0e "
                  "for one run (lower --steps, --batch or the layer widths)",
                  cfg.steps, batch, params, work, kMaxTrainWork);
    throw UsageError(buf);
  }
  double units = spec.inputs + spec.outputs;
  for (const HiddenSpec& h : spec.hidden)
    units +=
        h.width +
        (spec.glu == GluKind::None ? 0 : 3.0 * (h.glu_hidden ? h.glu_hidden : default_glu_hidden(h.width)));
  const double bytes = sizeof(float) * units * (4 * batch + rows);
  if (bytes > kMaxTrainBytes) {
    std::snprintf(
        buf, sizeof buf,
        "--batch %.0f and %.0f samples through %.0f units need about %.1f GiB, more than the limit of "
        "%.0f GiB (lower --batch, --samples or the layer widths)",
        batch, rows, units, bytes / (1024.0 * 1024 * 1024), kMaxTrainBytes / (1024.0 * 1024 * 1024));
    throw UsageError(buf);
  }
}

// [SECTION] The run: training, divergence, output

struct Progress {
  bool enabled;
  int total;
  std::chrono::steady_clock::time_point last{};
  void update(int step, double loss) {
    if (!enabled) return;
    const auto now = std::chrono::steady_clock::now();
    if (step != total && now - last < std::chrono::milliseconds(100)) return;
    last = now;
    std::fprintf(stderr, "\r  step %d/%d  loss %.5f  ", step, total, loss);
    std::fflush(stderr);
  }
  void finish() {
    if (enabled) std::fprintf(stderr, "\r\033[K");
  }
};

int run_train(Args& args) {
  const std::string dataset_id = args.option("dataset").value_or("spiral");
  const auto layers_opt = args.option("layers");
  const auto act_opt = args.option("act");
  const auto glu_opt = args.option("glu");
  const auto glu_hidden_opt = args.option("glu-hidden");
  const bool stochastic = args.flag("stochastic");
  const bool no_bias = args.flag("no-bias");
  const Init init = parse_enum<Init>(args, "init", Init::He, parse_init, "he, xavier, zero");
  const auto loss_opt = args.option("loss");
  TrainConfig cfg;
  cfg.optimizer =
      parse_enum<OptimizerKind>(args, "optimizer", OptimizerKind::Adam, parse_optimizer, "adam, sgd");
  cfg.schedule =
      parse_enum<Schedule>(args, "schedule", Schedule::Constant, parse_schedule, "constant, step, cosine");
  if (auto v = args.option("lr"))
    cfg.lr = number_option(
        "lr", *v, [](double x) { return x > 0 && x <= 10; }, "a number in (0, 10]");
  if (auto v = args.option("momentum"))
    cfg.momentum = number_option(
        "momentum", *v, [](double x) { return x >= 0 && x < 1; }, "a number in [0, 1)");
  if (auto v = args.option("weight-decay"))
    cfg.weight_decay = number_option(
        "weight-decay", *v, [](double x) { return x >= 0 && x <= 1; }, "a number in [0, 1]");
  if (auto v = args.option("steps")) cfg.steps = static_cast<int>(Args::to_int("steps", *v, 0, 10'000'000));
  if (auto v = args.option("batch")) cfg.batch = static_cast<int>(Args::to_int("batch", *v, 1, 1'000'000));
  std::uint64_t seed = 1;
  if (auto v = args.option("seed")) seed = static_cast<std::uint64_t>(Args::to_int("seed", *v, 0, INT64_MAX));
  DatasetOptions dopt;
  dopt.id = dataset_id;
  dopt.seed = seed;
  if (auto v = args.option("samples"))
    dopt.samples = static_cast<int>(Args::to_int("samples", *v, 4, 10'000'000));
  if (auto v = args.option("noise"))
    dopt.noise = number_option(
        "noise", *v, [](double x) { return x >= 0 && x <= 10; }, "a number in [0, 10]");
  if (auto v = args.option("classes")) dopt.classes = static_cast<int>(Args::to_int("classes", *v, 2, 8));
  int every = -1;
  if (auto v = args.option("every")) every = static_cast<int>(Args::to_int("every", *v, 1, 100'000'000));
  const Backend backend = parse_backend(args.option("backend"), false);
  const bool json = args.flag("json");
  const auto save_path = args.option("save");
  const auto load_path = args.option("load");
  args.finish();
  // The output-path policy (command.hpp): "--save -" writes the model to standard output, and the report
  // gives way.
  const bool report_gives_way =
      !command::check_outputs({{"save", &save_path}}, json ? "the JSON" : nullptr).empty();

  if (!find_dataset(dataset_id))
    throw UsageError("--dataset: unknown dataset " + quote(dataset_id) + " (one of " + dataset_ids() + ")");
  Dataset data;
  try {
    data = dry_run() ? dataset_outline(dopt) : make_dataset(dopt);  // validate-only: no points to make
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }

  // The network: from a model file, or from --layers/--act/--glu.
  NetworkSpec spec;
  std::unique_ptr<Network<float>> net;
  if (load_path) {
    for (const char* o : {"layers", "act", "glu", "glu-hidden"})
      if ((o == std::string("layers") && layers_opt) || (o == std::string("act") && act_opt) ||
          (o == std::string("glu") && glu_opt) || (o == std::string("glu-hidden") && glu_hidden_opt))
        throw UsageError(std::string("--") + o +
                         " conflicts with --load (the model file defines the network)");
    if (stochastic || no_bias)
      throw UsageError("--stochastic/--no-bias conflict with --load (the model file defines the network)");
    try {
      const ModelFile m = load_model(*load_path);
      net = std::make_unique<Network<float>>(make_network<float>(m));
    } catch (const ModelFileError& e) {
      throw UsageError(std::string("--load: ") + e.what());
    }
    spec = net->spec();
  } else {
    std::vector<int> sizes =
        layers_opt ? parse_layers(*layers_opt)
                   : std::vector<int>{data.inputs, 32, 32,
                                      data.task == Task::Regression || data.classes == 2 ? 1 : data.classes};
    GluKind glu = GluKind::None;
    if (glu_opt) {
      const auto g = parse_glu(*glu_opt);
      if (!g || *g == GluKind::None)
        throw UsageError("--glu: " + quote(*glu_opt) + " is not one of geglu, swiglu, reglu");
      glu = *g;
    }
    const std::string act = act_opt.value_or("gelu");
    if (!find_activation(act))
      throw UsageError("--act: unknown activation " + quote(act) + " (one of " + activation_ids() + ")");
    try {
      spec = make_spec(sizes, act, glu, stochastic, !no_bias);
      if (glu_hidden_opt) {
        if (glu == GluKind::None) throw UsageError("--glu-hidden needs --glu");
        const int h = static_cast<int>(Args::to_int("glu-hidden", *glu_hidden_opt, 1, kMaxWidth));
        for (HiddenSpec& hs : spec.hidden) hs.glu_hidden = h;
      }
      net = std::make_unique<Network<float>>(spec);
    } catch (const SpecError& e) {
      throw UsageError(e.what());
    }
    if (!dry_run()) net->init(init, seed);  // millions of random draws for wide GLU stacks; checks need none
  }
  if (loss_opt) {
    const auto l = parse_loss(*loss_opt);
    if (!l) throw UsageError("--loss: " + quote(*loss_opt) + " is not one of mse, bce, ce");
    cfg.loss = *l;
  } else {
    cfg.loss = default_loss(data, spec.outputs);
  }
  cfg.seed = seed + 0x5EED;  // batch order: a stream apart from the dataset's and the weights'
  try {
    validate(cfg, data, spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  check_budget(cfg, data, *net);
  if (dry_run()) return 0;
  if (every < 0) every = std::max(1, cfg.steps / 10);

  std::vector<std::pair<int, double>> history;
  std::vector<double> step_us;
  step_us.reserve(static_cast<std::size_t>(cfg.steps));
  Metrics metrics;
  Progress progress{is_terminal(2) && cfg.steps > 0, cfg.steps};
  auto write_history = [&](json::Builder& w) {  // "history": [[step, batch loss], …] in --json
    w.key("history").begin_array();
    for (const auto& [s, l] : history) {
      w.begin_array();
      w.value(s);
      w.value(l);
      w.end_array();
    }
    w.end_array();
  };
  auto report = [&](int step, double batch_loss) {
    history.emplace_back(step, batch_loss);
    if (!json && !report_gives_way) std::printf("step %7d  loss %.6f\n", step, batch_loss);
  };

  // One timed loop for whichever trainer runs (model/backends.hpp picks the GPU's).
  app::TrainerHost host;
  std::unique_ptr<StepTrainer> trainer;
  if (backend == Backend::Gpu) {
    std::string why;
    trainer = host.gpu_trainer(*net, data, cfg, &why);
    if (!trainer) throw UsageError("--backend gpu: " + why);
  } else {
    trainer = cpu_trainer(*net, data, cfg);
  }
  // Divergence: the first non-finite loss stops training (ffn::diverged with growth 0); the run then fails
  // (exit 3: the input was valid, the run was not), and says at which step.
  int diverged_at = 0;
  double diverged_loss = 0;
  for (int s = 1; s <= cfg.steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    const double l = trainer->step();
    step_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    if (!trainer->failure().empty()) throw UsageError("--backend gpu: " + trainer->failure());
    if (ffn::diverged(l, 0, 0)) {
      diverged_at = s;
      diverged_loss = l;
      history.emplace_back(s, l);
      break;
    }
    progress.update(s, l);
    if (s % every == 0 || s == cfg.steps) report(s, l);
  }
  trainer->download(*net);
  trainer.reset();
  progress.finish();
  if (diverged_at) {
    char lr[32];
    std::snprintf(lr, sizeof lr, "%g", cfg.lr);
    std::string line = "gelulab train: diverged at step " + std::to_string(diverged_at) + " of " +
                       std::to_string(cfg.steps) + ": the loss became " + format_f64(diverged_loss) +
                       "; lower the learning rate (--lr " + lr + ")";
    if (save_path) line += "; nothing was saved to " + quote(*save_path);
    if (json) {
      json::Builder w;
      w.begin_object();
      w.key("dataset").value(data.id);
      w.key("backend").value(backend == Backend::Gpu ? "gpu" : "cpu");
      w.key("optimizer").value(to_string(cfg.optimizer));
      w.key("lr").value(cfg.lr);
      w.key("seed").value(static_cast<std::int64_t>(seed));
      w.key("steps").value(cfg.steps);
      w.key("diverged_at_step").value(diverged_at);
      write_history(w);
      w.end_object();
      std::printf("%s\n", w.str().c_str());
    }
    std::fprintf(stderr, "%s\n", line.c_str());
    return 3;
  }
  {
    Trainer<float> eval(*net, data, cfg);  // evaluation on the CPU for both backends (same float network)
    metrics = eval.evaluate();
  }
  double median = 0;
  if (!step_us.empty()) {
    auto mid = step_us.begin() + static_cast<std::ptrdiff_t>(step_us.size() / 2);
    std::nth_element(step_us.begin(), mid, step_us.end());
    median = *mid;
  }
  if (save_path) {
    json::Object meta{{"dataset", data.id},
                      {"loss", to_string(cfg.loss)},
                      {"steps", cfg.steps},
                      {"seed", static_cast<double>(seed)}};
    try {
      save_model(*save_path, *net, meta);
    } catch (const ModelFileError& e) {
      throw UsageError(std::string("--save: ") + e.what());
    }
  }
  if (report_gives_way) return 0;

  const bool classify = data.task == Task::Classification;
  if (json) {
    json::Builder w;
    w.begin_object();
    w.key("dataset").value(data.id);
    w.key("backend").value(backend == Backend::Gpu ? "gpu" : "cpu");
    w.key("layers").begin_array();
    w.value(spec.inputs);
    for (const HiddenSpec& h : spec.hidden) w.value(h.width);
    w.value(spec.outputs);
    w.end_array();
    w.key("activation").value(spec.hidden.front().activation);
    w.key("glu").value(to_string(spec.glu));
    w.key("stochastic").value(spec.stochastic);
    w.key("parameters").value(net->parameter_count());
    w.key("loss").value(to_string(cfg.loss));
    w.key("optimizer").value(to_string(cfg.optimizer));
    w.key("lr").value(cfg.lr);
    w.key("batch").value(std::min<std::size_t>(static_cast<std::size_t>(cfg.batch),
                                               static_cast<std::size_t>(data.x_train.cols())));
    w.key("seed").value(static_cast<std::int64_t>(seed));
    w.key("steps").value(cfg.steps);
    w.key("train_loss").value(metrics.train_loss);
    w.key("test_loss").value(metrics.test_loss);
    if (classify) {
      w.key("train_accuracy").value(metrics.train_accuracy);
      w.key("test_accuracy").value(metrics.test_accuracy);
    }
    w.key("median_step_us").value(median);
    write_history(w);
    w.end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf("train loss %.6f  test loss %.6f", metrics.train_loss, metrics.test_loss);
    if (classify)
      std::printf("  train accuracy %.2f%%  test accuracy %.2f%%", 100 * metrics.train_accuracy,
                  100 * metrics.test_accuracy);
    std::printf("\nmedian step %.1f us (%s, %zu parameters)\n", median,
                backend == Backend::Gpu ? "gpu" : "cpu", net->parameter_count());
  }
  return 0;
}

}  // namespace

// [SECTION] Registration and help

GELU_COMMAND(
    train, "train", "train a tiny feed-forward network on a toy dataset",
    "usage: gelulab train [--dataset ID] [--layers IN,H1,...,OUT] [--act ID] [--glu geglu|swiglu|reglu]\n"
    "                     [--stochastic] [--optimizer adam|sgd] [--lr X] [--steps N] [--batch N] [--seed N]\n"
    "                     [--backend cpu|gpu] [--json] [--save FILE] [--load FILE] [more options below]\n\n"
    "Trains a network with hand-written forward/backward passes (float32) and reports loss and accuracy.\n"
    "Deterministic on the CPU for a fixed seed (the seed drives the data, the weights and the batches).\n\n"
    "  --dataset ID       sin, abs, step, gelu (1-D regression); circle, xor, gaussians, spiral, moons,\n"
    "                     checkerboard (2-D classification). Default spiral\n"
    "  --layers L         sizes input,hidden...,output: 1-8 hidden layers of width 1-512 (default "
    "IN,32,32,OUT)\n"
    "  --act ID           hidden activation from the registry (gelulab list), default gelu\n"
    "  --glu KIND         GLU blocks instead of dense layers: geglu (gelu gate), swiglu (silu), reglu "
    "(relu)\n"
    "  --glu-hidden N     inner width of the GLU blocks (default ceil(8/3*width) rounded up to 8)\n"
    "  --stochastic       stochastic GELU: masks m ~ Bernoulli(Phi(x)) in training, x*Phi(x) at evaluation\n"
    "  --no-bias          no bias vectors\n"
    "  --init KIND        he (default), xavier, zero\n"
    "  --loss KIND        mse, bce, ce (default: mse for regression, bce for 2 classes, ce otherwise)\n"
    "  --optimizer KIND   adam (default) or sgd (with --momentum, default 0.9)\n"
    "  --lr X             learning rate in (0, 10] (default 0.01); --schedule constant|step|cosine\n"
    "  --weight-decay X   L2 penalty on the weights, in [0, 1] (default 0)\n"
    "  --steps N          training steps (default 3000); --batch N (default 256)\n"
    "  --seed N           seed (default 1); --samples N (default 1000); --noise X; --classes K (spiral,\n"
    "                     gaussians)\n"
    "  --every N          print the batch loss every N steps (default steps/10)\n"
    "  --backend B        cpu (default) or gpu\n"
    "  --json             print one JSON object at the end (steps, train_loss, test_loss, train_accuracy,\n"
    "                     test_accuracy, median_step_us, history) and nothing else on stdout\n"
    "  --save FILE        write the trained model (versioned JSON); --load FILE starts from one\n"
    "                     (--save - writes it to standard output, and the report gives way)\n\n"
    "One run may do at most 3e12 units of work (steps x batch x parameters) and use about 4 GiB; a larger\n"
    "request is refused before it starts, with the numbers.\n\n"
    "Divergence: training stops at the first step whose loss is not finite (NaN or infinite), says which\n"
    "step on stderr, saves nothing and exits 3; --json then prints the run's settings, its history and\n"
    "\"diverged_at_step\". Exit status: 0 trained, 2 bad input, 3 diverged.\n",
    run_train);

}  // namespace gelu::cli

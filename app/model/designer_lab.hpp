// The Designer panel's model (no ImGui): fits of gelu::fit on a worker thread (the latest request wins: a fit
// still running for an older request is cancelled through fit::Options::progress), certification on request
// (Sollya's supnorm, when built with it; seconds, so on the worker too), the Pareto plot's points (every zoo
// entry and the candidate on one yardstick, zoo_point), candidates as zoo entries of their own ("Add to
// comparison"), their session form, and the exports (C++, GLSL, CUDA C, test vectors) written through
// gelu::write_file_atomic after the output-path check.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/fit.hpp"
#include "gelu/json.hpp"
#include "gelu/zoo.hpp"
#include "model/precision_lab.hpp"
#include "model/threads.hpp"

namespace gelu::fit {
struct CrSpec;
struct CrResult;
}  // namespace gelu::fit

namespace gelu::app {

/// Whether this build can certify (gelu::fit_sollya was found).
bool designer_can_certify();
/// Whether this build makes correctly rounded fits (gelu::fit_cr: GLPK and MPFR were found).
bool designer_can_round_correctly();

struct DesignerSnapshot {
  fit::Spec spec;                                   // what `candidate` and `error` are for
  std::shared_ptr<const fit::Candidate> candidate;  // null before the first result, or after a refused spec
  std::string error;          // the fit's one line (NotConverged: `candidate` is its best())
  bool running = false;       // a fit is under way (for a newer spec than `spec`)
  double progress = 0;        // of the running fit, 0 … 1
  std::string stage;          // of the running fit ("exchange", "rounding", …)
  ZooPoint point;             // the candidate on the yardstick (zoo_point)
  std::vector<ZooPoint> zoo;  // every zoo entry on the same yardstick (zoo_points)
  bool certifying = false;
  std::string certify_note;  // the last certification's outcome
  /// Kept candidates on the yardstick (request_points), by id.
  std::vector<std::pair<std::string, ZooPoint>> kept_points;
  // The correctly rounded target (gelu/fit_cr.hpp), fitted on the same worker, apart from the minimax fit.
  std::shared_ptr<const fit::CrResult> cr;  // null before the first result or after a failure
  std::string cr_error;                     // the fit's one line (the piece and why)
  bool cr_running = false;
  double cr_progress = 0;
  std::string cr_stage;
  std::size_t cr_failing = 0;  // inputs still failing in the piece being refined
  ZooPoint cr_point;           // the correctly rounded candidate on the yardstick (GELU only)
  std::uint64_t version = 0;
};

class DesignerLab {
 public:
  DesignerLab() = default;
  ~DesignerLab();  // cancels and joins
  DesignerLab(const DesignerLab&) = delete;
  DesignerLab& operator=(const DesignerLab&) = delete;

  /// Refits for `s` on the worker; returns at once. A fit still running for another spec is cancelled.
  void request(const fit::Spec& s);
  /// Fits `s` on the calling thread and publishes the result (headless shots, tests).
  void fit_now(const fit::Spec& s);
  /// Fits the correctly rounded target `s` on the worker (a newer request cancels an older one); without
  /// gelu::fit_cr the snapshot's cr_error says so.
  void request_cr(const fit::CrSpec& s);
  /// The same on the calling thread (headless shots, tests).
  void cr_now(const fit::CrSpec& s);
  /// Certifies the current candidate on the worker (a no-op note when built without Sollya).
  void request_certify();
  /// Puts these candidates on the yardstick (kept_points), on the worker; points_now on the calling thread.
  using Kept = std::vector<std::pair<std::string, std::shared_ptr<const fit::Candidate>>>;
  void request_points(Kept kept);
  void points_now(Kept kept);
  bool running() const { return busy_.load(); }
  bool take(DesignerSnapshot& out);

 private:
  void loop();
  void do_fit(const fit::Spec& s, std::uint64_t my);
  void do_certify();
  void do_cr(const fit::CrSpec& s, std::uint64_t my);
  void do_points(const Kept& kept);
  void publish(const std::function<void(DesignerSnapshot&)>& change);

  /// One round of the worker's loop (wait: for a request to come); false once the lab stops.
  bool loop_once(bool wait);
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<fit::Spec> pending_;
  std::optional<Kept> points_pending_;
  std::shared_ptr<const fit::CrSpec> cr_pending_;
  std::atomic<std::uint64_t> cr_request_{0};
  bool certify_pending_ = false, stop_ = false;
  std::atomic<bool> busy_{false};
  std::atomic<std::uint64_t> request_{0};
  DesignerSnapshot shared_;
};

// [SECTION] Candidates as zoo entries, in sessions, and exported

/// The candidate as a zoo entry (f only): computed in double for compute f64, else in float as the exported
/// code computes (Candidate::eval(float)) and rounded to the compute format. Throws std::invalid_argument for
/// a gelu_prime candidate (it approximates GELU′, not GELU).
zoo::Entry candidate_entry(std::shared_ptr<const fit::Candidate> c, const std::string& id);
/// c.id() (a zoo id: "fit_…"), with _2, _3, … when `taken` has it.
std::string unique_candidate_id(const fit::Candidate& c, const std::vector<std::string>& taken);

/// The candidate as JSON: its spec, coefficients, breakpoints and centres (as stored: values of its format)
/// and the measured facts the panel shows (max error, reference, extrema, certified bound), so a session
/// restores it without refitting.
json::Value candidate_json(const fit::Candidate& c);
/// The inverse; checks that the spec is one the designer fits and that the numbers fit it (counts, values of
/// the format, increasing breakpoints from A to B). Throws json::JsonError naming `key`.
fit::Candidate read_candidate(const json::Value& v, const std::string& key);

enum class ExportKind { Cpp, Glsl, Cuda, Vectors };
/// BASE.hpp, BASE.glsl, BASE.cu or BASE_vectors.txt for the candidate with function name `name`; the
/// exports' comments carry the vectors file and the check command. Returns the files written and the check
/// command, or why not (message).
struct ExportResult {
  std::vector<std::string> written;
  std::string check, message;
};
ExportResult export_candidate(const fit::Candidate& c, const std::string& base, const std::string& name,
                              const std::vector<ExportKind>& kinds);

// [SECTION] One-coefficient fits (the Approximations panel's "fit" button)

/// The coefficient of a one-parameter GELU form (k of x·σ(kx), c of the tanh form) that minimizes the largest
/// |form − GELU| on n even points of [a, b] (analysis::fit_minimax: Nelder–Mead from the textbook value,
/// restarted until it stops improving), clamped to the parameter's range; with the largest error on those
/// points of the fitted and of the textbook coefficient.
struct CoefficientFit {
  double value = 0, max_error = 0, textbook_error = 0;
};
CoefficientFit fit_coefficient(const Activation& form, double a, double b, std::size_t n = 2001);

}  // namespace gelu::app

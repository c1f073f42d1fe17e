// The GPU plumbing: context facts, chunking across a lowered storage-block limit, the error reduction,
// compile errors mapped to file:line, shader directories from disk and a missing one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "gelu/activation.hpp"
#include "gelu/gpu/shaders.hpp"
#include "gpu_fixture.hpp"
#include "support/files.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using gelu::gpu::test::context;
using gelu::gpu::test::ulp_distance;

std::unique_ptr<gelu::gpu::Evaluator> make(
    gelu::gpu::ShaderLibrary lib = gelu::gpu::ShaderLibrary::embedded()) {
  gelu::gpu::Context* ctx = context();
  if (!ctx) return nullptr;
  std::string err;
  auto ev = gelu::gpu::Evaluator::create(*ctx, &err, std::move(lib));
  EXPECT_NE(ev, nullptr) << err;
  return ev;
}

/// A copy of the source tree's shaders in a fresh temporary directory.
fs::path copy_shaders(const char* tag) {
  const fs::path dir = gelu::test::scratch_dir("gpu_shaders") / tag;
  fs::remove_all(dir);
  fs::copy(fs::path(GELU_SOURCE_DIR) / "shaders", dir, fs::copy_options::recursive);
  return dir;
}

TEST(GpuContext, IsGl43CoreWithComputeLimits) {
  gelu::gpu::Context* ctx = context();
  ASSERT_NE(ctx, nullptr);
  const gelu::gpu::GlInfo& i = ctx->info();
  EXPECT_TRUE(i.major > 4 || (i.major == 4 && i.minor >= 3)) << i.version;
  EXPECT_GE(i.max_ssbo_block_size, 1 << 24);  // the GL 4.3 minimum is 16 MiB
  EXPECT_GE(i.max_work_group_invocations, 1024);
  EXPECT_FALSE(i.renderer.empty());
  EXPECT_TRUE(ctx->headless());
}

TEST(GpuEval, ChunkingAcrossALoweredStorageBlockLimitGivesIdenticalResults) {
  auto ev = make();
  ASSERT_NE(ev, nullptr);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  std::vector<float> x(100003);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = -12.0f + 24.0f * static_cast<float>(i) / static_cast<float>(x.size());
  std::vector<float> whole(x.size()), chunked(x.size(), -1.0f);
  gelu::gpu::Timing t1, t2;
  ASSERT_FALSE(ev->eval(g, 0, g.defaults(), x, whole, &t1));
  EXPECT_EQ(t1.chunks, 1);
  ev->set_chunk_limit_bytes(4096);
  EXPECT_EQ(ev->chunk_elements(), 1024u);
  ASSERT_FALSE(ev->eval(g, 0, g.defaults(), x, chunked, &t2));
  EXPECT_EQ(t2.chunks, static_cast<int>((x.size() + 1023) / 1024));
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(whole[i], chunked[i]) << i;
  EXPECT_GT(t2.end_to_end_s, 0.0);
  if (t2.kernel_timed) {
    EXPECT_GT(t2.kernel_s, 0.0);
  }
  EXPECT_LE(t2.kernel_s, t2.end_to_end_s);
  ev->set_chunk_limit_bytes(0);
  EXPECT_GT(ev->chunk_elements(), 1024u);
}

TEST(GpuError, MaxAndArgmaxMatchTheHostAcrossChunks) {
  auto ev = make();
  ASSERT_NE(ev, nullptr);
  const gelu::Activation& tanh_form = *gelu::find_activation("gelu_tanh");
  const gelu::Activation& exact = *gelu::find_activation("gelu");
  std::vector<float> x(50001), ref(x.size()), y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -6.0f + 12.0f * static_cast<float>(i) / 50000.0f;
  for (std::size_t i = 0; i < x.size(); ++i) ref[i] = exact.eval(x[i]);  // the tanh form against exact GELU
  ASSERT_FALSE(ev->eval(tanh_form, 0, tanh_form.defaults(), x, y));
  for (auto metric :
       {gelu::gpu::ErrorMetric::Abs, gelu::gpu::ErrorMetric::Rel, gelu::gpu::ErrorMetric::Ulp}) {
    double host_max = -1;
    std::size_t host_at = 0;
    std::vector<double> host(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      double e;
      if (metric == gelu::gpu::ErrorMetric::Ulp) {
        e = ulp_distance(y[i], ref[i]);
      } else if (y[i] == ref[i]) {
        e = 0;
      } else {
        const float d = std::fabs(y[i] - ref[i]);
        e = metric == gelu::gpu::ErrorMetric::Abs ? d : (ref[i] == 0 ? INFINITY : d / std::fabs(ref[i]));
      }
      host[i] = e;
      if (e > host_max) host_max = e, host_at = i;
    }
    for (std::size_t limit : {std::size_t{0}, std::size_t{4096}}) {
      ev->set_chunk_limit_bytes(limit);
      gelu::gpu::ErrorResult r;
      std::vector<float> curve(x.size());
      ASSERT_FALSE(ev->error(tanh_form, 0, tanh_form.defaults(), x, ref, metric, &r, curve));
      EXPECT_EQ(r.argmax, host_at) << "metric " << static_cast<int>(metric) << " limit " << limit;
      EXPECT_NEAR(r.max, host_max, host_max * 1e-6) << "metric " << static_cast<int>(metric);
      for (std::size_t i = 0; i < x.size(); i += 997)
        EXPECT_NEAR(curve[i], host[i], host[i] * 1e-6 + 1e-30) << i;
    }
  }
  EXPECT_GT(ulp_distance(y[0], ref[0]) + 1, 1.0);  // sanity: the two functions do differ
}

TEST(GpuShaders, CompileErrorIsReportedAtTheOriginalFileAndLine) {
  const fs::path dir = copy_shaders("broken");
  // Break line 40 of activations.glsl (an included file, so the line map has to see through #include).
  std::ifstream in(dir / "activations.glsl");
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  in.close();
  ASSERT_GT(lines.size(), 40u);
  lines[39] = "float this_is_not_glsl = ;";
  std::ofstream out(dir / "activations.glsl");
  for (const std::string& l : lines) out << l << "\n";
  out.close();
  auto ev = make(gelu::gpu::ShaderLibrary::from_directory(dir.string()));
  ASSERT_NE(ev, nullptr);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  std::vector<float> x{1.0f}, y(1);
  const auto e = ev->eval(g, 0, g.defaults(), x, y);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("activations.glsl:40:"), std::string::npos) << *e;
  EXPECT_NE(e->find(dir.string()), std::string::npos) << *e;  // says where the sources came from
  fs::remove_all(dir);
}

TEST(GpuShaders, LoadsFromTheDirectoryNamedByTheEnvironment) {
  const fs::path dir = copy_shaders("env");
  // A marker only the disk copy has: eval.comp forced to write 42 shows the disk copy was used.
  std::string src = gelu::test::slurp(dir / "eval.comp");
  const std::string call = "y[i] = ACT(x[i], ORDER, u_params);";
  ASSERT_NE(src.find(call), std::string::npos);
  src.replace(src.find(call), call.size(), "y[i] = 42.0;");
  std::ofstream(dir / "eval.comp") << src;
  setenv("GELU_SHADER_DIR", dir.c_str(), 1);
  const auto lib = gelu::gpu::ShaderLibrary::from_environment();
  unsetenv("GELU_SHADER_DIR");
  EXPECT_EQ(lib.origin(), dir.string());
  auto ev = make(lib);
  ASSERT_NE(ev, nullptr);
  const gelu::Activation& g = *gelu::find_activation("relu");
  std::vector<float> x{1.0f, -1.0f}, y(2);
  ASSERT_FALSE(ev->eval(g, 0, g.defaults(), x, y));
  EXPECT_EQ(y[0], 42.0f);
  EXPECT_EQ(y[1], 42.0f);
  fs::remove_all(dir);
}

TEST(GpuShaders, MissingShaderDirectoryIsAClearError) {
  gelu::gpu::Context* ctx = context();
  ASSERT_NE(ctx, nullptr);
  std::string err;
  auto ev = gelu::gpu::Evaluator::create(*ctx, &err,
                                         gelu::gpu::ShaderLibrary::from_directory("/nonexistent/shaders"));
  EXPECT_EQ(ev, nullptr);
  EXPECT_NE(err.find("/nonexistent/shaders"), std::string::npos) << err;
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;
}

TEST(GpuShaders, IncludeExpansionMapsLinesAndRejectsCycles) {
  const fs::path dir = gelu::test::scratch_dir("gelu_gpu_test_inc");
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "main.comp") << "#version 430\n#include \"sub/a.glsl\"\nvoid main() {}\n";
  std::ofstream(dir / "sub" / "a.glsl") << "// a\n#include \"b.glsl\"\nfloat a() { return b(); }\n";
  std::ofstream(dir / "sub" / "b.glsl") << "float b() { return 1.0; }\n";
  const auto lib = gelu::gpu::ShaderLibrary::from_directory(dir.string());
  std::string err;
  const auto src = lib.expand("main.comp", "#define X 1", &err);
  ASSERT_TRUE(src) << err;
  ASSERT_EQ(src->lines.size(), 6u);  // version, define, a:1, b:1, a:3, main:3
  EXPECT_EQ(src->lines[1].file, "<defines>");
  EXPECT_EQ(src->lines[3].file, "sub/b.glsl");
  EXPECT_EQ(src->lines[4].file, "sub/a.glsl");
  EXPECT_EQ(src->lines[4].line, 3);
  EXPECT_EQ(gelu::gpu::map_compile_log("0:5(7): error: boom\n", *src), "sub/a.glsl:3: error: boom\n");
  EXPECT_EQ(gelu::gpu::map_compile_log("0(6) : error C0000: boom\n", *src),
            "main.comp:3: error C0000: boom\n");
  std::ofstream(dir / "sub" / "b.glsl") << "#include \"a.glsl\"\n";
  EXPECT_FALSE(lib.expand("main.comp", "", &err));
  EXPECT_NE(err.find("cycle"), std::string::npos) << err;
  fs::remove_all(dir);
}

TEST(GpuEval, BadArgumentsAreErrorsNotCrashes) {
  auto ev = make();
  ASSERT_NE(ev, nullptr);
  const gelu::Activation& g = *gelu::find_activation("gelu");
  std::vector<float> x(10), y(5);
  EXPECT_TRUE(ev->eval(g, 0, g.defaults(), x, y));
  std::vector<float> y2(10);
  EXPECT_TRUE(ev->eval(g, 3, g.defaults(), x, y2));
  EXPECT_FALSE(ev->eval(g, 0, g.defaults(), std::span<const float>(), std::span<float>()));
}

}  // namespace

// bench::cpu_model: the CPU model every table of timings names, from Linux's /proc/cpuinfo format (the first
// processor's "model name" with its family and model numbers), and a clear "unknown CPU (why)" otherwise.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gelu/bench.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;

fs::path write_cpuinfo(const std::string& name, const std::string& text) {
  const fs::path p = gelu::test::scratch_dir("gelu-cpuinfo") / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

TEST(CpuModel, NamesTheFirstProcessorWithFamilyAndModel) {
  // Two processors, as Linux lists them; the first block decides, keys padded with tabs.
  const fs::path p = write_cpuinfo("intel",
                                   "processor\t: 0\n"
                                   "vendor_id\t: GenuineIntel\n"
                                   "cpu family\t: 6\n"
                                   "model\t\t: 207\n"
                                   "model name\t: Intel(R) Xeon(R) Processor\n"
                                   "flags\t\t: fpu avx512f avx512_bf16\n"
                                   "\n"
                                   "processor\t: 1\n"
                                   "cpu family\t: 25\n"
                                   "model\t\t: 17\n"
                                   "model name\t: Some Other CPU\n");
  EXPECT_EQ(gelu::bench::cpu_model(p.string()), "Intel(R) Xeon(R) Processor (family 6, model 207)");
}

TEST(CpuModel, TrimsSpacesAndCarriageReturnsAndKeepsAModelWithoutNumbers) {
  const fs::path amd = write_cpuinfo("amd",
                                     "processor   : 0\r\n"
                                     "model name  :   AMD EPYC 9R14 96-Core Processor   \r\n"
                                     "cpu family  : 25\r\n"
                                     "model       : 17\r\n");
  EXPECT_EQ(gelu::bench::cpu_model(amd.string()), "AMD EPYC 9R14 96-Core Processor (family 25, model 17)");
  const fs::path bare = write_cpuinfo("bare", "model name\t: Virtual CPU\n");
  EXPECT_EQ(gelu::bench::cpu_model(bare.string()), "Virtual CPU");
}

TEST(CpuModel, SaysWhyWhenItCannotTell) {
  // An ARM-style file names no "model name"; a missing file and a directory name the path and the reason.
  const fs::path arm = write_cpuinfo("arm", "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n");
  const std::string a = gelu::bench::cpu_model(arm.string());
  EXPECT_EQ(a, "unknown CPU (" + arm.string() + " names no model)");
  const std::string missing = (arm.parent_path() / "absent").string();
  const std::string m = gelu::bench::cpu_model(missing);
  EXPECT_EQ(m.rfind("unknown CPU (", 0), 0u) << m;
  EXPECT_NE(m.find(missing), std::string::npos) << m;
  const std::string dir = gelu::bench::cpu_model(arm.parent_path().string());
  EXPECT_EQ(dir.rfind("unknown CPU (", 0), 0u) << dir;
  EXPECT_NE(dir.find("directory"), std::string::npos) << dir;
  const std::string empty = gelu::bench::cpu_model(write_cpuinfo("empty", "").string());
  EXPECT_EQ(empty.rfind("unknown CPU (", 0), 0u) << empty;
}

TEST(CpuModel, ReadsThisMachinesCpuinfo) {
  // /proc/cpuinfo reports a size of 0; the model must still come out where the file has one.
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  bool has_model = false;
  while (std::getline(f, line)) has_model = has_model || line.rfind("model name", 0) == 0;
  const std::string m = gelu::bench::cpu_model();
  EXPECT_FALSE(m.empty());
  if (has_model) {
    EXPECT_NE(m.rfind("unknown CPU", 0), 0u) << m;
  } else {
    EXPECT_EQ(m.rfind("unknown CPU", 0), 0u) << m;
  }
}

}  // namespace

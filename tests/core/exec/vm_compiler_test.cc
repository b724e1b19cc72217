// The VM compiler: bytecode shape for the seed's MyModule and the compile errors.
#include "rxt/exec/vm_compiler.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rxt/ir/parser.h"

namespace rxt {
namespace {

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(RXT_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string CompileError(const std::string& text) {
  try {
    CompileToExecutable(ParseModule(text));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "(no error)";
}

int CountOps(const VMFunction& f, Opcode op) {
  int n = 0;
  for (const Instruction& ins : f.code) n += ins.op == op;
  return n;
}

TEST(VMCompiler, CompilesMyModule) {
  Executable exec = CompileToExecutable(ParseModule(ReadExample("my_module.rxt")), {.backend = "reference"});
  EXPECT_EQ(exec.backend, "reference");
  ASSERT_EQ(exec.functions.size(), 1u);
  const VMFunction& main = exec.functions[0];
  EXPECT_EQ(main.name, "main");
  EXPECT_EQ(main.param_names, (std::vector<std::string>{"x", "w0", "b0", "w1", "b1"}));
  // m, n, k are bound from the arguments, in the order they are first seen.
  EXPECT_EQ(main.slot_names, (std::vector<std::string>{"m", "n", "k"}));
  // Kernels are encoded once each, even when called twice.
  ASSERT_EQ(exec.kernels.size(), 2u);
  EXPECT_EQ(exec.kernels[0].name, "linear0");
  EXPECT_EQ(exec.kernels[1].name, "relu0");
  EXPECT_FALSE(exec.kernels[0].portable.empty());
  EXPECT_EQ(CountOps(main, Opcode::kCallKernel), 3);
  EXPECT_EQ(CountOps(main, Opcode::kAllocTensor), 3);
  EXPECT_EQ(CountOps(main, Opcode::kReturn), 1);
  EXPECT_EQ(main.patterns[0].text, "Tensor((1, m), float32)");
  EXPECT_EQ(main.patterns[0].context, "argument 0 (%x)");
  EXPECT_NE(exec.Disassemble().find("call_kernel #0 (linear0)"), std::string::npos) << exec.Disassemble();
}

TEST(VMCompiler, UnlegalizedOpIsAnErrorNamingIt) {
  std::string error = CompileError(R"(
def @f(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  %y: Tensor((2, 3), float32) = nn.relu(%x)
  return %y
})");
  EXPECT_NE(error.find("f: op 'nn.relu' was not legalized"), std::string::npos) << error;
}

TEST(VMCompiler, OutputDimNotDeterminedByArgumentsIsAnError) {
  std::string error = CompileError(R"(
def @f(%x: Tensor((2, 3), float32)) -> Tensor((p,), float32) {
  %w = call_extern("env.f", (%x,), out_sinfo=Tensor((p,), float32))
  return %w
})");
  EXPECT_NE(error.find("symbolic dim 'p'"), std::string::npos) << error;
}

TEST(VMCompiler, CallExternRecordsTheName) {
  Executable exec = CompileToExecutable(ParseModule(R"(
def @f(%x: Tensor((1, n), float32)) -> Tensor((1, n), float32) {
  %y = call_extern("env.relu", (%x,), out_sinfo=Tensor((1, n), float32))
  %z = call_extern("env.relu", (%y,), out_sinfo=Tensor((1, n), float32))
  return %z
})"));
  EXPECT_EQ(exec.externs, (std::vector<std::string>{"env.relu"}));
  EXPECT_EQ(CountOps(exec.functions[0], Opcode::kCallExtern), 2);
}

}  // namespace
}  // namespace rxt

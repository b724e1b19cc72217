// AppendLoss (core/src/transform/append_loss.cc): IR in, IR out for the seed's shape (one
// dataflow block each), backbones with states and with several blocks, symbolic dims shared
// with the loss, and every error.
#include "rxt/transform/training/append_loss.h"

#include <gtest/gtest.h>

#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"

namespace rxt {
namespace {

const char* kModule = R"(
def @backbone(%x: Tensor((n, 4), float32), %w: Tensor((4, 3), float32)) -> Tensor((n, 3), float32) {
  dataflow {
    %lv0 = matmul(%x, %w)
    %out = nn.relu(%lv0)
    output %out
  }
  return %out
}

def @sse(%predictions: Tensor((m, 3), float32), %targets: Tensor((m, 3), float32)) -> Tensor((), float32) {
  dataflow {
    %d = subtract(%predictions, %targets)
    %sq = multiply(%d, %d)
    %gv = sum(%sq)
    output %gv
  }
  return %gv
})";

// What AppendLoss gives: one dataflow block; the loss's batch m is the backbone's n.
const char* kExpected = R"(
def @backbone_loss(%x: Tensor((n, 4), float32), %w: Tensor((4, 3), float32), %targets: Tensor((n, 3), float32))
    -> Tensor((), float32) {
  dataflow {
    %lv0 = matmul(%x, %w)
    %out = nn.relu(%lv0)
    %d = subtract(%out, %targets)
    %sq = multiply(%d, %d)
    %gv = sum(%sq)
    output %gv
  }
  return %gv
})";

TEST(AppendLoss, SeedShapeGivesOneDataflowBlock) {
  IRModule m = ParseModule(kModule);
  IRModule out = AppendLoss(m, "backbone", m.GetFunction("sse"));
  ASSERT_NO_THROW(VerifyWellFormed(out));
  Function appended = out.GetFunction("backbone_loss");
  EXPECT_TRUE(StructuralEqual(appended, ParseModule(kExpected).GetFunction("backbone_loss")))
      << PrintFunction(appended, "backbone_loss");
  EXPECT_TRUE(StructuralEqual(out.GetFunction("backbone"), m.GetFunction("backbone")));  // left as it was
  for (size_t i = 0; i < 2; ++i) EXPECT_NE(appended->params[i], m.GetFunction("backbone")->params[i]);  // fresh
  // The printed module parses back to the same module.
  EXPECT_TRUE(StructuralEqual(ParseModule(PrintModule(out)), out)) << PrintModule(out) << "\n----\n" << PrintModule(ParseModule(PrintModule(out)));
}

TEST(AppendLoss, AsAPassWithANewName) {
  IRModule m = ParseModule(kModule);
  IRModule out = AppendLoss("backbone", m.GetFunction("sse"), 1, "loss")(m);
  EXPECT_TRUE(out.FindFunction("loss"));
  EXPECT_FALSE(out.FindFunction("backbone_loss"));
  // Appending again replaces the function of that name.
  IRModule again = AppendLoss(out, "backbone", m.GetFunction("sse"), 1, "loss");
  EXPECT_EQ(again.entries().size(), out.entries().size());
}

const char* kWithState = R"(
def @backbone(%x: Tensor((2, 3), float32), %w: Tensor((3,), float32), %running: Tensor((3,), float32))
    -> Tuple(Tensor((2, 3), float32), Tensor((3,), float32)) {
  dataflow {
    %out = multiply(%x, %w)
    %col = sum(%out, axis=[0])
    %scaled = multiply(%col, const(0.1, float32))
    %decayed = multiply(%running, const(0.9, float32))
    %new_running = add(%decayed, %scaled)
    %result = (%out, %new_running)
    output %result
  }
  return %result
}

def @total(%p: Tensor((2, 3), float32)) -> Tensor((), float32) {
  dataflow {
    %s = sum(%p)
    output %s
  }
  return %s
})";

TEST(AppendLoss, ReturnsTheUpdatedStatesAfterTheLoss) {
  IRModule m = ParseModule(kWithState);
  IRModule out = AppendLoss(m, "backbone", m.GetFunction("total"));
  ASSERT_NO_THROW(VerifyWellFormed(out));
  Function f = out.GetFunction("backbone_loss");
  EXPECT_EQ(f->params.size(), 3u);  // the loss takes no target
  EXPECT_EQ(ToString(f->ret_sinfo), "Tuple(Tensor((), float32), Tensor((3,), float32))");
  ASSERT_EQ(f->body->blocks.size(), 1u);
}

const char* kSeveralBlocks = R"(
def @backbone(%x: Tensor((4,), float32), %flag: Tensor((), bool)) -> Tensor((4,), float32) {
  %doubled = multiply(%x, const(2.0, float32))
  %chosen = if %flag {
    %a = exp(%doubled)
    yield %a
  } else {
    yield %doubled
  }
  dataflow {
    %out = add(%chosen, %x)
    output %out
  }
  return %out
}

def @mean_loss(%p: Tensor((4,), float32), %t: Tensor((4,), float32)) -> Tensor((), float32) {
  %d = subtract(%p, %t)
  %l = mean(%d)
  return %l
})";

TEST(AppendLoss, BackbonesAndLossesOfAnyBlocks) {
  IRModule m = ParseModule(kSeveralBlocks);
  IRModule out = AppendLoss(m, "backbone", m.GetFunction("mean_loss"));
  ASSERT_NO_THROW(VerifyWellFormed(out)) << PrintModule(out);
  Function f = out.GetFunction("backbone_loss");
  EXPECT_EQ(ToString(f->ret_sinfo), "Tensor((), float32)");
  EXPECT_EQ(f->params.size(), 3u);
  EXPECT_GE(f->body->blocks.size(), 2u);
  EXPECT_TRUE(StructuralEqual(ParseModule(PrintModule(out)), out));
}

std::string AppendError(const std::string& text, const std::string& func, const std::string& loss, int outputs = 1,
                        ErrorCode* code = nullptr) {
  IRModule m = ParseModule(text);
  try {
    AppendLoss(m, func, m.GetFunction(loss), outputs);
  } catch (const Error& e) {
    if (code != nullptr) *code = e.code();
    return e.what();
  }
  return "";
}

TEST(AppendLoss, Errors) {
  ErrorCode code = ErrorCode::kOk;
  EXPECT_EQ(AppendError(kModule, "predict", "sse", 1, &code), "AppendLoss: the module has no function @predict");
  EXPECT_EQ(code, ErrorCode::kNotFound);
  EXPECT_EQ(AppendError(kModule, "backbone", "sse", 0),
            "AppendLoss: num_backbone_outputs must be in [1, 1] (@backbone returns Tensor((n, 3), float32)), got 0");
  EXPECT_NE(AppendError(kWithState, "backbone", "total", 3).find("must be in [1, 2]"), std::string::npos);
  EXPECT_EQ(AppendError(kWithState, "backbone", "total", 2),
            "AppendLoss: the loss takes 1 parameters, fewer than the 2 backbone outputs it must receive");
  // The loss's input does not match the backbone's output.
  const char* mismatch = R"(
def @backbone(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  return %x
}
def @wide(%p: Tensor((2, 5), float32)) -> Tensor((), float32) {
  %s = sum(%p)
  return %s
}
def @ints(%p: Tensor((2, 3), int64)) -> Tensor((), int64) {
  %s = sum(%p)
  return %s
}
def @vector(%p: Tensor((2, 3), float32)) -> Tensor((3,), float32) {
  %s = sum(%p, axis=[0])
  return %s
})";
  EXPECT_EQ(AppendError(mismatch, "backbone", "wide", 1, &code),
            "AppendLoss: the loss's input 0 (%p: Tensor((2, 5), float32)) does not match output 0 of @backbone "
            "(Tensor((2, 3), float32))");
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(AppendError(mismatch, "backbone", "ints").find("does not match output 0"), std::string::npos);
  EXPECT_EQ(AppendError(mismatch, "backbone", "vector"),
            "AppendLoss: the loss must return a 0-d float tensor, got Tensor((3,), float32) (a loss with reduction "
            "\"none\"?)");
}

}  // namespace
}  // namespace rxt

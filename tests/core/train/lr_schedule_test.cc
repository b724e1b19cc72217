// Learning-rate schedules (core/src/train/lr_schedule.cc): the formulas, the text form and its
// errors.
#include "rxt/train/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "rxt/support/error.h"

namespace rxt {
namespace {

std::string ParseError(const std::string& text) {
  try {
    ParseLrSchedule(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "(no error)";
}

TEST(LrSchedule, ConstantIsTheBaseRate) {
  LrSchedule s = ParseLrSchedule("constant");
  EXPECT_EQ(s.LearningRate(0.1, 0), 0.1);
  EXPECT_EQ(s.LearningRate(0.1, 100000), 0.1);
  EXPECT_EQ(s.ToString(), "constant");
}

TEST(LrSchedule, StepDecaysEveryStepSizeUpdates) {
  LrSchedule s = ParseLrSchedule("step:step_size=10,gamma=0.5");
  EXPECT_EQ(s.LearningRate(1, 0), 1);
  EXPECT_EQ(s.LearningRate(1, 9), 1);
  EXPECT_EQ(s.LearningRate(1, 10), 0.5);
  EXPECT_EQ(s.LearningRate(1, 25), 0.25);
  EXPECT_EQ(s.ToString(), "step:step_size=10,gamma=0.5");
  EXPECT_EQ(ParseLrSchedule("step").gamma, 0.1);
}

TEST(LrSchedule, CosineGoesFromBaseToMinOverTheRun) {
  LrSchedule s = ParseLrSchedule("cosine:total_steps=100,min_lr=0.01");
  EXPECT_DOUBLE_EQ(s.LearningRate(1, 0), 1);
  EXPECT_DOUBLE_EQ(s.LearningRate(1, 50), 0.01 + 0.99 * 0.5);
  EXPECT_DOUBLE_EQ(s.LearningRate(1, 100), 0.01);
  EXPECT_DOUBLE_EQ(s.LearningRate(1, 500), 0.01);  // stays at the end
  EXPECT_DOUBLE_EQ(s.LearningRate(1, 25), 0.01 + 0.99 * 0.5 * (1 + std::cos(std::numbers::pi / 4)));
}

TEST(LrSchedule, WarmupRampsLinearlyThenTheScheduleRuns) {
  LrSchedule w = ParseLrSchedule("warmup:steps=4");
  EXPECT_DOUBLE_EQ(w.LearningRate(1, 0), 0.25);
  EXPECT_DOUBLE_EQ(w.LearningRate(1, 3), 1);
  EXPECT_DOUBLE_EQ(w.LearningRate(1, 50), 1);
  EXPECT_EQ(w.ToString(), "constant:warmup=4");
  LrSchedule c = ParseLrSchedule("cosine:total_steps=14,warmup=4");
  EXPECT_DOUBLE_EQ(c.LearningRate(2, 1), 1);
  EXPECT_DOUBLE_EQ(c.LearningRate(2, 4), 2);   // the cosine starts after the warmup
  EXPECT_DOUBLE_EQ(c.LearningRate(2, 9), 1);   // halfway through its 10 steps
  EXPECT_NEAR(c.LearningRate(2, 14), 0, 1e-15);
}

TEST(LrSchedule, TextFormRoundTrips) {
  for (const char* text : {"constant", "step:step_size=3,gamma=0.7", "cosine:total_steps=9,min_lr=0.001,warmup=2",
                           "constant:warmup=5", "cosine:min_lr=0"}) {
    EXPECT_EQ(ParseLrSchedule(ParseLrSchedule(text).ToString()).ToString(), ParseLrSchedule(text).ToString()) << text;
  }
  EXPECT_EQ(ParseLrSchedule("cosine:total_steps=9,min_lr=0.001,warmup=2").ToString(),
            "cosine:total_steps=9,min_lr=0.001,warmup=2");
}

TEST(LrSchedule, BadTextNamesTheProblem) {
  EXPECT_NE(ParseError("linear").find("unknown schedule 'linear' (schedules: constant, step"), std::string::npos);
  EXPECT_NE(ParseError("step:gamma").find("'gamma' is not KEY=VALUE"), std::string::npos);
  EXPECT_NE(ParseError("step:step_size=-1").find("step_size must be a whole number >= 0, not '-1'"), std::string::npos);
  EXPECT_NE(ParseError("step:step_size=0").find("step_size must be >= 1"), std::string::npos);
  EXPECT_NE(ParseError("step:gamma=x").find("gamma must be a number, not 'x'"), std::string::npos);
  EXPECT_NE(ParseError("cosine:gamma=0.5").find("'cosine' takes no option 'gamma'"), std::string::npos);
  EXPECT_NE(ParseError("constant:total_steps=5").find("takes no option 'total_steps'"), std::string::npos);
  EXPECT_NE(ParseError("warmup").find("warmup needs steps=N"), std::string::npos);
  EXPECT_NE(ParseError("").find("unknown schedule ''"), std::string::npos);
}

TEST(LrSchedule, ValidateSaysWhatIsMissing) {
  auto validate_error = [](const std::string& text) {
    try {
      ParseLrSchedule(text).Validate();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(validate_error("step").find("step needs step_size=N"), std::string::npos);
  EXPECT_NE(validate_error("cosine").find("cosine needs total_steps=N greater than the warmup (0)"), std::string::npos);
  EXPECT_NE(validate_error("cosine:total_steps=5,warmup=5").find("greater than the warmup (5)"), std::string::npos);
  EXPECT_NE(validate_error("step:step_size=2,gamma=0").find("gamma must be > 0"), std::string::npos);
  EXPECT_EQ(validate_error("cosine:total_steps=6,warmup=5"), "(no error)");
}

}  // namespace
}  // namespace rxt

/// Learning-rate schedules (train/lr_schedule.h): the formulas and the text form.
#include "rxt/train/lr_schedule.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <string_view>
#include <vector>

#include "rxt/support/error.h"

namespace rxt {
namespace {

const char* KindName(LrSchedule::Kind kind) {
  switch (kind) {
    case LrSchedule::Kind::kConstant: return "constant";
    case LrSchedule::Kind::kStep: return "step";
    case LrSchedule::Kind::kCosine: return "cosine";
  }
  return "?";
}

/// The shortest text that reads back as |value|.
std::string FormatDouble(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

[[noreturn]] void Fail(const std::string& text, const std::string& problem) {
  Throw(ErrorCode::kInvalidArgument, "learning-rate schedule '", text, "': ", problem,
        " (schedules: constant, step[:step_size=N,gamma=G], cosine[:total_steps=N,min_lr=M], warmup:steps=N; "
        "each also takes warmup=N)");
}

int64_t ParseCount(const std::string& text, const std::string& key, std::string_view value) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < 0) {
    Fail(text, StrCat(key, " must be a whole number >= 0, not '", value, "'"));
  }
  return n;
}

double ParseReal(const std::string& text, const std::string& key, std::string_view value) {
  double x = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
  if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(x)) {
    Fail(text, StrCat(key, " must be a number, not '", value, "'"));
  }
  return x;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

double LrSchedule::LearningRate(double base_lr, int64_t step) const {
  if (step < warmup_steps) return base_lr * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  int64_t t = step - warmup_steps;
  switch (kind) {
    case Kind::kConstant: return base_lr;
    case Kind::kStep: return step_size > 0 ? base_lr * std::pow(gamma, static_cast<double>(t / step_size)) : base_lr;
    case Kind::kCosine: {
      int64_t span = total_steps - warmup_steps;
      if (span <= 0) return base_lr;
      double progress = std::min(1.0, static_cast<double>(t) / static_cast<double>(span));
      return min_lr + (base_lr - min_lr) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
    }
  }
  return base_lr;
}

void LrSchedule::Validate() const {
  std::string text = ToString();
  if (warmup_steps < 0) Fail(text, "warmup must be >= 0");
  if (kind == Kind::kStep && step_size <= 0) Fail(text, "step needs step_size=N with N >= 1");
  if (kind == Kind::kStep && !(gamma > 0)) Fail(text, "gamma must be > 0");
  if (kind == Kind::kCosine && total_steps <= warmup_steps) {
    Fail(text, StrCat("cosine needs total_steps=N greater than the warmup (", warmup_steps, ")"));
  }
  if (kind == Kind::kCosine && min_lr < 0) Fail(text, "min_lr must be >= 0");
}

std::string LrSchedule::ToString() const {
  std::vector<std::string> options;
  if (kind == Kind::kStep) {
    if (step_size > 0) options.push_back(StrCat("step_size=", step_size));
    options.push_back("gamma=" + FormatDouble(gamma));
  } else if (kind == Kind::kCosine) {
    if (total_steps > 0) options.push_back(StrCat("total_steps=", total_steps));
    options.push_back("min_lr=" + FormatDouble(min_lr));
  }
  if (warmup_steps > 0) options.push_back(StrCat("warmup=", warmup_steps));
  std::string text = KindName(kind);
  for (size_t i = 0; i < options.size(); ++i) text += (i == 0 ? ":" : ",") + options[i];
  return text;
}

LrSchedule ParseLrSchedule(const std::string& text) {
  std::string_view view = text;
  size_t colon = view.find(':');
  std::string_view name = view.substr(0, colon);
  LrSchedule schedule;
  bool warmup_kind = false;
  if (name == "constant") {
    schedule.kind = LrSchedule::Kind::kConstant;
  } else if (name == "step") {
    schedule.kind = LrSchedule::Kind::kStep;
  } else if (name == "cosine") {
    schedule.kind = LrSchedule::Kind::kCosine;
  } else if (name == "warmup") {
    warmup_kind = true;
  } else {
    Fail(text, StrCat("unknown schedule '", name, "'"));
  }
  if (colon != std::string_view::npos) {
    for (std::string_view option : Split(view.substr(colon + 1), ',')) {
      size_t eq = option.find('=');
      if (eq == std::string_view::npos || eq == 0) Fail(text, StrCat("'", option, "' is not KEY=VALUE"));
      std::string key(option.substr(0, eq));
      std::string_view value = option.substr(eq + 1);
      if (key == "warmup" || (warmup_kind && key == "steps")) {
        schedule.warmup_steps = ParseCount(text, key, value);
      } else if (schedule.kind == LrSchedule::Kind::kStep && !warmup_kind && key == "step_size") {
        schedule.step_size = ParseCount(text, key, value);
      } else if (schedule.kind == LrSchedule::Kind::kStep && !warmup_kind && key == "gamma") {
        schedule.gamma = ParseReal(text, key, value);
      } else if (schedule.kind == LrSchedule::Kind::kCosine && key == "total_steps") {
        schedule.total_steps = ParseCount(text, key, value);
      } else if (schedule.kind == LrSchedule::Kind::kCosine && key == "min_lr") {
        schedule.min_lr = ParseReal(text, key, value);
      } else {
        Fail(text, StrCat("'", name, "' takes no option '", key, "'"));
      }
    }
  }
  if (warmup_kind && schedule.warmup_steps == 0) Fail(text, "warmup needs steps=N with N >= 1");
  if (schedule.kind == LrSchedule::Kind::kStep && schedule.step_size == 0 && colon != std::string_view::npos &&
      text.find("step_size") != std::string::npos) {
    Fail(text, "step_size must be >= 1");
  }
  return schedule;
}

}  // namespace rxt

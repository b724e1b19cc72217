// The built-in pass instruments: timing, printing the IR, checking well-formedness.
#include "rxt/pass/instrument.h"

#include "rxt/support/message_text.h"

#include <cstdio>
#include <ostream>

#include "rxt/ir/printer.h"
#include "rxt/ir/well_formed.h"

namespace rxt {

bool PassInstrument::ShouldRun(const IRModule&, const PassInfo&) { return true; }
void PassInstrument::RunBeforePass(const IRModule&, const PassInfo&) {}
void PassInstrument::RunAfterPass(const IRModule&, const PassInfo&) {}
void PassInstrument::RunAfterFailedPass(const PassInfo&) {}

// ---- PassTimingInstrument

void PassTimingInstrument::RunBeforePass(const IRModule&, const PassInfo& info) {
  records_.push_back(Record{info.name, static_cast<int>(open_.size()), 0.0, false});
  open_.emplace_back(records_.size() - 1, std::chrono::steady_clock::now());
}

void PassTimingInstrument::RunAfterPass(const IRModule&, const PassInfo&) { Close(false); }
void PassTimingInstrument::RunAfterFailedPass(const PassInfo&) { Close(true); }

void PassTimingInstrument::Close(bool failed) {
  if (open_.empty()) return;  // cleared while a pass was running
  auto [index, start] = open_.back();
  open_.pop_back();
  records_[index].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  records_[index].failed = failed;
}

double PassTimingInstrument::TotalSeconds(const std::string& pass) const {
  double total = 0;
  for (const Record& r : records_) {
    if (r.pass == pass) total += r.seconds;
  }
  return total;
}

std::string PassTimingInstrument::Table() const {
  double total = 0;
  size_t width = 4;  // "pass"
  for (const Record& r : records_) {
    if (r.depth == 0) total += r.seconds;
    width = std::max(width, r.pass.size() + 2 * r.depth);
  }
  std::string out = StrCat("pass", std::string(width - 4, ' '), "  time (ms)  share\n");
  for (const Record& r : records_) {
    std::string label = std::string(2 * r.depth, ' ') + r.pass;
    char numbers[64];
    std::snprintf(numbers, sizeof(numbers), "%11.3f %5.1f%%", r.seconds * 1e3,
                  total > 0 ? 100 * r.seconds / total : 0.0);
    out += label + std::string(width - label.size(), ' ') + numbers + (r.failed ? "  (failed)" : "") + "\n";
  }
  char footer[64];
  std::snprintf(footer, sizeof(footer), "%11.3f", total * 1e3);
  out += "total" + std::string(width - 5, ' ') + footer + "\n";
  return out;
}

// ---- PrintIRInstrument

PrintIRInstrument::PrintIRInstrument(std::set<std::string> before, std::set<std::string> after, std::ostream& out)
    : before_(std::move(before)), after_(std::move(after)), out_(out) {}

void PrintIRInstrument::RunBeforePass(const IRModule& module, const PassInfo& info) {
  if (before_.count(info.name) || before_.count("*")) {
    out_ << "# IR before " << info.name << "\n" << PrintModule(module) << "\n";
  }
}

void PrintIRInstrument::RunAfterPass(const IRModule& module, const PassInfo& info) {
  if (after_.count(info.name) || after_.count("*")) {
    out_ << "# IR after " << info.name << "\n" << PrintModule(module) << "\n";
  }
}

// ---- Well-formedness

namespace {

std::string Describe(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> items;
  for (const Diagnostic& d : diagnostics) items.push_back(d.ToString());
  return JoinForMessage(items);
}

}  // namespace

void VerifyPassInput(const IRModule& module, const PassInfo& info) {
  std::vector<Diagnostic> diagnostics = CheckWellFormed(module);
  if (diagnostics.empty()) return;
  Throw(ErrorCode::kInvalidArgument, "the input of pass ", info.name, " is not well formed: ", Describe(diagnostics));
}

void VerifyPassOutput(const IRModule& module, const PassInfo& info) {
  std::vector<Diagnostic> diagnostics = CheckWellFormed(module);
  if (diagnostics.empty()) return;
  Throw(ErrorCode::kInternal, "pass ", info.name, " produced a module that is not well formed: ", Describe(diagnostics));
}

void WellFormedInstrument::RunBeforePass(const IRModule& module, const PassInfo& info) {
  if (depth_ == 0) VerifyPassInput(module, info);
  ++depth_;
}

void WellFormedInstrument::RunAfterPass(const IRModule& module, const PassInfo& info) {
  --depth_;
  VerifyPassOutput(module, info);
}

void WellFormedInstrument::RunAfterFailedPass(const PassInfo&) { --depth_; }

}  // namespace rxt

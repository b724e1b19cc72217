// Pass instruments: hooks around every pass run, installed in PassContext::instruments.
//
//   auto timing = std::make_shared<PassTimingInstrument>();
//   ctx.instruments.push_back(timing);
//   module = RunPasses(module, {"Normalize", "DeadCodeElimination"}, ctx);
//   std::cout << timing->Table();
#pragma once

#include <chrono>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "rxt/pass/pass.h"

namespace rxt {

class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  virtual std::string name() const = 0;

  /// Returning false skips the pass: it returns its input unchanged and no other hook runs.
  virtual bool ShouldRun(const IRModule& module, const PassInfo& info);
  virtual void RunBeforePass(const IRModule& module, const PassInfo& info);
  virtual void RunAfterPass(const IRModule& module, const PassInfo& info);
  /// Called instead of RunAfterPass when the pass threw (the error then propagates).
  virtual void RunAfterFailedPass(const PassInfo& info);
};

/// Records how long every pass run takes; nested runs (inside a Sequential) are indented.
class PassTimingInstrument : public PassInstrument {
 public:
  struct Record {
    std::string pass;
    int depth = 0;         // 0 for an outermost pass
    double seconds = 0.0;  // wall-clock time of the run, nested passes included
    bool failed = false;
  };

  std::string name() const override { return "PassTiming"; }
  void RunBeforePass(const IRModule& module, const PassInfo& info) override;
  void RunAfterPass(const IRModule& module, const PassInfo& info) override;
  void RunAfterFailedPass(const PassInfo& info) override;

  /// In the order the runs started.
  const std::vector<Record>& records() const { return records_; }
  /// Total seconds per pass name, over every run.
  double TotalSeconds(const std::string& pass) const;
  /// One row per run: the pass (indented by depth), milliseconds, and the share of the
  /// outermost runs' total time.
  std::string Table() const;
  void Clear() {
    records_.clear();
    open_.clear();
  }

 private:
  void Close(bool failed);
  std::vector<Record> records_;
  std::vector<std::pair<size_t, std::chrono::steady_clock::time_point>> open_;
};

/// Prints the module (PrintModule) before and/or after the named passes:
///   # IR before DeadCodeElimination
///   <module text>
/// "*" names every pass.
class PrintIRInstrument : public PassInstrument {
 public:
  PrintIRInstrument(std::set<std::string> before, std::set<std::string> after, std::ostream& out);

  std::string name() const override { return "PrintIR"; }
  void RunBeforePass(const IRModule& module, const PassInfo& info) override;
  void RunAfterPass(const IRModule& module, const PassInfo& info) override;

 private:
  std::set<std::string> before_, after_;
  std::ostream& out_;
};

/// Checks the input of the outermost pass and the output of every pass with
/// CheckWellFormed; throws kInternal naming the pass that broke the module (or
/// kInvalidArgument if the input was ill-formed already). PassContext's
/// verify_well_formed_after_each does the same without installing this.
class WellFormedInstrument : public PassInstrument {
 public:
  std::string name() const override { return "WellFormed"; }
  void RunBeforePass(const IRModule& module, const PassInfo& info) override;
  void RunAfterPass(const IRModule& module, const PassInfo& info) override;
  void RunAfterFailedPass(const PassInfo& info) override;

 private:
  int depth_ = 0;
};

/// The checks WellFormedInstrument makes, for the pass runner.
void VerifyPassInput(const IRModule& module, const PassInfo& info);
void VerifyPassOutput(const IRModule& module, const PassInfo& info);

}  // namespace rxt

#include "kernel_codegen.h"

#include <llvm/IR/MDBuilder.h>

#include <stdexcept>

#include "disjoint_iterations.h"
#include "kernel_emitter.h"
#include "loop_collapse.h"
#include "rxt/compiled_kernel.h"

namespace rxt::backend_cpu {

llvm::Function* EmitKernel(const kf::Kernel& kernel, const std::string& symbol, llvm::Module& module,
                           const CodegenOptions& options) {
  // Tiny innermost loops of elementwise nests merged first, so that they vectorize.
  const kf::Kernel collapsed = CollapseLoops(kernel);
  return KernelEmitter(collapsed, module, options).Emit(symbol);
}

KernelEmitter::KernelEmitter(const kf::Kernel& kernel, llvm::Module& module, const CodegenOptions& options)
    : kernel_(kernel),
      module_(module),
      context_(module.getContext()),
      options_(options),
      b_(module.getContext()),
      scalar_(b_, module),
      bounds_(kernel) {
  env_.vars.assign(kernel_.vars.size(), nullptr);
  env_.buffers.assign(kernel_.buffers.size(), BufferView());
  may_fault_.assign(kernel_.exprs.size(), -1);
  ClearExprCache();
  llvm::MDBuilder md(context_);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(kernel_.name);
  // Each buffer its own alias scope, but a pair of the kernel's "in_place" attribute (an output
  // the VM may write over an input: docs/vm.md, "Donated inputs") shares one, so the two may
  // be the same memory.
  const std::vector<size_t> group = MaySameMemoryGroups(kernel_);
  std::vector<llvm::Metadata*> scope_of(kernel_.buffers.size(), nullptr);
  for (size_t i = 0; i < scope_of.size(); ++i) {
    if (group[i] == i) scope_of[i] = md.createAnonymousAliasScope(domain, kernel_.buffers[i].name);
  }
  for (size_t i = 0; i < scope_of.size(); ++i) scope_of[i] = scope_of[group[i]];
  for (size_t i = 0; i < scope_of.size(); ++i) {
    scopes_.push_back(llvm::MDNode::get(context_, {scope_of[i]}));
    std::vector<llvm::Metadata*> others;
    for (size_t j = 0; j < scope_of.size(); ++j) {
      if (group[j] != group[i]) others.push_back(scope_of[j]);
    }
    noalias_.push_back(llvm::MDNode::get(context_, others));
  }
}

llvm::Function* KernelEmitter::CreateFunction(const std::string& name, llvm::FunctionType* type,
                                              llvm::GlobalValue::LinkageTypes linkage) {
  if (module_.getFunction(name) != nullptr) throw std::runtime_error("the symbol " + name + " is defined twice");
  llvm::Function* f = llvm::Function::Create(type, linkage, name, module_);
  f->setDoesNotThrow();
  if (!options_.target_cpu.empty()) f->addFnAttr("target-cpu", options_.target_cpu);
  if (!options_.target_features.empty()) f->addFnAttr("target-features", options_.target_features);
  // Use the full width of AVX-512 where the machine has it (LLVM prefers 256 bits on some CPUs).
  if (options_.target_features.find("+avx512f") != std::string::npos) f->addFnAttr("prefer-vector-width", "512");
  return f;
}

llvm::Function* KernelEmitter::Emit(const std::string& symbol) {
  symbol_ = symbol;
  llvm::Type* ptr = b_.getPtrTy();
  llvm::FunctionType* type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr, ptr, ptr}, false);
  llvm::Function* f = CreateFunction(symbol, type, llvm::GlobalValue::ExternalLinkage);
  f->setVisibility(llvm::GlobalValue::DefaultVisibility);
  // The argument arrays are the caller's, apart from any tensor's memory, and only read.
  for (unsigned i = 0; i < 4; ++i) {
    f->addParamAttr(i, llvm::Attribute::NoAlias);
    f->addParamAttr(i, llvm::Attribute::NoCapture);
    f->addParamAttr(i, llvm::Attribute::ReadOnly);
  }
  fn_ = FunctionState{f, f->getArg(3), {}};
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", f));
  BindParameters(f->getArg(0), f->getArg(1), f->getArg(2));
  Stmt(kernel_.body());
  b_.CreateRet(b_.getInt32(RXT_KERNEL_OK));
  return f;
}

void KernelEmitter::BindParameters(llvm::Value* buffers, llvm::Value* int_vars, llvm::Value* float_vars) {
  llvm::Type* ptr = b_.getPtrTy();
  auto load_var = [&](int32_t v) {
    if (env_.vars[v] != nullptr) return;
    kf::DType t = kernel_.vars[v].dtype;
    if (kf::IsFloat(t)) {
      llvm::Value* p = b_.CreateConstInBoundsGEP1_64(b_.getDoubleTy(), float_vars, v);
      env_.vars[v] = scalar_.FromDouble(t, b_.CreateLoad(b_.getDoubleTy(), p, kernel_.vars[v].name));
    } else {
      llvm::Value* p = b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), int_vars, v);
      env_.vars[v] = scalar_.FromInt64(t, b_.CreateLoad(b_.getInt64Ty(), p, kernel_.vars[v].name));
    }
  };
  // Scalar parameters and the bare variables among parameter buffers' dims and strides first:
  // the other dims are expressions of them.
  for (const kf::Param& p : kernel_.params) {
    if (p.kind == kf::ParamKind::kScalar) {
      load_var(p.index);
      continue;
    }
    const kf::Buffer& buffer = kernel_.buffers[p.index];
    for (const auto* exprs : {&buffer.shape, &buffer.strides}) {
      for (int32_t e : *exprs) {
        if (kernel_.exprs[e].kind == kf::ExprKind::kVar) load_var(kernel_.exprs[e].var);
      }
    }
  }
  for (const kf::Param& p : kernel_.params) {
    if (p.kind != kf::ParamKind::kBuffer) continue;
    const kf::Buffer& buffer = kernel_.buffers[p.index];
    BufferView view;
    llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr, buffers, p.index);
    view.data = b_.CreateLoad(ptr, slot, buffer.name);
    ClearExprCache();
    if (!buffer.strides.empty()) {
      for (int32_t e : buffer.strides) view.strides.push_back(Index64(e));
    } else {
      std::vector<llvm::Value*> dims;
      for (int32_t e : buffer.shape) dims.push_back(Index64(e));
      view.strides = CompactStrides(dims);
    }
    env_.buffers[p.index] = std::move(view);
  }
}

std::vector<llvm::Value*> KernelEmitter::CompactStrides(const std::vector<llvm::Value*>& dims) {
  std::vector<llvm::Value*> strides(dims.size());
  llvm::Value* stride = b_.getInt64(1);
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = stride;
    stride = b_.CreateMul(stride, dims[d]);
  }
  return strides;
}

llvm::BasicBlock* KernelEmitter::ErrorExit(llvm::Value* code) {
  llvm::IRBuilderBase::InsertPointGuard guard(b_);
  llvm::BasicBlock* block = llvm::BasicBlock::Create(context_, "error", fn_.function);
  b_.SetInsertPoint(block);
  if (!fn_.heap.empty()) {
    llvm::FunctionCallee free_fn = module_.getOrInsertFunction("free", b_.getVoidTy(), b_.getPtrTy());
    for (auto it = fn_.heap.rbegin(); it != fn_.heap.rend(); ++it) b_.CreateCall(free_fn, {*it});
  }
  b_.CreateRet(code);
  return block;
}

llvm::BasicBlock* KernelEmitter::DivisionByZeroExit() { return ErrorExit(b_.getInt32(RXT_KERNEL_DIVISION_BY_ZERO)); }

void KernelEmitter::Annotate(llvm::Instruction* access, int32_t buffer) {
  access->setMetadata(llvm::LLVMContext::MD_alias_scope, scopes_[buffer]);
  access->setMetadata(llvm::LLVMContext::MD_noalias, noalias_[buffer]);
  if (access_group_ != nullptr) access->setMetadata(llvm::LLVMContext::MD_access_group, access_group_);
}

llvm::AllocaInst* KernelEmitter::EntryAlloca(llvm::Type* type, const char* name) {
  llvm::BasicBlock& entry = fn_.function->getEntryBlock();
  llvm::IRBuilder<> at_entry(&entry, entry.begin());
  return at_entry.CreateAlloca(type, nullptr, name);
}

}  // namespace rxt::backend_cpu

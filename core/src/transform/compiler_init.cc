// The compiler's one initialisation point (as TVM's op and pass registration): the first use
// of OpRegistry::Global() or PassRegistry::Global() builds them completely, on whichever
// thread gets there first (C++ runs a function-local static's initialiser exactly once,
// other threads wait). After that the op registry is frozen, so the C ABI may read it from
// any thread; plugin loading extends it under its write lock (OpRegistry::Extend).
//
// The registries are declared in lower layers (ir/op.h, pass/pass_registry.h) and filled here,
// at the top of the compiler, from the layers that know the content: op/ (the ops),
// transform/legalize/ (their FLegalize), transform/ (the pass table).
#include "rxt/ir/op.h"
#include "rxt/op/op_list.h"
#include "rxt/pass/pass_registry.h"
#include "rxt/transform/legalize/legalize.h"
#include "rxt/transform/passes.h"

namespace rxt {

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();  // never destroyed: ops outlive every module
    RegisterCoreOps(*r);
    RegisterLegalizations(*r);
    r->Freeze();
    return r;
  }();
  return *registry;
}

PassRegistry& PassRegistry::Global() {
  static PassRegistry* registry = [] {
    auto* r = new PassRegistry();
    RegisterStandardPasses(*r);
    r->Freeze();
    return r;
  }();
  return *registry;
}

}  // namespace rxt

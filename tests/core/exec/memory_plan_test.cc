// The memory planner (core/src/exec/memory_plan.cc) through CompileToExecutable: which
// outputs share storage, which escape, reuse slots for symbolic shapes, the listing, and the
// checks that keep a corrupt plan from reading out of bounds.
#include <gtest/gtest.h>

#include "rxt/exec/vm_compiler.h"
#include "rxt/ir/parser.h"

namespace rxt {
namespace {

Executable Compile(const std::string& text, bool plan = true) {
  return CompileToExecutable(ParseModule(text), {.backend = "", .plan_memory = plan});
}

/// The alloc_tensor instructions of |f|, in program order.
std::vector<const Instruction*> Allocs(const VMFunction& f) {
  std::vector<const Instruction*> out;
  for (const Instruction& ins : f.code) {
    if (ins.op == Opcode::kAllocTensor) out.push_back(&ins);
  }
  return out;
}

const ArenaTensor& Placed(const VMFunction& f, const Instruction* alloc) {
  EXPECT_GT(alloc->aux, 0) << "not in the arena";
  return f.arena_tensors.at(alloc->aux - 1);
}

bool Disjoint(const ArenaTensor& a, const ArenaTensor& b) {
  return a.offset + a.nbytes <= b.offset || b.offset + b.nbytes <= a.offset;
}

// a -> b -> c -> d: a is dead when c is allocated; d is returned.
constexpr const char* kChain = R"(
def @main(%x: Tensor((4,), float32)) -> Tensor((4,), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((4,), float32))
  %b = call_extern("f", (%a,), out_sinfo=Tensor((4,), float32))
  %c = call_extern("f", (%b,), out_sinfo=Tensor((4,), float32))
  %d = call_extern("f", (%c,), out_sinfo=Tensor((4,), float32))
  return %d
})";

TEST(MemoryPlan, TensorsWhoseLifetimesDoNotOverlapShareStorage) {
  Executable exec = Compile(kChain);
  const VMFunction& f = exec.functions[0];
  std::vector<const Instruction*> allocs = Allocs(f);
  ASSERT_EQ(allocs.size(), 4u);
  EXPECT_EQ(Placed(f, allocs[0]).offset, Placed(f, allocs[2]).offset);  // a and c
  EXPECT_TRUE(Disjoint(Placed(f, allocs[0]), Placed(f, allocs[1])));    // a and b meet at b's call
  EXPECT_TRUE(Disjoint(Placed(f, allocs[1]), Placed(f, allocs[2])));
  EXPECT_EQ(allocs[3]->aux, 0) << "the result escapes";
  EXPECT_EQ(f.arena_bytes, 2 * kArenaAlignment);  // two 16-byte tensors, aligned
  EXPECT_EQ(Placed(f, allocs[0]).nbytes, 16);
}

TEST(MemoryPlan, TensorsAliveTogetherNeverShare) {
  // %a is read by the last call, so a, b and c are all alive there.
  Executable exec = Compile(R"(
def @main(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((2, 3), float32))
  %b = call_extern("f", (%a,), out_sinfo=Tensor((2, 3), float32))
  %c = call_extern("g", (%a, %b), out_sinfo=Tensor((2, 3), float32))
  %d = call_extern("g", (%a, %c), out_sinfo=Tensor((2, 3), float32))
  return %d
})");
  const VMFunction& f = exec.functions[0];
  std::vector<const Instruction*> allocs = Allocs(f);
  ASSERT_EQ(allocs.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    for (int j = i + 1; j < 3; ++j) {
      // b dies at c's call, before d exists, but c and b still meet there: all three differ.
      EXPECT_TRUE(Disjoint(Placed(f, allocs[i]), Placed(f, allocs[j]))) << i << " and " << j;
    }
  }
  EXPECT_EQ(f.arena_bytes, 3 * kArenaAlignment);
}

TEST(MemoryPlan, EscapingTensorsAreNeverInTheArena) {
  Executable exec = Compile(R"(
def @id(%y: Tensor((4,), float32)) -> Tensor((4,), float32) {
  return %y
}

def @in_a_tuple(%x: Tensor((4,), float32)) -> Tuple(Tensor((4,), float32), Tensor((4,), float32)) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((4,), float32))
  %b = call_extern("f", (%a,), out_sinfo=Tensor((4,), float32))
  %t = (%a, %b)
  return %t
}

def @through_a_call(%x: Tensor((4,), float32)) -> Tensor((4,), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((4,), float32))
  %r = @id(%a)
  return %r
}

def @call_result_used(%x: Tensor((4,), float32)) -> Tensor((4,), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((4,), float32))
  %r = @id(%a)
  %b = call_extern("f", (%x,), out_sinfo=Tensor((4,), float32))
  %c = call_extern("g", (%r, %b), out_sinfo=Tensor((4,), float32))
  return %c
})");
  const VMFunction& id = exec.functions[0];
  EXPECT_TRUE(Allocs(id).empty());
  for (const Instruction* alloc : Allocs(exec.functions[1])) EXPECT_EQ(alloc->aux, 0) << "returned in a tuple";
  for (const Instruction* alloc : Allocs(exec.functions[2])) EXPECT_EQ(alloc->aux, 0) << "returned by @id";
  // Not returned: planned, and %r (which may be %a) keeps %a alive until %c's call, so %a and
  // %b (allocated after the call of @id) do not share.
  const VMFunction& used = exec.functions[3];
  std::vector<const Instruction*> allocs = Allocs(used);
  ASSERT_EQ(allocs.size(), 3u);
  EXPECT_TRUE(Disjoint(Placed(used, allocs[0]), Placed(used, allocs[1])));
  EXPECT_EQ(allocs[2]->aux, 0);
}

TEST(MemoryPlan, BranchResultsFollowTheirRegister) {
  Executable exec = Compile(R"(
def @main(%x: Tensor((4,), float32), %flag: Tensor((), bool)) -> Tensor((4,), float32) {
  %y = if %flag {
    %a = call_extern("f", (%x,), out_sinfo=Tensor((4,), float32))
    yield %a
  } else {
    %b = call_extern("f", (%x,), out_sinfo=Tensor((4,), float32))
    yield %b
  }
  %z = call_extern("f", (%y,), out_sinfo=Tensor((4,), float32))
  %w = call_extern("f", (%z,), out_sinfo=Tensor((4,), float32))
  return %w
})");
  const VMFunction& f = exec.functions[0];
  std::vector<const Instruction*> allocs = Allocs(f);
  ASSERT_EQ(allocs.size(), 4u);
  // %y may be %a or %b: both live until %z's call, so neither shares with %z.
  EXPECT_TRUE(Disjoint(Placed(f, allocs[0]), Placed(f, allocs[2])));
  EXPECT_TRUE(Disjoint(Placed(f, allocs[1]), Placed(f, allocs[2])));
  EXPECT_EQ(allocs[3]->aux, 0);
}

TEST(MemoryPlan, SymbolicShapesShareReuseSlotsByShapeExpression) {
  Executable exec = Compile(R"(
def @main(%x: Tensor((n, 4), float32)) -> Tensor((n, 4), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((n, 4), float32))
  %b = call_extern("f", (%a,), out_sinfo=Tensor((n, 4), float32))
  %c = call_extern("f", (%b,), out_sinfo=Tensor((n, 4), float32))
  %e = call_extern("f", (%c,), out_sinfo=Tensor((n, 8), float32))
  %g = call_extern("f", (%e,), out_sinfo=Tensor((n, 4), float32))
  return %g
})");
  const VMFunction& f = exec.functions[0];
  std::vector<const Instruction*> allocs = Allocs(f);
  ASSERT_EQ(allocs.size(), 5u);
  EXPECT_EQ(allocs[0]->aux, -1);  // a: slot 0
  EXPECT_EQ(allocs[1]->aux, -2);  // b: slot 1 (a is alive at b's call)
  EXPECT_EQ(allocs[2]->aux, -1);  // c: a's slot again
  EXPECT_EQ(allocs[3]->aux, -3);  // e: another shape
  EXPECT_EQ(allocs[4]->aux, 0);   // returned
  EXPECT_EQ(f.num_reuse_slots, 3);
  EXPECT_TRUE(f.arena_tensors.empty());
}

// A view reads its tensor's storage: the tensor stays alive (no other tensor takes its
// storage) until the view's last reader; a view of a planned tensor is kept between calls
// (aux 1), a view of an argument is not.
TEST(MemoryPlan, AViewKeepsItsTensorAlive) {
  Executable exec = Compile(R"(
def @main(%x: Tensor((2, 3), float32)) -> Tensor((6,), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((2, 3), float32))
  %v = view(%a, out_sinfo=Tensor((6,), float32))
  %b = call_extern("f", (%x,), out_sinfo=Tensor((2, 3), float32))
  %c = call_extern("f", (%b,), out_sinfo=Tensor((2, 3), float32))
  %d = call_extern("f", (%v, %c), out_sinfo=Tensor((6,), float32))
  %w = view(%x, out_sinfo=Tensor((6,), float32))
  %e = call_extern("f", (%d, %w), out_sinfo=Tensor((6,), float32))
  return %e
})");
  const VMFunction& f = exec.functions[0];
  std::vector<const Instruction*> allocs = Allocs(f);
  ASSERT_EQ(allocs.size(), 5u);
  // Without the view, a would be dead after its view and b could take its storage.
  EXPECT_TRUE(Disjoint(Placed(f, allocs[0]), Placed(f, allocs[1])));
  EXPECT_TRUE(Disjoint(Placed(f, allocs[0]), Placed(f, allocs[2])));
  std::vector<int32_t> view_modes;
  for (const Instruction& ins : f.code) {
    if (ins.op == Opcode::kView) view_modes.push_back(ins.aux);
  }
  EXPECT_EQ(view_modes, (std::vector<int32_t>{1, 0})) << "a's view is kept, x's is not";
}

// A view of the result escapes with it: the tensor is not planned.
TEST(MemoryPlan, AReturnedViewsTensorEscapes) {
  Executable exec = Compile(R"(
def @main(%x: Tensor((2, 3), float32)) -> Tensor((6,), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((2, 3), float32))
  %v = view(%a, out_sinfo=Tensor((6,), float32))
  return %v
})");
  const VMFunction& f = exec.functions[0];
  ASSERT_EQ(Allocs(f).size(), 1u);
  EXPECT_EQ(Allocs(f)[0]->aux, 0) << "escapes through its view";
  EXPECT_EQ(f.arena_bytes, 0);
}

TEST(MemoryPlan, ViewsSurviveSaveAndLoad) {
  Executable exec = Compile(R"(
def @main(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((2, 3), float32))
  %v = view(%a, out_sinfo=Tensor((6,), float32))
  %b = call_extern("f", (%v,), out_sinfo=Tensor((2, 3), float32))
  return %b
})");
  std::vector<uint8_t> bytes = exec.Serialize();
  Executable loaded = Executable::Deserialize(bytes.data(), bytes.size());
  std::string listing = loaded.Disassemble();
  EXPECT_EQ(listing, exec.Disassemble());
  EXPECT_NE(listing.find(": view r"), std::string::npos) << listing;
  EXPECT_NE(listing.find(" kept"), std::string::npos) << listing;
}

TEST(MemoryPlan, OffLeavesEveryAllocationPerCall) {
  Executable exec = Compile(kChain, /*plan=*/false);
  for (const Instruction* alloc : Allocs(exec.functions[0])) EXPECT_EQ(alloc->aux, 0);
  EXPECT_EQ(exec.functions[0].arena_bytes, 0);
  EXPECT_TRUE(exec.functions[0].arena_tensors.empty());
}

TEST(MemoryPlan, DisassemblyShowsThePlan) {
  std::string listing = Compile(kChain).Disassemble();
  EXPECT_NE(listing.find("memory plan: arena 128 bytes for 3 tensors, 0 reuse slots"), std::string::npos) << listing;
  EXPECT_NE(listing.find("arena +0 (16 bytes)"), std::string::npos) << listing;
  EXPECT_NE(listing.find("arena +64 (16 bytes)"), std::string::npos) << listing;
}

TEST(MemoryPlan, ThePlanSurvivesSaveAndLoad) {
  Executable exec = Compile(kChain);
  std::vector<uint8_t> bytes = exec.Serialize();
  Executable loaded = Executable::Deserialize(bytes.data(), bytes.size());
  const VMFunction& f = loaded.functions[0];
  EXPECT_EQ(f.arena_bytes, exec.functions[0].arena_bytes);
  ASSERT_EQ(f.arena_tensors.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(f.arena_tensors[i].offset, exec.functions[0].arena_tensors[i].offset);
  EXPECT_EQ(loaded.Disassemble(), exec.Disassemble());
}

/// The message of Validate on |exec| after |corrupt|, which must fail with kDataLoss; also
/// checks that the same corruption is rejected when the bytes are loaded.
template <typename Fn>
std::string CorruptPlanError(const std::string& text, Fn corrupt) {
  Executable exec = Compile(text);
  corrupt(exec.functions[0]);
  std::vector<uint8_t> bytes = exec.Serialize();  // Serialize does not validate; loading does
  EXPECT_THROW(Executable::Deserialize(bytes.data(), bytes.size()), Error);
  try {
    exec.Validate();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss);
    return e.what();
  }
  return "(no error)";
}

Instruction& FirstAlloc(VMFunction& f) {
  for (Instruction& ins : f.code) {
    if (ins.op == Opcode::kAllocTensor) return ins;
  }
  throw std::logic_error("no alloc_tensor");
}

TEST(MemoryPlan, ACorruptViewIsRejected) {
  const std::string text = R"(
def @main(%x: Tensor((2, 3), float32)) -> Tensor((2, 3), float32) {
  %v = view(%x, out_sinfo=Tensor((6,), float32))
  %a = call_extern("f", (%v,), out_sinfo=Tensor((2, 3), float32))
  return %a
})";
  auto view = [](VMFunction& f) -> Instruction& {
    for (Instruction& ins : f.code) {
      if (ins.op == Opcode::kView) return ins;
    }
    throw std::logic_error("no view");
  };
  auto contains = [](const std::string& error, const std::string& piece) {
    return error.find(piece) != std::string::npos;
  };
  EXPECT_PRED2(contains, CorruptPlanError(text, [&](VMFunction& f) { view(f).aux = 2; }), "has view mode 2");
  EXPECT_PRED2(contains, CorruptPlanError(text, [&](VMFunction& f) { view(f).index = 99; }), "views dtype 99");
  EXPECT_PRED2(contains, CorruptPlanError(text, [&](VMFunction& f) { view(f).arg = 1000; }), "register");
  EXPECT_PRED2(contains, CorruptPlanError(text, [&](VMFunction& f) { view(f).operands = {1000}; }), "shape expr");
}

TEST(MemoryPlan, ACorruptPlanIsRejected) {
  auto contains = [](const std::string& error, const std::string& piece) {
    return error.find(piece) != std::string::npos;
  };
  EXPECT_PRED2(contains, CorruptPlanError(kChain, [](VMFunction& f) { f.arena_tensors[0].offset = 128; }),
               "outside its arena of 128 bytes");
  EXPECT_PRED2(contains, CorruptPlanError(kChain, [](VMFunction& f) { f.arena_tensors[1].offset = 8; }),
               "outside its arena");  // misaligned
  EXPECT_PRED2(contains, CorruptPlanError(kChain, [](VMFunction& f) { f.arena_tensors[0].nbytes = 1 << 20; }),
               "outside its arena");
  EXPECT_PRED2(contains, CorruptPlanError(kChain, [](VMFunction& f) { f.arena_bytes = -64; }), "has an arena of -64");
  EXPECT_PRED2(contains, CorruptPlanError(kChain, [](VMFunction& f) { FirstAlloc(f).aux = 9; }),
               "refers to arena tensor 8 of 3");
  EXPECT_PRED2(contains, CorruptPlanError(kChain, [](VMFunction& f) { FirstAlloc(f).aux = -1; }), "uses reuse slot 0");
  EXPECT_PRED2(contains, CorruptPlanError(kChain, [](VMFunction& f) { FirstAlloc(f).aux = INT32_MIN; }),
               "uses reuse slot 2147483647");
  EXPECT_PRED2(contains,
               CorruptPlanError(kChain,
                                [](VMFunction& f) {
                                  int n = 0;
                                  for (Instruction& ins : f.code) {
                                    if (ins.op == Opcode::kAllocTensor && n++ < 3) ins.aux = 1;
                                  }
                                }),
               "reuses arena tensor 0 of another instruction");
  EXPECT_PRED2(contains, CorruptPlanError(kChain, [](VMFunction& f) { f.arena_tensors[0].nbytes = 12; }),
               "needs 16 bytes but arena tensor 0 has 12");
  // A tensor of symbolic shape cannot be sized at load time: never in the arena.
  EXPECT_PRED2(contains, CorruptPlanError(R"(
def @main(%x: Tensor((n,), float32)) -> Tensor((n,), float32) {
  %a = call_extern("f", (%x,), out_sinfo=Tensor((n,), float32))
  %b = call_extern("f", (%a,), out_sinfo=Tensor((n,), float32))
  return %b
})",
                                          [](VMFunction& f) {
                                            f.arena_bytes = 64;
                                            f.arena_tensors.push_back({0, 64});
                                            FirstAlloc(f).aux = 1;
                                          }),
               "places a tensor of non-constant shape in the arena");
}

}  // namespace
}  // namespace rxt

#include "ir_module_generator.h"

#include <memory>
#include <vector>

namespace rxt::fuzz {
namespace {

// A value's type, given its function's rows: a tensor (rows, columns) or a tuple of types.
struct Type {
  bool tuple = false;
  std::vector<Type> fields;
};

struct FunctionSig {
  std::string rows;  // "n" or a static size
  int num_inputs = 1;
  Type result;
};

struct Value {
  std::string name;
  Type type;
};

class ModuleGenerator {
 public:
  ModuleGenerator(FuzzInput& in, const ModuleLimits& limits) : in_(in), limits_(limits) {}

  std::string Run() {
    columns_ = in_.Int(1, 4);
    int count = in_.Int(1, limits_.max_functions);
    // Signatures first: a function may call any later one.
    for (int i = 0; i < count; ++i) {
      FunctionSig sig;
      int rows = in_.Int(0, 3);
      sig.rows = rows == 0 ? "n" : std::to_string(rows);
      sig.num_inputs = in_.Int(1, 3);
      sig.result = in_.Int(0, 3) == 0 ? RandomTupleType(in_.Int(1, 4)) : Type{};
      sigs_.push_back(sig);
    }
    std::string text;
    for (int i = 0; i < count; ++i) text += Function(i);
    return text;
  }

 private:
  Type RandomTupleType(int depth) {
    Type t;
    t.tuple = true;
    int n = in_.Int(0, 3);
    for (int i = 0; i < n; ++i) t.fields.push_back(depth > 1 && in_.Bool() ? RandomTupleType(depth - 1) : Type{});
    return t;
  }

  std::string TypeText(const Type& t, const std::string& rows) const {
    if (!t.tuple) return "Tensor((" + rows + ", " + std::to_string(columns_) + "), float32)";
    std::string text = "Tuple(";
    for (size_t i = 0; i < t.fields.size(); ++i) text += (i ? ", " : "") + TypeText(t.fields[i], rows);
    return text + ")";
  }

  // ---- One function's body: bindings appended to body_, values in tensors_ and tuples_.
  std::string Fresh() { return "%v" + std::to_string(next_++); }
  const std::string& AnyTensor() { return tensors_[in_.Range(0, tensors_.size() - 1)]; }
  const std::string& RecentTensor() {
    return in_.Bool() ? tensors_.back() : tensors_[tensors_.size() - 1 - in_.Range(0, std::min<size_t>(tensors_.size() - 1, 3))];
  }
  bool Full() const { return bindings_ >= limits_.max_bindings; }

  std::string Bind(const std::string& expr) {
    std::string name = Fresh();
    body_ += "    " + name + " = " + expr + "\n";
    ++bindings_;
    return name;
  }
  void BindTensor(const std::string& expr) { tensors_.push_back(Bind(expr)); }

  static const char* Unary(int i) {
    static const char* kOps[] = {"negative", "nn.relu", "tanh", "sigmoid", "exp", "abs", "softmax", "nn.silu"};
    return kOps[i];
  }
  static const char* Binary(int i) {
    static const char* kOps[] = {"add", "subtract", "multiply", "maximum", "minimum", "divide"};
    return kOps[i];
  }

  // A tuple expression of existing values, |depth| levels deep; its type in |type|.
  std::string TupleExpr(int depth, Type* type) {
    type->tuple = true;
    int n = in_.Int(depth > 1 ? 1 : 0, 3);
    std::string text = "(";
    for (int i = 0; i < n; ++i) {
      Type field;
      std::string part;
      if (depth > 1 && in_.Bool()) {
        part = TupleExpr(depth - 1, &field);
      } else if (!tuples_.empty() && in_.Int(0, 3) == 0) {
        const Value& v = tuples_[in_.Range(0, tuples_.size() - 1)];
        part = v.name;
        field = v.type;
      } else {
        part = AnyTensor();
      }
      text += (i ? ", " : "") + part;
      type->fields.push_back(field);
    }
    return text + (n == 1 ? ",)" : ")");
  }

  // A value of |type| built from the pools (for a function's result).
  std::string Build(const Type& type, int depth) {
    if (!type.tuple) return AnyTensor();
    std::string text = "(";
    for (size_t i = 0; i < type.fields.size(); ++i) text += (i ? ", " : "") + Build(type.fields[i], depth + 1);
    return text + (type.fields.size() == 1 ? ",)" : ")");
  }

  void GetItem() {
    const Value& t = tuples_[in_.Range(0, tuples_.size() - 1)];
    std::string expr = t.name;
    const Type* type = &t.type;
    while (type->tuple && !type->fields.empty()) {
      size_t i = in_.Range(0, type->fields.size() - 1);
      expr += "[" + std::to_string(i) + "]";
      type = &type->fields[i];
      if (type->tuple && in_.Int(0, 3) == 0) break;  // stop at a tuple now and then
    }
    if (!type->tuple) {
      BindTensor(expr);
    } else {
      Type copy = *type;
      tuples_.push_back({Bind(expr), copy});
    }
  }

  void Call(int caller) {
    // A later function whose rows fit: its own symbolic n, or the caller's static size.
    std::vector<int> callees;
    for (size_t j = caller + 1; j < sigs_.size() && callees.size() < 64; ++j) {
      if (sigs_[j].rows == "n" || sigs_[j].rows == sigs_[caller].rows) callees.push_back(static_cast<int>(j));
    }
    if (callees.empty()) return;
    int callee = callees[in_.Range(0, callees.size() - 1)];
    std::string args;
    for (int k = 0; k < sigs_[callee].num_inputs; ++k) args += RecentTensor() + ", ";
    std::string expr = "@f" + std::to_string(callee) + "(" + args + "%w)";
    if (!sigs_[callee].result.tuple) {
      BindTensor(expr);
    } else {
      tuples_.push_back({Bind(expr), sigs_[callee].result});
    }
  }

  void Step(int index) {
    switch (in_.Int(0, 9)) {
      case 0:  // a unary op, mostly on the last value: long chains
        BindTensor(std::string(Unary(in_.Int(0, 7))) + "(" + RecentTensor() + ")");
        break;
      case 1: {  // one value used twice, again and again: %a_i = add(%a_{i-1}, %a_{i-1})
        int length = in_.Int(1, limits_.max_shared_chain);
        for (int i = 0; i < length && !Full(); ++i) BindTensor("add(" + tensors_.back() + ", " + tensors_.back() + ")");
        break;
      }
      case 2: {
        const std::string& a = RecentTensor();
        BindTensor(std::string(Binary(in_.Int(0, 5))) + "(" + a + ", " + AnyTensor() + ")");
        break;
      }
      case 3:
        BindTensor("matmul(" + RecentTensor() + ", %w)");
        break;
      case 4: {  // a reduction broadcast back
        const std::string& a = RecentTensor();
        std::string sum = Bind("sum(" + a + ", axis=[1], keepdims=true)");
        BindTensor("subtract(" + a + ", " + sum + ")");
        break;
      }
      case 5: {
        Type type;
        std::string expr = TupleExpr(in_.Int(1, 6), &type);
        tuples_.push_back({Bind(expr), type});
        break;
      }
      case 6: {  // a tuple nested deep: (((%a,),),)
        int depth = in_.Int(1, limits_.max_tuple_depth);
        std::string expr = RecentTensor();
        Type type;
        for (int d = 0; d < depth; ++d) {
          expr = "(" + expr + ",)";
          Type outer;
          outer.tuple = true;
          outer.fields.push_back(type);
          type = outer;
        }
        tuples_.push_back({Bind(expr), type});
        break;
      }
      case 7:
        if (!tuples_.empty()) GetItem();
        break;
      case 8:
        Call(index);
        break;
      case 9: {  // residual: the newest value plus an old one
        BindTensor("add(" + tensors_.back() + ", " + tensors_[in_.Range(0, tensors_.size() - 1)] + ")");
        break;
      }
    }
  }

  std::string Function(int index) {
    const FunctionSig& sig = sigs_[index];
    tensors_.clear();
    tuples_.clear();
    body_.clear();
    std::string params;
    for (int k = 0; k < sig.num_inputs; ++k) {
      params += "%x" + std::to_string(k) + ": " + TypeText({}, sig.rows) + ", ";
      tensors_.push_back("%x" + std::to_string(k));
    }
    std::string c = std::to_string(columns_);
    params += "%w: Tensor((" + c + ", " + c + "), float32)";
    int steps = in_.Int(0, 40);
    for (int s = 0; s < steps && !Full(); ++s) Step(index);
    std::string result = sig.result.tuple ? Bind(Build(sig.result, 0)) : tensors_.back();
    // A block's output is one of its own variables, not a parameter.
    if (!body_.empty() && result[1] == 'x') result = Bind(result);
    std::string head = "def @f" + std::to_string(index) + "(" + params + ") -> " + TypeText(sig.result, sig.rows) + " {\n";
    if (body_.empty()) return head + "  return " + result + "\n}\n\n";
    if (in_.Int(0, 3) == 0) {  // plain bindings, outside a dataflow block
      std::string plain;
      for (size_t start = 0; start < body_.size();) {
        size_t end = body_.find('\n', start) + 1;
        plain += body_.substr(start + 2, end - start - 2);
        start = end;
      }
      return head + plain + "  return " + result + "\n}\n\n";
    }
    return head + "  dataflow {\n" + body_ + "    output " + result + "\n  }\n  return " + result + "\n}\n\n";
  }

  FuzzInput& in_;
  ModuleLimits limits_;
  int columns_ = 1;
  std::vector<FunctionSig> sigs_;
  std::vector<std::string> tensors_;
  std::vector<Value> tuples_;
  std::string body_;
  int next_ = 0;
  int bindings_ = 0;
};

}  // namespace

std::string GenerateModule(FuzzInput& in, const ModuleLimits& limits) { return ModuleGenerator(in, limits).Run(); }

}  // namespace rxt::fuzz

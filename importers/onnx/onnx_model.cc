#include "onnx_model.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <fstream>
#include <functional>
#include <set>
#include <vector>

namespace onnx::checker {
// Exported by libonnx 1.12 (checker.cc) though its header declares only the overloads without a
// context: the one entry that checks a model already in memory against its directory (external
// data files are looked up there, not in the working directory).
void check_model(const ModelProto& model, CheckerContext& ctx);
}  // namespace onnx::checker

namespace rxt::import_onnx {
namespace {

// protobuf refuses messages over 2 GiB; larger models keep their weights in external data.
constexpr std::streamoff kMaxModelBytes = std::streamoff(2) << 30;

/// The opset the model imports for the default domain; 0 when it imports none.
int DefaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& id : model.opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx") return static_cast<int>(id.version());
  }
  return 0;
}

/// What ONNX 1.12's checker lets through but its version converter assumes (it dereferences the
/// producer of every name): each graph output, and each node input, names a value defined before
/// it (an input, an initializer, an earlier node's output, or one of an enclosing graph).
void CheckNamesAreDefined(const onnx::GraphProto& graph, std::set<std::string> defined, int depth) {
  if (depth > 64) throw ImportError("subgraphs nest deeper than 64");
  for (const onnx::ValueInfoProto& v : graph.input()) defined.insert(v.name());
  for (const onnx::TensorProto& t : graph.initializer()) defined.insert(t.name());
  for (const onnx::NodeProto& node : graph.node()) {
    for (const std::string& input : node.input()) {
      if (!input.empty() && defined.count(input) == 0) {
        throw ImportError("node '" + node.name() + "' (" + node.op_type() + ") reads '" + input +
                          "', which nothing defines before it");
      }
    }
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g()) CheckNamesAreDefined(a.g(), defined, depth + 1);
      for (const onnx::GraphProto& g : a.graphs()) CheckNamesAreDefined(g, defined, depth + 1);
    }
    for (const std::string& output : node.output()) {
      if (!output.empty() && !defined.insert(output).second) {
        throw ImportError("'" + output + "' is defined twice (node '" + node.name() + "', " + node.op_type() + ")");
      }
    }
  }
  for (const onnx::ValueInfoProto& v : graph.output()) {
    if (defined.count(v.name()) == 0) throw ImportError("the graph's output '" + v.name() + "' is not computed by any node");
  }
}

/// Attribute values ONNX 1.12's shape inference divides by or sizes with unchecked (a stride of
/// 0 is a division by zero in convPoolShapeInference): refused before it runs. Found by the
/// onnx_import fuzz target; its corpus keeps each such model.
void CheckAttributeValues(const onnx::GraphProto& graph, int depth) {
  static const std::set<std::string> kPositive = {"strides", "dilations", "kernel_shape", "group", "blocksize"};
  for (const onnx::NodeProto& node : graph.node()) {
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (kPositive.count(a.name()) != 0) {
        bool positive = a.i() > 0 || a.type() == onnx::AttributeProto::INTS;
        for (int64_t v : a.ints()) positive = positive && v > 0;
        if (!positive) {
          throw ImportError("node '" + node.name() + "' (" + node.op_type() + "): attribute " + a.name() +
                            " must be positive");
        }
      }
      if (depth < 64 && a.has_g()) CheckAttributeValues(a.g(), depth + 1);
      for (const onnx::GraphProto& g : a.graphs()) {
        if (depth < 64) CheckAttributeValues(g, depth + 1);
      }
    }
  }
}

/// |model| at kTargetOpset: ONNX's version converter for older ones, a refusal for newer ones.
void BringToTargetOpset(onnx::ModelProto& model) {
  int opset = DefaultOpset(model);
  if (opset == kTargetOpset || opset == 0) return;
  if (opset > kTargetOpset) {
    throw ImportError("opset " + std::to_string(opset) + " is newer than the newest this importer knows (" +
                      std::to_string(kTargetOpset) + ", ONNX 1.12)");
  }
  if (opset < kOldestOpset) {
    throw ImportError("opset " + std::to_string(opset) + " is older than the oldest this importer converts (" +
                      std::to_string(kOldestOpset) + ")");
  }
  // The converter's adapters need shapes (Softmax 12 -> 13, Gemm 6 -> 7): inferred first, in
  // the model's own opset, as far as they go.
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), onnx::ShapeInferenceOptions());
  } catch (const std::exception&) {
  }
  try {
    model = onnx::version_conversion::ConvertVersion(model, kTargetOpset);
  } catch (const std::exception& e) {
    throw ImportError("ONNX's version converter cannot bring opset " + std::to_string(opset) + " to " +
                      std::to_string(kTargetOpset) + ": " + e.what());
  }
  // The converter leaves the IR version as it was. Below 4, shape inference does not read
  // initializers that are not also graph inputs: once folding makes the converter's Constant
  // nodes (a Split's sizes, ReduceSum's axes) initializers, it would infer without their values.
  // Opset 17 is IR version 8.
  if (model.ir_version() < onnx::IR_VERSION) model.set_ir_version(onnx::IR_VERSION);
}

void InferShapesInProcess(onnx::ModelProto& model) {
  // Data propagation computes the values of small shape subgraphs (Shape -> Gather -> Concat),
  // so a Reshape's output gets a shape even when its shape input is computed.
  const onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/true);
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
    return;
  } catch (const std::exception& e) {
    // Old exporters wrote shapes that disagree with their ops (a ReduceSum's output declared with
    // the input's rank): the shapes the model declares are dropped and inferred again.
    onnx::ModelProto again = model;
    again.mutable_graph()->clear_value_info();
    for (onnx::ValueInfoProto& output : *again.mutable_graph()->mutable_output()) {
      if (output.type().has_tensor_type()) output.mutable_type()->mutable_tensor_type()->clear_shape();
    }
    try {
      onnx::shape_inference::InferShapes(again, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception&) {
      throw ImportError(std::string("ONNX's shape inference fails: ") + e.what());
    }
    model = std::move(again);
  }
}

// The child process sends its model back through a pipe, and the version converter and shape
// inference copy a model whole more than once; none of them reads the values of large float
// initializers (weights), only their dims and dtype. After the checker has seen them, the child
// leaves their values out (StripWeights) and the parent, which has them from its own parse, puts
// them back (RestoreWeights): resnet18 imports in 0.21-0.23 s instead of 0.37-0.44. A checked
// model has no initializer without values, so one without them in the reply is one left out (the
// version converter keeps names, dims and dtypes, but not doc strings).
constexpr size_t kStripBytes = 4096;

bool IsFloatType(int type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE ||
         type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BFLOAT16;
}

bool IsStripped(const onnx::TensorProto& t) {
  return IsFloatType(t.data_type()) && t.data_location() != onnx::TensorProto::EXTERNAL && t.raw_data().empty() &&
         t.float_data_size() == 0 && t.double_data_size() == 0 && t.int32_data_size() == 0 && t.dims_size() > 0;
}

void StripWeights(onnx::ModelProto& model) {
  for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) {
    if (!IsFloatType(t.data_type()) || t.data_location() == onnx::TensorProto::EXTERNAL) continue;
    if (t.raw_data().size() >= kStripBytes) t.clear_raw_data();
  }
}

/// Puts the values of |model|'s stripped initializers back from |source|'s of the same name.
void RestoreWeights(onnx::ModelProto& model, onnx::ModelProto& source) {
  std::unordered_map<std::string, onnx::TensorProto*> by_name;
  for (onnx::TensorProto& t : *source.mutable_graph()->mutable_initializer()) by_name.emplace(t.name(), &t);
  for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) {
    if (!IsStripped(t)) continue;
    auto it = by_name.find(t.name());
    if (it == by_name.end() || it->second->raw_data().size() < kStripBytes || it->second->data_type() != t.data_type()) {
      continue;  // not one the child left out: the converter's import checks name it
    }
    t.set_allocated_raw_data(it->second->release_raw_data());
  }
}

/// Parsing, checks, version conversion and shape inference, in this process.
onnx::ModelProto PrepareInProcess(const void* data, size_t size, const std::string& model_dir, bool strip) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) {
    throw ImportError("not an ONNX model (protobuf cannot parse it: truncated or another format?)");
  }
  try {
    onnx::checker::CheckerContext context;
    context.set_model_dir(model_dir);
    onnx::checker::check_model(model, context);
  } catch (const std::exception& e) {
    throw ImportError(std::string("ONNX's checker refuses the model: ") + e.what());
  }
  CheckNamesAreDefined(model.graph(), {}, 0);
  CheckAttributeValues(model.graph(), 0);
  if (strip) StripWeights(model);
  BringToTargetOpset(model);
  InferShapesInProcess(model);
  return model;
}

/// Writes all of |bytes| to |fd| (the child's side of the pipe).
void WriteAll(int fd, const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

/// |work| in a child process. ONNX's checker lets through models that its version converter and
/// shape inference then crash on (a graph output nothing computes, an attribute whose rank
/// disagrees with a shape: dereferences of null, divisions by zero), and no list of pre-checks
/// keeps up with them; a crash of the child is a refusal of the model, never of the host. The
/// child sends back 'M' and the resulting model's bytes, or 'E' and the error. With |source|,
/// the child leaves the weights out of its work and its reply (work's argument: StripWeights)
/// and the parent, meanwhile, gets them from |source|'s model and puts them back.
onnx::ModelProto RunIsolated(const std::function<onnx::ModelProto(bool strip)>& work,
                             const std::function<onnx::ModelProto()>& source) {
  int fds[2];
  if (::pipe(fds) != 0) return work(false);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return work(false);
  }
  if (pid == 0) {
    ::close(fds[0]);
    // A crash is reported by the parent: the host's handlers (a backtrace printer) stay quiet.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    std::string reply;
    try {
      reply = "M" + work(source != nullptr).SerializeAsString();
    } catch (const std::exception& e) {
      reply = std::string("E") + e.what();
    }
    WriteAll(fds[1], reply);
    ::_exit(0);
  }
  ::close(fds[1]);
  // The weights, read here while the child works.
  onnx::ModelProto original;
  std::string source_error;
  if (source) {
    try {
      original = source();
    } catch (const std::exception& e) {
      source_error = e.what();
    }
  }
  // The reply streams into the model (the serialized form, as large as the weights, is never
  // held whole); what is left of it is drained so that the child can finish writing and exit.
  char kind = 0;
  ssize_t got;
  do {
    got = ::read(fds[0], &kind, 1);
  } while (got < 0 && errno == EINTR);
  onnx::ModelProto model;
  bool parsed = false;
  std::string error;
  if (got == 1 && kind == 'M') parsed = model.ParseFromFileDescriptor(fds[0]);
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (kind == 'E' && error.size() < (1 << 20)) error.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
    const std::string how = WIFSIGNALED(status) ? ::strsignal(WTERMSIG(status)) : "exit status " + std::to_string(WEXITSTATUS(status));
    throw ImportError("ONNX's library crashed (" + how +
                      ") checking, converting or inferring the shapes of the model: it is malformed in a way "
                      "ONNX's checker does not catch");
  }
  if (got != 1 || (kind != 'M' && kind != 'E')) {
    throw ImportError("checking, converting or inferring the shapes of the model gave no result (the child process "
                      "running ONNX's library exited without a reply)");
  }
  if (kind == 'E') throw ImportError(error);
  if (!parsed) throw ImportError("preparing the model failed (its prepared form does not parse)");
  if (source) {
    if (!source_error.empty()) throw ImportError(source_error);
    RestoreWeights(model, original);
  }
  return model;
}

}  // namespace

onnx::ModelProto ParseModel(const void* data, size_t size, const std::string& model_dir) {
  if (size > static_cast<size_t>(kMaxModelBytes)) {
    throw ImportError("larger than 2 GiB (keep the weights in external data)");
  }
  return RunIsolated([&](bool strip) { return PrepareInProcess(data, size, model_dir, strip); },
                     [&] {
                       onnx::ModelProto model;
                       if (!model.ParseFromArray(data, static_cast<int>(size))) throw ImportError("not an ONNX model");
                       return model;
                     });
}

onnx::ModelProto InferShapes(const onnx::ModelProto& model) {
  return RunIsolated(
      [&](bool strip) {
        onnx::ModelProto copy = model;
        // Values inferred before keep their shapes: start over from the inputs and initializers.
        copy.mutable_graph()->clear_value_info();
        if (strip) StripWeights(copy);
        InferShapesInProcess(copy);
        return copy;
      },
      [&] { return model; });
}

std::string ModelDir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

onnx::ModelProto ReadModel(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw ImportError("cannot open the file");
  std::streamoff size = in.tellg();
  if (size > kMaxModelBytes) throw ImportError("larger than 2 GiB (keep the weights in external data)");
  in.close();
  // Read where ONNX's library runs (RunIsolated's child), and here for the weights.
  return RunIsolated(
      [&](bool strip) {
        std::ifstream file(path, std::ios::binary);
        std::vector<char> bytes(static_cast<size_t>(size));
        if (!file.read(bytes.data(), size)) throw ImportError("cannot read the file");
        return PrepareInProcess(bytes.data(), bytes.size(), ModelDir(path), strip);
      },
      [&] {
        // Parsed from the stream: the bytes are never held whole here.
        std::ifstream file(path, std::ios::binary);
        onnx::ModelProto model;
        if (!file || !model.ParseFromIstream(&file)) throw ImportError("cannot read the file");
        return model;
      });
}

}  // namespace rxt::import_onnx

// The pieces of `rxt train` (apps/rxt): the IDX reader, the metrics JSON and the history kept in
// checkpoints, the SVG plot, the progress display, the built-in seed MLP, checkpoint lookup and
// settings, and how batches are laid out for a model.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "idx.h"
#include "progress.h"
#include "rxt/ir/equality.h"
#include "rxt/ir/parser.h"
#include "rxt/runtime/memory_limit.h"
#include "rxt/support/error.h"
#include "seed_mlp.h"
#include "test_util/test_files.h"
#include "train_batches.h"
#include "train_checkpoints.h"
#include "training_metrics.h"

namespace rxt::cli {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("rxt_train_helpers_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<uint8_t> Idx(std::vector<uint32_t> dims, size_t data_bytes) {
  std::vector<uint8_t> bytes = {0, 0, 8, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<uint8_t>(d >> shift));
  }
  for (size_t i = 0; i < data_bytes; ++i) bytes.push_back(static_cast<uint8_t>(i));
  return bytes;
}

std::string IdxError(const std::vector<uint8_t>& bytes) {
  try {
    ParseIdx(bytes, "f.idx");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << e.what();
    return e.what();
  }
  return "(no error)";
}

TEST(Idx, ParsesDimsAndData) {
  IdxArray a = ParseIdx(Idx({2, 3}, 6), "f.idx");
  EXPECT_EQ(a.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(ParseIdx(Idx({70000}, 70000), "f").dims[0], 70000);  // dims above 2^16
}

TEST(Idx, MalformedBytesNameTheProblem) {
  EXPECT_EQ(IdxError({}), "f.idx: not an IDX file (it must start with two zero bytes, a type and a rank)");
  std::vector<uint8_t> magic = Idx({2}, 2);
  magic[1] = 3;
  EXPECT_NE(IdxError(magic).find("not an IDX file"), std::string::npos);
  std::vector<uint8_t> type = Idx({2}, 2);
  type[2] = 0x0D;
  EXPECT_EQ(IdxError(type), "f.idx: IDX element type float (0xd) is not supported (only unsigned bytes, 0x08)");
  type[2] = 0x42;
  EXPECT_NE(IdxError(type).find("element type unknown (0x42)"), std::string::npos);
  std::vector<uint8_t> rank = Idx({2}, 2);
  rank[3] = 0;
  EXPECT_EQ(IdxError(rank), "f.idx: IDX rank 0 is not between 1 and 4");
  EXPECT_EQ(IdxError({0, 0, 8, 2, 0, 0, 0, 1}), "f.idx: truncated IDX header (8 bytes, the dims need 12)");
  EXPECT_EQ(IdxError(Idx({2, 3}, 5)), "f.idx: the IDX dims announce 6 bytes of data, the file has 5 (truncated)");
  EXPECT_EQ(IdxError(Idx({2, 3}, 7)), "f.idx: the IDX dims announce 6 bytes of data, the file has 7 (trailing bytes)");
  EXPECT_NE(IdxError(Idx({0xFFFFFFFF, 0xFFFFFFFF}, 0)).find("more than 2^32 elements"), std::string::npos);
}

TEST(Idx, ReadsGzipAndPlainFiles) {
  fs::path dir = TempDir("idx");
  std::vector<uint8_t> bytes = Idx({4, 2}, 8);
  std::string gz = (dir / "a.gz").string();
  gzFile file = gzopen(gz.c_str(), "wb");
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
  EXPECT_EQ(ReadIdxFile(gz).dims, (std::vector<int64_t>{4, 2}));
  std::ofstream((dir / "plain").string(), std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                                   static_cast<std::streamsize>(bytes.size()));
  EXPECT_EQ(ReadIdxFile((dir / "plain").string()).data.size(), 8u);

  // A gzip stream cut in the middle.
  std::string whole = test::ReadFile(gz);
  std::ofstream((dir / "cut.gz").string(), std::ios::binary).write(whole.data(), static_cast<std::streamsize>(whole.size() / 2));
  try {
    ReadIdxFile((dir / "cut.gz").string());
    ADD_FAILURE() << "a truncated gzip file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << e.what();
    EXPECT_NE(std::string(e.what()).find("cut.gz"), std::string::npos) << e.what();
  }
  try {
    ReadIdxFile((dir / "absent.gz").string());
    ADD_FAILURE() << "a missing file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound) << e.what();
  }
  fs::remove_all(dir);
}

// One gzip member holding |bytes|; |name|, if given, goes into its header (FNAME).
std::vector<uint8_t> GzipMember(const std::vector<uint8_t>& bytes, const std::string& name = "") {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  gz_header header{};
  std::string name_field = name;
  header.name = reinterpret_cast<Bytef*>(name_field.data());
  if (!name.empty()) deflateSetHeader(&stream, &header);
  std::vector<uint8_t> out(deflateBound(&stream, bytes.size()) + 32 + name.size());
  stream.next_in = const_cast<uint8_t*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string GunzipError(const std::vector<uint8_t>& bytes) {
  try {
    GunzipIfCompressed(bytes, "f.gz");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss);
    return e.what();
  }
  return "(no error)";
}

TEST(Idx, GunzipsInMemory) {
  std::vector<uint8_t> bytes = Idx({4, 2}, 8);
  EXPECT_EQ(GunzipIfCompressed(bytes, "plain"), bytes);  // not gzip: as it is
  std::vector<uint8_t> gz = GzipMember(bytes);
  EXPECT_EQ(GunzipIfCompressed(gz, "f.gz"), bytes);
  // Members one after another (cat a.gz b.gz) decompress to their contents one after another.
  std::vector<uint8_t> first(bytes.begin(), bytes.begin() + 5), rest(bytes.begin() + 5, bytes.end());
  std::vector<uint8_t> two = GzipMember(first), tail = GzipMember(rest);
  two.insert(two.end(), tail.begin(), tail.end());
  EXPECT_EQ(GunzipIfCompressed(two, "f.gz"), bytes);

  std::vector<uint8_t> cut(gz.begin(), gz.begin() + static_cast<std::ptrdiff_t>(gz.size() / 2));
  EXPECT_EQ(GunzipError(cut), "f.gz: corrupt gzip data (unexpected end of file)");
  std::vector<uint8_t> trailing = gz;
  trailing.insert(trailing.end(), {0, 0, 0});
  EXPECT_EQ(GunzipError(trailing), "f.gz: corrupt gzip data (3 bytes after the end of the gzip stream)");
  std::vector<uint8_t> garbage = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6};
  EXPECT_NE(GunzipError(garbage).find("f.gz: corrupt gzip data ("), std::string::npos);
}

// A gzip file is inflated as it is read, in 1 MiB pieces: members and garbage that straddle a
// piece are read as in memory, and a trailer that lies about the size is only a hint.
TEST(Idx, GzipFilesAreInflatedPieceByPiece) {
  fs::path dir = TempDir("idx_pieces");
  auto write = [&](const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream((dir / name).string(), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return (dir / name).string();
  };
  // 3 MB that hardly compress (an LCG's high bytes): the compressed file spans 3 pieces.
  std::vector<uint8_t> bytes = Idx({3000, 1000}, 3000000);
  uint32_t state = 1;
  for (size_t i = 16; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>((state = state * 1664525u + 1013904223u) >> 24);
  std::vector<uint8_t> gz = GzipMember(bytes);
  ASSERT_GT(gz.size(), 2u << 20);
  EXPECT_EQ(ReadIdxFile(write("one.gz", gz)).data, std::vector<uint8_t>(bytes.begin() + 12, bytes.end()));
  // Two members, the second starting one byte before the first piece ends (the first member's
  // header carries a file name sized to put it there).
  std::vector<uint8_t> first(bytes.begin(), bytes.begin() + 1000000), rest(bytes.begin() + 1000000, bytes.end());
  size_t unnamed = GzipMember(first).size();
  ASSERT_LT(unnamed, (1u << 20) - 2);
  std::vector<uint8_t> two = GzipMember(first, std::string((1u << 20) - 2 - unnamed, 'n'));
  ASSERT_EQ(two.size(), (1u << 20) - 1);
  std::vector<uint8_t> tail = GzipMember(rest);
  two.insert(two.end(), tail.begin(), tail.end());
  EXPECT_EQ(ReadIdxFile(write("two.gz", two)).data.size(), 3000000u);
  // Garbage after the end straddling a piece.
  std::vector<uint8_t> trailing = gz;
  trailing.resize((3u << 20) + 1, 0);
  ASSERT_GT(trailing.size(), gz.size());
  try {
    ReadIdxFile(write("trailing.gz", trailing));
    ADD_FAILURE() << "trailing bytes were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "trailing.gz").string() + ": corrupt gzip data (" +
                                         std::to_string(trailing.size() - gz.size()) +
                                         " bytes after the end of the gzip stream)");
  }
  // A trailer claiming 4 GiB: refused by zlib's length check, having allocated no more than the data.
  std::vector<uint8_t> lying = GzipMember(Idx({4, 2}, 8));
  std::fill(lying.end() - 4, lying.end(), 0xff);
  SetMemoryLimit(1 << 20);
  try {
    ReadIdxFile(write("lying.gz", lying));
    ADD_FAILURE() << "a wrong size in the trailer was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << e.what();
    EXPECT_NE(std::string(e.what()).find("corrupt gzip data"), std::string::npos) << e.what();
  }
  SetMemoryLimit(0);
  fs::remove_all(dir);
}

// Issue 11, class 5: a gzip bomb (1 MiB of zeros in ~1 KB) counts against the memory limit.
TEST(Idx, DecompressionStopsAtTheMemoryLimit) {
  std::vector<uint8_t> zeros(1 << 20, 0);
  std::vector<uint8_t> gz = GzipMember(zeros);
  ASSERT_LT(gz.size(), 4096u);
  SetMemoryLimit(256 << 10);
  try {
    GunzipIfCompressed(gz, "bomb.gz");
    ADD_FAILURE() << "inflated past the memory limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted);
    EXPECT_EQ(std::string(e.what()).rfind("bomb.gz: the decompressed data needs ", 0), 0u) << e.what();
  }
  SetMemoryLimit(0);
  EXPECT_EQ(GunzipIfCompressed(gz, "bomb.gz"), zeros);
}

TrainingHistory SampleHistory() {
  TrainingHistory h;
  h.epochs = {{1, 0.61, 0.8123, 2.5, 374.8}, {2, 0.42, 0.8577, 2.25, 416.4}};
  h.curve = {{0.5, 0.9}, {1.0, 0.55}, {1.5, 0.45}, {2.0, 0.40}};
  return h;
}

TEST(TrainingMetrics, JsonHasTheDocumentedFields) {
  nlohmann::json j = nlohmann::json::parse(MetricsJson(SampleHistory().epochs));
  ASSERT_EQ(j.size(), 1u);
  ASSERT_EQ(j.at("epochs").size(), 2u);
  const nlohmann::json& e = j["epochs"][1];
  EXPECT_EQ(e.at("epoch"), 2);
  EXPECT_DOUBLE_EQ(e.at("loss").get<double>(), 0.42);
  EXPECT_DOUBLE_EQ(e.at("test_accuracy").get<double>(), 0.8577);
  EXPECT_DOUBLE_EQ(e.at("seconds").get<double>(), 2.25);
  EXPECT_DOUBLE_EQ(e.at("steps_per_second").get<double>(), 416.4);
  EXPECT_EQ(e.size(), 5u);
}

TEST(TrainingMetrics, HistoryRoundTripsAndBadTextIsDataLoss) {
  TrainingHistory back = ParseHistoryJson(HistoryJson(SampleHistory()), "ckpt", 10);
  ASSERT_EQ(back.epochs.size(), 2u);
  EXPECT_EQ(back.epochs[1].test_accuracy, 0.8577);
  ASSERT_EQ(back.curve.size(), 4u);
  EXPECT_EQ(back.curve[2].epoch, 1.5);
  // Found by fuzzing (checkpoint): a number past double's range escaped as nlohmann's
  // out_of_range, which nothing caught (terminate).
  for (const char* bad : {"", "{", "{\"epochs\": 3}", "{\"epochs\": [], \"curve\": [[1]]}",
                          "{\"epochs\": [], \"curve\": [[1.0, 0.2e99999]]}"}) {
    try {
      ParseHistoryJson(bad, "ckpt", 10);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kDataLoss);
      EXPECT_NE(std::string(e.what()).find("ckpt: the training history is not valid"), std::string::npos);
    }
  }
}

TEST(TrainingMetrics, PlotIsAnSvgWithBothCharts) {
  std::string svg = PlotSvg(SampleHistory(), "MLP <adam> & co");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("Training loss"), std::string::npos);
  EXPECT_NE(svg.find("Test accuracy"), std::string::npos);
  EXPECT_NE(svg.find("MLP &lt;adam&gt; &amp; co"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '<') - std::count(svg.begin(), svg.end(), '>'), 0);
  size_t polylines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++polylines;
  EXPECT_EQ(polylines, 2u);  // the loss curve and the accuracy line
  // Empty and diverged histories still draw.
  EXPECT_NE(PlotSvg({}, "t").find("</svg>"), std::string::npos);
  TrainingHistory diverged = SampleHistory();
  diverged.epochs[1].loss = NAN;
  diverged.curve[3].loss = INFINITY;
  EXPECT_EQ(PlotSvg(diverged, "t").find("nan"), std::string::npos);
  // Found by fuzzing (checkpoint, UBSan): an epoch past int's range, from a checkpoint's
  // history, was converted to int (undefined; the sanitizer build reports it).
  TrainingHistory far = SampleHistory();
  far.curve[2].epoch = 1e26;
  EXPECT_NE(PlotSvg(far, "t").find("</svg>"), std::string::npos);
}

TEST(TrainingMetrics, FilesAreWrittenAndAPngIsRefused) {
  fs::path dir = TempDir("metrics");
  WriteMetricsFile((dir / "m.json").string(), SampleHistory().epochs);
  EXPECT_EQ(nlohmann::json::parse(test::ReadFile(dir / "m.json")).at("epochs").size(), 2u);
  WritePlotFile((dir / "p.svg").string(), SampleHistory(), "t");
  EXPECT_NE(test::ReadFile(dir / "p.svg").find("<svg"), std::string::npos);
  try {
    WritePlotFile((dir / "p.png").string(), SampleHistory(), "t");
    ADD_FAILURE() << "a .png plot was written";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
  EXPECT_FALSE(fs::exists(dir / "p.png"));
  fs::remove_all(dir);
}

TEST(Progress, FormatsDurationsAndStatus) {
  EXPECT_EQ(ProgressBar::FormatDuration(0), "0:00");
  EXPECT_EQ(ProgressBar::FormatDuration(62.4), "1:02");
  EXPECT_EQ(ProgressBar::FormatDuration(3723), "1:02:03");
  EXPECT_EQ(ProgressBar::FormatDuration(NAN), "?");
  EXPECT_EQ(ProgressBar::StatusText(2, 5, 100, 937, 0.51234, 400), "epoch 2/5 step 100/937 loss 0.5123 400.0 steps/s ETA 0:02");
}

std::string Printed(bool interactive, int64_t total, int64_t every) {
  std::FILE* file = std::tmpfile();
  ProgressBar bar(file, interactive, every);
  bar.Start(1, 1, total);
  for (int64_t step = 1; step <= total; ++step) bar.Update(step, 1.0);
  bar.Finish();
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  std::fclose(file);
  return text;
}

TEST(Progress, PlainLinesOrAnInPlaceBar) {
  std::string plain = Printed(false, 10, 4);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), '\n'), 3);  // steps 4, 8 and the last
  EXPECT_NE(plain.find("step 8/10"), std::string::npos);
  EXPECT_EQ(plain.find('\r'), std::string::npos);
  std::string bar = Printed(true, 10, 4);
  EXPECT_NE(bar.find("\r["), std::string::npos);
  EXPECT_NE(bar.find("step 10/10"), std::string::npos);  // the last step is always drawn
  EXPECT_NE(bar.find("########################]"), std::string::npos);
  EXPECT_EQ(bar.find('\n'), std::string::npos);
}

TEST(SeedMlp, IsTheExampleForBatch64) {
  IRModule builtin = ParseModule(SeedMlpText(64), "builtin");
  IRModule example = ParseModule(test::ReadFile(std::string(RXT_SOURCE_DIR) + "/examples/mlp.rxt"), "mlp.rxt");
  EXPECT_TRUE(StructuralEqual(builtin, example));
  EXPECT_NE(SeedMlpText(32).find("Tensor((32, 784), float32)"), std::string::npos);
  EXPECT_NO_THROW(ParseModule(SeedMlpText(1), "b1"));
}

TEST(TrainCheckpoints, NewestIsTheHighestEpoch) {
  fs::path dir = TempDir("ckpt");
  EXPECT_FALSE(NewestCheckpoint(dir.string()).has_value());
  for (const char* name : {"epoch-2.safetensors", "epoch-10.safetensors", "epoch-9.safetensors", "epoch-x.safetensors",
                           "epoch-11.safetensors.tmp", "notes.txt"}) {
    std::ofstream((dir / name).string()) << "x";
  }
  auto newest = NewestCheckpoint(dir.string());
  ASSERT_TRUE(newest.has_value());
  EXPECT_EQ(newest->first, 10);
  EXPECT_EQ(fs::path(newest->second).filename(), "epoch-10.safetensors");
  EXPECT_EQ(CheckpointPath("d", 3), "d/epoch-3.safetensors");
  fs::remove_all(dir);
  try {
    NewestCheckpoint(dir.string());
    ADD_FAILURE() << "a missing directory was listed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
}

TEST(TrainCheckpoints, MetadataRoundTripsAndSettingsMustMatch) {
  RunSettings settings = {{"--batch-size", "64"}, {"--seed", "0"}};
  ResumePoint point = ReadCheckpointMetadata(CheckpointMetadata(3, settings, SampleHistory()), "c");
  EXPECT_EQ(point.epoch, 3);
  // A checkpoint without the settings added since reads as made with their values then: one
  // rank, no accumulation.
  RunSettings then = settings;
  then["ranks"] = "1";
  then["--accumulate"] = "1";
  EXPECT_EQ(point.settings, then);
  RunSettings two = then;
  two["ranks"] = "2";
  EXPECT_EQ(ReadCheckpointMetadata(CheckpointMetadata(3, two, SampleHistory()), "c").settings, two);
  EXPECT_EQ(point.history.epochs.size(), 2u);
  EXPECT_NO_THROW(CheckSameSettings(settings, settings, "c"));
  try {
    CheckSameSettings(settings, {{"--batch-size", "32"}, {"--seed", "0"}, {"--lr", "1"}}, "c");
    ADD_FAILURE() << "other settings were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    std::string m = e.what();
    EXPECT_NE(m.find("--batch-size: 64 in the checkpoint, 32 now"), std::string::npos) << m;
    EXPECT_NE(m.find("--lr: (not set) in the checkpoint, 1 now"), std::string::npos) << m;
    EXPECT_EQ(m.find("--seed"), std::string::npos) << m;
  }
  auto metadata = CheckpointMetadata(3, settings, SampleHistory());
  for (const char* key : {"epoch", "settings", "history"}) {
    auto broken = metadata;
    broken.erase(key);
    EXPECT_THROW(ReadCheckpointMetadata(broken, "c"), Error) << key;
  }
  metadata["epoch"] = "0";
  EXPECT_THROW(ReadCheckpointMetadata(metadata, "c"), Error);
}

std::string MetadataError(const std::map<std::string, std::string>& metadata, const std::string& source) {
  try {
    ReadCheckpointMetadata(metadata, source);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << e.what();
    return e.what();
  }
  return "(no error)";
}

// Issue 11, class 2: epoch 2147483647 overflowed epoch + 1 and the run wrote a checkpoint per
// "epoch" from -2147483648 on (4.5 GB in a minute). Every number of the metadata is checked.
TEST(TrainCheckpoints, NumbersInTheMetadataAreRangeChecked) {
  RunSettings settings = {{"--batch-size", "64"}};
  auto metadata = CheckpointMetadata(3, settings, SampleHistory());
  for (const char* epoch : {"2147483647", "1000001", "-1", "99999999999999999999", "3x", ""}) {
    metadata["epoch"] = epoch;
    EXPECT_EQ(MetadataError(metadata, "d/epoch-3.safetensors"),
              StrCat("d/epoch-3.safetensors: metadata 'epoch' is '", epoch, "', not an epoch number (1 to 1000000)"));
  }
  metadata["epoch"] = "4";
  EXPECT_EQ(MetadataError(metadata, "d/epoch-3.safetensors"),
            "d/epoch-3.safetensors: metadata 'epoch' is 4 but the file is named for epoch 3");
  EXPECT_EQ(ReadCheckpointMetadata(metadata, "elsewhere.safetensors").epoch, 4);
  EXPECT_EQ(CheckpointEpoch("epoch-2147483647.safetensors"), std::nullopt);
  EXPECT_EQ(CheckpointEpoch("epoch-1000000.safetensors"), 1000000);
  EXPECT_EQ(CheckpointEpoch("epoch-+3.safetensors"), std::nullopt);
}

TEST(TrainCheckpoints, MalformedSettingsAndHistorySayWhatIsWrongInOurWords) {
  auto metadata = CheckpointMetadata(2, {{"--seed", "0"}}, SampleHistory());
  metadata["settings"] = "{\"--seed\": 0}";
  std::string error = MetadataError(metadata, "c");
  EXPECT_EQ(error, "c: metadata 'settings': '--seed' is not a string");
  metadata["settings"] = "[1, 2";
  EXPECT_EQ(MetadataError(metadata, "c"), "c: metadata 'settings' is not JSON (at byte 6)");
  metadata["settings"] = "{\"--seed\": 1e999}";
  EXPECT_EQ(MetadataError(metadata, "c"), "c: metadata 'settings' holds a number out of range");
  metadata["settings"] = "{}";
  metadata["history"] = R"({"epochs": [{"epoch": 1, "loss": 1, "test_accuracy": 0.5, "seconds": 1, "steps_per_second": 1},
                                       {"epoch": 1, "loss": 1, "test_accuracy": 0.5, "seconds": 1, "steps_per_second": 1}],
                            "curve": []})";
  EXPECT_EQ(MetadataError(metadata, "c"),
            "c: the training history is not valid: epochs[1].epoch is 1, expected an epoch after 1 and at most 2");
  metadata["history"] = R"({"epochs": [], "curve": [[0.5, "x"]]})";
  EXPECT_EQ(MetadataError(metadata, "c"), "c: the training history is not valid: curve[0][1] is not a number");
  metadata["history"] = R"({"epochs": [], "curve": [[7, 1]]})";
  EXPECT_EQ(MetadataError(metadata, "c"), "c: the training history is not valid: curve[0][0] is 7, expected an epoch from 0 to 2");
  metadata["history"] = R"({"epochs": [], "curve": [[1, null]]})";
  EXPECT_TRUE(std::isnan(ReadCheckpointMetadata(metadata, "c").history.curve[0].loss));  // a diverged run resumes
}

TrainerProgram ProgramWith(TrainerTensorSpec input, TrainerTensorSpec target) {
  TrainerProgram p;
  p.inputs = {std::move(input)};
  p.targets = {std::move(target)};
  return p;
}

TrainerTensorSpec Spec(std::string name, DType dtype, std::vector<int64_t> shape) {
  TrainerTensorSpec s;
  s.name = std::move(name);
  s.dtype = dtype;
  s.ndim = static_cast<int>(shape.size());
  s.shape = std::move(shape);
  return s;
}

std::string LayoutError(const TrainerProgram& p, int64_t batch) {
  try {
    MatchModelToData(p, batch, LabeledSet{});  // Fashion-MNIST's shape: 784 values, 10 classes
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "(no error)";
}

TEST(TrainBatches, ModelsMustTakeImagesAndLabels) {
  TrainerTensorSpec labels = Spec("targets", DType::kInt64, {64});
  DataLayout mlp = MatchModelToData(ProgramWith(Spec("x", DType::kFloat32, {64, 784}), labels), 64, LabeledSet{});
  EXPECT_FALSE(mlp.one_hot);
  DataLayout cnn = MatchModelToData(ProgramWith(Spec("x", DType::kFloat32, {-1, 1, 28, 28}), labels), 16, LabeledSet{});
  EXPECT_EQ(cnn.input_shape, (std::vector<int64_t>{16, 1, 28, 28}));
  DataLayout one_hot =
      MatchModelToData(ProgramWith(Spec("x", DType::kFloat32, {8, 784}), Spec("y", DType::kFloat32, {8, 10})), 8,
                       LabeledSet{});
  EXPECT_TRUE(one_hot.one_hot);

  EXPECT_EQ(LayoutError(ProgramWith(Spec("x", DType::kFloat32, {64, 784}), labels), 32),
            "--batch-size 32 does not fit the model: its input %x is Tensor((64, 784), float32) (pass --batch-size 64, "
            "or give the model a symbolic batch dim)");
  EXPECT_NE(LayoutError(ProgramWith(Spec("x", DType::kFloat32, {64, 100}), labels), 64).find("a sample has 784 values (a Fashion-MNIST image"),
            std::string::npos);
  EXPECT_NE(LayoutError(ProgramWith(Spec("x", DType::kFloat64, {64, 784}), labels), 64).find("float32 samples"),
            std::string::npos);
  EXPECT_NE(LayoutError(ProgramWith(Spec("x", DType::kFloat32, {64, 784}), Spec("y", DType::kFloat32, {64, 3})), 64)
                .find("class indices"),
            std::string::npos);
  TrainerProgram two_inputs = ProgramWith(Spec("x", DType::kFloat32, {64, 784}), labels);
  two_inputs.inputs.push_back(two_inputs.inputs[0]);
  EXPECT_NE(LayoutError(two_inputs, 64).find("takes 2 inputs"), std::string::npos);
}

TEST(TrainBatches, ArraysOfAnySampleSizeAndClasses) {
  // --train-data: 3 samples of 2x3 float values, labels of 4 classes.
  LabeledSet set;
  set.count = 3;
  set.features = 6;
  for (int i = 0; i < 18; ++i) set.values.push_back(0.5f * static_cast<float>(i));
  set.labels = {3, 0, 1};
  set.num_classes = 4;
  DataLayout layout = MatchModelToData(
      ProgramWith(Spec("x", DType::kFloat32, {-1, 2, 3}), Spec("y", DType::kFloat32, {-1, 4})), 2, set);
  EXPECT_TRUE(layout.one_hot);
  EXPECT_EQ(layout.classes, 4);
  EXPECT_EQ(layout.input_shape, (std::vector<int64_t>{2, 2, 3}));
  std::vector<int64_t> samples = {2};
  Tensor x = InputBatch(layout, set, samples);
  EXPECT_EQ(x.GetAsDouble(0), 6.0);  // sample 2's first value: 0.5 * 12
  EXPECT_EQ(x.GetAsDouble(5), 8.5);
  EXPECT_EQ(x.GetAsDouble(6), 0.0);  // padding
  Tensor y = TargetBatch(layout, set, samples);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(y.GetAsDouble(1), 1.0);  // class 1
  EXPECT_EQ(y.GetAsDouble(0) + y.GetAsDouble(2) + y.GetAsDouble(3), 0.0);

  std::string error;
  try {
    MatchModelToData(ProgramWith(Spec("x", DType::kFloat32, {-1, 5}), Spec("y", DType::kInt64, {-1})), 2, set);
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "the model's input %x is Tensor((?, 5), float32); a sample has 6 values");
}

TEST(TrainBatches, BatchesCopyRowsAndPad) {
  LabeledSet set;
  set.count = 3;
  set.pixels.resize(3 * 784);
  for (size_t i = 0; i < set.pixels.size(); ++i) set.pixels[i] = static_cast<uint8_t>(i / 784 * 100 + i % 2);
  set.labels = {4, 7, 9};
  DataLayout layout{.batch = 4, .input_shape = {4, 784}, .target_dtype = DType::kInt64, .one_hot = false};
  std::vector<int64_t> samples = {2, 0};
  Tensor x = InputBatch(layout, set, samples);
  EXPECT_EQ(x.shape(), (std::vector<int64_t>{4, 784}));
  EXPECT_EQ(x.data_as<float>()[0], 200.0f / 255.0f);  // sample 2, pixel 0: byte 200
  EXPECT_EQ(x.data_as<float>()[1], 201.0f / 255.0f);
  EXPECT_EQ(x.data_as<float>()[784], 0.0f);           // sample 0, pixel 0: byte 0
  EXPECT_EQ(x.data_as<float>()[785], 1.0f / 255.0f);
  for (int64_t i = 2 * 784; i < 4 * 784; ++i) ASSERT_EQ(x.GetAsDouble(i), 0.0);  // padding
  EXPECT_EQ(PixelValue(255), 1.0f);
  // A reused buffer gets its padding rows cleared.
  std::vector<float> buffer(4 * 784, 7.0f);
  FillInputBatch(set, samples, 4, buffer.data());
  EXPECT_EQ(buffer[3 * 784 + 5], 0.0f);
  EXPECT_EQ(buffer[5], x.data_as<float>()[5]);
  Tensor y = TargetBatch(layout, set, samples);
  EXPECT_EQ(y.GetAsDouble(0), 9);
  EXPECT_EQ(y.GetAsDouble(1), 4);
  layout.one_hot = true;
  layout.target_dtype = DType::kFloat32;
  Tensor hot = TargetBatch(layout, set, samples);
  EXPECT_EQ(hot.shape(), (std::vector<int64_t>{4, 10}));
  EXPECT_EQ(hot.GetAsDouble(9), 1.0);
  EXPECT_EQ(hot.GetAsDouble(10 + 4), 1.0);
  EXPECT_EQ(hot.GetAsDouble(10 + 3), 0.0);
}

}  // namespace
}  // namespace rxt::cli

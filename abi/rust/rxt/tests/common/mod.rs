//! What the integration tests share: the models they train (the C ABI tests' linear backbone,
//! the seed MLP), data, and where the test fixtures are.
#![allow(dead_code)] // each test binary uses part of it

use std::path::PathBuf;

use rxt::TensorRef;
#[cfg(feature = "compiler")]
use rxt::{Module, Trainer, TrainerOptions};

/// tests/abi/linear_backbone.h's model: 4 samples, 3 features, 2 outputs; parameters w and b.
pub const LINEAR_BACKBONE: &str = "attributes {param_num = 2, state_num = 0}
def @backbone(%x: Tensor((4, 3), float32), %w: Tensor((3, 2), float32), %b: Tensor((2,), float32))
    -> Tensor((4, 2), float32) {
  dataflow {
    %h = matmul(%x, %w)
    %out = add(%h, %b)
    output %out
  }
  return %out
}
";

/// The seed MLP (784-128-128-10, batch 64), examples/mlp.rxt of this repository.
pub const SEED_MLP: &str = include_str!("../../../../../examples/mlp.rxt");

/// A trainer of the linear backbone with MSE (sum) on |backend|.
#[cfg(feature = "compiler")]
pub fn linear_trainer(backend: &str, optimizer: &str, optimizer_options: &str) -> Trainer {
    let module = Module::parse(LINEAR_BACKBONE, "linear.rxt").expect("the linear backbone parses");
    let mut options = TrainerOptions::new("mse", optimizer);
    options.backend = Some(backend.to_string());
    options.loss_options = Some("reduction=\"sum\"".to_string());
    options.optimizer_options = Some(optimizer_options.to_string());
    Trainer::new(&module, &options).expect("a trainer of the linear backbone")
}

/// |count| values start, start + step, ... (as trainer_test.c's tensor_ramp).
pub fn ramp(count: usize, start: f32, step: f32) -> Vec<f32> {
    (0..count).map(|i| start + i as f32 * step).collect()
}

/// The linear backbone's x (4, 3) and y (4, 2) of trainer_test.c.
pub fn linear_data() -> (Vec<f32>, Vec<f32>) {
    (ramp(12, -0.5, 0.1), ramp(8, 0.3, -0.07))
}

pub fn linear_inputs<'a>(x: &'a [f32], y: &'a [f32]) -> (TensorRef<'a>, TensorRef<'a>) {
    (TensorRef::new(x, &[4, 3]).unwrap(), TensorRef::new(y, &[4, 2]).unwrap())
}

/// A batch of 64 images (784 pixels) in 10 classes that an MLP can learn: class c lights the
/// c-th band of 78 pixels, over deterministic noise. Labels are int64, as cross_entropy takes.
pub fn synthetic_batch(seed: u64) -> (Vec<f32>, Vec<i64>) {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut noise = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32 * 0.3
    };
    let labels: Vec<i64> = (0..64).map(|i| ((i as u64 + seed) % 10) as i64).collect();
    let mut images = Vec::with_capacity(64 * 784);
    for &label in &labels {
        for pixel in 0..784 {
            let band = pixel / 78 == label as usize;
            images.push(if band { 1.0 } else { 0.0 } + noise());
        }
    }
    (images, labels)
}

/// A file name in this test run's scratch directory.
pub fn temp_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// The test plugins of the C++ build (tests/plugins/CMakeLists.txt: bad/test_wrong_abi.so...):
/// $RXT_TEST_PLUGIN_DIR (which ctest sets), else the source tree's build/dev.
pub fn test_plugin_dir() -> PathBuf {
    let dir = match std::env::var_os("RXT_TEST_PLUGIN_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../build/dev/tests/plugins/fixtures"),
    };
    assert!(
        dir.join("bad/test_wrong_abi.so").exists(),
        "no test plugins in {}: build the C++ tree's tests and set RXT_TEST_PLUGIN_DIR",
        dir.display()
    );
    dir
}

/// The `rxt` command of the C++ build, which makes the trainer files and executables the
/// runtime-only tests load: $RXT_CLI (which ctest sets), else bin/rxt beside $RXT_LIB_DIR's lib/
/// (a build or installation tree), else the source tree's build/dev.
pub fn rxt_command() -> PathBuf {
    let beside_lib =
        std::env::var_os("RXT_LIB_DIR").filter(|d| !d.is_empty()).map(|d| PathBuf::from(d).join("../bin/rxt"));
    let command = match std::env::var_os("RXT_CLI") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => beside_lib
            .filter(|p| p.exists())
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../build/dev/bin/rxt")),
    };
    assert!(command.exists(), "no rxt command at {}: build the C++ tree and set RXT_CLI", command.display());
    command
}

/// Runs `rxt build ARGS...` (the compiler, in its own process); fails the test if it fails.
pub fn rxt_build(args: &[&std::ffi::OsStr]) {
    let output = std::process::Command::new(rxt_command()).arg("build").args(args).output().expect("running rxt");
    assert!(output.status.success(), "rxt build {:?} failed:\n{}", args, String::from_utf8_lossy(&output.stderr));
}

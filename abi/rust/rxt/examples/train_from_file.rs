//! Goes on training from a trainer file with the runtime alone (docs/deploy.md): built without
//! the `compiler` feature, the program links librxt_runtime.so, with no compiler and no LLVM.
//!
//!   cargo run --no-default-features --example train_from_file -- TRAINER.rxtt OUT.rxtt
//!       [--steps 100] [--batch 64] [--data DIR]
//!
//! Trains STEPS steps on batches of Fashion-MNIST's first training images (in order, starting
//! again at the first image when they run out), printing each step's loss, and saves the trainer
//! to OUT.rxtt. Built without the feature, it then fails if the process maps libLLVM, librxt.so
//! or a backend plugin, as tests/abi/runtime/train_from_file.c --no-compiler does. A trainer file
//! comes from `rxt build MODEL.rxt --trainer --library none -o TRAINER.rxtt` (no plugin needed
//! to train it) or from `Trainer::save`.

// The examples' shared code but the training loop (common/training.rs), which makes trainers with
// the compiler.
#[path = "common/args.rs"]
mod args;
#[path = "common/fashion_mnist.rs"]
mod fashion_mnist;
#[path = "common/gzip.rs"]
mod gzip;

use std::path::PathBuf;

use args::Args;
use rxt::{TensorKind, TensorRef, Trainer};

/// What /proc/self/maps must not name when the program runs on the runtime alone.
#[cfg(not(feature = "compiler"))]
const COMPILER_LIBRARIES: [&str; 3] = ["libLLVM", "/librxt.so", "rxt_backend_"];

fn train() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse(&["steps", "batch", "data"])?;
    let (trainer_file, out) = match args.positional.as_slice() {
        [trainer_file, out] => (PathBuf::from(trainer_file), PathBuf::from(out)),
        _ => return Err("usage: train_from_file TRAINER.rxtt OUT.rxtt [--steps N] [--batch B] [--data DIR]".into()),
    };
    let steps: usize = args.get("steps", 100)?;
    let batch: usize = args.get("batch", 64)?;
    if steps == 0 || batch == 0 {
        return Err("--steps and --batch must be positive".into());
    }
    let data = PathBuf::from(args.text("data").unwrap_or_else(|| fashion_mnist::DEBIAN_DIR.to_string()));
    let samples = fashion_mnist::load(&data, "train", steps * batch)?;
    if samples.len() < batch {
        return Err(format!("{} holds fewer than {} training images", data.display(), batch).into());
    }

    let mut trainer = Trainer::load(&trainer_file, None)?;
    println!(
        "rxt {}: trainer file {} at step {}, parameters {:?}",
        rxt::version(),
        trainer_file.display(),
        trainer.step()?,
        trainer.names(TensorKind::Params)?
    );
    let batches = samples.len() / batch;
    for index in (0..batches).cycle().take(steps) {
        let (start, end) = (index * batch, (index + 1) * batch);
        let images = TensorRef::new(&samples.images[start * 784..end * 784], &[batch as i64, 784])?;
        let labels = TensorRef::new(&samples.labels[start..end], &[batch as i64])?;
        let loss = trainer.update(&[images], &[labels])?;
        println!("step {} loss {:.6}", trainer.step()?, loss);
    }
    trainer.save(&out)?;
    println!("saved the trainer to {} (step {})", out.display(), trainer.step()?);
    check_runtime_alone()
}

/// Without the compiler feature: fails if the process maps any of COMPILER_LIBRARIES.
#[cfg(not(feature = "compiler"))]
fn check_runtime_alone() -> Result<(), Box<dyn std::error::Error>> {
    let maps = std::fs::read_to_string("/proc/self/maps")?;
    if let Some(line) = maps.lines().find(|line| COMPILER_LIBRARIES.iter().any(|name| line.contains(name))) {
        return Err(format!("the process maps the compiler or LLVM: {}", line).into());
    }
    if !maps.contains("/librxt_runtime.so") {
        return Err("the process does not map librxt_runtime.so".into());
    }
    println!("the process maps librxt_runtime.so alone: no libLLVM, no librxt.so, no backend plugin");
    Ok(())
}

/// With the compiler feature the program links librxt.so: nothing to check.
#[cfg(feature = "compiler")]
fn check_runtime_alone() -> Result<(), Box<dyn std::error::Error>> {
    println!("built with the compiler feature (librxt.so): build with --no-default-features for the runtime alone");
    Ok(())
}

fn main() {
    // Errors as rxt's messages say them ("not found: ..."), exit code 1.
    if let Err(error) = train() {
        eprintln!("train_from_file: error: {}", error);
        std::process::exit(1);
    }
}

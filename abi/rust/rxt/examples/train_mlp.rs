//! Trains the seed MLP (examples/mlp.rxt, 784-128-128-10) on Fashion-MNIST through rxt's C ABI
//! and prints the loss and test accuracy of each epoch:
//!
//!   cargo run --example train_mlp -- [--train N] [--test N] [--epochs E] [--optimizer adam]
//!       [--lr 0.001] [--backend cpu] [--data DIR] [--model backbone.rxt | trainer.rxtt]
//!       [--save-trainer out.rxtt] [--min-accuracy A] [--seed S]
//!
//! `--model x.rxtt` goes on from a trainer file (`--save-trainer` writes one).
mod common;

use common::args::Args;
use common::training::{run, Settings, OPTIONS};

fn train() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse(OPTIONS)?;
    if !args.positional.is_empty() {
        return Err(format!("unexpected arguments {:?}", args.positional).into());
    }
    run(&Settings::from_args(&args, "adam", 0.001)?)?;
    Ok(())
}

fn main() {
    // Errors as rxt's messages say them ("not found: ..."), exit code 1.
    if let Err(error) = train() {
        eprintln!("train_mlp: error: {}", error);
        std::process::exit(1);
    }
}

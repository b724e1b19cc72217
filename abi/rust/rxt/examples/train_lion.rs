//! Loads the Lion optimizer plugin (examples/plugins/lion, built outside rxt's tree) and trains
//! the seed MLP on Fashion-MNIST with `optimizer = "lion"`:
//!
//!   cargo run --example train_lion -- path/to/lion.so [the options of train_mlp]
//!
//! Lion wants a learning rate 3-10x smaller than Adam's: 0.0003 by default.
mod common;

use common::args::Args;
use common::training::{run, Settings, OPTIONS};
use rxt::PluginItemKind;

fn train() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse(OPTIONS)?;
    let plugin = match args.positional.as_slice() {
        [plugin] => plugin,
        _ => return Err("usage: train_lion LION_PLUGIN.so [--train N] [--epochs E] ...".into()),
    };
    rxt::load_plugin(plugin)?;
    if !rxt::plugin_items(PluginItemKind::Optimizer)?.iter().any(|optimizer| optimizer.name == "lion") {
        return Err(format!("{} provides no optimizer 'lion'", plugin).into());
    }
    for lion in rxt::plugins()?.iter().filter(|p| p.name == "lion") {
        println!(
            "plugin {} {} (plugin ABI {}) from {}",
            lion.name,
            lion.version,
            lion.abi_version,
            lion.path.display()
        );
    }
    run(&Settings::from_args(&args, "lion", 0.0003)?)?;
    Ok(())
}

fn main() {
    // Errors as rxt's messages say them ("not found: ..."), exit code 1.
    if let Err(error) = train() {
        eprintln!("train_lion: error: {}", error);
        std::process::exit(1);
    }
}

//! What both examples do: make a trainer (the seed MLP from its text, another backbone, or a
//! trainer file), train it on the first images of Fashion-MNIST, print the loss and the test
//! accuracy of each epoch, and save it as a trainer file if asked.
use std::error::Error;
use std::path::PathBuf;

use rxt::{Module, TensorKind, TensorRef, Trainer, TrainerOptions};

use super::args::Args;
use super::fashion_mnist::{self, Samples};

/// The seed MLP of this repository (784-128-128-10, batch 64).
const SEED_MLP: &str = include_str!("../../../../../examples/mlp.rxt");
const BATCH: usize = 64;

/// The options both examples take.
pub const OPTIONS: &[&str] =
    &["data", "train", "test", "epochs", "backend", "optimizer", "lr", "model", "save-trainer", "min-accuracy", "seed"];

pub struct Settings {
    pub data: PathBuf,
    pub train: usize,
    pub test: usize,
    pub epochs: usize,
    pub backend: Option<String>,
    pub optimizer: String,
    pub lr: f64,
    /// A backbone (.rxt) or a trainer file (.rxtt); None: the seed MLP.
    pub model: Option<PathBuf>,
    pub save_trainer: Option<PathBuf>,
    /// Fail (exit 1) below this test accuracy.
    pub min_accuracy: Option<f64>,
    pub seed: u64,
}

impl Settings {
    pub fn from_args(args: &Args, optimizer: &str, lr: f64) -> Result<Settings, String> {
        Ok(Settings {
            data: PathBuf::from(args.text("data").unwrap_or_else(|| fashion_mnist::DEBIAN_DIR.to_string())),
            train: args.get("train", 60000)?,
            test: args.get("test", 10000)?,
            epochs: args.get("epochs", 1)?,
            backend: args.text("backend"),
            optimizer: args.text("optimizer").unwrap_or_else(|| optimizer.to_string()),
            lr: args.get("lr", lr)?,
            model: args.text("model").map(PathBuf::from),
            save_trainer: args.text("save-trainer").map(PathBuf::from),
            min_accuracy: args
                .text("min-accuracy")
                .map(|a| a.parse().map_err(|_| "--min-accuracy: a number"))
                .transpose()?,
            seed: args.get("seed", 0)?,
        })
    }
}

/// A new trainer of a backbone with cross entropy and the optimizer, or one from a trainer file.
fn make_trainer(settings: &Settings) -> rxt::Result<Trainer> {
    if let Some(path) = settings.model.as_ref().filter(|p| p.extension().map_or(false, |e| e == "rxtt")) {
        println!("trainer file {} (its own loss, optimizer, values and step count)", path.display());
        return Trainer::load(path, None);
    }
    let module = match &settings.model {
        Some(path) => Module::from_file(path)?,
        None => Module::parse(SEED_MLP, "mlp.rxt")?,
    };
    let mut options = TrainerOptions::new("cross_entropy", &settings.optimizer);
    options.optimizer_options = Some(format!("lr={}", settings.lr));
    options.backend = settings.backend.clone();
    let mut trainer = Trainer::new(&module, &options)?;
    trainer.init_xavier_uniform(settings.seed)?;
    Ok(trainer)
}

fn batch<'a>(samples: &'a Samples, index: usize) -> rxt::Result<(TensorRef<'a>, TensorRef<'a>)> {
    let (start, end) = (index * BATCH, (index + 1) * BATCH);
    let images = TensorRef::new(&samples.images[start * 784..end * 784], &[BATCH as i64, 784])?;
    let labels = TensorRef::new(&samples.labels[start..end], &[BATCH as i64])?;
    Ok((images, labels))
}

/// The fraction of the full batches of |samples| the trainer classifies right.
fn accuracy(trainer: &mut Trainer, samples: &Samples) -> rxt::Result<f64> {
    let (mut correct, batches) = (0, samples.len() / BATCH);
    for index in 0..batches {
        let (images, _) = batch(samples, index)?;
        let logits = trainer.predict(&[images])?;
        let logits = logits[0].as_slice::<f32>()?;
        for (row, label) in logits.chunks(10).zip(&samples.labels[index * BATCH..]) {
            let best = (0..10).fold(0, |best, c| if row[c] > row[best] { c } else { best });
            correct += (best as i64 == *label) as usize;
        }
    }
    Ok(correct as f64 / (batches * BATCH).max(1) as f64)
}

/// Trains as |settings| say; the last test accuracy.
pub fn run(settings: &Settings) -> Result<f64, Box<dyn Error>> {
    let train = fashion_mnist::load(&settings.data, "train", settings.train)?;
    let test = fashion_mnist::load(&settings.data, "t10k", settings.test)?;
    let mut trainer = make_trainer(settings)?;
    println!(
        "rxt {}: {} training and {} test images, batch {}, optimizer state {:?}",
        rxt::version(),
        train.len(),
        test.len(),
        BATCH,
        trainer.names(TensorKind::OptimizerState)?
    );
    let mut last_accuracy = 0.0;
    for epoch in 1..=settings.epochs {
        let batches = train.len() / BATCH;
        let mut total = 0.0;
        for index in 0..batches {
            let (images, labels) = batch(&train, index)?;
            total += trainer.update(&[images], &[labels])?;
        }
        last_accuracy = accuracy(&mut trainer, &test)?;
        println!(
            "epoch {}: mean loss {:.4}, test accuracy {:.4} (step {}, lr {:.6})",
            epoch,
            total / batches.max(1) as f64,
            last_accuracy,
            trainer.step()?,
            trainer.learning_rate()?
        );
    }
    if let Some(path) = &settings.save_trainer {
        trainer.save(path)?;
        println!("saved the trainer to {}", path.display());
    }
    if let Some(min) = settings.min_accuracy {
        if last_accuracy < min {
            return Err(format!("test accuracy {:.4} is below --min-accuracy {}", last_accuracy, min).into());
        }
    }
    Ok(last_accuracy)
}

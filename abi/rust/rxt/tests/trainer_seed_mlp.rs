//! The seed MLP (examples/mlp.rxt: 784-128-128-10, batch 64) with cross entropy and Adam on the
//! cpu backend, trained on a small slice of synthetic images: the loss goes down, predictions
//! learn the classes, the parameters read back, and a trainer file goes on bit for bit.
mod common;

use common::{synthetic_batch, temp_path, SEED_MLP};
use rxt::{Module, TensorKind, TensorRef, Trainer, TrainerOptions};

fn seed_mlp_trainer() -> Trainer {
    let module = Module::parse(SEED_MLP, "mlp.rxt").unwrap();
    let mut options = TrainerOptions::new("cross_entropy", "adam");
    options.backend = Some("cpu".to_string());
    options.optimizer_options = Some("lr=0.001".to_string());
    let mut trainer = Trainer::new(&module, &options).unwrap();
    trainer.init_xavier_uniform(0).unwrap();
    trainer
}

fn update(trainer: &mut Trainer, (images, labels): &(Vec<f32>, Vec<i64>)) -> f64 {
    let x = TensorRef::new(images, &[64, 784]).unwrap();
    let y = TensorRef::new(labels, &[64]).unwrap();
    trainer.update(&[x], &[y]).unwrap()
}

/// The fraction of |batch| whose largest logit is its label.
fn accuracy(trainer: &mut Trainer, (images, labels): &(Vec<f32>, Vec<i64>)) -> f64 {
    let logits = trainer.predict(&[TensorRef::new(images, &[64, 784]).unwrap()]).unwrap();
    assert_eq!(logits[0].shape(), [64, 10]);
    let logits = logits[0].as_slice::<f32>().unwrap();
    let correct = labels
        .iter()
        .enumerate()
        .filter(|(i, label)| {
            let row = &logits[i * 10..i * 10 + 10];
            let best = (0..10).fold(0, |best, c| if row[c] > row[best] { c } else { best });
            best as i64 == **label
        })
        .count();
    correct as f64 / 64.0
}

#[test]
fn training_on_a_small_slice_reduces_the_loss() {
    let mut trainer = seed_mlp_trainer();
    let batches: Vec<_> = (0..4).map(synthetic_batch).collect();
    let held_out = synthetic_batch(99);
    let x = TensorRef::new(&held_out.0, &[64, 784]).unwrap();
    let y = TensorRef::new(&held_out.1, &[64]).unwrap();
    let before = trainer.evaluate(&[x], &[y]).unwrap();
    let mut losses = Vec::new();
    for _ in 0..3 {
        for batch in &batches {
            losses.push(update(&mut trainer, batch));
        }
    }
    let x = TensorRef::new(&held_out.0, &[64, 784]).unwrap();
    let y = TensorRef::new(&held_out.1, &[64]).unwrap();
    let after = trainer.evaluate(&[x], &[y]).unwrap();
    assert!(after < before * 0.5, "held-out loss {} -> {} (steps: {:?})", before, after, losses);
    assert!(losses.last().unwrap() < &(losses[0] * 0.5), "{:?}", losses);
    assert_eq!(trainer.step().unwrap(), 12);
    let accuracy = accuracy(&mut trainer, &held_out);
    assert!(accuracy > 0.8, "held-out accuracy {}", accuracy);
}

#[test]
fn parameters_read_back() {
    let mut trainer = seed_mlp_trainer();
    assert_eq!(trainer.names(TensorKind::Params).unwrap(), ["w0", "b0", "w1", "b1", "w2", "b2"]);
    let w2 = trainer.get_by_name(TensorKind::Params, "w2").unwrap();
    assert_eq!(w2.shape(), [128, 10]);
    let values: Vec<f32> = (0..1280).map(|i| (i % 17) as f32 * 0.01).collect();
    trainer.set_by_name(TensorKind::Params, "w2", &TensorRef::new(&values, &[128, 10]).unwrap()).unwrap();
    let back = trainer.get(TensorKind::Params, 4).unwrap();
    assert_eq!(back.as_slice::<f32>().unwrap(), values.as_slice());
    // Out without copies: the slice is the tensor's own memory.
    assert_eq!(back.as_slice::<f32>().unwrap().as_ptr() as *const u8, back.data_ptr() as *const u8);
    assert_ne!(back.as_slice::<f32>().unwrap(), w2.as_slice::<f32>().unwrap());
}

#[test]
fn trainer_file_round_trip_gives_bit_identical_params() {
    let mut trainer = seed_mlp_trainer();
    let batches: Vec<_> = (0..2).map(synthetic_batch).collect();
    update(&mut trainer, &batches[0]);
    let path = temp_path("seed_mlp.rxtt");
    trainer.save(&path).unwrap();
    let mut loaded = Trainer::load(&path, None).unwrap();
    assert_eq!(loaded.step().unwrap(), 1);
    for batch in &batches {
        let a = update(&mut trainer, batch);
        assert_eq!(a.to_bits(), update(&mut loaded, batch).to_bits());
    }
    for index in 0..6 {
        let a = trainer.get(TensorKind::Params, index).unwrap();
        let b = loaded.get(TensorKind::Params, index).unwrap();
        let bits = |t: &rxt::Tensor| t.as_slice::<f32>().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a), bits(&b), "param {}", trainer.name(TensorKind::Params, index).unwrap());
    }
}

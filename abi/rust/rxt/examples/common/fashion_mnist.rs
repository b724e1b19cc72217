//! Fashion-MNIST's IDX files (Debian's dataset-fashion-mnist: /usr/share/datasets/fashion-mnist,
//! gzip-compressed), the first `limit` samples of a split: pixels / 255 as float32 rows of 784,
//! labels 0..9 as int64 (what cross_entropy takes).
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::gzip::GzFile;

/// Where Debian's dataset-fashion-mnist puts the files (`dpkg -L dataset-fashion-mnist`).
pub const DEBIAN_DIR: &str = "/usr/share/datasets/fashion-mnist";

pub struct Samples {
    pub images: Vec<f32>,
    pub labels: Vec<i64>,
}

impl Samples {
    pub fn len(&self) -> usize {
        self.labels.len()
    }
}

fn error(path: &Path, what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{}: {}", path.display(), what))
}

/// |name|.gz in |dir|, else |name| uncompressed.
fn find(dir: &Path, name: &str) -> io::Result<PathBuf> {
    for candidate in [format!("{}.gz", name), name.to_string()] {
        if dir.join(&candidate).is_file() {
            return Ok(dir.join(candidate));
        }
    }
    let message = format!(
        "Fashion-MNIST not found: no {} in {} (install Debian's dataset-fashion-mnist, or pass --data DIR)",
        name,
        dir.display()
    );
    Err(io::Error::new(io::ErrorKind::NotFound, message))
}

/// The dims of an IDX file of unsigned bytes, and a reader at its data.
fn open_idx(path: &Path, rank: usize) -> io::Result<(Vec<usize>, GzFile)> {
    let mut file = GzFile::open(path).map_err(|e| error(path, e.to_string()))?;
    let mut magic = [0u8; 4];
    file.read_exact(&mut magic)?;
    if magic[0] != 0 || magic[1] != 0 || magic[2] != 0x08 || magic[3] as usize != rank {
        return Err(error(path, format!("not an IDX file of rank {} bytes (magic {:?})", rank, magic)));
    }
    let mut dims = Vec::new();
    for _ in 0..rank {
        let mut dim = [0u8; 4];
        file.read_exact(&mut dim)?;
        dims.push(u32::from_be_bytes(dim) as usize);
    }
    Ok((dims, file))
}

/// The first |limit| samples of |split| ("train" or "t10k").
pub fn load(dir: &Path, split: &str, limit: usize) -> io::Result<Samples> {
    let images_path = find(dir, &format!("{}-images-idx3-ubyte", split))?;
    let labels_path = find(dir, &format!("{}-labels-idx1-ubyte", split))?;
    let (dims, mut images) = open_idx(&images_path, 3)?;
    if dims[1..] != [28, 28] {
        return Err(error(&images_path, format!("expected N x 28 x 28 images, got {:?}", dims)));
    }
    let (label_dims, mut labels) = open_idx(&labels_path, 1)?;
    if label_dims[0] != dims[0] {
        return Err(error(&labels_path, format!("{} labels for {} images", label_dims[0], dims[0])));
    }
    let count = limit.min(dims[0]);
    let mut pixels = vec![0u8; count * 784];
    images.read_exact(&mut pixels)?;
    let mut classes = vec![0u8; count];
    labels.read_exact(&mut classes)?;
    if let Some(bad) = classes.iter().find(|c| **c > 9) {
        return Err(error(&labels_path, format!("label {} is not a class 0..9", bad)));
    }
    Ok(Samples {
        images: pixels.iter().map(|p| *p as f32 / 255.0).collect(),
        labels: classes.iter().map(|c| *c as i64).collect(),
    })
}

//! Shared by the examples (cargo builds each examples/*.rs; this directory is not one).
pub mod args;
pub mod fashion_mnist;
pub mod gzip;
pub mod training;

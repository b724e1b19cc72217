//! Element types: DLPack's (code, bits, lanes) and the Rust types whose slices cross as tensors.
use std::fmt;

use rxt_sys as sys;

/// A DLPack data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

impl DataType {
    pub(crate) fn to_dlpack(self) -> sys::DLDataType {
        sys::DLDataType { code: self.code, bits: self.bits, lanes: self.lanes }
    }

    pub(crate) fn from_dlpack(dtype: sys::DLDataType) -> DataType {
        DataType { code: dtype.code, bits: dtype.bits, lanes: dtype.lanes }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        (self.bits as usize * self.lanes as usize + 7) / 8
    }
}

/// rxt's names: float32, int64, bool...
impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.code {
            sys::kDLInt => "int",
            sys::kDLUInt => "uint",
            sys::kDLFloat => "float",
            sys::kDLBfloat => "bfloat",
            sys::kDLBool => return f.write_str("bool"),
            _ => "code",
        };
        write!(f, "{}{}", kind, self.bits)?;
        if self.lanes != 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type whose values are a DLPack type's, bit for bit: what a `TensorRef` borrows and a
/// `Tensor` hands out. Sealed: only the plain numbers below.
pub trait Element: Copy + Send + Sync + 'static + sealed::Sealed {
    const DTYPE: DataType;
}

macro_rules! element {
    ($($t:ty => $code:expr, $bits:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DataType = DataType { code: $code, bits: $bits, lanes: 1 };
        }
    )*};
}

element! {
    f32 => sys::kDLFloat, 32;
    f64 => sys::kDLFloat, 64;
    i8 => sys::kDLInt, 8;
    i16 => sys::kDLInt, 16;
    i32 => sys::kDLInt, 32;
    i64 => sys::kDLInt, 64;
    u8 => sys::kDLUInt, 8;
    u16 => sys::kDLUInt, 16;
    u32 => sys::kDLUInt, 32;
    u64 => sys::kDLUInt, 64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sizes() {
        assert_eq!(f32::DTYPE.to_string(), "float32");
        assert_eq!(i64::DTYPE.to_string(), "int64");
        assert_eq!(u8::DTYPE.to_string(), "uint8");
        assert_eq!(DataType { code: sys::kDLBool, bits: 8, lanes: 1 }.to_string(), "bool");
        assert_eq!(f64::DTYPE.size(), 8);
        assert_eq!(i16::DTYPE.size(), 2);
    }
}

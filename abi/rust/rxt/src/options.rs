//! Option structs (`rxt_*_options_t`): rxt's defaults, at the size this crate knows.
use std::mem::{size_of, MaybeUninit};

/// The defaults `init` fills in, with `struct_size` set to rxt-sys's size of the struct.
///
/// rxt.h's `_init` functions take no size and write the library's own struct: a newer librxt
/// with fields appended writes past ours. So `init` writes into a zeroed struct with room to
/// spare, of which ours is the start; the rest is dropped, and with our `struct_size` rxt uses
/// its defaults for those fields (docs/abi.md, "Option structs and growth").
pub(crate) fn defaults<T: Copy>(init: unsafe extern "C" fn(*mut T)) -> T {
    #[repr(C)]
    struct Room<T> {
        known: T,
        newer_fields: [u64; 64],
    }
    let mut room = MaybeUninit::<Room<T>>::zeroed();
    unsafe {
        init(room.as_mut_ptr() as *mut T);
        let mut options = (room.as_ptr() as *const T).read();
        // Every option struct starts with `size_t struct_size`.
        (&mut options as *mut T as *mut usize).write(size_of::<T>());
        options
    }
}

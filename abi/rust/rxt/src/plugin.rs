//! The plugin search path, and rxt's listings: loaded plugins, what they provide, ops and passes
//! (the compiler's plugin host: feature `compiler`). Loading one plugin is in context.rs: the
//! runtime does that too.
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};
use std::path::PathBuf;
use std::ptr::addr_of;

use rxt_sys as sys;

use crate::error::{check, Result};
use crate::text::borrowed;

/// Loads every plugin of the search path (RXT_PLUGIN_PATH, then the installation's plugin
/// directory). Good plugins stay loaded when others fail; the error lists every failure.
pub fn load_plugin_search_path() -> Result<()> {
    check(unsafe { sys::rxt_plugins_load_search_path() })
}

/// A loaded plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginInfo {
    pub name: String,
    pub version: String,
    /// The file it was loaded from.
    pub path: PathBuf,
    /// The plugin ABI version it speaks.
    pub abi_version: u32,
    pub num_optimizers: usize,
    pub num_losses: usize,
    pub num_gradients: usize,
    pub num_backends: usize,
}

/// An item of a listing: a name and its one-line summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedItem {
    pub name: String,
    pub summary: String,
}

/// What plugins provide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PluginItemKind {
    Optimizer,
    Loss,
    /// Gradient rules, named after their op.
    Gradient,
    Backend,
}

/// The plugins loaded into the default context, in load order.
pub fn plugins() -> Result<Vec<PluginInfo>> {
    collect_plugins(|visit, user_data| unsafe { sys::rxt_plugins_list(visit, user_data) })
}

/// Every registered item of |kind|, sorted by name.
pub fn plugin_items(kind: PluginItemKind) -> Result<Vec<NamedItem>> {
    let kind = match kind {
        PluginItemKind::Optimizer => sys::RXT_PLUGIN_OPTIMIZER,
        PluginItemKind::Loss => sys::RXT_PLUGIN_LOSS,
        PluginItemKind::Gradient => sys::RXT_PLUGIN_GRADIENT,
        PluginItemKind::Backend => sys::RXT_PLUGIN_BACKEND,
    };
    collect_names(|visit, user_data| unsafe { sys::rxt_plugin_items_list(kind, visit, user_data) })
}

/// Every registered op, sorted by name, with its summary.
pub fn ops() -> Result<Vec<NamedItem>> {
    collect_names(|visit, user_data| unsafe { sys::rxt_ops_list(visit, user_data) })
}

/// Every pass `Module::run_passes` takes, with its summary.
pub fn passes() -> Result<Vec<NamedItem>> {
    collect_names(|visit, user_data| unsafe { sys::rxt_passes_list(visit, user_data) })
}

// ---- Visitors: each pushes a copy (the strings live during the call only) onto a Vec passed
// as user_data. A panic must not unwind into C: it stops the listing instead.

unsafe extern "C" fn visit_name(user_data: *mut c_void, name: *const c_char, summary: *const c_char) -> c_int {
    let items = &mut *(user_data as *mut Vec<NamedItem>);
    let item = NamedItem { name: borrowed(name), summary: borrowed(summary) };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| items.push(item))).map_or(1, |_| 0)
}

pub(crate) fn collect_names(
    list: impl FnOnce(sys::rxt_name_visitor_t, *mut c_void) -> sys::rxt_status_t,
) -> Result<Vec<NamedItem>> {
    let mut items: Vec<NamedItem> = Vec::new();
    check(list(Some(visit_name), &mut items as *mut Vec<NamedItem> as *mut c_void))?;
    Ok(items)
}

/// Reads |info|'s field at |field| if the library's struct_size covers it (a struct passed out
/// of rxt carries the library's size: an older one may lack fields).
unsafe fn covered<T: Copy + Default>(info: *const sys::rxt_plugin_info_t, field: *const T) -> T {
    let end = field as usize + std::mem::size_of::<T>() - info as usize;
    if end <= (*info).struct_size {
        *field
    } else {
        T::default()
    }
}

unsafe extern "C" fn visit_plugin(user_data: *mut c_void, info: *const sys::rxt_plugin_info_t) -> c_int {
    let plugins = &mut *(user_data as *mut Vec<PluginInfo>);
    let text = |field: *const *const c_char| borrowed(covered(info, field as *const usize) as *const c_char);
    let plugin = PluginInfo {
        name: text(addr_of!((*info).name)),
        version: text(addr_of!((*info).version)),
        path: PathBuf::from(text(addr_of!((*info).path))),
        abi_version: covered(info, addr_of!((*info).abi_version)),
        num_optimizers: covered(info, addr_of!((*info).num_optimizers)),
        num_losses: covered(info, addr_of!((*info).num_losses)),
        num_gradients: covered(info, addr_of!((*info).num_gradients)),
        num_backends: covered(info, addr_of!((*info).num_backends)),
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| plugins.push(plugin))).map_or(1, |_| 0)
}

pub(crate) fn collect_plugins(
    list: impl FnOnce(sys::rxt_plugin_visitor_t, *mut c_void) -> sys::rxt_status_t,
) -> Result<Vec<PluginInfo>> {
    let mut plugins: Vec<PluginInfo> = Vec::new();
    check(list(Some(visit_plugin), &mut plugins as *mut Vec<PluginInfo> as *mut c_void))?;
    Ok(plugins)
}

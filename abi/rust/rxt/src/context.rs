//! Contexts: the plugins, kernel threads and log that the executables, VMs and trainers made in
//! them use (docs/abi.md, "Contexts").
use std::ffi::c_void;
use std::os::raw::c_char;
use std::path::{Path, PathBuf};
use std::ptr::{self, NonNull};

use rxt_sys as sys;

use crate::error::{check, Result};
use crate::options::defaults;
#[cfg(feature = "compiler")]
use crate::plugin::{collect_plugins, PluginInfo};
use crate::text::{borrowed, c_path};

/// How serious a log message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Warning,
    Error,
}

/// A log function: (level, source: the plugin's name or "rxt", message). Called from any thread
/// using the context; it must not call back into the context. A plain `fn` (no captures): rxt
/// keeps its pointer as long as the context lives and has no hook telling when that ends.
pub type LogFn = fn(LogLevel, &str, &str);

/// What `Context::new` makes. `Default` is rxt's defaults.
#[derive(Clone)]
pub struct ContextOptions {
    /// Kernel threads, the caller's included; 0: the process pool (RXT_NUM_THREADS or every core).
    pub num_threads: i32,
    /// Load the plugin search path when a build needs something no loaded plugin provides.
    pub search_path: bool,
    /// Plugin files loaded at creation; one that fails fails the creation.
    pub plugins: Vec<PathBuf>,
    /// None: warnings and errors to stderr.
    pub log: Option<LogFn>,
}

// By hand: rustc 1.63 derives no Debug for a higher-ranked fn pointer (LogFn).
impl std::fmt::Debug for ContextOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextOptions")
            .field("num_threads", &self.num_threads)
            .field("search_path", &self.search_path)
            .field("plugins", &self.plugins)
            .field("log", &self.log.map(|log| log as *const ()))
            .finish()
    }
}

impl Default for ContextOptions {
    fn default() -> ContextOptions {
        let c = defaults(sys::rxt_context_options_init);
        ContextOptions { num_threads: c.num_threads, search_path: c.search_path != 0, plugins: Vec::new(), log: None }
    }
}

unsafe extern "C" fn log_trampoline(
    user_data: *mut c_void,
    level: sys::rxt_log_level_t,
    source: *const c_char,
    message: *const c_char,
) {
    // user_data is the LogFn itself (see Context::new).
    let log: LogFn = std::mem::transmute::<*mut c_void, LogFn>(user_data);
    let level = match level {
        sys::RXT_LOG_DEBUG => LogLevel::Debug,
        sys::RXT_LOG_INFO => LogLevel::Info,
        sys::RXT_LOG_WARNING => LogLevel::Warning,
        _ => LogLevel::Error,
    };
    let (source, message) = (borrowed(source), borrowed(message));
    // A panic must not unwind into C.
    let _ = std::panic::catch_unwind(|| log(level, &source, &message));
}

/// Loads the plugin library at |path| into the default context. A file already loaded is a
/// no-op; any error (missing file, not a library, no entry point, another plugin ABI version, a
/// name taken, the plugin declining) leaves nothing of it registered and names the file. Linked
/// with librxt_runtime (no `compiler` feature), only the plugin's extern functions are taken.
pub fn load_plugin(path: impl AsRef<Path>) -> Result<()> {
    let path = c_path(path.as_ref())?;
    check(unsafe { sys::rxt_plugin_load(path.as_ptr()) })
}

/// A context handle (reference counted: `clone` adds a reference).
pub struct Context {
    raw: NonNull<sys::rxt_context_t>,
}

// docs/abi.md, "Contexts": "A context is thread-safe"; retain/release are atomic.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

impl Context {
    /// A new context; fails, creating nothing, if a plugin does not load (the message names it).
    pub fn new(options: &ContextOptions) -> Result<Context> {
        let plugins = options.plugins.iter().map(|p| c_path(p)).collect::<Result<Vec<_>>>()?;
        let plugin_pointers: Vec<*const c_char> = plugins.iter().map(|p| p.as_ptr()).collect();
        let mut c = defaults(sys::rxt_context_options_init);
        c.num_threads = options.num_threads;
        c.search_path = options.search_path as i32;
        c.plugins = if plugin_pointers.is_empty() { ptr::null() } else { plugin_pointers.as_ptr() };
        c.num_plugins = plugin_pointers.len();
        if let Some(log) = options.log {
            c.log = Some(log_trampoline);
            c.log_user_data = log as *mut c_void;
        }
        let mut raw = ptr::null_mut();
        check(unsafe { sys::rxt_context_create(&c, &mut raw) })?;
        Ok(Context::adopt(raw))
    }

    /// The process's default context: the plugins `load_plugin` loads, RXT_NUM_THREADS threads.
    /// (Borrowed from rxt, which never frees it: retain and release do nothing to it.)
    pub fn global() -> Context {
        Context::adopt(unsafe { sys::rxt_context_default() })
    }

    fn adopt(raw: *mut sys::rxt_context_t) -> Context {
        Context { raw: NonNull::new(raw).expect("rxt returned a NULL context on success") }
    }

    pub(crate) fn raw(&self) -> *mut sys::rxt_context_t {
        self.raw.as_ptr()
    }

    /// Loads a plugin into this context only.
    pub fn load_plugin(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = c_path(path.as_ref())?;
        check(unsafe { sys::rxt_context_load_plugin(self.raw(), path.as_ptr()) })
    }

    /// How many threads its kernels use.
    pub fn num_threads(&self) -> Result<i32> {
        let mut count = 0;
        check(unsafe { sys::rxt_context_num_threads(self.raw(), &mut count) })?;
        Ok(count)
    }

    /// The plugins loaded into it, in load order.
    #[cfg(feature = "compiler")]
    pub fn plugins(&self) -> Result<Vec<PluginInfo>> {
        collect_plugins(|visit, user_data| unsafe { sys::rxt_context_plugins_list(self.raw(), visit, user_data) })
    }
}

impl Clone for Context {
    fn clone(&self) -> Context {
        Context::adopt(unsafe { sys::rxt_context_retain(self.raw()) })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe { sys::rxt_context_release(self.raw()) }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Context({:p})", self.raw)
    }
}

"""Plugins: losses, optimizers, gradient rules, backends, importers and kernel libraries are
shared libraries librxt loads (docs/plugins.md). Passes and trainers load the search path by
themselves when they need a plugin; these load more."""
from . import _lib


def load_plugin(path):
    """Loads the plugin library at |path| (rxt.Error naming the problem: wrong ABI, missing file...)."""
    _lib.check(_lib.lib.rxt_plugin_load(str(path).encode()))


def load_search_path():
    """Loads every plugin of the search path: RXT_PLUGIN_PATH, then the installation's."""
    _lib.load_search_path()

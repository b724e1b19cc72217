"""SetupTrainer: the seed's pass turning a backbone module (@backbone, param_num, state_num) into
a trainer module, with a loss and an optimizer of the loaded plugins."""
import ctypes

from .. import _lib
from ..module import Module
from ._named import quoted
from .loss import CategoricalCrossEntropyLoss, CrossEntropyLoss


class SetupTrainer:
    def __init__(self, loss, optimizer, loss_args=None, legalize=True):
        """|loss| (training.loss) and |optimizer| (training.optimizer). |loss_args|, the seed's
        struct info of the backbone's output and of the targets: targets shaped like the output make
        CrossEntropyLoss the probability-target form (resolved_loss); rxt reads the rest from the
        backbone and the loss."""
        self.loss = loss
        self.optimizer = optimizer
        self.loss_args = loss_args
        self.legalize = legalize

    def resolved_loss(self):
        """The loss the trainer runs: CrossEntropyLoss with targets shaped like the output in
        |loss_args| (class probabilities, one-hot, as the seed's data loader gives them) is the
        categorical cross entropy, as torch.nn.CrossEntropyLoss reads such targets."""
        if isinstance(self.loss, CrossEntropyLoss) and self.loss_args and len(self.loss_args) == 2:
            output, targets = self.loss_args
            if tuple(getattr(output, "shape", ())) == tuple(getattr(targets, "shape", ())):
                return CategoricalCrossEntropyLoss(reduction=self.loss.options.get("reduction", "mean"),
                                                   weight=self.loss.options.get("weight"))
        return self.loss

    def __call__(self, module):
        """The trainer module of backbone |module| (a new module; |module| is unchanged)."""
        loss = self.resolved_loss()
        config = {"SetupTrainer.loss": loss.name, "SetupTrainer.optimizer": self.optimizer.name,
                  "SetupTrainer.legalize": "true" if self.legalize else "false"}
        if loss.options_text():
            config["SetupTrainer.loss_options"] = quoted(loss.options_text())
        if self.optimizer.options_text():
            config["SetupTrainer.optimizer_options"] = quoted(self.optimizer.options_text())
        keys, keep_keys = _lib.strings(list(config))
        values, keep_values = _lib.strings(list(config.values()))
        options = _lib.PassOptions()
        _lib.lib.rxt_pass_options_init(ctypes.byref(options))
        options.config_keys, options.config_values, options.num_config = keys, values, len(config)
        _lib.load_search_path()
        names, keep_names = _lib.strings(["SetupTrainer"])
        out = _lib.module_p()
        _lib.check(_lib.lib.rxt_module_run_passes(module.handle, names, 1, ctypes.byref(options), ctypes.byref(out)))
        return Module(out)

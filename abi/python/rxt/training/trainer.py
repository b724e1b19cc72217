"""Trainer: the seed's runtime component. It builds the training step of a backbone (or of a
trainer module SetupTrainer made) once and keeps parameters, model states and optimizer state
resident; update_params runs forward pass, loss, gradients and the optimizer's update in one call.
Arrays go in by DLPack without copies (NumPy, torch, rxt.Tensor); results come back as rxt.Tensor."""
import ctypes

from .. import _dlpack, _lib
from .._borrow import ArgumentSlots
from ..tensor import Tensor, as_tensor


class Trainer:
    def __init__(self, backbone, param_num=None, setup_trainer=None, backend=None, libraries=None,
                 data_parallel=False, bucket_bytes=None, accumulation=False):
        """|backbone|: an rxt.Module with @backbone and the attributes param_num and state_num (or
        a trainer module); |param_num| is checked against the module's when given;
        |setup_trainer| gives the loss and the optimizer. build() compiles it. |data_parallel|
        combines the gradients over the ranks of set_comm's communicator (in allreduce calls of
        at most |bucket_bytes|, default 25 MiB); |accumulation| adds accumulate and
        apply_accumulated (docs/distributed.md)."""
        self.backbone = backbone
        self.param_num = param_num
        self.setup_trainer = setup_trainer
        self.backend = backend
        self.libraries = libraries
        self.data_parallel = data_parallel
        self.bucket_bytes = bucket_bytes
        self.accumulation = accumulation
        self._handle = None
        self._slots = ArgumentSlots()
        self._loss = ctypes.c_double()
        self._loss_ref = ctypes.byref(self._loss)

    def build(self, target="llvm", device=None, backend=None):  # noqa: ARG002 (device: the CPU)
        """Compiles the step. |target| "llvm" is rxt's cpu backend (the seed's spelling);
        "reference" the interpreter; |backend| names one directly."""
        backend = backend or self.backend or {"llvm": "cpu", "cpu": "cpu"}.get(target, target)
        options = _lib.TrainerOptions()
        _lib.lib.rxt_trainer_options_init(ctypes.byref(options))
        keep = []

        def text(value):
            keep.append(value.encode())
            return keep[-1]

        options.backend = text(backend)
        if self.setup_trainer is not None:
            loss = self.setup_trainer.resolved_loss()
            options.loss = text(loss.name)
            options.optimizer = text(self.setup_trainer.optimizer.name)
            if loss.options_text():
                options.loss_options = text(loss.options_text())
            if self.setup_trainer.optimizer.options_text():
                options.optimizer_options = text(self.setup_trainer.optimizer.options_text())
        if self.libraries is not None:
            options.libraries = text(self.libraries)
        options.data_parallel = int(bool(self.data_parallel))
        options.bucket_bytes = int(self.bucket_bytes or 0)
        options.accumulation = int(bool(self.accumulation))
        handle = _lib.trainer_p()
        _lib.check(_lib.lib.rxt_trainer_create(self.backbone.handle, ctypes.byref(options), ctypes.byref(handle)))
        self._release()
        self._handle = handle
        self._num_inputs = len(self._names(_lib.INPUTS))
        if self.param_num is not None and self.param_num != len(self._names(_lib.PARAMS)):
            raise ValueError(f"rxt: param_num is {self.param_num} but the module has "
                             f"{len(self._names(_lib.PARAMS))} parameters")
        return self

    # ---- what the trainer holds

    def _built(self):
        if self._handle is None:
            raise RuntimeError("rxt: the trainer is not built: call build() first")
        return self._handle

    def _names(self, kind):
        count = ctypes.c_size_t()
        _lib.check(_lib.lib.rxt_trainer_count(self._built(), kind, ctypes.byref(count)))
        names = []
        for i in range(count.value):
            name = ctypes.c_void_p()
            _lib.check(_lib.lib.rxt_trainer_name(self._built(), kind, i, ctypes.byref(name)))
            names.append(_lib.take_string(name))
        return names

    @property
    def param_names(self):
        return self._names(_lib.PARAMS)

    @property
    def state_names(self):
        return self._names(_lib.STATES)

    def _get(self, kind):
        out = {}
        for name in self._names(kind):
            managed = ctypes.POINTER(_dlpack.ManagedTensor)()
            _lib.check(_lib.lib.rxt_trainer_get_by_name(self._built(), kind, name.encode(), ctypes.byref(managed)))
            out[name] = Tensor(managed)
        return out

    def _set(self, kind, values):
        for name, value in values.items():
            t = as_tensor(value)
            _lib.check(_lib.lib.rxt_trainer_set_by_name(self._built(), kind, name.encode(), t.managed))

    def export_params(self):
        """{name: rxt.Tensor} copies of the parameters (np.from_dlpack / torch.from_dlpack read them)."""
        return self._get(_lib.PARAMS)

    def load_params(self, params):
        """Sets parameters by name from arrays (copied in); rxt.Error naming a wrong name, shape or dtype."""
        self._set(_lib.PARAMS, params)

    def export_states(self):
        return self._get(_lib.STATES)

    def load_states(self, states):
        self._set(_lib.STATES, states)

    def xavier_uniform_init_params(self, seed=0):
        """Xavier (Glorot) uniform weights and zero biases; zero states and optimizer state."""
        _lib.check(_lib.lib.rxt_trainer_init_xavier_uniform(self._built(), int(seed)))

    # The seed's spelling.
    xaiver_uniform_init_params = xavier_uniform_init_params

    def zero_init_params(self):
        _lib.check(_lib.lib.rxt_trainer_init_zero(self._built(), _lib.PARAMS))

    # ---- running it

    def _split(self, args):
        """The borrowed C arrays of the inputs and of the targets, their counts, and what must
        live until the call returns."""
        handle = self._built()
        inputs, keep = self._slots.fill(args)
        n = min(self._num_inputs, len(args))
        return handle, inputs, n, self._slots.at(n), len(args) - n, keep

    def update_params(self, *args):
        """One training step on the inputs then the targets; the loss before the update (a float,
        with .numpy() as in the seed)."""
        handle, inputs, num_inputs, targets, num_targets, keep = self._split(args)
        _lib.check(_update(handle, inputs, num_inputs, targets, num_targets, self._loss_ref))
        return Loss(self._loss.value)

    update = update_params

    def evaluate(self, *args):
        """The loss on the inputs then the targets, changing nothing."""
        handle, inputs, num_inputs, targets, num_targets, keep = self._split(args)
        loss = ctypes.c_double()
        _lib.check(_lib.lib.rxt_trainer_evaluate(handle, inputs, num_inputs, targets, num_targets, ctypes.byref(loss)))
        return Loss(loss.value)

    def predict(self, *inputs):
        """The backbone's outputs for |inputs|: an rxt.Tensor, or a tuple of them."""
        handle = self._built()
        count = ctypes.c_size_t()
        _lib.check(_lib.lib.rxt_trainer_num_outputs(handle, ctypes.byref(count)))
        outputs = (ctypes.POINTER(_dlpack.ManagedTensor) * max(count.value, 1))()
        got = ctypes.c_size_t()
        arguments, keep = self._slots.fill(inputs)
        _lib.check(_lib.lib.rxt_trainer_predict(handle, arguments, len(inputs), outputs, count.value, ctypes.byref(got)))
        results = [Tensor(outputs[i]) for i in range(got.value)]
        return results[0] if len(results) == 1 else tuple(results)

    def accumulate(self, *args):
        """Forward and backward of one micro-batch (the inputs then the targets), its gradients
        added to the trainer's sums; the micro-batch's loss. Needs accumulation=True."""
        handle, inputs, num_inputs, targets, num_targets, keep = self._split(args)
        loss = ctypes.c_double()
        _lib.check(_lib.lib.rxt_trainer_accumulate(handle, inputs, num_inputs, targets, num_targets,
                                                   ctypes.byref(loss)))
        return Loss(loss.value)

    def apply_accumulated(self):
        """One optimizer step with the accumulated gradients (their mean over the micro-batches
        for a mean loss; combined over the ranks first under data parallelism); the step's loss."""
        loss = ctypes.c_double()
        _lib.check(_lib.lib.rxt_trainer_apply_accumulated(self._built(), ctypes.byref(loss)))
        return Loss(loss.value)

    def set_comm(self, comm):
        """Trains together with the other ranks of |comm| (an rxt.Comm; None: alone). Every rank
        calls it at the same point: all must run the same trainer, and each takes rank 0's values."""
        _lib.check(_lib.lib.rxt_trainer_set_comm(self._built(), comm.handle if comm is not None else None))

    def profile_adjoint(self, *args):
        """One training step with profiling: the time per kernel as text (nothing changes)."""
        handle, inputs, num_inputs, targets, num_targets, keep = self._split(args)
        text = ctypes.c_void_p()
        _lib.check(_lib.lib.rxt_trainer_profile_step(handle, inputs, num_inputs, targets, num_targets,
                                                     ctypes.byref(text)))
        return _lib.take_string(text)

    @property
    def learning_rate(self):
        lr = ctypes.c_double()
        _lib.check(_lib.lib.rxt_trainer_learning_rate(self._built(), ctypes.byref(lr)))
        return lr.value

    @learning_rate.setter
    def learning_rate(self, lr):
        _lib.check(_lib.lib.rxt_trainer_set_learning_rate(self._built(), float(lr)))

    def set_schedule(self, schedule, base_lr):
        """From now on the rate of |schedule| ("step:step_size=N,gamma=G", "cosine:total_steps=N",
        ...; docs/training.md) for |base_lr|."""
        _lib.check(_lib.lib.rxt_trainer_set_schedule(self._built(), schedule.encode(), float(base_lr)))

    def save_checkpoint(self, path):
        _lib.check(_lib.lib.rxt_trainer_save_checkpoint(self._built(), str(path).encode()))

    def load_checkpoint(self, path):
        _lib.check(_lib.lib.rxt_trainer_load_checkpoint(self._built(), str(path).encode()))

    # ---- trainer files (docs/deploy.md): compile once, train anywhere

    def save(self, path, target=None, cpu=None, features=None):
        """Writes the whole trainer (program, kernels compiled ahead of time, values, step count,
        schedule) to one file, atomically. |target| ("aarch64-linux-gnu"), |cpu| ("x86-64") and
        |features| ("+sve") compile the kernels for another machine instead of this one (build
        with libraries="none" for another architecture)."""
        if target is None and cpu is None and features is None:
            _lib.check(_lib.lib.rxt_trainer_save(self._built(), str(path).encode()))
            return
        text = [None if v is None else str(v).encode() for v in (target, cpu, features)]
        _lib.check(_lib.lib.rxt_trainer_save_for_target(self._built(), str(path).encode(), *text))

    @classmethod
    def load(cls, path):
        """The trainer a trainer file holds, going on from where it was saved: its kernels run from
        the file, without compiling anything."""
        handle = _lib.trainer_p()
        _lib.check(_lib.lib.rxt_trainer_load(str(path).encode(), None, ctypes.byref(handle)))
        trainer = cls(None)
        trainer._handle = handle
        trainer._num_inputs = len(trainer._names(_lib.INPUTS))
        return trainer

    def _release(self):
        if self._handle:
            _lib.lib.rxt_trainer_release(self._handle)
        self._handle = None

    def __del__(self):
        self._release()


class Loss(float):
    """A step's loss: a float, with .numpy() (a float32 NumPy scalar) as the seed's code reads it."""

    def numpy(self):
        import numpy as np
        return np.float32(self)


_update = _lib.lib.rxt_trainer_update

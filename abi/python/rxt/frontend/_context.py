"""What a converter of the torch.fx importer works with: the function being built, the values
of the graph's nodes, the module's parameters and states, and the import's options.

A node's value is a Var (an rxt tensor), a Python value (an int, a float, a tuple of them, a
torch.dtype, None...), or a tuple/list mixing them (an op of several results). Converters take
the node's arguments with these values in place of the nodes and return the node's value."""
import numpy as np


class Unsupported(Exception):
    """A node (or an argument combination) the importer has no mapping for; collected and
    reported with every other one."""


class SymDim:
    """A symbolic dim (its text, "n") where torch code asks for a size: reshape takes it as its
    inferred dim; arithmetic on it is not supported (rxt's shapes here are static or the
    inferred one)."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, SymDim) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def _arithmetic(self, *args):
        raise Unsupported(f"arithmetic on the symbolic dim {self.name}")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arithmetic
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __index__ = __int__ = _arithmetic


class Var:
    """A tensor of the function being built (an expression handle of its FunctionBuilder)."""
    __slots__ = ("expr",)

    def __init__(self, expr):
        self.expr = expr


_TORCH_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
                 "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "int64": "int64", "long": "int64",
                 "int32": "int32", "int": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool"}


def dtype_name(torch_dtype):
    """rxt's name of a torch dtype (torch.float32 -> "float32")."""
    name = str(torch_dtype).replace("torch.", "")
    if name not in _TORCH_DTYPES:
        raise Unsupported(f"dtype {torch_dtype}")
    return _TORCH_DTYPES[name]


def tensor_struct_info(dims, dtype):
    """"Tensor((n, 784), float32)" for dims ["n", 784]."""
    shape = ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "")
    return f"Tensor(({shape}), {dtype})"


class Context:
    def __init__(self, builder, options):
        self.b = builder
        self.options = options
        self.training = options["training"]
        self._values = {}          # id(torch tensor) -> Var of a param, state or constant
        self._tensor_of_var = {}   # id(Var) -> the module tensor it is (both kept alive by _values/_keep)
        self._keep = []
        self._state_updates = {}   # state name -> its next value (Var)
        self._state_order = []     # the states' names, as declared
        self._state_values = {}    # state name -> numpy initial value
        self._state_names = {}     # id(torch tensor) -> its state's name
        self._state_vars = {}      # state name -> its Var (the value at the start of the step)
        self.step = None           # the step counter's Var (declared by the first random op)
        self._seeds_taken = 0
        self.tensors_of = None     # qualified name -> torch tensor (the importer sets it)

    # ---- building
    def op(self, name, args, **attrs):
        return Var(self.b.op(name, [a.expr if isinstance(a, Var) else a for a in args], **attrs))

    def item(self, tuple_var, index):
        return Var(self.b.get_item(tuple_var.expr if isinstance(tuple_var, Var) else tuple_var, index))

    def scalar(self, value, dtype):
        return Var(self.b.scalar(value, dtype))

    def shape_value(self, dims):
        return self.b.shape([int(d) for d in dims])

    def constant(self, array):
        return Var(self.b.constant(np.require(array, requirements="C")))

    def tensor(self, value, like=None):
        """|value| as a tensor: a Var as it is, a Python number as a 0-d constant of |like|'s
        dtype (float32 without one)."""
        if isinstance(value, Var):
            return value
        if isinstance(value, (bool, int, float)):
            dtype = self.dtype(like) if like is not None else ("float32" if isinstance(value, float) else "int64")
            return self.scalar(float(value), dtype)
        raise Unsupported(f"a {type(value).__name__} where a tensor is expected")

    # ---- reading
    def dims(self, x):
        """x's dims: ints when static, the text of symbolic ones ("n")."""
        return self.b.dims(x.expr)

    def static_dims(self, x, what):
        dims = self.dims(x)
        if any(not isinstance(d, int) for d in dims):
            raise Unsupported(f"{what} of a tensor with symbolic dims {dims}")
        return dims

    def ndim(self, x):
        return self.b.ndim(x.expr)

    def dtype(self, x):
        return self.b.dtype(x.expr)

    # ---- the module's tensors
    def declare(self, name, tensor, state=False):
        """A parameter of the function for |tensor| (a module's parameter, or a state)."""
        var = Var(self.b.param(name, tensor_struct_info(tensor.shape, dtype_name(tensor.dtype))))
        self._remember(tensor, var)
        if state:
            self._state_names[id(tensor)] = name
            self._state_order.append(name)
            self._state_vars[name] = var
            self._state_values[name] = tensor.detach().cpu().numpy().copy()
        return var

    def states(self):
        """(name, initial value, next value) of each state, in order."""
        return [(n, self._state_values[n], self._state_updates.get(n, self._state_vars.get(n)))
                for n in self._state_order]

    def value_of(self, qualified_name):
        """The Var of the module's parameter or buffer |qualified_name| (a constant if it is
        neither a parameter nor a state)."""
        tensor = self.tensors_of(qualified_name)
        var = self._values.get(id(tensor))
        if var is None:
            var = self.constant(tensor.detach().cpu().numpy())
            self._remember(tensor, var)
        return var

    def _remember(self, tensor, var):
        self._values[id(tensor)] = var
        self._tensor_of_var[id(var)] = tensor
        self._keep.append(tensor)  # ids stay unique while the import runs

    def value_of_tensor(self, tensor):
        """The Var of a module tensor declared or used already."""
        return self._values[id(tensor)]

    def tensor_of_var(self, var):
        """The module tensor whose value |var| is (None if it is no module tensor's)."""
        return self._tensor_of_var.get(id(var)) if isinstance(var, Var) else None

    def is_state(self, tensor):
        return id(tensor) in self._state_names

    def set_state(self, tensor, next_value):
        """The value state |tensor| takes after this step."""
        name = self._state_names[id(tensor)]
        self._state_updates[name] = next_value

    def step_seed(self):
        """A fresh int64 seed for a random op of this step: a step counter state (rxt_step, 0 at
        the start, one more after each step) declared on first use, and step * 2^20 + the op's
        index, so every op of every step draws its own mask (as the ONNX importer does)."""
        if self.step is None:
            name = "rxt_step"
            while name in self._state_names.values():
                name += "_"
            self.step = Var(self.b.param(name, "Tensor((), int64)"))
            self._state_order.append(name)
            self._state_vars[name] = self.step
            self._state_values[name] = np.array(0, dtype=np.int64)
            self._state_updates[name] = self.op("add", [self.step, self.scalar(1, "int64")])
        scaled = self.op("multiply", [self.step, self.scalar(1 << 20, "int64")])
        seed = self.op("add", [scaled, self.scalar(self._seeds_taken, "int64")])
        self._seeds_taken += 1
        return seed

    def dropout(self, x, p, active=True):
        """nn.dropout of rate |p| when training with dropout on (and |active|), else x."""
        if not (active and self.training and self.options["dropout"]) or p == 0:
            return x
        if p >= 1:
            return self.op("zeros_like", [x])
        return self.item(self.op("nn.dropout", [x, self.step_seed()], rate=float(p)), 0)
